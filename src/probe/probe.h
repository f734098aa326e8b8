/* probe.h - the active path probe (--probe HOST[:PORT]): probes with a
 * rising TTL (hop limit) and each ECN set-up, and what the routers on the
 * way quote of them in ICMP Time Exceeded and Destination Unreachable
 * (RFC 792, RFC 4443; RFC 1812 §4.3.2.3: as much of the packet as fits in
 * 576 bytes), as tracebox reads them. A router quotes the probe as it
 * arrived there, so the first hop whose quote differs from what was sent
 * shows where the change happened.
 *
 *   probe_wire.c   the probes' bytes, and the answers read through the
 *                  checked cursor (pure: no I/O)
 *   probe_judge.c  per dimension (a probe type and the field it tests) the
 *                  last hop that saw it as sent and the first that did not,
 *                  or a blackhole; the findings (pure)
 *   probe_out.c    the JSON report ("ecnwatch.probe/1") and the text
 *   probe_run.c    the raw sockets, the pacing, the matching, the run */
#ifndef ECNWATCH_PROBE_H
#define ECNWATCH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "dissectors/ecn.h"
#include "findings/misuse.h"

/* The probe types, one row each: X(ID, name, udp, ip codepoint, TCP flags
 * (ecn.h's 9-bit value), AccECN option, field tested, what it is; --list
 * probes prints them). Their order is the order in which each TTL's probes
 * are sent. */
enum ew_probe_field { EW_PF_ECN, EW_PF_FLAGS, EW_PF_OPTION };

#define EW_PROBE_TYPES(X) \
    X(TCP_PLAIN, "tcp_plain", false, EW_ECN_NOT_ECT, EW_TCP_SYN, false, EW_PF_ECN, "a SYN, Not-ECT, no ECN flags: the baseline") \
    X(TCP_ECT0, "tcp_ect0", false, EW_ECN_ECT_0, EW_TCP_SYN, false, EW_PF_ECN, "a SYN whose IP ECN field is ECT(0)") \
    X(TCP_ECT1, "tcp_ect1", false, EW_ECN_ECT_1, EW_TCP_SYN, false, EW_PF_ECN, "a SYN whose IP ECN field is ECT(1)") \
    X(TCP_CE, "tcp_ce", false, EW_ECN_CE, EW_TCP_SYN, false, EW_PF_ECN, "a SYN whose IP ECN field is CE") \
    X(TCP_ECN_SETUP, "tcp_ecn_setup", false, EW_ECN_NOT_ECT, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, false, EW_PF_FLAGS, "a SYN with ECE and CWR (RFC 3168)") \
    X(TCP_ACCECN_SETUP, "tcp_accecn_setup", false, EW_ECN_NOT_ECT, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR | EW_TCP_AE, false, EW_PF_FLAGS, "a SYN with AE, CWR and ECE (AccECN)") \
    X(TCP_ACCECN_OPTION, "tcp_accecn_option", false, EW_ECN_NOT_ECT, EW_TCP_ACK | EW_TCP_PSH, true, EW_PF_OPTION, "an ACK with data and the AccECN option") \
    X(UDP_NOT_ECT, "udp_not_ect", true, EW_ECN_NOT_ECT, 0, false, EW_PF_ECN, "a QUIC-Initial-shaped datagram, Not-ECT: the UDP baseline") \
    X(UDP_ECT0, "udp_ect0", true, EW_ECN_ECT_0, 0, false, EW_PF_ECN, "the datagram with ECT(0)") \
    X(UDP_ECT1, "udp_ect1", true, EW_ECN_ECT_1, 0, false, EW_PF_ECN, "the datagram with ECT(1)") \
    X(UDP_CE, "udp_ce", true, EW_ECN_CE, 0, false, EW_PF_ECN, "the datagram with CE")

enum ew_probe_type {
#define EW_X(id, name, udp, ecn, flags, opt, field, text) EW_PT_##id,
    EW_PROBE_TYPES(EW_X)
#undef EW_X
    EW_PT_COUNT
};

