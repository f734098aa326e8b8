/* fanout.h - the classic BPF program that picks a live capture's worker
 * (--workers): a hash that is the same for both directions of a flow, also
 * of one carried in a UDP tunnel. The kernel runs it on each frame of the
 * interface and hands the frame to member (value % members) of the fan-out
 * group (PACKET_FANOUT_CBPF); capture.c installs it. Only the instruction
 * array is built here: the kernel checks the program and bounds every load.
 *
 * What it hashes, reading from the network header (SKF_NET_OFF), whatever
 * the link type:
 *   - IPv4 and IPv6 (by the frame's protocol): the two addresses, combined
 *     so that swapping them changes nothing; and, for TCP and UDP when the
 *     packet is whole or a first fragment (IPv4 offset 0; IPv6 next header
 *     TCP or UDP, no extension header), the two ports likewise;
 *   - a UDP datagram from or to one of the tunnel ports: the outer
 *     addresses only. The sender picks the outer source port from a hash of
 *     the inner packet, so the two directions of one inner flow carry
 *     different outer ports; every tunnelled flow between two endpoints
 *     goes to one worker instead (less even, but whole);
 *   - other protocols over IP (IP-in-IP, GRE, ICMP, later fragments): the
 *     addresses only;
 *   - anything else (ARP, MPLS, a frame whose headers are cut): 0, the
 *     first worker. A load past the end of the packet's linear data makes
 *     the kernel end the program with 0 as well. */
#ifndef ECNWATCH_FANOUT_H
#define ECNWATCH_FANOUT_H

#include <stddef.h>
#include <stdint.h>

/* one classic BPF instruction, laid out as the kernel's struct sock_filter */
struct ew_bpf_insn {
    uint16_t code;
    uint8_t jt, jf;
    uint32_t k;
};

/* the kernel's base offsets of relative loads (linux/filter.h) */
#define EW_BPF_AD_OFF (-0x1000)   /* SKF_AD_OFF: ancillary data */
#define EW_BPF_AD_PROTOCOL 0      /* SKF_AD_PROTOCOL: the frame's EtherType */
#define EW_BPF_NET_OFF (-0x100000) /* SKF_NET_OFF: the network header */

/* instructions the program takes at most, for 16 tunnel ports */
#define EW_FANOUT_PROG_MAX 160

/* The program for the given tunnel ports (UDP, at most 16; none with
 * decapsulation off) into prog (room for max instructions). Its length, or
 * 0 when it does not fit. */
size_t ew_fanout_program(struct ew_bpf_insn *prog, size_t max, const uint16_t *ports,
                         size_t nports);

#endif /* ECNWATCH_FANOUT_H */
