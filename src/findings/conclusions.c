/* conclusions.c - one pass of conclusions (see conclusions.h) */
#include "base/format.h"
#include "findings/conclusions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/misuse.h"
#include "infer/infer.h"
#include "infer/negotiation.h"

_Static_assert(sizeof(struct ew_conclusion) <= 48, "a row stays small");
_Static_assert(EW_FLOW_FINDINGS_MAX < UINT8_MAX, "a row counts its findings in a byte");
_Static_assert(EW_V_UNKNOWN <= UINT8_MAX && EW_NEG_NA <= INT8_MAX && EW_AQM_COUNT <= UINT8_MAX,
               "a row keeps its verdict, negotiation and aqm in a byte");

/* the main direction's path, as the bottleneck refines it (bits of a
 * row's flags beyond the public ones, cleared once the pass is built) */
enum {
    FEW_MARKS = 1u << 6, /* too few marks named no AQM */
    MARKED = 1u << 7,    /* marked at all */
};

static void
row_of(const struct ew_flow *f, uint32_t ref, const struct ew_flow_summary *s,
       struct ew_conclusion *r)
{
    const struct ew_flow_verdict *v = &s->v;
    int d;

    memset(r, 0, sizeof(*r));
    r->id = f->id;
    r->last_ns = f->last_ns;
    r->ref = ref;
    r->kinds = s->kinds;
    r->verdict = (uint8_t)v->verdict;
    r->neg = (int8_t)v->neg;
    r->nf = (uint8_t)s->nf;
    r->flags = (uint8_t)((f->ended ? EW_CONCL_ENDED : 0) | (s->quic ? EW_CONCL_QUIC : 0) |
                         (v->neg_inferred ? EW_CONCL_NEG_INFERRED : 0) |
                         (s->has_path ? EW_CONCL_HAS_PATH : 0) |
                         (v->verdict_likely ? EW_CONCL_LIKELY : 0));
    r->main_dir = (uint8_t)v->main_dir;
    for (d = 0; d < 2; d++) {
        r->aqm[d] = (uint8_t)(s->has_path ? s->path[d].aqm : EW_AQM_UNKNOWN);
        r->ect1[d] = (uint8_t)v->dir[d].ect1;
        r->fb[d] = (uint8_t)v->dir[d].feedback;
    }
    if (s->has_path) {
        const struct ew_path_verdict *p = &s->path[v->main_dir];

        r->flags |= (uint8_t)((p->few_marks ? FEW_MARKS : 0) | (p->marks > 0 ? MARKED : 0));
    }
}

void
ew_conclusion_of(const struct ew_flow *f, uint32_t ref, unsigned what,
                 struct ew_flow_summary *sum, struct ew_conclusion *row)
{
    ew_flow_conclude(f, what, sum);
    row_of(f, ref, sum, row);
    row->flags &= (uint8_t)~(FEW_MARKS | MARKED);
}

/* a row in the light of its bottleneck: the harm it shows among the
 * others, and its path refined (ew_bottleneck_apply() does the same to a
 * whole conclusion) */
static void
refine(const struct ew_bottlenecks *bn, struct ew_conclusion *r)
{
    const struct ew_bn_role *role = ew_bottleneck_role(bn, r->id);
    uint32_t harm = 1u << EW_MU_CLASSIC_AQM_UNDER_L4S;

    if (!role)
        return;
    if (role->harm && !(r->kinds & harm) && r->nf < EW_FLOW_FINDINGS_MAX) {
        r->kinds |= harm;
        r->nf++;
    }
    if (r->flags & EW_CONCL_HAS_PATH)
        r->aqm[r->main_dir] = (uint8_t)ew_bottleneck_refine(
            bn, role, (enum ew_aqm)r->aqm[r->main_dir], (r->flags & FEW_MARKS) != 0,
            (r->flags & MARKED) != 0);
}

/* Room for need rows. The rows are rebuilt every time, so a new size is a
 * new allocation, not a copy: grown with a quarter to spare, and given back
 * when the table has shrunk to under a quarter of it. */
static int
reserve(struct ew_conclusions *c, size_t need)
{
    size_t cap = need + need / 4 + 16;

    if (!c->sum)
        c->sum = malloc(sizeof(*c->sum));
    if (!c->sum)
        return -1;
    if (c->row && need <= c->cap && c->cap <= 4 * need + 64)
        return 0;
    free(c->row);
    c->row = malloc(cap * sizeof(*c->row));
    c->cap = c->row ? cap : 0;
    return c->row ? 0 : -1;
}

