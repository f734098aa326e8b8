/* fanout.c - the fan-out program of --workers (fanout.h), assembled from
 * classic BPF instructions with forward jumps to labels. The scratch words:
 * M[0] the transport header's offset from the network header, M[1] the
 * addresses' hash, M[2] and M[3] the source and destination ports, M[4] a
 * temporary. */
#include "input/fanout.h"

#include <stdbool.h>

/* classic BPF encodings (the kernel's and libpcap's alike) */
enum {
    OP_LD = 0x00, OP_LDX = 0x01, OP_ST = 0x02, OP_ALU = 0x04, OP_JMP = 0x05, OP_RET = 0x06,
    OP_MISC = 0x07,
    SZ_W = 0x00, SZ_H = 0x08, SZ_B = 0x10,
    MD_IMM = 0x00, MD_ABS = 0x20, MD_IND = 0x40, MD_MEM = 0x60,
    AL_ADD = 0x00, AL_MUL = 0x20, AL_AND = 0x50, AL_LSH = 0x60, AL_RSH = 0x70, AL_XOR = 0xa0,
    J_JA = 0x00, J_JEQ = 0x10, J_JGE = 0x30, J_JSET = 0x40,
    SRC_K = 0x00, SRC_X = 0x08,
    RET_A = 0x10,
    MISC_TAX = 0x00,
};

/* the labels jumped to */
enum { L_V4, L_V6, L_TCP, L_UDP, L_PORTS, L_ADDR, L_FIN, L_NONE, L_COUNT };

/* odd constants that spread the bits upwards (golden ratio, and two of a
 * 32-bit mixer's) */
#define MIX1 0x9e3779b1u
#define MIX2 0x85ebca6bu
#define MIX3 0xc2b2ae35u

struct as {
    struct ew_bpf_insn *p;
    size_t n, max;
    bool full;
    size_t at[L_COUNT];                  /* where each label is, once placed */
    size_t fix[EW_FANOUT_PROG_MAX][2];   /* a jump's instruction, and which of jt (0) or jf (1) */
    int fix_to[EW_FANOUT_PROG_MAX];
    size_t nfix;
};

static void
emit(struct as *a, uint16_t code, uint32_t k)
{
    if (a->n >= a->max) {
        a->full = true;
        return;
    }
    a->p[a->n++] = (struct ew_bpf_insn){.code = code, .jt = 0, .jf = 0, .k = k};
}

static void
fix(struct as *a, int side, int label)
{
    if (label < 0 || a->full || a->nfix >= EW_FANOUT_PROG_MAX) {
        a->full = a->full || label >= 0;
        return;
    }
    a->fix[a->nfix][0] = a->n - 1;
    a->fix[a->nfix][1] = (size_t)side;
    a->fix_to[a->nfix++] = label;
}

/* a conditional jump on A against k: to label t when true, f when false;
 * -1 for the next instruction */
static void
jump(struct as *a, uint16_t cond, uint32_t k, int t, int f)
{
    emit(a, (uint16_t)(OP_JMP | cond | SRC_K), k);
    fix(a, 0, t);
    fix(a, 1, f);
}

static void
go(struct as *a, int label)
{
    emit(a, OP_JMP | J_JA, 0);
    if (a->full || a->nfix >= EW_FANOUT_PROG_MAX) {
        a->full = true;
        return;
    }
    a->fix[a->nfix][0] = a->n - 1;
    a->fix[a->nfix][1] = 2; /* the k of an unconditional jump */
    a->fix_to[a->nfix++] = label;
}

static void
place(struct as *a, int label)
{
    a->at[label] = a->n;
}

/* A = the network header's bytes at off (1, 2 or 4 of them) */
static void
ld_net(struct as *a, uint16_t size, uint32_t off)
{
    emit(a, (uint16_t)(OP_LD | size | MD_ABS), (uint32_t)EW_BPF_NET_OFF + off);
}

/* A = the 16 bits at M[0] + off from the network header (a transport port) */
static void
ld_l4_half(struct as *a, uint32_t off)
{
    emit(a, OP_LDX | SZ_W | MD_MEM, 0);
    emit(a, OP_LD | SZ_H | MD_IND, (uint32_t)EW_BPF_NET_OFF + off);
}

/* A = A ^ (A >> shift), M[4] taken */
static void
xorshift(struct as *a, uint32_t shift)
{
    emit(a, OP_ST, 4);
    emit(a, OP_ALU | AL_RSH | SRC_K, shift);
    emit(a, OP_MISC | MISC_TAX, 0);
    emit(a, OP_LD | SZ_W | MD_MEM, 4);
    emit(a, OP_ALU | AL_XOR | SRC_X, 0);
}

/* M[1] = (M[1] ^ (word at a ^ word at b)) * MIX1: one pair of address words
 * folded in, the same whichever is the source */
static void
fold_pair(struct as *a, uint32_t off_a, uint32_t off_b, bool first)
{
    ld_net(a, SZ_W, off_a);
    emit(a, OP_MISC | MISC_TAX, 0);
    ld_net(a, SZ_W, off_b);
    emit(a, OP_ALU | AL_XOR | SRC_X, 0);
    if (!first) {
        emit(a, OP_LDX | SZ_W | MD_MEM, 1);
        emit(a, OP_ALU | AL_XOR | SRC_X, 0);
    }
    emit(a, OP_ALU | AL_MUL | SRC_K, MIX1);
    emit(a, OP_ST, 1);
}

