/* probe_net.c - the probes on the network: the raw sockets (opened while
 * root or with CAP_NET_RAW; the caller drops its privileges after), the
 * pacing (at most --probe-rate a second, at most --probe-max in all), and
 * the answers matched to their probe.
 *
 * Each probe has a source port of its own: a random base plus the probe's
 * index (TTL, try, type), so the answers are told apart by port, and a
 * quote or answer that does not carry the probe's destination, ports and
 * sequence number is not ours ("stray"). A TTL's probes are sent type after
 * type, then the answers are awaited for --probe-wait; a type that got no
 * answer where the plain probe of its protocol did is sent once more, so
 * that one lost answer is not a blackhole. The run stops at the TTL where
 * the destination answered. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"

#define TRIES 2
#define INDEX_MAX (EW_PROBE_MAX_TTL * TRIES * EW_PT_COUNT)

struct sent_probe {
    int64_t at_ns;  /* 0: not sent */
    uint32_t seq;
};

struct ew_probe_net {
    struct ew_probe_opts o;
    int family;
    uint16_t tcp_port, udp_port;
    struct sockaddr_storage dst;
    socklen_t dstlen;
    int send_fd;
    int rx[3]; /* ICMP, TCP, UDP */
    uint16_t port_base, id_base;
    uint32_t seq_base;
    uint8_t dcid[8];
    struct sent_probe sent[INDEX_MAX];
};

void
ew_probe_defaults(struct ew_probe_opts *p)
{
    memset(p, 0, sizeof(*p));
    p->max_ttl = 30;
    p->rate = 20;
    p->max_probes = 1000;
    p->wait_ms = 1000;
    p->udp_port = 443;
}

int
ew_probe_parse_types(const char *list, uint32_t *mask, char *bad, size_t badlen)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        int t, hit = -1;

        for (t = 0; t < EW_PT_COUNT; t++)
            if (strlen(ew_probe_specs[t].name) == n && !strncmp(p, ew_probe_specs[t].name, n))
                hit = t;
        if (hit < 0) {
            snprintf(bad, badlen, "%.*s", (int)(n < 64 ? n : 64), p);
            return -1;
        }
        *mask |= 1u << hit;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!*mask) {
        snprintf(bad, badlen, "%s", "");
        return -1;
    }
    return 0;
}

int
ew_probe_parse_target(const char *s, char *host, size_t hostlen, uint16_t *port, char *err,
                      size_t errlen)
{
    const char *colon, *end;
    size_t n;

    *port = 80;
    if (!s || !*s) {
        snprintf(err, errlen, "--probe: no host given");
        return -1;
    }
    if (s[0] == '[') {
        end = strchr(s, ']');
        if (!end) {
            snprintf(err, errlen, "--probe %s: no ']' after the IPv6 address", s);
            return -1;
        }
        n = (size_t)(end - s - 1);
        colon = end[1] == ':' ? end + 1 : NULL;
        if (end[1] && !colon) {
            snprintf(err, errlen, "--probe %s: only ':PORT' may follow ']'", s);
            return -1;
        }
        s++;
    } else {
        colon = strchr(s, ':');
        if (colon && strchr(colon + 1, ':'))
            colon = NULL; /* an IPv6 address alone */
        n = colon ? (size_t)(colon - s) : strlen(s);
    }
    if (n == 0 || n >= hostlen) {
        snprintf(err, errlen, "--probe: the host is %s", n ? "too long" : "empty");
        return -1;
    }
    memcpy(host, s, n);
    host[n] = '\0';
    if (colon) {
        char *e;
        unsigned long v;

        errno = 0;
        v = strtoul(colon + 1, &e, 10);
        if (errno || *e || e == colon + 1 || v < 1 || v > 65535 || colon[1] == '-' ||
            colon[1] == '+') {
            snprintf(err, errlen, "--probe: '%s' is not a port from 1 to 65535", colon + 1);
            return -1;
        }
        *port = (uint16_t)v;
    }
    return 0;
}

static int64_t
now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void
addr_bytes(const struct sockaddr_storage *ss, uint8_t out[16])
{
    memset(out, 0, 16);
    if (ss->ss_family == AF_INET)
        memcpy(out, &((const struct sockaddr_in *)ss)->sin_addr, 4);
    else
        memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
}

static int
raw_socket(int family, int proto, char *err, size_t errlen)
{
    int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, proto);

    if (fd < 0)
        snprintf(err, errlen, "--probe: %s",
                 errno == EPERM || errno == EACCES
                     ? "raw sockets need root or the CAP_NET_RAW capability; nothing was sent"
                     : strerror(errno));
    return fd;
}

