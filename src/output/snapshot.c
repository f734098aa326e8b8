/* snapshot.c - the flow table as rows (see snapshot.h) */
#include "output/snapshot.h"

#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/tunrec.h"
#include "dissectors/ecn.h"
#include "base/format.h"
#include "infer/infer.h"
#include "infer/negotiation.h"
#include "dissectors/pkt.h"

_Static_assert(EW_FLOW_FINDINGS_MAX <= UINT8_MAX, "a row counts its findings in a byte");
_Static_assert(EW_V_UNKNOWN <= UINT8_MAX && EW_NEG_NA <= INT8_MAX && EW_AQM_COUNT <= UINT8_MAX,
               "a row keeps its verdict, negotiation and aqm in a byte");
/* compact: a full table of rows in a few megabytes */
_Static_assert(sizeof(struct ew_snap_row) <= 128, "a row stays about a hundred bytes");

int
ew_snap_list_dir(const struct ew_flow *f)
{
    int c = f->client_dir;

    if (f->dir[c ^ 1].payload_bytes > f->dir[c].payload_bytes)
        return c ^ 1;
    if (f->dir[c].payload_bytes == 0 && f->dir[c ^ 1].packets > f->dir[c].packets)
        return c ^ 1;
    return c;
}

void
ew_snap_endpoints(const struct ew_snap_row *r, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
    int c = r->client_dir;
    const uint8_t *ca = c == EW_DIR_LO_HI ? r->key.lo : r->key.hi;
    const uint8_t *sa = c == EW_DIR_LO_HI ? r->key.hi : r->key.lo;
    unsigned cp = c == EW_DIR_LO_HI ? r->key.port_lo : r->key.port_hi;
    unsigned sp = c == EW_DIR_LO_HI ? r->key.port_hi : r->key.port_lo;

    ew_addr_str(ca, r->key.family, a, sizeof(a));
    ew_addr_str(sa, r->key.family, b, sizeof(b));
    if (r->key.l4 == EW_L4_NONE)
        snprintf(buf, len, "%s>%s", a, b);
    else
        snprintf(buf, len, "%s:%u>%s:%u", a, cp, b, sp);
}

bool
ew_snap_row_matches(const struct ew_snap_row *r, const char *text)
{
    char ends[128], hay[512];
    const char *pn = ew_ip_proto_name(r->key.proto);
    size_t i;

    if (!text[0])
        return true;
    ew_snap_endpoints(r, ends, sizeof(ends));
    snprintf(hay, sizeof(hay), "%s %s %s %s %s %s", ends,
             r->key.l4 == EW_L4_TCP   ? "tcp"
             : r->key.l4 == EW_L4_UDP ? "udp"
                                      : "other",
             ew_neg_name[r->neg], ew_verdict_name[r->verdict], ew_ect1_name[r->ect1[r->main_dir]],
             pn ? pn : "-");
    for (i = 0; hay[i]; i++)
        hay[i] = (char)tolower((unsigned char)hay[i]);
    return strstr(hay, text) != NULL;
}

/* the row of flow f, from its conclusion in the pass */
static void
fill_row(struct ew_snap_row *r, const struct ew_conclusion *c, const struct ew_flow *f)
{
    int d = ew_snap_list_dir(f), k;
    const struct ew_dir_stats *ds = &f->dir[d];

    memset(r, 0, sizeof(*r));
    r->id = f->id;
    r->last_ns = f->last_ns;
    r->pkts = f->dir[0].packets + f->dir[1].packets;
    r->bytes = f->dir[0].bytes + f->dir[1].bytes;
    r->bps = r->pps = -1;
    r->ce = ds->packets ? (double)ds->ecn[EW_ECN_CE] / (double)ds->packets : 0;
    r->e1 = ds->packets ? (double)ds->ecn[EW_ECN_ECT_1] / (double)ds->packets : 0;
    r->key = f->key;
    r->ref = c->ref;
    r->kinds = c->kinds;
    r->verdict = c->verdict;
    r->neg = c->neg;
    r->nf = c->nf;
    r->flags = (uint8_t)(((c->flags & EW_CONCL_ENDED) ? EW_SNAP_ENDED : 0) |
                         ((c->flags & EW_CONCL_QUIC) ? EW_SNAP_QUIC : 0) |
                         ((c->flags & EW_CONCL_NEG_INFERRED) ? EW_SNAP_NEG_INFERRED : 0) |
                         ((c->flags & EW_CONCL_HAS_PATH) ? EW_SNAP_HAS_PATH : 0));
    r->client_dir = f->client_dir;
    r->main_dir = c->main_dir;
    r->dir = (uint8_t)d;
    r->aqm = c->aqm[c->main_dir];
    if (f->tun && f->tun->dir[f->tun->first_dir].n)
        r->tun = (uint8_t)(f->tun->dir[f->tun->first_dir].layer[0].type + 1);
    for (k = 0; k < 2; k++) {
        r->ect1[k] = c->ect1[k];
        r->fb[k] = c->fb[k];
    }
}

/* Room for need rows. The rows are rebuilt every time, so a new size is a
 * new allocation, not a copy: grown with a quarter to spare, and given back
 * when the table has shrunk to under a quarter of it. */
static int
reserve(struct ew_snapshot *s, size_t need)
{
    size_t cap = need + need / 4 + 16;

    if (!s->room)
        s->room = malloc(sizeof(*s->room));
    if (!s->room)
        return -1;
    if (s->rows && need <= s->cap && s->cap <= 4 * need + 64)
        return 0;
    free(s->rows);
    s->rows = malloc(cap * sizeof(*s->rows));
    s->cap = s->rows ? cap : 0;
    return s->cap ? 0 : -1;
}

