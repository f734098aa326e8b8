/*
 * pathbox - a router that breaks ECN in one chosen way, for tests/probe.sh.
 * It reads the packets an NFQUEUE rule hands it (iptables-legacy ... -j
 * NFQUEUE --queue-num N), rewrites or drops them by its mode, and accepts
 * the rest unchanged:
 *
 *   bleach      ECT(0), ECT(1), CE -> Not-ECT (IPv4 and IPv6)
 *   remark01    ECT(0) -> ECT(1)
 *   clearce     CE -> ECT(0)
 *   stripsyn    a TCP SYN without ACK loses ECE, CWR and AE
 *   stripopt    TCP options of kind 172 and 174 (AccECN) become NOPs
 *   dropecnsyn  a TCP SYN without ACK with ECE, CWR or AE is dropped
 *   shortquote  an ICMP Time Exceeded or Destination Unreachable (ICMPv6
 *               types 1 and 3) is cut to the quoted IP header and 8 bytes of
 *               its transport header; an RFC 4884 length is zeroed
 *
 * Every checksum a change covers is computed again: the IPv4 header's, TCP's
 * (with its pseudo-header), ICMP's and ICMPv6's (with its pseudo-header).
 * Every read of the packet is checked against its length; a packet it cannot
 * read is accepted as it came.
 *
 *   pathbox -q QUEUE -m MODE [-s FILE]
 *
 * prints "ready" once it reads its queue; on SIGTERM or SIGINT it writes one
 * line of JSON to FILE (standard error without -s): the mode, the packets
 * seen, and those changed or dropped, by transport.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

enum { M_BLEACH, M_REMARK01, M_CLEARCE, M_STRIPSYN, M_STRIPOPT, M_DROPECNSYN, M_SHORTQUOTE };
static const char *mode_name[] = {"bleach", "remark01", "clearce", "stripsyn", "stripopt", "dropecnsyn", "shortquote"};
enum { P_TCP, P_UDP, P_ICMP, P_OTHER, NPROTO };
static const char *proto_name[NPROTO] = {"tcp", "udp", "icmp", "other"};

static int mode = -1, qnum = -1;
static const char *sumpath;
static volatile sig_atomic_t stop;
static unsigned long long n_pkts, n_changed[NPROTO], n_dropped[NPROTO];

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10
#define TCP_ECE 0x40
#define TCP_CWR 0x80

/* what a packet is: its family, where its transport header starts and ends */
struct pkt {
	uint8_t *p;
	size_t len;   /* the bytes netfilter gave */
	int v6;
	size_t ipend; /* the end of the IP packet, as its header says (<= len) */
	size_t l4;    /* the transport header's offset */
	int proto;    /* IPPROTO_*, or -1: a later fragment, or unknown */
};

static unsigned rd16(const uint8_t *b) { return (unsigned)b[0] << 8 | b[1]; }
static void wr16(uint8_t *b, unsigned v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }

static uint32_t sum_bytes(uint32_t s, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i + 1 < n; i += 2)
		s += rd16(b + i);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}
