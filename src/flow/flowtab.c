/* flowtab.c - capped, seeded, open-addressing flow table (see flow.h).
 *
 * About 800 lines, over the usual 600, for a reason: the index (seeded hash,
 * probing, backward-shift deletion), the activity and eviction lists, and the
 * hot set with its CLOCK hand and packing all keep one invariant between
 * them - every live flow has exactly one index slot, one list place and
 * either a whole record or packed bytes - and every operation touches all
 * three. Split, each part would need the others' private layout. */
#include "flow/flowtab.h"
#include "flow/pack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const ew_seg_kind_name[EW_SEG_COUNT] = {
    [EW_SEG_SYN] = "syn",           [EW_SEG_SYNACK] = "synack",
    [EW_SEG_DATA] = "data",         [EW_SEG_PURE_ACK] = "pure_ack",
    [EW_SEG_RETRANS] = "retransmission", [EW_SEG_FIN_RST] = "fin_rst",
    [EW_SEG_OTHER] = "other",
};

/* a doubly linked list of entries (their index + 1; 0 = none) */
struct ew_list {
    uint32_t head, tail;
};

/* one index slot: the entry (index + 1, 0 = empty), its key's hash, so that
 * probing and deletion do not touch other flows' entries, and its hot record
 * (+ 1, 0 = packed), so that the record can be fetched from the slot alone */
struct ew_slot {
    uint32_t ref;
    uint32_t hash;
    uint32_t hot;
};

/* an entry's place in its list (live or ended); kept beside the entries,
 * not in them, so that moving a flow to the tail on each of its packets
 * touches a small array instead of three other flows' entries */
struct ew_lru_link {
    uint32_t prev, next;
};

enum { ENT_FREE, ENT_LIVE, ENT_ENDED };

/* Every flow held: its key and what the table reads without its record.
 * Its record and inference state are either in the hot set (hot != 0) or
 * packed (pack.h) at `packed`; the packed bytes stay allocated while the
 * flow is hot, for its next packing, and with the entry when it is reused. */
struct ew_entry {
    struct ew_flow_key key;
    uint64_t id;
    int64_t last_ns; /* the record's, as of its packing */
    uint8_t *packed;
    uint32_t hot;    /* hot record + 1; 0 = packed */
    uint16_t len;    /* packed bytes */
    uint8_t cap;     /* granules allocated at packed */
    uint8_t state;   /* ENT_* */
};
_Static_assert(sizeof(struct ew_entry) == 72, "an entry is 72 bytes: the key and 32 more");

/* packed bytes are allocated in granules of 16, so that a flow whose packed
 * form grows by a few bytes mostly fits in what it has */
#define GRANULE 16
_Static_assert((EW_PACK_MAX + GRANULE - 1) / GRANULE <= 255, "a granule count fits the entry's byte");

#define PICKED 8
/* hot records remembered as fetched: a flow that alternates with three others
 * finds its lines in the cache still */
#define EW_FETCHED_RECENT 4

struct ew_flowtab {
    struct ew_entry *ent;    /* max_flows entries, allocated once */
    struct ew_lru_link *lnk; /* max_flows list links, by entry */
    uint32_t max_flows;
    uint32_t used;           /* entries handed out so far (never shrinks) */
    uint32_t free_ent;       /* entries given back (a stack through lnk.next) */
    struct ew_slot *slot;    /* the index */
    uint32_t mask;           /* slot count - 1 (a power of two, >= 2 * max_flows) */
    /* the hot set: records and their TCP inference state, by hot index */
    struct ew_flow *hot;
    uint8_t *inf;            /* their state (state->size bytes each, stride apart); untouched
                              * for flows that are not TCP */
    size_t stride;
    const struct ew_flow_state *state;
    uint32_t *owner;         /* the entry of each hot record (ref), 0 = none */
    uint8_t *recent;         /* CLOCK bits: touched since the hand last passed */
    uint32_t hot_max, hot_used, hand;
    /* hot records the hand has picked ahead of need, for a packed flow's
     * coming packet, so that their lines are fetched before they are packed */
    uint32_t picked[PICKED];
    uint32_t picked_head, picked_n;
    /* the hot records whose lines were fetched for the latest frames (+ 1):
     * a flow's next packet most often follows close behind its last one,
     * its lines still in the cache */
    uint32_t fetched[EW_FETCHED_RECENT];
    uint32_t fetched_at;
    /* the flow ew_flowtab_get() last returned, and its entry */
    const struct ew_flow *got;
    uint32_t got_ref;
    uint64_t seed;
    int64_t idle_ns;
    struct ew_list live;  /* live flows, least recently active first */
    struct ew_list ended; /* ended flows, oldest end first */
    ew_flow_evict_fn on_evict;
    void *evict_arg;
    ew_flow_evict_fn on_end;
    void *end_arg;
    struct ew_flowtab_stats st;
    uint8_t buf[EW_PACK_MAX];
};

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

