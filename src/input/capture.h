/* capture.h - the libpcap side: open a capture file (or standard input),
 * apply a filter, map the link type, hand out frames. The only header that
 * knows libpcap exists. */
#ifndef ECNWATCH_CAPTURE_H
#define ECNWATCH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/pkt.h"
#include "input/frame.h"

enum ew_cap_err {
    EW_CAP_ERR_INPUT = -1,  /* missing, unreadable, not a capture */
    EW_CAP_ERR_FILTER = -2, /* the filter expression does not compile */
    EW_CAP_ERR_LINK = -3,   /* a link type ecnwatch does not decode */
};

struct ew_capture;

/* A capture file opened before it is read: by root, before it gives up its
 * privileges (-Z), so that the user it becomes reads what root could. Two
 * descriptors of a regular file (a compressed pcapng is decompressed a
 * second time, from its start); none for standard input. */
struct ew_input {
    int fd, fd2; /* -1: none */
};

/* 0, or EW_CAP_ERR_INPUT with a one-line message ("PATH: REASON") */
int ew_input_open(const char *path, struct ew_input *in, char *errbuf, size_t errlen);
/* the descriptors left in in (none after it: -1) */
void ew_input_close(struct ew_input *in);

/* Open `path` ("-" for standard input) and compile `filter` (NULL or "" for
 * none). On failure returns an enum ew_cap_err and a one-line message. */
int ew_capture_open_file(const char *path, const char *filter, struct ew_capture **out,
                         char *errbuf, size_t errlen);
/* The same, from in when it is not NULL: what it takes of in is the
 * capture's (set -1 there); what is left, ew_input_close() closes */
int ew_capture_open_input(const char *path, struct ew_input *in, const char *filter,
                          struct ew_capture **out, char *errbuf, size_t errlen);
/* the kernel buffer of a live capture when none is asked for: 32 MiB */
#define EW_LIVE_BUFFER_KIB 32768
/* how long the kernel may hold a live capture's frames before it hands them
 * over (the ring's block timeout), milliseconds */
#define EW_LIVE_BLOCK_MS 20

/* Open interface `iface` for live capture: the given snapshot length and
 * kernel buffer (KiB, 0 for EW_LIVE_BUFFER_KIB), frames handed over in
 * blocks (TPACKET_V3 on Linux: one wakeup per block, not per frame) at most
 * EW_LIVE_BLOCK_MS after they arrive, then the filter.
 * On failure returns an enum ew_cap_err and a one-line message that names the
 * cause (no such interface, no permission and the capability needed,
 * interface down). */
int ew_capture_open_live(const char *iface, int snaplen, int buffer_kib, const char *filter,
                         struct ew_capture **out, char *errbuf, size_t errlen);
/* Join the live capture to fan-out group `group` of its interface, so
 * that the kernel shares the interface's frames out among the group's
 * members, both directions of a flow to one member. The member is chosen
 * by a classic BPF program (PACKET_FANOUT_CBPF, fanout.h) that hashes each
 * frame's addresses and, for TCP and UDP, ports, symmetrically, read from
 * the network header whatever the link; a UDP datagram from or to one of
 * `ports` (the tunnels decapsulated, nports of them) by its outer
 * addresses only, since the outer source port of a VXLAN or Geneve packet
 * differs by direction: every flow between two tunnel endpoints goes to
 * one member. Frames of no IP, or cut short, go to the first member.
 * 0 with the program; 1 with the kernel's flow hash instead
 * (PACKET_FANOUT_HASH: `program` false, a kernel before 4.3, or one that
 * refuses the program), which splits the directions of a flow carried over UDP; -1
 * with a message (not Linux, or the kernel refused). */
int ew_capture_fanout(struct ew_capture *cap, unsigned group, bool program,
                      const uint16_t *ports, size_t nports, char *errbuf, size_t errlen);

/* a descriptor to poll for packets (live captures), -1 when there is none */
int ew_capture_fd(const struct ew_capture *cap);
/* Hand at most `budget` waiting frames to fn without blocking; returns the
 * number handed, or -1 on an error (errbuf says it). */
int ew_capture_dispatch(struct ew_capture *cap, int budget,
                        void (*fn)(void *arg, const struct ew_frame *fr), void *arg,
                        char *errbuf, size_t errlen);
/* kernel counters of a live capture: received, dropped; -1 when unknown */
int ew_capture_stats(struct ew_capture *cap, uint64_t *received, uint64_t *dropped);
/* The same counters apart: the packets the kernel received for the
 * capture, those its buffer dropped (ps_drop), and those the interface or
 * its driver dropped (ps_ifdrop), which only Linux reports (ifdrop_known).
 * 0, or -1 when unknown (a file, or pcap_stats failed). */
struct ew_capture_loss {
    uint64_t received, dropped, ifdropped;
    bool ifdrop_known;
};
int ew_capture_loss(struct ew_capture *cap, struct ew_capture_loss *out);
/* the link type of the first interface (each frame says its own) */
enum ew_link ew_capture_link(const struct ew_capture *cap);
/* libpcap's link type (DLT_) and snapshot length, for writing the frames again */
void ew_capture_format(const struct ew_capture *cap, int *dlt, int *snaplen);
const char *ew_capture_link_name(const struct ew_capture *cap);
/* On EW_CAP_BROKEN, errbuf says why. */
enum ew_cap_next ew_capture_next(struct ew_capture *cap, struct ew_frame *fr, char *errbuf,
                                 size_t errlen);
void ew_capture_close(struct ew_capture *cap);

#endif /* ECNWATCH_CAPTURE_H */