struct ew_probe_spec {
    const char *name;
    bool udp;
    uint8_t ecn;     /* enum ew_ecn */
    uint16_t flags;  /* TCP: ecn.h's 9-bit flags */
    bool option;     /* TCP: the AccECN option (kind 172), with data */
    enum ew_probe_field field;
};
extern const struct ew_probe_spec ew_probe_specs[EW_PT_COUNT];
extern const char *const ew_probe_type_name[EW_PT_COUNT];
extern const char *const ew_probe_type_text[EW_PT_COUNT];
extern const char *const ew_probe_field_name[3];

/* ---- the wire (probe_wire.c) ---- */

/* the AccECN option a probe carries: kind 172 (order EE0B, ECEB, EE1B),
 * the counters' initial values (RFC 9768 §3.2.1: r.e0b = r.e1b = 1) */
#define EW_PROBE_ACCECN_KIND 172
#define EW_PROBE_DATA_LEN 16   /* the option probe's payload */
#define EW_PROBE_UDP_LEN 1200  /* a QUIC Initial's least datagram (RFC 9000 §14.1) */
#define EW_PROBE_PKT_MAX 1280

struct ew_probe_pkt {
    int family;             /* 4 or 6 */
    uint8_t src[16], dst[16];
    uint8_t ttl;
    enum ew_probe_type type;
    uint16_t sport, dport;
    uint32_t seq, ack;      /* TCP */
    uint16_t ip_id;         /* IPv4 */
    uint8_t dcid[8];        /* UDP: the QUIC Initial's destination connection ID */
};

/* The probe's bytes from the IP header on, into buf (room bytes, at least
 * EW_PROBE_PKT_MAX); returns the length, or 0 when room is short. */
size_t ew_probe_build(const struct ew_probe_pkt *p, uint8_t *buf, size_t room);

/* what an answer says, as read from its bytes */
enum ew_probe_answer {
    EW_PA_NONE,          /* no answer */
    EW_PA_TIME_EXCEEDED, /* ICMP 11 / ICMPv6 3 */
    EW_PA_UNREACHABLE,   /* ICMP 3 / ICMPv6 1 */
    EW_PA_SYN_ACK,       /* the destination's SYN-ACK */
    EW_PA_RST,           /* the destination's RST */
    EW_PA_UDP,           /* a datagram from the destination's port */
    EW_PA_COUNT
};
extern const char *const ew_probe_answer_name[EW_PA_COUNT];

/* An option's state in a quote */
enum ew_probe_opt { EW_PO_NOT_QUOTED, EW_PO_ABSENT, EW_PO_PRESENT, EW_PO_CHANGED };
extern const char *const ew_probe_opt_name[4];

/* One answer read from the wire. The quoted fields are -1 where the quote
 * was too short to hold them. */
struct ew_probe_reply {
    enum ew_probe_answer answer;
    uint8_t code;            /* ICMP code */
    uint8_t from[16];        /* who answered */
    /* what the answer is about: the probe's addresses and ports as quoted,
     * or the TCP/UDP answer's own, reversed */
    uint8_t probe_dst[16];
    bool udp;
    uint16_t sport, dport;
    bool have_seq;
    uint32_t seq;            /* quoted TCP sequence number; a TCP answer's ack - 1 */
    bool have_ip_id;
    uint16_t ip_id;          /* quoted IPv4 ID */
    unsigned quoted;         /* bytes of the probe quoted (from its IP header on) */
    int ecn;                 /* quoted codepoint; a TCP or UDP answer's own */
    int flags;               /* quoted TCP flags (9 bits); a TCP answer's own */
    enum ew_probe_opt option; /* the AccECN option as quoted */
    bool rfc4884;            /* the ICMP message said how long its quote was */
};

/* Read an ICMP message (IPv4: from its IP header on, as a raw ICMP socket
 * gives it; IPv6: from the ICMPv6 header on, with from given) into r.
 * 0 when it is a Time Exceeded or Unreachable quoting a TCP or UDP packet,
 * -1 otherwise (not an error: others' ICMP). */
