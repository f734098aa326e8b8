/* fuzz_quic.c - libFuzzer harness for the QUIC module: header parsing,
 * coalesced packets, Initial packet protection, the frame parser and the
 * validation of the Initial ECN counts, then the conclusions and the report
 * object.
 *
 * Input: records, until the input ends:
 *   1 byte    kind: bit 0 the direction (0: the client's), bits 1-2 the IP
 *             codepoint, bit 3 sealed (else raw), bit 4 cut the datagram's
 *             capture to half its length, bits 5-6 the packet number (sealed)
 *   2 bytes   length n, big-endian (clamped to what is left)
 *   n bytes   raw: a UDP payload as it is; sealed: the frames of an Initial
 *             packet, protected with the Initial keys of a fixed client DCID
 *             (the client's keys in direction 0, the server's in 1), so that
 *             the frame parser and the validation see what the fuzzer wrote
 * Each datagram is copied into a buffer of exactly its captured length, so
 * any read past it is caught. Checks that no direction opens more Initial
 * packets than it was seen to send, and that the report object (written
 * with the report's writer) parses. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flowtab.h"
#include "infer/infer.h"
#include "base/jw.h"
#include "findings/misuse.h"
#include "dissectors/dissect_quic.h"
#include "infer/quic_conn.h"
#include "infer/quic_crypto.h"
#include "infer/quic_infer.h"
#include "output/quic_json.h"
#include "fuzz.h"

static const uint8_t dcid[8] = {0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08};
static struct ew_quic_crypto *cx;
static struct ew_quic_initial_secrets keys;

/* a v1 Initial (RFC 9000 §17.2.2) around the given frames */
static size_t
seal(int dir, unsigned pn, const uint8_t *frames, size_t flen, uint8_t *out, size_t room)
{
    uint8_t hdr[64], payload[2048];
    size_t h = 0, plen = flen < sizeof(payload) ? flen : sizeof(payload), len;
    long n;

    memcpy(payload, frames, plen);
    while (plen < 4)
        payload[plen++] = 0; /* PADDING: room for the header protection sample */
    hdr[h++] = 0xc1;         /* Initial, 2-byte packet number */
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 1;
    if (dir == 0) {
        hdr[h++] = sizeof(dcid);
        memcpy(hdr + h, dcid, sizeof(dcid));
        h += sizeof(dcid);
        hdr[h++] = 0;
    } else {
        hdr[h++] = 0;
        hdr[h++] = sizeof(dcid);
        memcpy(hdr + h, dcid, sizeof(dcid));
        h += sizeof(dcid);
    }
    hdr[h++] = 0; /* token */
    len = 2 + plen + 16;
    hdr[h++] = (uint8_t)(0x40 | (len >> 8));
    hdr[h++] = (uint8_t)len;
    hdr[h++] = 0;
    hdr[h++] = (uint8_t)pn;
    n = ew_quic_seal(cx, dir == 0 ? &keys.ck : &keys.sk, hdr, h, h - 2, pn, payload, plen, out,
                     room);
    return n > 0 ? (size_t)n : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ew_quic_pool *pool;
    struct ew_flow f;
    struct ew_quic_frames fr;
    struct ew_quic_hdr h;
    struct ew_flow_verdict v;
    struct ew_quic_summary s;
    struct ew_finding fnd[32];
    static uint8_t sealed[2048 + 128];
    size_t off = 0;
    uint64_t frame = 0;
    json_t *j;
    int d;

    if (!cx) {
        cx = ew_quic_crypto_new();
        if (!cx || ew_quic_derive_initial(EW_QUIC_V1, dcid, sizeof(dcid), &keys))
            abort();
    }
    pool = ew_quic_pool_new(1);
    if (!pool)
        abort();
    memset(&f, 0, sizeof(f));
    f.key.l4 = EW_L4_UDP;
    f.inf = (struct ew_infer *)(uintptr_t)&ew_infer_none;
    f.client_from = EW_CLIENT_FIRST_PACKET;

    while (size - off >= 3) {
        uint8_t kind = data[off];
        size_t n = ((size_t)data[off + 1] << 8) | data[off + 2], dl, cap;
        const uint8_t *src;
        uint8_t *copy;
        int dir = kind & 1;

        off += 3;
        if (n > size - off)
            n = size - off;
        src = data + off;
        off += n;
        if (kind & 8) {
            dl = seal(dir, (kind >> 5) & 3u, src, n, sealed, sizeof(sealed));
            src = sealed;
        } else {
            dl = n;
            /* the parsers on their own, on the raw bytes */
            ew_quic_parse_header(src, n, n, (kind & 16) != 0, &h);
            ew_quic_parse_frames(src, n, &fr);
        }
        cap = (kind & 16) ? dl / 2 : dl;
        copy = malloc(cap ? cap : 1);
        if (!copy)
            abort();
        memcpy(copy, src, cap);
        ew_quic_datagram(pool, &f, dir, (uint8_t)((kind >> 1) & 3u), copy, (uint32_t)cap,
                         (uint32_t)dl, ++frame);
        free(copy);
    }

    if (f.quic) {
        for (d = 0; d < 2; d++) {
            const struct ew_quic_dir *q = &f.quic->dir[d];
            uint64_t seen = (uint64_t)q->initials[0] + q->initials[1] + q->initials[2] +
                            q->initials[3];

            if (q->opened > seen || (q->pn_acked & ~q->pn_seen) != 0)
                abort();
        }
    }
    if (ew_quic_conclude(&f, &s) != (f.quic != NULL))
        abort();
    memset(&v, 0, sizeof(v));
    ew_quic_flow_verdict(&f, &v);
    ew_misuse_find(&f, &v, fnd, sizeof(fnd) / sizeof(fnd[0]));
    {
        /* the "quic" member through the report's writer, into memory: it
         * must parse, and be there exactly when there is QUIC state */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        struct jw w;

        if (!mem || jw_init(&w, mem, 2, 10) != 0)
            abort();
        jw_object_begin(&w);
        ew_quic_write(&w, "quic", &f);
        jw_object_end(&w);
        if (jw_finish(&w) != 0 || fclose(mem) != 0)
            abort();
        j = json_loadb(text, len, 0, NULL);
        if (!j || (json_object_get(j, "quic") != NULL) != (f.quic != NULL))
            abort();
        json_decref(j);
        free(text);
    }
    ew_quic_release(pool, &f);
    ew_quic_pool_free(pool);
    return 0;
}