int
ew_conclusions_build(struct ew_conclusions *c, const struct ew_flowtab *tab,
                     const struct ew_qseries_pool *qs, unsigned what,
                     const struct ew_pass_sel *sel)
{
    struct ew_bn_members ms = EW_BN_MEMBERS_INIT;
    struct ew_flow_iter it;
    const struct ew_flow *f;
    size_t budget = sel->budget ? sel->budget : SIZE_MAX, i;
    unsigned how;

    if (what & EW_PASS_BOTTLENECKS)
        what |= EW_PASS_PATHS;
    ew_bottlenecks_free(&c->bn);
    c->tab = tab;
    c->what = what;
    c->n = c->held = 0;
    c->step = 1;
    c->nomem = false;
    how = what & EW_PASS_PATHS ? EW_CONCLUDE_PATH : 0;
    ew_flow_iter_start(&it, tab, sel->which, sel->since_ns);
    if (it.nomem || reserve(c, it.n) != 0) {
        ew_flow_iter_end(&it);
        c->nomem = true;
        return -1;
    }
    c->held = it.n;
    if (it.n > budget)
        c->step = (it.n + budget - 1) / budget;
    for (i = 0; (f = ew_flow_iter_next(&it)) != NULL; i++) {
        if (i % c->step)
            continue;
        ew_flow_conclude(f, how, c->sum);
        row_of(f, it.ref, c->sum, &c->row[c->n++]);
        if (what & EW_PASS_BOTTLENECKS)
            ew_bottlenecks_add(&ms, qs, f, c->sum);
    }
    ew_flow_iter_end(&it);
    if (what & EW_PASS_BOTTLENECKS) {
        ew_bottlenecks_group(&ms, &c->bn);
        for (i = 0; i < c->n; i++)
            refine(&c->bn, &c->row[i]);
    }
    for (i = 0; i < c->n; i++)
        c->row[i].flags &= (uint8_t)~(FEW_MARKS | MARKED);
    return 0;
}

void
ew_conclusions_free(struct ew_conclusions *c)
{
    ew_bottlenecks_free(&c->bn);
    free(c->row);
    free(c->sum);
    *c = (struct ew_conclusions)EW_CONCLUSIONS_INIT;
}

const struct ew_flow *
ew_conclusion_words(const struct ew_conclusions *c, size_t i, unsigned what,
                    struct ew_flow_room *room, struct ew_flow_summary *out)
{
    const struct ew_conclusion *r = &c->row[i];
    const struct ew_flow *f = ew_flowtab_view(c->tab, r->ref, room);

    ew_flow_conclude(f, what | (c->what & EW_PASS_PATHS ? EW_CONCLUDE_PATH : 0), out);
    if (c->what & EW_PASS_BOTTLENECKS)
        ew_bottleneck_apply(&c->bn, f, out);
#ifdef EW_CHECKS
    /* the words tell the row's story: the same rules on the same state */
    if (out->v.verdict != r->verdict || out->kinds != r->kinds || out->nf != r->nf ||
        ((r->flags & EW_CONCL_HAS_PATH) && out->has_path &&
         out->path[r->main_dir].aqm != r->aqm[r->main_dir])) {
        ew_err(
                "ecnwatch: flow %llu: its words and its row disagree (verdict %d/%d, kinds "
                "%#x/%#x, findings %zu/%u, path %d/%d)\n",
                (unsigned long long)r->id, (int)out->v.verdict, (int)r->verdict,
                (unsigned)out->kinds, (unsigned)r->kinds, out->nf, (unsigned)r->nf,
                out->has_path ? (int)out->path[r->main_dir].aqm : -1, (int)r->aqm[r->main_dir]);
        abort();
    }
#endif
    return f;
}

bool
ew_conclusion_small_plain(const struct ew_flow *f, const struct ew_conclusion *r)
{
    return ew_conclusion_plain_below(f, r, EW_SMALL_PKTS);
}

bool
ew_conclusion_plain_below(const struct ew_flow *f, const struct ew_conclusion *r, uint64_t pkts)
{
    int d;

    if (r->nf || f->dir[0].packets + f->dir[1].packets >= pkts)
        return false;
    for (d = 0; d < 2; d++)
        if (f->dir[d].ecn[EW_ECN_ECT_0] || f->dir[d].ecn[EW_ECN_ECT_1] || f->dir[d].ecn[EW_ECN_CE])
            return false;
    return true;
}