/* hot record h's state */
static inline struct ew_infer *
state_of(const struct ew_flowtab *t, uint32_t h)
{
    return (struct ew_infer *)(void *)(t->inf + (size_t)h * t->stride);
}

/* ---- the table */

static void
hot_free(struct ew_flowtab *t)
{
    free(t->hot);
    free(t->inf);
    free(t->owner);
    free(t->recent);
    t->hot = NULL;
    t->inf = NULL;
    t->owner = NULL;
    t->recent = NULL;
}

static int
hot_alloc(struct ew_flowtab *t, uint32_t n)
{
    hot_free(t);
    t->hot = calloc(n, sizeof(*t->hot));
    t->inf = calloc(n, t->stride);
    t->owner = calloc(n, sizeof(*t->owner));
    t->recent = calloc(n, sizeof(*t->recent));
    if (!t->hot || !t->inf || !t->owner || !t->recent) {
        hot_free(t);
        return -1;
    }
    t->hot_max = n;
    return 0;
}

struct ew_flowtab *
ew_flowtab_new(uint32_t max_flows, uint64_t seed, int64_t idle_ns, ew_flow_evict_fn on_evict,
               void *arg, const struct ew_flow_state *state)
{
    struct ew_flowtab *t;
    uint64_t nslots = 4;

    if (max_flows == 0 || max_flows > (1u << 30) || !state || state->size % 4 ||
        state->size > EW_FLOW_STATE_MAX)
        return NULL;
    while (nslots < 2ull * max_flows)
        nslots <<= 1;
    t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->state = state;
    t->stride = (state->size + 7) & ~(size_t)7;
    t->ent = calloc(max_flows, sizeof(*t->ent));
    t->lnk = calloc(max_flows, sizeof(*t->lnk));
    t->slot = calloc((size_t)nslots, sizeof(*t->slot));
    if (!t->ent || !t->lnk || !t->slot ||
        hot_alloc(t, max_flows < EW_HOT_FLOWS ? max_flows : EW_HOT_FLOWS) < 0) {
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

int
ew_flowtab_set_hot(struct ew_flowtab *t, uint32_t hot)
{
    if (t->used || hot == 0)
        return -1;
    return hot_alloc(t, hot < t->max_flows ? hot : t->max_flows);
}

void
ew_flowtab_free(struct ew_flowtab *t)
{
    if (!t)
        return;
    if (t->ent)
        for (uint32_t i = 0; i < t->used; i++)
            free(t->ent[i].packed);
    hot_free(t);
    free(t->ent);
    free(t->lnk);
    free(t->slot);
    free(t);
}

static uint32_t
ref_of(const struct ew_flowtab *t, const struct ew_flow *f)
{
    return t->owner[f - t->hot];
}

static int64_t
last_ns_of(const struct ew_flowtab *t, uint32_t ref)
{
    const struct ew_entry *e = &t->ent[ref - 1];

    return e->hot ? t->hot[e->hot - 1].last_ns : e->last_ns;
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

/* the index slot of a live flow */
static struct ew_slot *
slot_of(struct ew_flowtab *t, uint32_t ref)
{
    uint32_t i = (uint32_t)ew_flow_hash(&t->ent[ref - 1].key, t->seed) & t->mask;

    while (t->slot[i].ref != ref)
        i = (i + 1) & t->mask;
    return &t->slot[i];
}

/* Remove the index slot of a live flow, with backward-shift deletion so that
 * no tombstones build up (Knuth 6.4, algorithm R). */
static void
index_remove(struct ew_flowtab *t, uint32_t ref)
{
    uint32_t i = (uint32_t)(slot_of(t, ref) - t->slot);

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

/* A flow leaves the table (eviction): the callback sees its record, then its
 * entry is out of its list and the index. The hot record stays with it. */
static void
leave(struct ew_flowtab *t, uint32_t ref, struct ew_flow *f)
{
    struct ew_entry *e = &t->ent[ref - 1];

    if (e->state == ENT_LIVE) {
        index_remove(t, ref);
        list_unlink(t, &t->live, ref);
        t->st.live--;
    } else {
        list_unlink(t, &t->ended, ref);
    }
    if (!f->ended)
        f->end_reason = EW_END_EVICTED;
    if (t->on_evict)
        t->on_evict(t->evict_arg, f);
    e->state = ENT_FREE;
    t->st.evicted++;
    t->st.in_table--;
}

/* Pack the hot record h into its entry's bytes (grown when they are too
 * few) and free h. False when there is no memory for the bytes. */
static bool
pack_out(struct ew_flowtab *t, uint32_t h)
{
    struct ew_entry *e = &t->ent[t->owner[h] - 1];
    const struct ew_flow *f = &t->hot[h];
    size_t len = ew_flow_pack(t->state, f, t->buf);

    if (len > (size_t)e->cap * GRANULE) {
        unsigned g = (unsigned)((len + GRANULE - 1) / GRANULE);
        uint8_t *p = realloc(e->packed, (size_t)g * GRANULE);

        if (!p)
            return false;
        e->packed = p;
        e->cap = (uint8_t)g;
    }
    memcpy(e->packed, t->buf, len);
    e->len = (uint16_t)len;
    e->last_ns = f->last_ns;
    e->hot = 0;
    if (e->state == ENT_LIVE)
        slot_of(t, t->owner[h])->hot = 0;
    t->owner[h] = 0;
    t->st.packed++;
    return true;
}

/* the hot record the CLOCK hand stops at: the first not touched since the
 * hand last passed, clearing the marks of those it passes */
static uint32_t
clock_pick(struct ew_flowtab *t)
{
    for (;;) {
        uint32_t h = t->hand;

        t->hand = h + 1 == t->hot_max ? 0 : h + 1;
        if (!t->recent[h])
            return h;
        t->recent[h] = 0;
    }
}

/* A hot record to use: a free one, or one picked ahead, or the one the CLOCK
 * hand stops at; its flow packed (or, with no memory to pack it, evicted).
 * Any hot record will do: none is in a caller's hands while this runs. */
static uint32_t
hot_take(struct ew_flowtab *t)
{
    uint32_t h;

    t->got = NULL; /* a record may change hands */
    if (t->hot_used < t->hot_max)
        return t->hot_used++;
    if (t->picked_n) {
        h = t->picked[t->picked_head];
        t->picked_head = (t->picked_head + 1) % PICKED;
        t->picked_n--;
    } else {
        h = clock_pick(t);
    }
    if (!pack_out(t, h)) {
        uint32_t ref = t->owner[h];

        leave(t, ref, &t->hot[h]);
        t->ent[ref - 1].hot = 0;
        t->lnk[ref - 1].next = t->free_ent;
        t->free_ent = ref;
        t->owner[h] = 0;
    }
    return h;
}

/* the flow's record, in the hot set; s: its index slot when the caller
 * knows it (NULL: found when needed) */
static struct ew_flow *
heat(struct ew_flowtab *t, uint32_t ref, struct ew_slot *s)
{
    struct ew_entry *e;
    struct ew_flow *f;
    uint32_t h;

    if (s && s->hot) {
        t->recent[s->hot - 1] = 1;
        return &t->hot[s->hot - 1];
    }
    e = &t->ent[ref - 1];
    if (e->hot) {
        t->recent[e->hot - 1] = 1;
        return &t->hot[e->hot - 1];
    }
    h = hot_take(t);
    if (s && s->ref != ref) /* an eviction for want of memory moved the index */
        s = NULL;
    f = &t->hot[h];
    f->key = e->key;
    if (!ew_flow_unpack(t->state, e->packed, e->len, f, state_of(t, h)))
        abort(); /* the table's own bytes: cannot happen */
    e->hot = h + 1;
    if (e->state == ENT_LIVE)
        (s ? s : slot_of(t, ref))->hot = h + 1;
    t->owner[h] = ref;
    t->recent[h] = 1;
    t->st.unpacked++;
    return f;
}

static void
end_flow(struct ew_flowtab *t, uint32_t ref)
{
    struct ew_flow *f = heat(t, ref, NULL);

    f->end_reason = EW_END_IDLE;
    if (t->on_end)
        t->on_end(t->end_arg, f);
    index_remove(t, ref);
    list_unlink(t, &t->live, ref);
    f->ended = true;
    t->ent[ref - 1].state = ENT_ENDED;
    list_append(t, &t->ended, ref);
    t->st.live--;
    t->st.expired++;
}

/* An entry and a hot record for a new flow: a fresh entry, or the oldest
 * ended flow's, or the least recently active live flow's. Returns the ref;
 * the entry's hot record is the new flow's. */
static uint32_t
take_entry(struct ew_flowtab *t)
{
    uint32_t ref, h;

    if (t->free_ent) {
        ref = t->free_ent;
        t->free_ent = t->lnk[ref - 1].next;
        t->lnk[ref - 1].next = 0;
    } else if (t->used < t->max_flows) {
        ref = ++t->used;
    } else {
        ref = t->ended.head ? t->ended.head : t->live.head;
        leave(t, ref, heat(t, ref, NULL));
        return ref;
    }
    h = hot_take(t);
    t->ent[ref - 1].hot = h + 1;
    t->owner[h] = ref;
    return ref;
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
    uint32_t i = h & t->mask, ref, hot;
    struct ew_entry *e;
    struct ew_flow *f;

    while ((ref = t->slot[i].ref) != 0) {
        /* a hot flow's key and times are in its record, which a packet
         * reads anyway: its entry is not read */
        uint32_t hh = t->slot[i].hot;

        if (t->slot[i].hash == h && key_eq(hh ? &t->hot[hh - 1].key : &t->ent[ref - 1].key, key)) {
            if (t->idle_ns > 0 &&
                now_ns - (hh ? t->hot[hh - 1].last_ns : t->ent[ref - 1].last_ns) > t->idle_ns) {
                end_flow(t, ref);
                break; /* a new flow of the same key follows */
            }
            *created = false;
            if (hh) {
                t->recent[hh - 1] = 1;
                f = &t->hot[hh - 1];
            } else {
                f = heat(t, ref, &t->slot[i]);
            }
            t->got = f;
            t->got_ref = ref;
            return f;
        }
        i = (i + 1) & t->mask;
    }

    ref = take_entry(t);
    e = &t->ent[ref - 1];
    hot = e->hot - 1;
    t->recent[hot] = 1;
    f = &t->hot[hot];
    memset(f, 0, sizeof(*f));
    f->key = e->key = *key;
    if (key->l4 == EW_L4_TCP) {
        f->inf = state_of(t, hot);
        memset(f->inf, 0, t->state->size);
    } else {
        /* read only: what is never written costs no memory */
        f->inf = (struct ew_infer *)(uintptr_t)t->state->none;
    }
    f->id = e->id = ++t->st.created;
    f->first_ns = f->last_ns = now_ns;
    e->state = ENT_LIVE;
    /* the index may have changed (eviction, expiry): probe again for a free slot */
    i = h & t->mask;
    while (t->slot[i].ref)
        i = (i + 1) & t->mask;
    t->slot[i].ref = ref;
    t->slot[i].hash = h;
    t->slot[i].hot = hot + 1;
    list_append(t, &t->live, ref);
    t->st.live++;
    t->st.in_table++;
    *created = true;
    t->got = f;
    t->got_ref = ref;
    return f;
}

/* The index slot a hash starts its probe at, into the cache. */
void
ew_flowtab_prefetch_slot(const struct ew_flowtab *t, uint32_t h)
{
    __builtin_prefetch(&t->slot[h & t->mask]);
}

/* the index slot of this hash (the first of its probe with the same hash,
 * within a few slots), or NULL */
static struct ew_slot *
probe(const struct ew_flowtab *t, uint32_t h)
{
    uint32_t i = h & t->mask, probes;

    for (probes = 0; probes < 4 && t->slot[i].ref; probes++, i = (i + 1) & t->mask)
        if (t->slot[i].hash == h)
            return &t->slot[i];
    return NULL;
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

/* The flow the index names for this hash into the cache: its links, and
 * the first `len` bytes of its record and with `inf` the hot parts of its
 * inference state when it is hot; else its entry, the start of its packed
 * bytes, and the hot record its packet will take, which the CLOCK hand
 * picks now: its entry and its lines, which packing it reads. */
void
ew_flowtab_prefetch_flow(struct ew_flowtab *t, uint32_t h, size_t len, bool inf)
{
    const struct ew_slot *s = probe(t, h);
    const char *e;
    unsigned i;

    if (!s)
        return;
    __builtin_prefetch(&t->lnk[s->ref - 1], 1);
    if (!s->hot) {
        e = (const char *)&t->ent[s->ref - 1];
        __builtin_prefetch(e);
        __builtin_prefetch(e + sizeof(struct ew_entry) - 1);
        prefetch_lines(t->ent[s->ref - 1].packed, 256);
        if (t->hot_used == t->hot_max && t->picked_n < PICKED) {
            uint32_t v = clock_pick(t);

            t->picked[(t->picked_head + t->picked_n++) % PICKED] = v;
            if (t->owner[v])
                __builtin_prefetch(&t->ent[t->owner[v] - 1]);
            prefetch_lines(&t->hot[v], sizeof(struct ew_flow));
            prefetch_lines(state_of(t, v), t->state->size); /* none touched: no cost */
        }
        return;
    }
    for (i = 0; i < EW_FETCHED_RECENT; i++)
        if (t->fetched[i] == s->hot)
            return;
    t->fetched[t->fetched_at++ % EW_FETCHED_RECENT] = s->hot;
    prefetch_lines(&t->hot[s->hot - 1], len);
    if (inf) { /* the hot parts only: the evidence frames are written once */
        const uint8_t *b = (const uint8_t *)state_of(t, s->hot - 1);

        prefetch_lines(b + t->state->hot_at[0], t->state->hot_len[0]);
        prefetch_lines(b + t->state->hot_at[1], t->state->hot_len[1]);
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
    uint32_t r = f == t->got ? t->got_ref : ref_of(t, f);

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
        if (now_ns - last_ns_of(t, t->live.head) <= t->idle_ns)
            break;
        end_flow(t, t->live.head);
        n++;
    }
    return n;
}

void
ew_flowtab_get_stats(const struct ew_flowtab *t, struct ew_flowtab_stats *st)
{
    *st = t->st;
}

struct id_ref {
    uint64_t id;
    uint32_t ref;
};

static int
cmp_id_ref(const void *a, const void *b)
{
    uint64_t x = ((const struct id_ref *)a)->id, y = ((const struct id_ref *)b)->id;

    return (x > y) - (x < y);
}

size_t
ew_flowtab_refs(const struct ew_flowtab *t, uint32_t *out, size_t room, bool live_only)
{
    struct id_ref *v;
    size_t n = 0;
    uint32_t r;
    bool sorted = true;

    for (r = 1; r <= t->used && n < room; r++) {
        const struct ew_entry *e = &t->ent[r - 1];

        if (e->state == ENT_LIVE || (e->state == ENT_ENDED && !live_only)) {
            if (n && e->id < t->ent[out[n - 1] - 1].id)
                sorted = false;
            out[n++] = r;
        }
    }
    if (sorted) /* no entry was reused: in order of creation already */
        return n;
    v = malloc((n ? n : 1) * sizeof(*v));
    if (!v)
        return 0;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct id_ref){t->ent[out[i] - 1].id, out[i]};
    qsort(v, n, sizeof(*v), cmp_id_ref);
    for (size_t i = 0; i < n; i++)
        out[i] = v[i].ref;
    free(v);
    return n;
}

const struct ew_flow *
ew_flowtab_view(const struct ew_flowtab *t, uint32_t ref, struct ew_flow_room *room)
{
    const struct ew_entry *e = &t->ent[ref - 1];

    if (e->hot)
        return &t->hot[e->hot - 1];
    room->flow.key = e->key;
    if (!ew_flow_unpack(t->state, e->packed, e->len, &room->flow, room->inf))
        abort(); /* the table's own bytes: cannot happen */
    return &room->flow;
}

void
ew_flowtab_set_end_cb(struct ew_flowtab *t, ew_flow_evict_fn on_end, void *arg)
{
    t->on_end = on_end;
    t->end_arg = arg;
}

struct ew_flow *
ew_flowtab_heat(struct ew_flowtab *t, uint32_t ref)
{
    return heat(t, ref, NULL);
}

void
ew_flowtab_copy(const struct ew_flowtab *t, struct ew_flow *f, const struct ew_flow *from)
{
    struct ew_flow keep = *f;

    *f = *from;
    f->id = keep.id;
    f->inf = keep.inf;
    f->quic = keep.quic;
    f->tun = keep.tun;
    memcpy(f->series, keep.series, sizeof(f->series));
    memcpy(f->qs, keep.qs, sizeof(f->qs));
    f->streamed_kinds = keep.streamed_kinds;
    f->ended = keep.ended;
    f->end_reason = keep.end_reason;
    f->series_refused = keep.series_refused;
    f->qs_refused = keep.qs_refused | from->qs_refused;
    if (from->key.l4 == EW_L4_TCP && (const void *)keep.inf != t->state->none)
        memcpy(f->inf, from->inf, t->state->size);
}

struct ew_flow *
ew_flowtab_set_id(struct ew_flowtab *t, uint32_t ref, uint64_t id)
{
    struct ew_flow *f = heat(t, ref, NULL);

    f->id = t->ent[ref - 1].id = id;
    return f;
}

/* the live flows active at or after since_ns, the latest active first */
static size_t
refs_recent(const struct ew_flowtab *t, int64_t since_ns, uint32_t *out, size_t room)
{
    uint32_t r = t->live.tail;
    size_t n = 0;

    while (r && n < room && last_ns_of(t, r) >= since_ns) {
        out[n++] = r;
        r = t->lnk[r - 1].prev;
    }
    return n;
}

void
ew_flow_iter_start(struct ew_flow_iter *it, const struct ew_flowtab *t, enum ew_iter_which which,
                   int64_t since_ns)
{
    uint32_t held = t->st.in_table;

    memset(it, 0, sizeof(*it));
    it->tab = t;
    it->refs = malloc((held ? held : 1) * sizeof(*it->refs));
    it->room = malloc(sizeof(*it->room));
    if (!it->refs || !it->room) {
        it->nomem = true;
        return;
    }
    if (which == EW_ITER_RECENT)
        it->n = refs_recent(t, since_ns, it->refs, held);
    else
        it->n = ew_flowtab_refs(t, it->refs, held, which == EW_ITER_LIVE);
}

const struct ew_flow *
ew_flow_iter_next(struct ew_flow_iter *it)
{
    if (it->i >= it->n)
        return NULL;
    it->ref = it->refs[it->i++];
    return ew_flowtab_view(it->tab, it->ref, it->room);
}

void
ew_flow_iter_end(struct ew_flow_iter *it)
{
    free(it->refs);
    free(it->room);
    it->refs = NULL;
    it->room = NULL;
    it->n = it->i = 0;
}