int
ew_snapshot_build(struct ew_snapshot *s, const struct ew_conclusions *c)
{
    size_t i;

    s->n = 0;
    s->held = c->held;
    s->step = c->step;
    if (c->nomem || reserve(s, c->n) != 0)
        return -1;
    for (i = 0; i < c->n; i++) {
        fill_row(&s->rows[s->n], &c->row[i], ew_flowtab_view(c->tab, c->row[i].ref, s->room));
        s->rows[s->n++].at = (uint32_t)i;
    }
    return 0;
}

void
ew_snapshot_free(struct ew_snapshot *s)
{
    free(s->rows);
    free(s->room);
    *s = (struct ew_snapshot)EW_SNAPSHOT_INIT;
}

size_t
ew_snapshot_filter(struct ew_snapshot *s, const char *text)
{
    size_t i, m = 0;

    if (!text[0])
        return s->n;
    for (i = 0; i < s->n; i++)
        if (ew_snap_row_matches(&s->rows[i], text))
            s->rows[m++] = s->rows[i];
    s->n = m;
    return m;
}

int
ew_snap_counts_take(struct ew_snap_counts *c, const struct ew_analyzer *an, int64_t t_ns)
{
    struct ew_flowtab_stats st;
    struct ew_flow_iter it;
    const struct ew_flow *f;
    int k;

    ew_flowtab_get_stats(an->tab, &st);
    c->taken = false;
    c->n = 0;
    if (st.in_table > c->cap || !c->c) {
        size_t cap = st.in_table + st.in_table / 4 + 16;
        struct ew_snap_count *nc = realloc(c->c, cap * sizeof(*nc));

        if (!nc)
            return -1;
        c->c = nc;
        c->cap = cap;
    }
    ew_flow_iter_start(&it, an->tab, EW_ITER_HELD, 0);
    if (it.nomem) {
        ew_flow_iter_end(&it);
        return -1;
    }
    while ((f = ew_flow_iter_next(&it)) != NULL && c->n < c->cap) {
        c->c[c->n].id = f->id;
        c->c[c->n].bytes = f->dir[0].bytes + f->dir[1].bytes;
        c->c[c->n++].pkts = f->dir[0].packets + f->dir[1].packets;
    }
    ew_flow_iter_end(&it);
    c->bytes = 0;
    for (k = 0; k < 4; k++)
        c->bytes += an->tot.ecn_bytes[k];
    c->pkts = an->tot.ip_packets;
    c->t_ns = t_ns;
    c->taken = true;
    return 0;
}

void
ew_snap_counts_free(struct ew_snap_counts *c)
{
    free(c->c);
    *c = (struct ew_snap_counts)EW_SNAP_COUNTS_INIT;
}

/* the count of flow id in c (ordered by id), or NULL */
static const struct ew_snap_count *
count_of(const struct ew_snap_counts *c, uint64_t id)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (c->c[mid].id == id)
            return &c->c[mid];
        if (c->c[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void
ew_snapshot_rates(struct ew_snapshot *s, const struct ew_snap_counts *a,
                  const struct ew_snap_counts *b)
{
    double dt = a->taken && b->taken ? (double)(b->t_ns - a->t_ns) / 1e9 : 0;
    size_t i;

    for (i = 0; i < s->n; i++) {
        struct ew_snap_row *r = &s->rows[i];
        const struct ew_snap_count *cb = dt > 0 ? count_of(b, r->id) : NULL;
        const struct ew_snap_count *ca = cb ? count_of(a, r->id) : NULL;
        uint64_t b0 = ca ? ca->bytes : 0, p0 = ca ? ca->pkts : 0;

        r->bps = r->pps = -1;
        if (!cb || cb->bytes < b0 || cb->pkts < p0)
            continue;
        r->bps = (float)((double)(cb->bytes - b0) * 8 / dt);
        r->pps = (float)((double)(cb->pkts - p0) / dt);
    }
}

/* the comparisons of the sort keys: descending, then by id */
static int
by_id(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    return (a->id > b->id) - (a->id < b->id);
}

static int
by_packets(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    if (a->pkts != b->pkts)
        return a->pkts > b->pkts ? -1 : 1;
    return by_id(x, y);
}

static int
by_ce(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    if (a->ce != b->ce)
        return a->ce > b->ce ? -1 : 1;
    return by_id(x, y);
}

static int
by_ect1(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    if (a->e1 != b->e1)
        return a->e1 > b->e1 ? -1 : 1;
    return by_id(x, y);
}

static int
by_recent(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    if (a->last_ns != b->last_ns)
        return a->last_ns > b->last_ns ? -1 : 1;
    return by_id(x, y);
}

static int
by_rate(const void *x, const void *y)
{
    const struct ew_snap_row *a = x, *b = y;

    if (a->bps != b->bps)
        return a->bps > b->bps ? -1 : 1;
    return by_packets(x, y);
}

void
ew_snapshot_sort(struct ew_snapshot *s, enum ew_snap_sort key)
{
    static int (*const cmp[EW_SNAP_SORT_COUNT])(const void *, const void *) = {
        [EW_SNAP_SORT_PACKETS] = by_packets, [EW_SNAP_SORT_CE] = by_ce,
        [EW_SNAP_SORT_ECT1] = by_ect1,       [EW_SNAP_SORT_RECENT] = by_recent,
        [EW_SNAP_SORT_ID] = by_id,           [EW_SNAP_SORT_RATE] = by_rate,
    };

    if (s->n > 1)
        qsort(s->rows, s->n, sizeof(*s->rows), cmp[key < EW_SNAP_SORT_COUNT ? key : EW_SNAP_SORT_ID]);
}
