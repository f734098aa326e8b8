/* flowtab.c - capped, seeded, open-addressing flow table (see flow.h). */
#include "ecnwatch/flow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const ew_seg_kind_name[EW_SEG_COUNT] = {
    [EW_SEG_SYN] = "syn",           [EW_SEG_SYNACK] = "synack",
    [EW_SEG_DATA] = "data",         [EW_SEG_PURE_ACK] = "pure_ack",
    [EW_SEG_RETRANS] = "retransmission", [EW_SEG_FIN_RST] = "fin_rst",
    [EW_SEG_OTHER] = "other",
};

/* a doubly linked list of record indices (+1; 0 = none) */
struct ew_list {
    uint32_t head, tail;
};

/* one index entry: the record (index + 1, 0 = empty) and its key's hash, so
 * that probing and deletion do not touch other flows' records */
struct ew_slot {
    uint32_t ref;
    uint32_t hash;
};

/* a record's place in its list (live or ended); kept beside the records,
 * not in them, so that moving a flow to the tail on each of its packets
 * touches a small array instead of three other flows' records */
struct ew_lru_link {
    uint32_t prev, next;
};

struct ew_flowtab {
    struct ew_flow *rec; /* max_flows records, allocated once */
    struct ew_infer *inf; /* their TCP inference state, by record (untouched for others) */
    struct ew_lru_link *lnk; /* max_flows list links, by record */
    uint32_t max_flows;
    uint32_t used;       /* records handed out so far (never shrinks) */
    struct ew_slot *slot; /* the index */
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

const struct ew_infer ew_infer_none;

_Static_assert(sizeof(struct ew_flow_key) == 40, "the key is hashed and compared as five words");

static uint64_t
rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* 64 x 64 -> 128-bit multiply, folded: the mixing step of wyhash */
static uint64_t
mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
    __uint128_t r = (__uint128_t)a * b;

    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);

    return lo ^ hi;
#endif
}

/* Seeded hash of the 40-byte key: five words through four folded
 * multiplies, the seed in both operands of each so that no key word can
 * cancel one without knowing it. */
uint64_t
ew_flow_hash(const struct ew_flow_key *key, uint64_t seed)
{
    uint64_t w[5], s, u, a, b, c;

    memcpy(w, key, sizeof(w));
    s = seed * 0x9e3779b97f4a7c15ULL + 0xa0761d6478bd642fULL;
    u = rotl64(s, 29) ^ 0xe7037ed1a0b428dbULL;
    a = mum(w[0] ^ s, w[1] ^ u);
    b = mum(w[2] ^ u, w[3] ^ s);
    c = mum(w[4] ^ s, a ^ u);
    return mum(b ^ c ^ 0x8ebc6af09c88c6e3ULL, s ^ 0x589965cc75374cc3ULL);
}

static uint64_t
load_be64(const uint8_t *b)
{
    return ((uint64_t)b[0] << 56) | ((uint64_t)b[1] << 48) | ((uint64_t)b[2] << 40) |
           ((uint64_t)b[3] << 32) | ((uint64_t)b[4] << 24) | ((uint64_t)b[5] << 16) |
           ((uint64_t)b[6] << 8) | (uint64_t)b[7];
}

/* memcmp() order of the addresses, then the ports: as two big-endian words */
static int
addr_port_cmp(const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
    uint64_t x = load_be64(a), y = load_be64(b);

    if (x == y) {
        x = load_be64(a + 8);
        y = load_be64(b + 8);
    }
    if (x != y)
        return x < y ? -1 : 1;
    return (pa > pb) - (pa < pb);
}

