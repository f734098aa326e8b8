/* thresholds.h - every number a heuristic of ecnwatch rests on, by name,
 * with where it comes from. A rule reads its threshold from here; none is a
 * bare number in an expression. Sections: inference (feedback, verdicts),
 * path (AQM kind, bottlenecks), misuse (findings). */
#ifndef ECNWATCH_THRESHOLDS_H
#define ECNWATCH_THRESHOLDS_H

/* ------------------------------------------------------------ inference */

/* the smoothed RTT moves 1/8 of the way to each sample: RFC 6298 §2.3 (alpha = 1/8) */
#define EW_INF_SRTT_GAIN_DIV 8
/* a loss reduction's CWR can clear an RFC 3168 latch whose first ECE reaches the capture point
 * up to one round trip later (RFC 3168 §6.1.2, digest §3.3); 2 smoothed RTTs allow for the RTT's
 * variation (design) */
#define EW_INF_LOSS_CWR_RTTS 2
/* a CWR sent before an ECE run explains its end when it left the capture point less than 1.25
 * loops (capture point -> receiver -> back, the smoothed data-to-ACK RTT) before the run's first
 * ECE: the RTT's variation (design; tcpgen, classic at a 0.5 ms gap, 25 ms loops: the CWR 17 ms
 * before; DCTCP's short burst 35 ms after its long run's first CWR, at 21 ms loops, is not) */
#define EW_INF_CWR_LOOP_SLACK_NUM 5
/* the denominator of EW_INF_CWR_LOOP_SLACK_NUM */
#define EW_INF_CWR_LOOP_SLACK_DEN 4
/* time new segments 1/8 of the smoothed RTT apart: EW_RTT_TIMED (8) slots then span an RTT */
#define EW_INF_RTT_SPACING_DIV 8
/* 8 or more packets newly acknowledged can hide a wrap of the 3-bit ACE: RFC 9768 App. A.2.1 */
#define EW_INF_ACE_WRAP_PKTS 8
/* handshake not captured: read AE as ACE from 5 only over 4 or more non-SYN segments (design) */
#define EW_INF_AE_MIN_SEGMENTS 4
/* ... and with AE on 9 in 10 of them: ACE from 5 sets AE until a CE, 10 % slack (design) */
#define EW_INF_AE_SHARE_NUM 9
/* the denominator of EW_INF_AE_SHARE_NUM */
#define EW_INF_AE_SHARE_DEN 10
/* handshake not captured: 2 or more pure ACKs with the CWR bit show the ACE counter; a classic
 * receiver sets CWR only on new data (RFC 3168 §6.1.2), AccECN's counter passes the bit every
 * other mark (RFC 9768 §3.2.2); 2, not 1, for a stray bit (design) */
#define EW_INF_ACE_CWR_MIN_ACKS 2
/* handshake not captured, at the receiver: the ACE follows 3 or more CE arrivals mod 8 exactly
 * (a classic receiver's ECE matches one CE by chance; 3 make the counter pass its CWR bit) */
#define EW_INF_ACE_TRACK_MIN_CE 3
/* TCP timestamps place the capture point without a handshake from 8 samples of each loop on
 * (design: the minimum of a few round trips) */
#define EW_INF_VANTAGE_MIN_TS_SAMPLES 8
/* 3 or more ACE values, all as the CE seen, make feedback "exact" (design: fewer match by chance) */
#define EW_INF_ACE_EXACT_MIN_SEGMENTS 3
/* a sender's ECT(1): on 9 in 10 of its ECT data from the first segment on (design, CE aside) */
#define EW_INF_SENDER_ECT1_NUM 9
/* the denominator of EW_INF_SENDER_ECT1_NUM */
#define EW_INF_SENDER_ECT1_DEN 10
/* an L4S sender's data may start with a short ECT(0) prefix: the application's first write,
 * sent before it switched the socket to an L4S congestion control (iperf3's 37-byte cookie,
 * one segment, on the heistp field captures); at most 3 segments (design: a cookie, a small
 * request, its retransmission) */
#define EW_INF_L4S_PREFIX_MAX_SEGS 3
/* ... and at most 1 in 10 of the data segments (design: a prefix, not a phase) */
#define EW_INF_L4S_PREFIX_SHARE_DIV 10
/* ESCE on 1 in 2 feedback segments or more: a receiver that reads every ECT(1) as SCE (design) */
#define EW_INF_ESCE_SHARE_DIV 2
/* a handshake shorter than 0.1 ms (in ns) cannot place the capture point: timestamp noise (design) */
#define EW_INF_VANTAGE_MIN_HS_NS 100000
/* one leg of the handshake at most 1/10 of its time: the capture sits at that end (design) */
#define EW_INF_VANTAGE_SIDE_DIV 10

/* a flow's peak rate is its payload over windows of 200 ms (in ns): ten 20 ms RTTs, long enough
 * to smooth a sender's bursts, short enough to catch a flow alone on its link (design) */
#define EW_INF_RATE_WINDOW_NS 200000000

/* ------------------------------------------------------------ path */