int
ew_probe_net_open(const struct ew_probe_opts *o, struct ew_probe_net **out,
                  struct ew_probe_result *r, char *err, size_t errlen)
{
    struct addrinfo hints, *ai = NULL;
    struct ew_probe_net *n;
    struct sockaddr_storage src;
    socklen_t srclen = sizeof(src);
    char host[256], portbuf[8];
    uint16_t port;
    int fd, rc, i, one = 1;
    uint8_t rnd[16];

    *out = NULL;
    if (ew_probe_parse_target(o->target, host, sizeof(host), &port, err, errlen) != 0)
        return 2;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_DGRAM;
    snprintf(portbuf, sizeof(portbuf), "%u", port);
    rc = getaddrinfo(host, portbuf, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(err, errlen, "--probe %s: %s", host, rc ? gai_strerror(rc) : "no address");
        return 2;
    }
    n = calloc(1, sizeof(*n));
    if (!n) {
        freeaddrinfo(ai);
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    n->o = *o;
    n->family = ai->ai_family == AF_INET6 ? 6 : 4;
    n->tcp_port = port;
    n->udp_port = (uint16_t)o->udp_port;
    memcpy(&n->dst, ai->ai_addr, ai->ai_addrlen);
    n->dstlen = ai->ai_addrlen;
    freeaddrinfo(ai);
    n->send_fd = n->rx[0] = n->rx[1] = n->rx[2] = -1;
    /* the source address the kernel would use toward the target: the TCP
     * and UDP checksums cover it */
    fd = socket(n->dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&n->dst, n->dstlen) != 0 ||
        getsockname(fd, (struct sockaddr *)&src, &srclen) != 0) {
        snprintf(err, errlen, "--probe %s: no route: %s", host, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(n);
        return 2;
    }
    close(fd);
    memset(r, 0, sizeof(*r));
    r->family = n->family;
    addr_bytes(&src, r->src);
    addr_bytes(&n->dst, r->dst);
    r->max_ttl = o->max_ttl;
    for (i = 0; i < EW_PT_COUNT; i++)
        r->types[i] = !o->types || (o->types & (1u << i));
    /* the sockets: one to send whole IP packets, three to read answers */
    if (n->family == 4) {
        n->send_fd = raw_socket(AF_INET, IPPROTO_RAW, err, errlen);
        if (n->send_fd >= 0)
            n->rx[0] = raw_socket(AF_INET, IPPROTO_ICMP, err, errlen);
        if (n->rx[0] >= 0)
            n->rx[1] = raw_socket(AF_INET, IPPROTO_TCP, err, errlen);
        if (n->rx[1] >= 0)
            n->rx[2] = raw_socket(AF_INET, IPPROTO_UDP, err, errlen);
    } else {
        struct icmp6_filter f;

        n->send_fd = raw_socket(AF_INET6, IPPROTO_RAW, err, errlen); /* implies the header */
        if (n->send_fd >= 0)
            n->rx[0] = raw_socket(AF_INET6, IPPROTO_ICMPV6, err, errlen);
        if (n->rx[0] >= 0) {
            ICMP6_FILTER_SETBLOCKALL(&f);
            ICMP6_FILTER_SETPASS(ICMP6_DST_UNREACH, &f);
            ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &f);
            setsockopt(n->rx[0], IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f));
            n->rx[1] = raw_socket(AF_INET6, IPPROTO_TCP, err, errlen);
        }
        if (n->rx[1] >= 0)
            n->rx[2] = raw_socket(AF_INET6, IPPROTO_UDP, err, errlen);
        for (i = 1; i < 3; i++)
            if (n->rx[i] >= 0)
                setsockopt(n->rx[i], IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
    }
    if (n->rx[2] < 0) {
        ew_probe_net_close(n);
        return 3;
    }
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        for (i = 0; i < (int)sizeof(rnd); i++)
            rnd[i] = (uint8_t)(now_ns() >> (i % 8));
    n->port_base = (uint16_t)(20000 + ((unsigned)rnd[0] << 8 | rnd[1]) % (65535 - 20000 - INDEX_MAX));
    n->id_base = (uint16_t)((unsigned)rnd[2] << 8 | rnd[3]);
    n->seq_base = (uint32_t)rnd[4] << 24 | (uint32_t)rnd[5] << 16 | (uint32_t)rnd[6] << 8 | rnd[7];
    memcpy(n->dcid, rnd + 8, 8);
    *out = n;
    return 0;
}

void
ew_probe_net_close(struct ew_probe_net *n)
{
    int i;

    if (!n)
        return;
    if (n->send_fd >= 0)
        close(n->send_fd);
    for (i = 0; i < 3; i++)
        if (n->rx[i] >= 0)
            close(n->rx[i]);
    free(n);
}

