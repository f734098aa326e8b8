/* flowtab.c - capped, seeded, open-addressing flow table (see flow.h). */
#include "ecnwatch/flow.h"

#include <stdlib.h>
#include <string.h>

const char *const ew_seg_kind_name[EW_SEG_COUNT] = {
    [EW_SEG_SYN] = "syn",           [EW_SEG_SYNACK] = "synack",
    [EW_SEG_DATA] = "data",         [EW_SEG_PURE_ACK] = "pure_ack",
    [EW_SEG_RETRANS] = "retransmission", [EW_SEG_FIN_RST] = "fin_rst",
    [EW_SEG_OTHER] = "other",
};

/* an intrusive doubly linked list of record indices (+1; 0 = none) */
struct ew_list {
    uint32_t head, tail;
};

struct ew_flowtab {
    struct ew_flow *rec; /* max_flows records, allocated once */
    uint32_t max_flows;
    uint32_t used;       /* records handed out so far (never shrinks) */
    uint32_t *slot;      /* index: record index + 1, 0 = empty */
    uint32_t mask;       /* slot count - 1 (a power of two, >= 2 * max_flows) */
    uint64_t seed;
    int64_t idle_ns;
    struct ew_list live;  /* live flows, least recently active first */
    struct ew_list ended; /* ended flows, oldest end first */
    ew_flow_evict_fn on_evict;
    void *evict_arg;
    ew_flow_evict_fn on_end;
    void *end_arg;
    struct ew_flowtab_stats st;
};

static uint64_t
rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t
fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

uint64_t
ew_flow_hash(const struct ew_flow_key *key, uint64_t seed)
{
    const uint8_t *b = (const uint8_t *)key;
    uint64_t h = seed ^ (sizeof(*key) * 0x9e3779b97f4a7c15ULL);
    size_t i;

    for (i = 0; i + 8 <= sizeof(*key); i += 8) {
        uint64_t w;

        memcpy(&w, b + i, 8);
        w *= 0x87c37b91114253d5ULL;
        w = rotl64(w, 31);
        w *= 0x4cf5ad432745937fULL;
        h ^= w;
        h = rotl64(h, 27) * 5 + 0x52dce729;
    }
    return fmix64(h ^ seed);
}

static int
addr_port_cmp(const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
    int c = memcmp(a, b, 16);

    if (c != 0)
        return c;
    return (pa > pb) - (pa < pb);
}

int
ew_flow_key_from_pkt(const struct ew_pkt *pkt, struct ew_flow_key *key)
{
    uint16_t sp = 0, dp = 0;

    memset(key, 0, sizeof(*key));
    if (pkt->l4 == EW_L4_TCP) {
        sp = pkt->u.tcp.sport;
        dp = pkt->u.tcp.dport;
    } else if (pkt->l4 == EW_L4_UDP) {
        sp = pkt->u.udp.sport;
        dp = pkt->u.udp.dport;
    }
    key->proto = pkt->ip_proto;
    key->family = pkt->family;
    key->l4 = (uint8_t)pkt->l4;
    if (addr_port_cmp(pkt->src, sp, pkt->dst, dp) <= 0) {
        memcpy(key->lo, pkt->src, 16);
        memcpy(key->hi, pkt->dst, 16);
        key->port_lo = sp;
        key->port_hi = dp;
        return EW_DIR_LO_HI;
    }
    memcpy(key->lo, pkt->dst, 16);
    memcpy(key->hi, pkt->src, 16);
    key->port_lo = dp;
    key->port_hi = sp;
    return EW_DIR_HI_LO;
}

struct ew_flowtab *
ew_flowtab_new(uint32_t max_flows, uint64_t seed, int64_t idle_ns, ew_flow_evict_fn on_evict,
               void *arg)
{
    struct ew_flowtab *t;
    uint64_t nslots = 4;

    if (max_flows == 0 || max_flows > (1u << 30))
        return NULL;
    while (nslots < 2ull * max_flows)
        nslots <<= 1;
    t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->rec = calloc(max_flows, sizeof(*t->rec));
    t->slot = calloc((size_t)nslots, sizeof(*t->slot));
    if (!t->rec || !t->slot) {
        ew_flowtab_free(t);
        return NULL;
    }
    t->max_flows = max_flows;
    t->mask = (uint32_t)(nslots - 1);
    t->seed = seed;
    t->idle_ns = idle_ns;
    t->on_evict = on_evict;
    t->evict_arg = arg;
    return t;
}

void
ew_flowtab_free(struct ew_flowtab *t)
{
    if (!t)
        return;
    free(t->rec);
    free(t->slot);
    free(t);
}

static struct ew_flow *
rec_at(struct ew_flowtab *t, uint32_t ref)
{
    return &t->rec[ref - 1];
}

static uint32_t
ref_of(const struct ew_flowtab *t, const struct ew_flow *f)
{
    return (uint32_t)(f - t->rec) + 1;
}

static void
list_unlink(struct ew_flowtab *t, struct ew_list *l, struct ew_flow *f)
{
    if (f->lru_prev)
        rec_at(t, f->lru_prev)->lru_next = f->lru_next;
    else
        l->head = f->lru_next;
    if (f->lru_next)
        rec_at(t, f->lru_next)->lru_prev = f->lru_prev;
    else
        l->tail = f->lru_prev;
    f->lru_prev = f->lru_next = 0;
}

static void
list_append(struct ew_flowtab *t, struct ew_list *l, struct ew_flow *f)
{
    uint32_t r = ref_of(t, f);

    f->lru_prev = l->tail;
    f->lru_next = 0;
    if (l->tail)
        rec_at(t, l->tail)->lru_next = r;
    else
        l->head = r;
    l->tail = r;
}

