/* qdhist.h - histograms of queueing delays (EW_QD_BINS bins of half an
 * octave from EW_QD_BIN0_US, infer.h), kept by the inference (per flow) and
 * by the series (per bin of time); the quantiles read from them are what the
 * text, the JSON, the plots and the metrics say of a flow's delay. */
#ifndef ECNWATCH_QDHIST_H
#define ECNWATCH_QDHIST_H

#include <stdint.h>

/* A histogram of queueing delays: bin 0 below EW_QD_BIN0_US, then bins of
 * half an octave (0.25, 0.35, 0.5, 0.71, 1, ... ms), the last one open
 * (from 181 ms). Counts saturate by halving every bin of the histogram, so
 * that its shape is kept: what is read from it are shares and quantiles. */
#define EW_QD_BINS 20
#define EW_QD_BIN0_US 250

/* the bin of a delay (us) */
static inline unsigned
ew_qd_bin(uint32_t us)
{
    uint64_t lo;
    unsigned k, b;

    if (us < EW_QD_BIN0_US)
        return 0;
    if (us > (1u << 30))
        us = 1u << 30;
    k = 31u - (unsigned)__builtin_clz(us / EW_QD_BIN0_US); /* the octave */
    lo = (uint64_t)EW_QD_BIN0_US << k;
    /* its upper half from lo * sqrt(2) */
    b = 1 + 2 * k + ((uint64_t)us * us >= 2 * lo * lo);
    return b < EW_QD_BINS ? b : EW_QD_BINS - 1;
}

/* every bin halved (rounding up: a bin with samples keeps one) */
void ew_qd_halve(uint8_t *h);

/* one sample; a full bin halves every bin, keeping the shape */
static inline void
ew_qd_add(uint8_t *h, uint32_t us)
{
    unsigned b = ew_qd_bin(us);

    if (h[b] == UINT8_MAX)
        ew_qd_halve(h);
    h[b]++;
}
/* h += a, halving both first where a bin would overflow */
void ew_qd_merge(uint8_t *h, const uint8_t *a);
/* the lower and upper edges of bin b, us */
double ew_qd_bin_lo(unsigned b);
double ew_qd_bin_hi(unsigned b);
/* the q-quantile (us), interpolated within its bin; -1 when empty. bin and
 * above (either may be NULL): its bin and the share of that bin's samples
 * above it */
double ew_qd_quantile(const uint8_t *h, double q, unsigned *bin, double *above);

#endif /* ECNWATCH_QDHIST_H */