static int
index_of(int ttl, int try, int type)
{
    return ((ttl - 1) * TRIES + try) * EW_PT_COUNT + type;
}

static uint32_t
probe_seq(const struct ew_probe_net *n, int idx)
{
    return n->seq_base + (uint32_t)idx * 65536u;
}

static int
send_probe(struct ew_probe_net *n, const struct ew_probe_result *r, int ttl, int try, int type)
{
    uint8_t buf[EW_PROBE_PKT_MAX];
    struct ew_probe_pkt p;
    int idx = index_of(ttl, try, type);
    size_t len;

    memset(&p, 0, sizeof(p));
    p.family = n->family;
    memcpy(p.src, r->src, 16);
    memcpy(p.dst, r->dst, 16);
    p.ttl = (uint8_t)ttl;
    p.type = (enum ew_probe_type)type;
    p.sport = (uint16_t)(n->port_base + idx);
    p.dport = ew_probe_specs[type].udp ? n->udp_port : n->tcp_port;
    p.seq = probe_seq(n, idx);
    p.ack = n->seq_base ^ 0x5a5a5a5au;
    p.ip_id = (uint16_t)(n->id_base + idx);
    memcpy(p.dcid, n->dcid, 8);
    len = ew_probe_build(&p, buf, sizeof(buf));
    if (len == 0)
        return -1;
    n->sent[idx].at_ns = now_ns();
    n->sent[idx].seq = p.seq;
    if (sendto(n->send_fd, buf, len, 0, (struct sockaddr *)&n->dst, n->dstlen) < 0) {
        n->sent[idx].at_ns = 0;
        return -1;
    }
    return 0;
}

/* the answer's probe, or -1 (not ours) */
static int
match(const struct ew_probe_net *n, const struct ew_probe_result *r, const struct ew_probe_reply *a)
{
    int idx, type;
    const struct ew_probe_spec *s;
    uint32_t seq;
    size_t alen = n->family == 4 ? 4 : 16;

    if (a->sport < n->port_base || a->sport >= n->port_base + INDEX_MAX)
        return -1;
    idx = a->sport - n->port_base;
    type = idx % EW_PT_COUNT;
    s = &ew_probe_specs[type];
    if (!n->sent[idx].at_ns || s->udp != a->udp ||
        a->dport != (s->udp ? n->udp_port : n->tcp_port) || memcmp(a->probe_dst, r->dst, alen))
        return -1;
    seq = n->sent[idx].seq;
    if (a->have_seq) {
        if (a->answer == EW_PA_TIME_EXCEEDED || a->answer == EW_PA_UNREACHABLE) {
            if (a->seq != seq)
                return -1;
        } else if (a->seq != seq + 1 && a->seq != seq + (s->option ? EW_PROBE_DATA_LEN : 1)) {
            return -1;
        }
    }
    return idx;
}

static void
record(struct ew_probe_net *n, struct ew_probe_result *r, const struct ew_probe_reply *a, int idx,
       int64_t at)
{
    int ttl = idx / (TRIES * EW_PT_COUNT) + 1, type = idx % EW_PT_COUNT;
    struct ew_probe_obs *o = &r->obs[ttl][type];
    size_t alen = n->family == 4 ? 4 : 16;
    bool quote = a->answer == EW_PA_TIME_EXCEEDED || a->answer == EW_PA_UNREACHABLE;

    if (o->answer != EW_PA_NONE)
        return; /* the first answer of a TTL's probes of this type counts */
    o->answer = a->answer;
    memcpy(o->from, a->from, 16);
    o->from_dst = !memcmp(a->from, r->dst, alen);
    o->rtt_ms = (double)(at - n->sent[idx].at_ns) / 1e6;
    if (quote) {
        o->quoted = a->quoted;
        o->ecn = a->ecn;
        o->flags = a->flags;
        o->option = a->option;
    } else {
        o->answer_ecn = a->ecn;
        o->answer_flags = a->flags;
    }
    if (o->from_dst && (!r->dest_ttl || ttl < r->dest_ttl))
        r->dest_ttl = ttl;
}