int ew_probe_read_icmp4(const uint8_t *b, size_t n, struct ew_probe_reply *r);
int ew_probe_read_icmp6(const uint8_t *b, size_t n, const uint8_t from[16],
                        struct ew_probe_reply *r);
/* A TCP or UDP answer: IPv4 from its IP header on; IPv6 from the transport
 * header on, with from and the traffic class (-1 when not known) given. */
int ew_probe_read_l4_4(const uint8_t *b, size_t n, bool udp, struct ew_probe_reply *r);
int ew_probe_read_l4_6(const uint8_t *b, size_t n, bool udp, const uint8_t from[16], int tclass,
                       struct ew_probe_reply *r);

/* ---- the observations and the verdicts (probe_judge.c) ---- */

#define EW_PROBE_MAX_TTL 64

struct ew_probe_obs {
    enum ew_probe_answer answer;
    bool from_dst;           /* the answer came from the destination */
    uint8_t from[16];
    unsigned quoted;         /* 0: nothing quoted (a TCP or UDP answer, or none) */
    int ecn;                 /* as quoted, -1: not quoted */
    int flags;               /* as quoted, -1: not quoted */
    enum ew_probe_opt option;
    int answer_ecn;          /* a TCP or UDP answer's own codepoint, -1 */
    int answer_flags;        /* a TCP answer's flags, -1 */
    double rtt_ms;
    unsigned sent;           /* probes of this type sent at this TTL (retries) */
};

enum ew_probe_verdict { EW_PV_UNCHANGED, EW_PV_CHANGED, EW_PV_BLACKHOLE, EW_PV_AMBIGUOUS,
                        EW_PV_UNKNOWN, EW_PV_COUNT };
extern const char *const ew_probe_verdict_name[EW_PV_COUNT];

enum ew_probe_change { EW_PC_NONE, EW_PC_BLEACHED, EW_PC_REMARKED, EW_PC_CE_CLEARED,
                       EW_PC_CE_MARKED, EW_PC_ECT_SET, EW_PC_CE_SET, EW_PC_FLAGS_STRIPPED,
                       EW_PC_FLAGS_CHANGED, EW_PC_OPTION_REMOVED, EW_PC_OPTION_CHANGED,
                       EW_PC_COUNT };
extern const char *const ew_probe_change_name[EW_PC_COUNT];

enum ew_probe_conf { EW_PCONF_CERTAIN, EW_PCONF_LIKELY, EW_PCONF_UNKNOWN };
extern const char *const ew_probe_conf_name[3];

struct ew_probe_dim {
    enum ew_probe_type type;
    enum ew_probe_verdict verdict;
    enum ew_probe_change change;
    int last_as_sent;        /* TTL, 0 the sender, -1 none */
    int first_changed;       /* TTL, -1 none */
    int seen;                /* the value first_changed saw (field's own) */
    int first_silent;        /* blackhole: the first TTL with no answer */
    enum ew_probe_conf conf;
    char reason[200];
};

struct ew_probe_finding {
    enum ew_misuse_kind kind;
    enum ew_probe_type type;
    int ttl;                 /* where it was first seen (blackhole: the first silent) */
    enum ew_probe_conf conf;
    char detail[200];
};

#define EW_PROBE_FINDINGS_MAX EW_PT_COUNT

struct ew_probe_result {
    int family;
    uint8_t src[16], dst[16];
    int max_ttl;             /* TTLs probed */
    int dest_ttl;            /* the TTL at which the destination answered, 0 none */
    struct ew_probe_obs obs[EW_PROBE_MAX_TTL + 1][EW_PT_COUNT]; /* [ttl][type], ttl from 1 */
    bool types[EW_PT_COUNT]; /* the types probed */
    struct ew_probe_dim dims[EW_PT_COUNT];
    struct ew_probe_finding findings[EW_PROBE_FINDINGS_MAX];
    size_t nfindings;
};

/* The value of the type's field an observation shows, -1 when it shows none
 * (not quoted, no answer, or an answer that does not say). */