/* CE at 2 ms of queueing delay or less (in us): a shallow L4S AQM, marking at about 1 ms (L4S
 * operational guidance; TCP Prague's classic-ECN detector uses the same order of magnitude) */
#define EW_PATH_QD_SHALLOW_US 2000
/* CE at 3 ms or more (in us): a classic AQM, marking at several ms (CoDel's 5 ms target, PIE, RED) */
#define EW_PATH_QD_CLASSIC_US 3000
/* below ~1 ms per packet even an L4S queue holds some packets: the marked one, a 2-segment burst
 * (Linux sends at least 2 segments per TSO/GSO burst, tcp_tso_autosize) and the one a delayed ACK
 * waits for (RFC 9331 §4.3 lets the sender burst; RFC 5681 §4.2 ACK every 2nd segment), so the
 * shallow threshold is at least 4 segments' serialisation time at the flow's own (peak) rate; the
 * classic one keeps its 1 ms gap above (design; field capture: Prague through DualPI2 at 5 Mbit/s,
 * 2.4 ms per 1514-byte packet, CE at 8.2 ms of RTT above the minimum, 1.5 marks per RTT) */
#define EW_PATH_BURST_PKTS 4
/* ... only for a flow that sends 4 segments a round trip or more at that rate: fewer is a flow
 * limited by its application or window, whose rate says nothing of the link's (design) */
#define EW_PATH_SCALE_MIN_PKTS_PER_RTT 4
/* no AQM is named from fewer than 10 marks with a delay sample beside them, nor from fewer than
 * 10 delay samples: a handful of marks at one delay sample says nothing of an AQM's habit (design;
 * a CoDel or DualPI2 queue marks a bulk flow dozens of times a minute) */
#define EW_PATH_MIN_MARKS 10
/* the samples' minimum (design: as the marks) */
#define EW_PATH_MIN_QD_SAMPLES 10
/* a classic AQM marks when its queue is long: 60 % or more of the marks above the median
 * queueing delay. Field and lab captures: CoDel, RED, PIE and DualPI2's classic queue 70-100 %;
 * TCP Prague through DualPI2 behind netem slotting 41 %, behind netem jitter 9 %: that delay is
 * not the marking queue's (design: between the two) */
#define EW_PATH_ALIGNED_SHARE 0.6
/* vantage unknown: an RTT floor under 0.5 ms (in ns) is the receiver's turnaround, not a path (design) */
#define EW_PATH_RTT_MIN_USABLE_NS 500000
/* a flow joins the L4S/classic comparison with 10 data segments or more (design: a rate needs some) */
#define EW_PATH_BN_MIN_DATA_PKTS 10
/* DualQ: ECT(1) queued under 1/2 the ECT(0) delay (design; RFC 9332 targets 1 ms L4S, 15 ms Classic) */
#define EW_PATH_DUALQ_DELAY_RATIO 2
/* ... and by 1 ms or more: below that, the timing noise of a queue of a millisecond or two (design;
 * the lab's DualQ 4.3 ms apart, DualPI2 in the field 10 ms) */
#define EW_PATH_DUALQ_MIN_GAP_MS 1.0
/* DualQ: ECT(1) marked more than twice as often as ECT(0) (design: a DualQ marks L4S far more) */
#define EW_PATH_DUALQ_MARK_RATIO 2
/* DualQ coupling factor k: p_L = k * sqrt(p_C), RFC 9332 §2.1 default k = 2 (digest §5.3) */
#define EW_PATH_DUALQ_K 2.0
/* DualQ by marks: ECT(0) marked at most 4x the coupled (p_L / k)^2 (design: the L queue's native
 * step marking only adds to p_L, so p_C falls below the coupling, rarely above; 4x absorbs the
 * counting noise of a few dozen classic marks) */
#define EW_PATH_DUALQ_COUPLING_SLACK 4.0
/* one queue by marks: both kinds CE-marked per packet within a factor 3 of each other (design:
 * one AQM marks by delay, not codepoint; field capture CoDel, one queue: 1.4x) */
#define EW_PATH_SAME_MARK_RATIO 3.0
/* an L4S AQM marks a scalable flow about twice a round trip whatever the rate (RFC 9332 §2.1 /
 * RFC 9330 on scalable congestion control), a classic AQM an L4S flow far less (field captures:
 * DualPI2 2.7 marks per RTT on Prague, single-queue CoDel 0.04); 1 splits them (design) */
#define EW_PATH_L4S_MIN_CE_PER_RTT 1.0
/* an L4S flow marked that often is an L4S AQM's even at up to twice the shallow limit of queueing
 * delay: a bursty link (Wi-Fi aggregation, some ms) adds delay at the capture point that is not
 * the AQM's queue (field capture: Prague over Wi-Fi through DualPI2, heistp/l4s-tests, 2.0 marks
 * per RTT at 7.0 ms against a 4.6 ms limit). A classic AQM controlling a scalable flow alone can
 * mark it about twice a round trip too, but at its own target, far above (CoDel 5 ms, PIE 15 ms;
 * tcpgen at 7 ms where the limit is 2 ms stays classic) (design) */