/* one datagram from socket i */
static void
receive_one(struct ew_probe_net *n, struct ew_probe_result *r, struct ew_probe_meta *m, int i)
{
    uint8_t buf[2048], from[16], cbuf[256];
    struct sockaddr_storage ss;
    struct iovec iov = {buf, sizeof(buf)};
    struct msghdr mh;
    struct ew_probe_reply a;
    struct cmsghdr *cm;
    ssize_t len;
    int tclass = -1, rc, idx;

    memset(&mh, 0, sizeof(mh));
    mh.msg_name = &ss;
    mh.msg_namelen = sizeof(ss);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof(cbuf);
    len = recvmsg(n->rx[i], &mh, MSG_DONTWAIT);
    if (len <= 0)
        return;
    for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
        if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_TCLASS &&
            cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int v;

            memcpy(&v, CMSG_DATA(cm), sizeof(v));
            tclass = v;
        }
    addr_bytes(&ss, from);
    if (n->family == 4)
        rc = i == 0 ? ew_probe_read_icmp4(buf, (size_t)len, &a)
                    : ew_probe_read_l4_4(buf, (size_t)len, i == 2, &a);
    else
        rc = i == 0 ? ew_probe_read_icmp6(buf, (size_t)len, from, &a)
                    : ew_probe_read_l4_6(buf, (size_t)len, i == 2, from, tclass, &a);
    if (rc != 0)
        return; /* not an answer of the kinds probes get */
    /* a TCP or UDP answer comes from the target's port */
    if (i > 0 && memcmp(a.from, r->dst, n->family == 4 ? 4 : 16))
        return;
    idx = match(n, r, &a);
    if (idx < 0) {
        if (i == 0)
            m->stray++; /* an ICMP error about someone else's packet */
        return;
    }
    m->answers++;
    record(n, r, &a, idx, now_ns());
}

/* read answers until deadline (monotonic ns), or until done() says enough */
static void
receive_until(struct ew_probe_net *n, struct ew_probe_result *r, struct ew_probe_meta *m,
              int64_t deadline, int ttl, volatile sig_atomic_t *stop)
{
    struct pollfd pf[3];
    int i;

    for (;;) {
        int64_t left = deadline - now_ns();
        int t, all = 1;

        if (ttl > 0) {
            for (t = 0; t < EW_PT_COUNT; t++)
                if (r->obs[ttl][t].sent && r->obs[ttl][t].answer == EW_PA_NONE)
                    all = 0;
            if (all)
                return;
        }
        if (left <= 0 || *stop)
            return;
        for (i = 0; i < 3; i++) {
            pf[i].fd = n->rx[i];
            pf[i].events = POLLIN;
            pf[i].revents = 0;
        }
        if (poll(pf, 3, (int)((left + 999999) / 1000000)) <= 0)
            continue;
        for (i = 0; i < 3; i++)
            if (pf[i].revents & POLLIN)
                receive_one(n, r, m, i);
    }
}

int
ew_probe_net_run(struct ew_probe_net *n, struct ew_probe_result *r, struct ew_probe_meta *m,
                 volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    int64_t gap = 1000000000 / (n->o.rate > 0 ? n->o.rate : 1), next = now_ns();
    int ttl, try, t;

    m->stopped = "max_ttl";
    m->tcp_port = n->tcp_port;
    for (ttl = 1; ttl <= n->o.max_ttl && ttl <= EW_PROBE_MAX_TTL; ttl++) {
        for (try = 0; try < TRIES; try++) {
            int sent = 0, any = 0;

            for (t = 0; t < EW_PT_COUNT; t++)
                any |= r->obs[ttl][t].answer != EW_PA_NONE;
            for (t = 0; t < EW_PT_COUNT; t++) {
                struct ew_probe_obs *o = &r->obs[ttl][t];

                if (!r->types[t])
                    continue;
                /* a retry: only what went unanswered where another probe
                 * of this TTL was answered */
                if (try > 0 && (o->answer != EW_PA_NONE || !any))
                    continue;
                if (m->sent >= (uint64_t)n->o.max_probes) {
                    m->stopped = "max_probes";
                    goto done;
                }
                receive_until(n, r, m, next, 0, stop);
                if (*stop) {
                    m->stopped = "signal";
                    goto done;
                }
                if (send_probe(n, r, ttl, try, t) != 0) {
                    snprintf(err, errlen, "--probe: cannot send: %s", strerror(errno));
                    return -1;
                }
                m->sent++;
                o->sent++;
                sent++;
                next = now_ns() + gap;
            }
            if (sent)
                receive_until(n, r, m, now_ns() + (int64_t)n->o.wait_ms * 1000000, ttl, stop);
            if (*stop) {
                m->stopped = "signal";
                goto done;
            }
        }
        if (r->dest_ttl) {
            m->stopped = "destination";
            break;
        }
    }
done:
    if (strcmp(m->stopped, "max_ttl") != 0 && ttl < r->max_ttl)
        r->max_ttl = ttl; /* the TTLs probed, the last perhaps in part */
    return 0;
}