size_t
ew_fanout_program(struct ew_bpf_insn *prog, size_t max, const uint16_t *ports, size_t nports)
{
    struct as a = {.p = prog, .max = max < EW_FANOUT_PROG_MAX ? max : EW_FANOUT_PROG_MAX};
    size_t i;

    if (nports > 16)
        return 0;
    /* by the frame's EtherType: the first byte of an ARP or MPLS header
     * is no IP version */
    emit(&a, OP_LD | SZ_W | MD_ABS, (uint32_t)(EW_BPF_AD_OFF + EW_BPF_AD_PROTOCOL));
    jump(&a, J_JEQ, 0x0800, L_V4, -1);
    jump(&a, J_JEQ, 0x86dd, L_V6, L_NONE);

    /* IPv4: a header of 20 bytes at least, the addresses at 12 and 16 */
    place(&a, L_V4);
    ld_net(&a, SZ_B, 0);
    emit(&a, OP_ALU | AL_AND | SRC_K, 0x0f);
    emit(&a, OP_ALU | AL_LSH | SRC_K, 2);
    jump(&a, J_JGE, 20, -1, L_NONE);
    emit(&a, OP_ST, 0);
    fold_pair(&a, 12, 16, true);
    /* (source + destination) too: XOR alone cannot tell 10.0.0.1 and
     * 10.0.0.2 from 10.0.0.5 and 10.0.0.6 */
    ld_net(&a, SZ_W, 12);
    emit(&a, OP_MISC | MISC_TAX, 0);
    ld_net(&a, SZ_W, 16);
    emit(&a, OP_ALU | AL_ADD | SRC_X, 0);
    emit(&a, OP_LDX | SZ_W | MD_MEM, 1);
    emit(&a, OP_ALU | AL_XOR | SRC_X, 0);
    emit(&a, OP_ST, 1);
    /* a later fragment has no ports: the addresses only */
    ld_net(&a, SZ_H, 6);
    jump(&a, J_JSET, 0x1fff, L_ADDR, -1);
    ld_net(&a, SZ_B, 9);
    jump(&a, J_JEQ, 6, L_TCP, -1);
    jump(&a, J_JEQ, 17, L_UDP, L_ADDR);

    /* IPv6: the addresses at 8 and 24, four words each; the ports only
     * right after the fixed header */
    place(&a, L_V6);
    emit(&a, OP_LD | SZ_W | MD_IMM, 40);
    emit(&a, OP_ST, 0);
    for (i = 0; i < 4; i++)
        fold_pair(&a, 8 + 4 * (uint32_t)i, 24 + 4 * (uint32_t)i, i == 0);
    ld_net(&a, SZ_B, 6);
    jump(&a, J_JEQ, 6, L_TCP, -1);
    jump(&a, J_JEQ, 17, L_UDP, L_ADDR);

    /* UDP: from or to a tunnel port, the addresses only (either end, so
     * that both directions of a flow to such a port agree) */
    place(&a, L_UDP);
    ld_l4_half(&a, 0);
    for (i = 0; i < nports; i++)
        jump(&a, J_JEQ, ports[i], L_ADDR, -1);
    emit(&a, OP_ST, 2);
    ld_l4_half(&a, 2);
    for (i = 0; i < nports; i++)
        jump(&a, J_JEQ, ports[i], L_ADDR, -1);
    emit(&a, OP_ST, 3);
    go(&a, L_PORTS);

    place(&a, L_TCP);
    ld_l4_half(&a, 0);
    emit(&a, OP_ST, 2);
    ld_l4_half(&a, 2);
    emit(&a, OP_ST, 3);

    /* the ports: ((sport + dport) << 16) ^ (sport ^ dport), into M[1] */
    place(&a, L_PORTS);
    emit(&a, OP_LD | SZ_W | MD_MEM, 3);
    emit(&a, OP_LDX | SZ_W | MD_MEM, 2);
    emit(&a, OP_ALU | AL_ADD | SRC_X, 0);
    emit(&a, OP_ALU | AL_LSH | SRC_K, 16);
    emit(&a, OP_ST, 4);
    emit(&a, OP_LD | SZ_W | MD_MEM, 3);
    emit(&a, OP_ALU | AL_XOR | SRC_X, 0);
    emit(&a, OP_LDX | SZ_W | MD_MEM, 4);
    emit(&a, OP_ALU | AL_XOR | SRC_X, 0);
    emit(&a, OP_LDX | SZ_W | MD_MEM, 1);
    emit(&a, OP_ALU | AL_XOR | SRC_X, 0);
    emit(&a, OP_ALU | AL_MUL | SRC_K, MIX2);
    go(&a, L_FIN);

    place(&a, L_ADDR);
    emit(&a, OP_LD | SZ_W | MD_MEM, 1);

    /* the high bits brought down: the kernel keeps the value modulo the
     * number of workers */
    place(&a, L_FIN);
    xorshift(&a, 16);
    emit(&a, OP_ALU | AL_MUL | SRC_K, MIX3);
    xorshift(&a, 15);
    emit(&a, OP_RET | RET_A, 0);

    place(&a, L_NONE);
    emit(&a, OP_RET | SRC_K, 0);

    if (a.full)
        return 0;
    for (i = 0; i < a.nfix; i++) {
        size_t from = a.fix[i][0], to = a.at[a.fix_to[i]];
        size_t off = to - from - 1;

        /* every jump is forward; a conditional one reaches 255 ahead */
        if (to <= from || (a.fix[i][1] < 2 && off > 255))
            return 0;
        if (a.fix[i][1] == 0)
            prog[from].jt = (uint8_t)off;
        else if (a.fix[i][1] == 1)
            prog[from].jf = (uint8_t)off;
        else
            prog[from].k = (uint32_t)off;
    }
    return a.n;
}
