/* qdhist.c - histograms of queueing delays (see qdhist.h). */
#include "infer/qdhist.h"

#include <stdbool.h>

/* 2^(k/2): the edges of the half-octave bins, in units of EW_QD_BIN0_US */
static const double half_octave[EW_QD_BINS + 1] = {
    1, 1.414213562, 2, 2.828427125, 4, 5.656854249, 8, 11.31370850, 16, 22.62741700,
    32, 45.25483400, 64, 90.50966799, 128, 181.0193360, 256, 362.0386720, 512, 724.0773439,
    1024,
};

void
ew_qd_halve(uint8_t *h)
{
    unsigned i;

    for (i = 0; i < EW_QD_BINS; i++)
        h[i] = (uint8_t)((h[i] + 1u) / 2u);
}

void
ew_qd_merge(uint8_t *h, const uint8_t *a)
{
    uint8_t b[EW_QD_BINS];
    unsigned i;
    bool over;

    for (i = 0; i < EW_QD_BINS; i++)
        b[i] = a[i];
    do {
        over = false;
        for (i = 0; i < EW_QD_BINS; i++)
            over |= (unsigned)h[i] + b[i] > UINT8_MAX;
        if (over) {
            ew_qd_halve(h);
            ew_qd_halve(b);
        }
    } while (over);
    for (i = 0; i < EW_QD_BINS; i++)
        h[i] = (uint8_t)(h[i] + b[i]);
}

double
ew_qd_bin_lo(unsigned b)
{
    return b == 0 ? 0 : EW_QD_BIN0_US * half_octave[b - 1];
}

double
ew_qd_bin_hi(unsigned b)
{
    return EW_QD_BIN0_US * half_octave[b];
}

double
ew_qd_quantile(const uint8_t *h, double q, unsigned *bin, double *above)
{
    double total = 0, cum = 0, at;
    unsigned b;

    for (b = 0; b < EW_QD_BINS; b++)
        total += h[b];
    if (total <= 0)
        return -1;
    at = q * total;
    for (b = 0; b < EW_QD_BINS; b++) {
        if (h[b] && cum + h[b] >= at) {
            double frac = (at - cum) / h[b];

            if (bin)
                *bin = b;
            if (above)
                *above = 1 - frac;
            return ew_qd_bin_lo(b) + frac * (ew_qd_bin_hi(b) - ew_qd_bin_lo(b));
        }
        cum += h[b];
    }
    return -1;
}