/* Remove the index entry of a live flow, with backward-shift deletion so that
 * no tombstones build up (Knuth 6.4, algorithm R). */
static void
index_remove(struct ew_flowtab *t, const struct ew_flow *f)
{
    uint32_t ref = ref_of(t, f);
    uint32_t i = f->hash & t->mask;

    while (t->slot[i] != ref)
        i = (i + 1) & t->mask;
    for (;;) {
        uint32_t j = i;

        t->slot[i] = 0;
        for (;;) {
            uint32_t home;

            j = (j + 1) & t->mask;
            if (t->slot[j] == 0)
                return;
            home = rec_at(t, t->slot[j])->hash & t->mask;
            /* move slot j back to i unless its home lies cyclically in (i, j] */
            if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
                continue;
            t->slot[i] = t->slot[j];
            i = j;
            break;
        }
    }
}

static void
end_flow(struct ew_flowtab *t, struct ew_flow *f)
{
    if (t->on_end)
        t->on_end(t->end_arg, f);
    index_remove(t, f);
    list_unlink(t, &t->live, f);
    f->ended = true;
    list_append(t, &t->ended, f);
    t->st.live--;
    t->st.expired++;
}

/* a record for a new flow: a fresh one, or the oldest ended, or the least
 * recently active live flow */
static struct ew_flow *
take_record(struct ew_flowtab *t)
{
    struct ew_flow *f;

    if (t->used < t->max_flows)
        return &t->rec[t->used++];
    if (t->ended.head) {
        f = rec_at(t, t->ended.head);
        list_unlink(t, &t->ended, f);
    } else {
        f = rec_at(t, t->live.head);
        index_remove(t, f);
        list_unlink(t, &t->live, f);
        t->st.live--;
    }
    if (t->on_evict)
        t->on_evict(t->evict_arg, f);
    t->st.evicted++;
    t->st.in_table--;
    return f;
}

struct ew_flow *
ew_flowtab_get(struct ew_flowtab *t, const struct ew_flow_key *key, int64_t now_ns, bool *created)
{
    uint32_t h = (uint32_t)ew_flow_hash(key, t->seed);
    uint32_t i = h & t->mask;
    struct ew_flow *f;

    while (t->slot[i]) {
        f = rec_at(t, t->slot[i]);
        if (f->hash == h && memcmp(&f->key, key, sizeof(*key)) == 0) {
            if (t->idle_ns > 0 && now_ns - f->last_ns > t->idle_ns) {
                end_flow(t, f);
                break; /* a new flow of the same key follows */
            }
            *created = false;
            return f;
        }
        i = (i + 1) & t->mask;
    }

    f = take_record(t);
    memset(f, 0, sizeof(*f));
    f->key = *key;
    f->hash = h;
    f->id = ++t->st.created;
    f->first_ns = f->last_ns = now_ns;
    /* the index may have changed (eviction, expiry): probe again for a free slot */
    i = h & t->mask;
    while (t->slot[i])
        i = (i + 1) & t->mask;
    t->slot[i] = ref_of(t, f);
    list_append(t, &t->live, f);
    t->st.live++;
    t->st.in_table++;
    *created = true;
    return f;
}

void
ew_flowtab_touch(struct ew_flowtab *t, struct ew_flow *f)
{
    if (f->ended || t->live.tail == ref_of(t, f))
        return;
    list_unlink(t, &t->live, f);
    list_append(t, &t->live, f);
}

uint32_t
ew_flowtab_expire(struct ew_flowtab *t, int64_t now_ns, uint32_t budget)
{
    uint32_t n = 0;

    if (t->idle_ns <= 0)
        return 0;
    while (n < budget && t->live.head) {
        struct ew_flow *f = rec_at(t, t->live.head);

        if (now_ns - f->last_ns <= t->idle_ns)
            break;
        end_flow(t, f);
        n++;
    }
    return n;
}

void
ew_flowtab_get_stats(const struct ew_flowtab *t, struct ew_flowtab_stats *st)
{
    *st = t->st;
}

static int
cmp_flow_id(const void *a, const void *b)
{
    const struct ew_flow *fa = *(const struct ew_flow *const *)a;
    const struct ew_flow *fb = *(const struct ew_flow *const *)b;

    return (fa->id > fb->id) - (fa->id < fb->id);
}

size_t
ew_flowtab_list(const struct ew_flowtab *t, const struct ew_flow **out, size_t room)
{
    size_t n = 0;
    uint32_t i;

    for (i = 0; i < t->used && n < room; i++)
        out[n++] = &t->rec[i];
    qsort(out, n, sizeof(*out), cmp_flow_id);
    return n;
}

void
ew_flowtab_set_end_cb(struct ew_flowtab *t, ew_flow_evict_fn on_end, void *arg)
{
    t->on_end = on_end;
    t->end_arg = arg;
}

void
ew_flowtab_foreach_recent(struct ew_flowtab *t, int64_t since_ns,
                          void (*fn)(void *arg, struct ew_flow *f), void *arg)
{
    uint32_t r = t->live.tail;

    while (r) {
        struct ew_flow *f = rec_at(t, r);

        if (f->last_ns < since_ns)
            break;
        r = f->lru_prev;
        fn(arg, f);
    }
}

void
ew_flowtab_foreach_live(struct ew_flowtab *t, void (*fn)(void *arg, struct ew_flow *f), void *arg)
{
    uint32_t r = t->live.head;

    while (r) {
        struct ew_flow *f = rec_at(t, r);

        r = f->lru_next;
        fn(arg, f);
    }
}
