/* conclude.c - one conclusion per flow (conclude.h) */
#include "findings/conclude.h"

#include <string.h>

#include "flow/flowtab.h"
#include "infer/quic_infer.h"

void
ew_flow_conclude(const struct ew_flow *f, unsigned what, struct ew_flow_summary *s)
{
    size_t i;
    int d;

    if (what & EW_CONCLUDE_WORDS)
        ew_infer_conclude(f, &s->v);
    else
        ew_infer_conclude_quiet(f, &s->v);
    s->quic = ew_quic_flow_verdict(f, &s->v);
    s->nf = what & EW_CONCLUDE_NO_FINDINGS ? 0 : ew_misuse_find(f, &s->v, s->fnd, EW_FLOW_FINDINGS_MAX);
    s->kinds = 0;
    for (i = 0; i < s->nf; i++)
        s->kinds |= 1u << s->fnd[i].kind;
    s->has_path = (what & EW_CONCLUDE_PATH) != 0;
    if (s->has_path)
        for (d = 0; d < 2; d++)
            ew_infer_path(f, d, &s->v, &s->path[d]);
    s->nev = 0;
    if (what & EW_CONCLUDE_EVIDENCE)
        s->nev = ew_infer_evidence(f, &s->v, s->ev, EW_FLOW_EVIDENCE_MAX);
}