int ew_probe_obs_value(const struct ew_probe_obs *o, enum ew_probe_type t);
/* The value sent. */
int ew_probe_sent_value(enum ew_probe_type t);
/* What the destination's SYN-ACK in o negotiated with the set-up of type t
 * (enum ew_neg, negotiation.h), or -1 when o is no SYN-ACK of the
 * destination. */
int ew_probe_negotiation(const struct ew_probe_obs *o, enum ew_probe_type t);
/* The dimensions and findings of r from its observations. */
void ew_probe_judge(struct ew_probe_result *r);
/* the mask of the kinds found */
uint32_t ew_probe_found(const struct ew_probe_result *r);

/* ---- the output (probe_out.c) ---- */
struct ew_probe_meta {
    const char *name;        /* as given */
    uint16_t tcp_port, udp_port;
    int rate, max_probes, wait_ms;
    uint64_t sent, answers, stray;
    const char *stopped;     /* destination, max_ttl, max_probes, signal */
};
int ew_probe_write_json(FILE *out, const struct ew_probe_result *r, const struct ew_probe_meta *m);
int ew_probe_write_text(FILE *out, const struct ew_probe_result *r, const struct ew_probe_meta *m);

/* ---- the network (probe_net.c) ---- */
struct ew_probe_opts {
    const char *target;      /* HOST[:PORT], [V6]:PORT */
    int max_ttl;             /* default 30 */
    int rate;                /* probes per second, default 20 */
    int max_probes;          /* default 1000 */
    int wait_ms;             /* default 1000 */
    int udp_port;            /* default 443 */
    uint32_t types;          /* mask of the types; 0: all */
};
void ew_probe_defaults(struct ew_probe_opts *p);
/* --probe-types NAME,...: 0, or -1 with the unknown word in bad */
int ew_probe_parse_types(const char *list, uint32_t *mask, char *bad, size_t badlen);
/* HOST[:PORT], [V6ADDR][:PORT], or an IPv6 address alone: the host into
 * host, the port (default 80) into *port. 0, or -1 with err set. */
int ew_probe_parse_target(const char *s, char *host, size_t hostlen, uint16_t *port, char *err,
                          size_t errlen);

struct ew_probe_net;
/* Resolve the target, find the source address toward it, open the raw
 * sockets: 0, or 2 (the target cannot be resolved or reached) or 3 (no raw
 * sockets: not root, no CAP_NET_RAW), with err set. Nothing is sent. */
int ew_probe_net_open(const struct ew_probe_opts *o, struct ew_probe_net **out,
                      struct ew_probe_result *r, char *err, size_t errlen);
/* Send the probes and read the answers into r; m's counts and TCP port
 * filled. 0, or -1
 * with err set when the network failed. */
int ew_probe_net_run(struct ew_probe_net *n, struct ew_probe_result *r, struct ew_probe_meta *m,
                     volatile sig_atomic_t *stop, char *err, size_t errlen);
void ew_probe_net_close(struct ew_probe_net *n);

/* ---- a probe's report read back (probe_read.c) ---- */
#define EW_PROBE_REPORT_MAX (4u << 20)

/* one finding of a probe's report */
struct ew_probe_located {
    enum ew_misuse_kind kind;
    char dim[24];            /* the dimension (probe type) */
    int ttl;                 /* the first hop that showed it */
    char addr[48];           /* its address, "" when none */
    int last_ttl;            /* the last hop that saw it as sent (0 the sender), -1 */
    char last_addr[48];
    char conf[12];
    char detail[200];
};

struct ew_probe_summary {
    const char *file;        /* the path read (the caller's string) */
    char target[264], target_addr[48], source[48];
    int dest_ttl;            /* -1: the destination did not answer */
    size_t n;
    struct ew_probe_located f[EW_PROBE_FINDINGS_MAX];
    size_t more;             /* findings past the room */
    uint32_t found;          /* their kinds */
};

/* Read the report --probe wrote to path (-o): 0, or -1 with err set to one
 * line naming the file and the problem (also: jansson cannot be loaded). */
int ew_probe_read_report(const char *path, struct ew_probe_summary *s, char *err, size_t errlen);

#endif /* ECNWATCH_PROBE_H */