#define EW_PATH_BURST_SLACK 2
/* harm under a classic single queue: an L4S flow's throughput over 1.1x a classic flow's (design:
 * flows sharing one queue fairly are within 10 %; RFC 9331 §4.3 is about L4S taking more) */
#define EW_PATH_HARM_RATIO 1.1
/* one shared queue: the two delays differ by 30 % of the larger or less (design: RTT noise) */
#define EW_PATH_SAME_QDELAY_FRAC 0.3
/* ... or by 0.5 ms or less: the noise of timing a queue of a millisecond or two (design; field
 * capture: CUBIC and Prague in one CoDel queue with a 1 ms target, 1.14 and 1.24 ms) */
#define EW_PATH_QDELAY_NOISE_MS 0.5
/* the two kinds' delays per interval move together: Pearson's r of 0.6 or more is one queue
 * (design; one CoDel queue 0.97) */
#define EW_PATH_CORR_ONE_QUEUE 0.6
/* ... even 2 ms apart: what each flow's loop adds beside the queue (a paced sender waits up to a
 * segment's gap before it echoes a TSval; tcpgen, one CoDel queue, the classic flow at a 2.25 ms
 * gap 1.1 ms above the L4S flow at the receiver) (design) */
#define EW_PATH_MOVE_TOGETHER_GAP_MS 2.0
/* ... and below 0.3 they wait apart (design: flow queueing) */
#define EW_PATH_CORR_APART 0.3
/* a delay per interval that moves by less than 0.2 ms (standard deviation), or less than 10 % of
 * its mean, shows no queue's swings: whether two flows share a queue cannot be read from it
 * (design: the noise of timing 100 ms intervals at a capture point) */
#define EW_PATH_BN_STEADY_MS 0.2
/* ... the share of its mean (design) */
#define EW_PATH_BN_STEADY_FRAC 0.1
/* a correlation needs 10 or more intervals with a delay on both sides (design) */
#define EW_PATH_BN_MIN_CELLS 10
/* a group spans at most 2^20 intervals of its series' width: a longer one is compared over its
 * whole flows (design: bounds the memory of one comparison to some tens of MiB) */
#define EW_PATH_BN_MAX_CELLS (1 << 20)

/* ------------------------------------------------------------ misuse */

/* byte counts become packets at the largest payload seen; 1000 bytes when none (design) */
#define EW_MU_DEFAULT_MSS 1000
/* AccECN byte counters judge a direction from 3 option-bearing ACKs on (design: the first
 * options are the handshake's, RFC 9768 §3.2.3.3, and prove little) */
#define EW_MU_COUNTER_MIN_OPTS 3
/* ... and once 8 segments' worth (x MSS) were sent with the codepoint in question (design:
 * less is within the counters' initial values and the ACKs still in flight) */
#define EW_MU_COUNTER_MIN_MSS 8
/* bleaching by counters: under 1/2 of the ECN-capable bytes sent reported ECT or CE (design:
 * losses and unacknowledged data at a capture's end never take half) */
#define EW_MU_BLEACH_REPORTED_DIV 2
/* ECT(1) -> ECT(0) by counters: over 1/4 of the ECT(1) bytes sent counted ECT(0) (design:
 * counters run late, a remark of a whole path is far above) */
#define EW_MU_REMARK_E0B_DIV 4
/* negotiated but Not-ECT on arrival: judged from 4 data segments on (design: a first
 * segment or two may legitimately go Not-ECT) */
#define EW_MU_NOT_ECT_MIN_DATA 4
/* CE on a sender that sends no ECT is judged only once 3 or more of its packets are seen Not-ECT
 * (design: a handshake's SYN and ACK and one more; CE alone says nothing of what was sent) */
#define EW_MU_CE_NOT_ECT_MIN_SEEN 3
/* ... and, where the capture missed some of the sender's TCP data, 4 Not-ECT packets seen for
 * every gap (design: a gap may hide the sender's ECT packets; a sender seen Not-ECT all around
 * its gaps is Not-ECT) */
#define EW_MU_CE_NOT_ECT_PER_GAP 4
/* ECT on retransmissions: 3 or more of them (design: reordering at the capture point looks
 * like a retransmission now and then; a sender's habit is a pattern) */
#define EW_MU_RTX_ECT_MIN 3
/* ... that are at least 1/2 of all retransmissions seen (design, as above) */
#define EW_MU_RTX_ECT_DIV 2
/* (both counted without the packets that may be copies: a copy of a segment counted as such,
 * dups_unsure, is counted a retransmission too) */
/* ECE ignored: 10 or more data segments sent after the first ECE without CWR (design: RFC
 * 3168 §6.1.2 wants CWR on the first new data after the reduction; 10 covers data in flight) */
#define EW_MU_ECE_IGNORED_MIN_DATA 10
/* ECE held after CWR: 2 or more ACKs (design: where the arrivals are seen, one is already a
 * breach of RFC 3168 §6.1.3; two keep a single odd ACK from deciding) */
#define EW_MU_ECE_HELD_MIN 2

#endif /* ECNWATCH_THRESHOLDS_H */