static bool
key_eq(const struct ew_flow_key *a, const struct ew_flow_key *b)
{
    uint64_t x[5], y[5];

    memcpy(x, a, sizeof(x));
    memcpy(y, b, sizeof(y));
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4])) == 0;
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
    t->inf = calloc(max_flows, sizeof(*t->inf));
    t->lnk = calloc(max_flows, sizeof(*t->lnk));
    t->slot = calloc((size_t)nslots, sizeof(*t->slot));
    if (!t->rec || !t->inf || !t->lnk || !t->slot) {
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
    free(t->inf);
    free(t->lnk);
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
list_unlink(struct ew_flowtab *t, struct ew_list *l, uint32_t r)
{
    struct ew_lru_link *k = &t->lnk[r - 1];

    if (k->prev)
        t->lnk[k->prev - 1].next = k->next;
    else
        l->head = k->next;
    if (k->next)
        t->lnk[k->next - 1].prev = k->prev;
    else
        l->tail = k->prev;
    k->prev = k->next = 0;
}

static void
list_append(struct ew_flowtab *t, struct ew_list *l, uint32_t r)
{
    struct ew_lru_link *k = &t->lnk[r - 1];

    k->prev = l->tail;
    k->next = 0;
    if (l->tail)
        t->lnk[l->tail - 1].next = r;
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
    uint32_t i = (uint32_t)ew_flow_hash(&f->key, t->seed) & t->mask;

    while (t->slot[i].ref != ref)
        i = (i + 1) & t->mask;
    for (;;) {
        uint32_t j = i;

        t->slot[i].ref = 0;
        for (;;) {
            uint32_t home;

            j = (j + 1) & t->mask;
            if (t->slot[j].ref == 0)
                return;
            home = t->slot[j].hash & t->mask;
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
    f->end_reason = EW_END_IDLE;
    if (t->on_end)
        t->on_end(t->end_arg, f);
    index_remove(t, f);
    list_unlink(t, &t->live, ref_of(t, f));
    f->ended = true;
    list_append(t, &t->ended, ref_of(t, f));
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
        list_unlink(t, &t->ended, t->ended.head);
    } else {
        f = rec_at(t, t->live.head);
        index_remove(t, f);
        list_unlink(t, &t->live, t->live.head);
        t->st.live--;
    }
    if (!f->ended)
        f->end_reason = EW_END_EVICTED;
    if (t->on_evict)
        t->on_evict(t->evict_arg, f);
    t->st.evicted++;
    t->st.in_table--;
    return f;
}

struct ew_flow *
ew_flowtab_get(struct ew_flowtab *t, const struct ew_flow_key *key, int64_t now_ns, bool *created)
{
    return ew_flowtab_get_hashed(t, key, (uint32_t)ew_flow_hash(key, t->seed), now_ns, created);
}

struct ew_flow *
ew_flowtab_get_hashed(struct ew_flowtab *t, const struct ew_flow_key *key, uint32_t h,
                      int64_t now_ns, bool *created)
{
    uint32_t i = h & t->mask;
    struct ew_flow *f;

    while (t->slot[i].ref) {
        if (t->slot[i].hash == h) {
            f = rec_at(t, t->slot[i].ref);
            if (key_eq(&f->key, key)) {
                if (t->idle_ns > 0 && now_ns - f->last_ns > t->idle_ns) {
                    end_flow(t, f);
                    break; /* a new flow of the same key follows */
                }
                *created = false;
                return f;
            }
        }
        i = (i + 1) & t->mask;
    }

    f = take_record(t);
    memset(f, 0, sizeof(*f));
    f->key = *key;
    if (key->l4 == EW_L4_TCP) {
        f->inf = &t->inf[f - t->rec];
        memset(f->inf, 0, sizeof(*f->inf));
    } else {
        /* read only: what is never written costs no memory */
        f->inf = (struct ew_infer *)(uintptr_t)&ew_infer_none;
    }
    f->id = ++t->st.created;
    f->first_ns = f->last_ns = now_ns;
    /* the index may have changed (eviction, expiry): probe again for a free slot */
    i = h & t->mask;
    while (t->slot[i].ref)
        i = (i + 1) & t->mask;
    t->slot[i].ref = ref_of(t, f);
    t->slot[i].hash = h;
    list_append(t, &t->live, ref_of(t, f));
    t->st.live++;
    t->st.in_table++;
    *created = true;
    return f;
}

/* The index slot a hash starts its probe at, into the cache. */
void
ew_flowtab_prefetch_slot(const struct ew_flowtab *t, uint32_t h)
{
    __builtin_prefetch(&t->slot[h & t->mask]);
}

/* the cache lines of [start, start + len), as addresses counted in integers */
static void
prefetch_lines(const void *start, size_t len)
{
    uintptr_t a = (uintptr_t)start & ~(uintptr_t)63, end = (uintptr_t)start + len;

    for (; a + 192 < end; a += 256) {
        __builtin_prefetch((const void *)a, 1);
        __builtin_prefetch((const void *)(a + 64), 1);
        __builtin_prefetch((const void *)(a + 128), 1);
        __builtin_prefetch((const void *)(a + 192), 1);
    }
    for (; a < end; a += 64)
        __builtin_prefetch((const void *)a, 1);
}

/* The record the index names for this hash (the first entry of its probe
 * with the same hash, within a few slots) into the cache: its first `len`
 * bytes, its activity links, and with `inf` the hot parts of its inference
 * state. Reads the index only. */
void
ew_flowtab_prefetch_flow(const struct ew_flowtab *t, uint32_t h, size_t len, bool inf)
{
    uint32_t i = h & t->mask, probes;

    for (probes = 0; probes < 4 && t->slot[i].ref; probes++, i = (i + 1) & t->mask) {
        if (t->slot[i].hash == h) {
            uint32_t r = t->slot[i].ref - 1;

            __builtin_prefetch(&t->lnk[r], 1);
            prefetch_lines(&t->rec[r], len);
            if (inf) { /* the hot parts only: the evidence frames are written once */
                prefetch_lines(&t->inf[r], offsetof(struct ew_infer, half) + EW_HALF_HOT_BYTES);
                prefetch_lines(&t->inf[r].half[1], EW_HALF_HOT_BYTES);
            }
            return;
        }
    }
}

uint64_t
ew_flowtab_seed(const struct ew_flowtab *t)
{
    return t->seed;
}

void
ew_flowtab_touch(struct ew_flowtab *t, struct ew_flow *f)
{
    uint32_t r = ref_of(t, f);

    if (f->ended || t->live.tail == r)
        return;
    list_unlink(t, &t->live, r);
    list_append(t, &t->live, r);
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
        r = t->lnk[r - 1].prev;
        fn(arg, f);
    }
}

void
ew_flowtab_foreach_live(struct ew_flowtab *t, void (*fn)(void *arg, struct ew_flow *f), void *arg)
{
    uint32_t r = t->live.head;

    while (r) {
        struct ew_flow *f = rec_at(t, r);

        r = t->lnk[r - 1].next;
        fn(arg, f);
    }
}