static unsigned fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* parse: 0 when the IP header (and the transport's offset) can be read */
static int parse(struct pkt *k)
{
	const uint8_t *p = k->p;
	k->proto = -1;
	if (k->len < 20)
		return -1;
	if (p[0] >> 4 == 4) {
		size_t ihl = (size_t)(p[0] & 15) * 4, tot = rd16(p + 2);
		if (ihl < 20 || tot < ihl || tot > k->len)
			return -1;
		k->v6 = 0;
		k->ipend = tot;
		k->l4 = ihl;
		if ((rd16(p + 6) & 0x1fff) == 0) /* not a later fragment */
			k->proto = p[9];
		return 0;
	}
	if (p[0] >> 4 == 6 && k->len >= 40) {
		size_t end = 40 + rd16(p + 4), off = 40;
		int nh = p[6];
		if (end > k->len)
			return -1;
		k->v6 = 1;
		k->ipend = end;
		/* hop-by-hop, routing and destination options are walked; a fragment is left alone */
		while (nh == 0 || nh == 43 || nh == 60) {
			if (off + 8 > end)
				return 0;
			nh = p[off];
			off += ((size_t)p[off + 1] + 1) * 8;
		}
		if (off > end)
			return 0;
		k->l4 = off;
		if (nh != 44)
			k->proto = nh;
		return 0;
	}
	return -1;
}

static int get_ecn(const struct pkt *k) { return k->v6 ? (k->p[1] >> 4) & 3 : k->p[1] & 3; }

static void ipv4_csum(uint8_t *p)
{
	size_t ihl = (size_t)(p[0] & 15) * 4;
	p[10] = p[11] = 0;
	wr16(p + 10, fold(sum_bytes(0, p, ihl)));
}

static void set_ecn(struct pkt *k, int ecn)
{
	if (k->v6) {
		k->p[1] = (uint8_t)((k->p[1] & ~0x30) | ecn << 4);
	} else {
		k->p[1] = (uint8_t)((k->p[1] & ~3) | ecn);
		ipv4_csum(k->p);
	}
}

/* the transport checksum at CK (offset in the transport header) over the
 * transport header and data, with the pseudo-header of the packet's family */
static void l4_csum(struct pkt *k, size_t ck)
{
	uint8_t *p = k->p, *t = p + k->l4;
	size_t n = k->ipend - k->l4;
	uint32_t s = 0;
	if (k->v6) {
		s = sum_bytes(s, p + 8, 32);
		s += (uint32_t)(n >> 16) + (uint32_t)(n & 0xffff);
	} else {
		s = sum_bytes(s, p + 12, 8);
		s += (uint32_t)n;
	}
	s += (uint32_t)k->proto;
	t[ck] = t[ck + 1] = 0;
	s = sum_bytes(s, t, n);
	wr16(t + ck, fold(s));
}

/* a TCP header at k->l4, whole: its length, else 0 */
static size_t tcp_hdr(const struct pkt *k)
{
	size_t doff;
	if (k->proto != IPPROTO_TCP || k->l4 + 20 > k->ipend)
		return 0;
	doff = (size_t)(k->p[k->l4 + 12] >> 4) * 4;
	if (doff < 20 || k->l4 + doff > k->ipend)
		return 0;
	return doff;
}

static int is_bare_syn(const uint8_t *t) { return (t[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN; }
static int ecn_flags(const uint8_t *t) { return (t[13] & (TCP_ECE | TCP_CWR)) || (t[12] & 1); }

/* stripopt: kinds 172 and 174 become NOPs; 1 when one did */
static int strip_options(uint8_t *t, size_t doff)
{
	size_t i = 20;
	int did = 0;
	while (i < doff) {
		uint8_t kind = t[i], l;
		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= doff)
			break;
		l = t[i + 1];
		if (l < 2 || i + l > doff)
			break;
		if (kind == 172 || kind == 174) {
			memset(t + i, 1, l);
			did = 1;
		}
		i += l;
	}
	return did;
}

/* shortquote: the ICMP error cut after the quoted IP header and 8 bytes;
 * the packet's new length, or 0 when it is not one or already that short */
static size_t short_quote(struct pkt *k)
{
	uint8_t *p = k->p, *ic = p + k->l4;
	size_t q = k->l4 + 8, keep, inner;
	int v6err;
	if (k->l4 + 8 > k->ipend)
		return 0;
	if (!k->v6 && k->proto == IPPROTO_ICMP)
		v6err = 0;
	else if (k->v6 && k->proto == IPPROTO_ICMPV6)
		v6err = 1;
	else
		return 0;
	if (v6err ? (ic[0] != 1 && ic[0] != 3) : (ic[0] != 3 && ic[0] != 11))
		return 0;
	if (q + 20 > k->ipend)
		return 0;
	if (p[q] >> 4 == 4)
		inner = (size_t)(p[q] & 15) * 4;
	else if (p[q] >> 4 == 6)
		inner = 40;
	else
		return 0;
	if (inner < 20)
		return 0;
	keep = q + inner + 8;
	if (keep >= k->ipend)
		return 0;
	k->ipend = keep;
	/* RFC 4884: the length of the original datagram's part; none now */
	if (v6err)
		ic[4] = 0;
	else
		ic[5] = 0;
	if (k->v6) {
		wr16(p + 4, (unsigned)(keep - 40));
	} else {
		wr16(p + 2, (unsigned)keep);
		ipv4_csum(p);
	}
	if (v6err) {
		l4_csum(k, 2);
	} else {
		ic[2] = ic[3] = 0;
		wr16(ic + 2, fold(sum_bytes(0, ic, keep - k->l4)));
	}
	return keep;
}

static int proto_index(int proto)
{
	switch (proto) {
	case IPPROTO_TCP: return P_TCP;
	case IPPROTO_UDP: return P_UDP;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: return P_ICMP;
	default: return P_OTHER;
	}
}

static int cb(struct nfq_q_handle *q, struct nfgenmsg *m, struct nfq_data *nfa, void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint32_t id = ph ? ntohl(ph->packet_id) : 0;
	unsigned char *raw;
	int len, ecn, changed = 0, pi;
	size_t doff, newlen;
	struct pkt k;
	(void)m;
	(void)data;

	n_pkts++;
	len = nfq_get_payload(nfa, &raw);
	if (len <= 0)
		return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
	k.p = raw;
	k.len = (size_t)len;
	if (parse(&k) < 0)
		return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
	pi = proto_index(k.proto);
	newlen = k.ipend;
	ecn = get_ecn(&k);
	switch (mode) {
	case M_BLEACH:
		if (ecn != 0) {
			set_ecn(&k, 0);
			changed = 1;
		}
		break;
	case M_REMARK01:
		if (ecn == 2) {
			set_ecn(&k, 1);
			changed = 1;
		}
		break;
	case M_CLEARCE:
		if (ecn == 3) {
			set_ecn(&k, 2);
			changed = 1;
		}
		break;
	case M_STRIPSYN:
		if ((doff = tcp_hdr(&k)) && is_bare_syn(k.p + k.l4) && ecn_flags(k.p + k.l4)) {
			k.p[k.l4 + 13] &= (uint8_t)~(TCP_ECE | TCP_CWR);
			k.p[k.l4 + 12] &= (uint8_t)~1;
			l4_csum(&k, 16);
			changed = 1;
		}
		break;
	case M_STRIPOPT:
		if ((doff = tcp_hdr(&k)) && strip_options(k.p + k.l4, doff)) {
			l4_csum(&k, 16);
			changed = 1;
		}
		break;
	case M_DROPECNSYN:
		if (tcp_hdr(&k) && is_bare_syn(k.p + k.l4) && ecn_flags(k.p + k.l4)) {
			n_dropped[pi]++;
			return nfq_set_verdict(q, id, NF_DROP, 0, NULL);
		}
		break;
	case M_SHORTQUOTE:
		if ((newlen = short_quote(&k)))
			changed = 1;
		break;
	}
	if (!changed)
		return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
	n_changed[pi]++;
	return nfq_set_verdict(q, id, NF_ACCEPT, (uint32_t)newlen, raw);
}

static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

static void summary(void)
{
	FILE *f = sumpath ? fopen(sumpath, "w") : stderr;
	unsigned long long c = 0, d = 0;
	int i;
	if (!f)
		f = stderr;
	for (i = 0; i < NPROTO; i++) {
		c += n_changed[i];
		d += n_dropped[i];
	}
	fprintf(f, "{\"mode\": \"%s\", \"queue\": %d, \"packets\": %llu, \"changed\": %llu, \"dropped\": %llu",
		mode_name[mode], qnum, n_pkts, c, d);
	fprintf(f, ", \"changed_by\": {");
	for (i = 0; i < NPROTO; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", proto_name[i], n_changed[i]);
	fprintf(f, "}, \"dropped_by\": {");
	for (i = 0; i < NPROTO; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", proto_name[i], n_dropped[i]);
	fprintf(f, "}}\n");
	if (f != stderr)
		fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: pathbox -q QUEUE -m bleach|remark01|clearce|stripsyn|stripopt|dropecnsyn|shortquote"
			" [-s FILE]\n");
}

int main(int argc, char **argv)
{
	struct nfq_handle *h;
	struct nfq_q_handle *qh;
	struct sigaction sa;
	static char buf[1 << 17] __attribute__((aligned));
	int c, fd, one = 1;
	size_t i;

	while ((c = getopt(argc, argv, "q:m:s:")) != -1) {
		switch (c) {
		case 'q':
			qnum = atoi(optarg);
			break;
		case 'm':
			for (i = 0; i < sizeof(mode_name) / sizeof(mode_name[0]); i++)
				if (!strcmp(optarg, mode_name[i]))
					mode = (int)i;
			if (mode < 0) {
				fprintf(stderr, "pathbox: no mode %s\n", optarg);
				return 2;
			}
			break;
		case 's':
			sumpath = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (mode < 0 || qnum < 0 || qnum > 65535 || optind != argc) {
		usage();
		return 2;
	}
	h = nfq_open();
	if (!h) {
		perror("pathbox: nfq_open");
		return 1;
	}
	nfq_bind_pf(h, AF_INET);
	nfq_bind_pf(h, AF_INET6);
	qh = nfq_create_queue(h, (uint16_t)qnum, cb, NULL);
	if (!qh) {
		perror("pathbox: nfq_create_queue");
		return 1;
	}
	if (nfq_set_mode(qh, NFQNL_COPY_PACKET, 0xffff) < 0) {
		perror("pathbox: nfq_set_mode");
		return 1;
	}
	nfq_set_queue_maxlen(qh, 4096);
	fd = nfq_fd(h);
	setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int r = poll(&pfd, 1, 200);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && (pfd.revents & POLLIN)) {
			for (;;) {
				ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
				if (n <= 0)
					break;
				nfq_handle_packet(h, buf, (int)n);
			}
		}
	}
	summary();
	nfq_destroy_queue(qh);
	nfq_close(h);
	return 0;
}
