/* test_quic.c - QUIC: the sample packets of RFC 9001 App. A and RFC 9369
 * App. A (keys, the client's and the server's Initial, opened and sealed),
 * variable-length integers (RFC 9000 §16, App. A.1), header and frame
 * parsing, the validation of the Initial ECN counts (RFC 9000 §13.4.2.1),
 * and packets cut at every length, with every bit flipped, or made of
 * garbage, which must never decode. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/dissect.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "dissectors/dissect_quic.h"
#include "infer/quic_conn.h"
#include "infer/quic_crypto.h"
#include "infer/quic_infer.h"
#include "output/quic_json.h"
#include "suites.h"

/* RFC 9001 App. A.2 and A.3 (QUIC v1), RFC 9369 App. A.2 and A.3 (v2): the
 * protected packets, byte for byte */
static const char v1_client_initial[] =
    "c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11"
    "d242b123dc9bd8bab936b47d92ec356c0bab7df5976d27cd449f63300099f399"
    "1c260ec4c60d17b31f8429157bb35a1282a643a8d2262cad67500cadb8e7378c"
    "8eb7539ec4d4905fed1bee1fc8aafba17c750e2c7ace01e6005f80fcb7df6212"
    "30c83711b39343fa028cea7f7fb5ff89eac2308249a02252155e2347b63d58c5"
    "457afd84d05dfffdb20392844ae812154682e9cf012f9021a6f0be17ddd0c208"
    "4dce25ff9b06cde535d0f920a2db1bf362c23e596d11a4f5a6cf3948838a3aec"
    "4e15daf8500a6ef69ec4e3feb6b1d98e610ac8b7ec3faf6ad760b7bad1db4ba3"
    "485e8a94dc250ae3fdb41ed15fb6a8e5eba0fc3dd60bc8e30c5c4287e53805db"
    "059ae0648db2f64264ed5e39be2e20d82df566da8dd5998ccabdae053060ae6c"
    "7b4378e846d29f37ed7b4ea9ec5d82e7961b7f25a9323851f681d582363aa5f8"
    "9937f5a67258bf63ad6f1a0b1d96dbd4faddfcefc5266ba6611722395c906556"
    "be52afe3f565636ad1b17d508b73d8743eeb524be22b3dcbc2c7468d54119c74"
    "68449a13d8e3b95811a198f3491de3e7fe942b330407abf82a4ed7c1b311663a"
    "c69890f4157015853d91e923037c227a33cdd5ec281ca3f79c44546b9d90ca00"
    "f064c99e3dd97911d39fe9c5d0b23a229a234cb36186c4819e8b9c5927726632"
    "291d6a418211cc2962e20fe47feb3edf330f2c603a9d48c0fcb5699dbfe58964"
    "25c5bac4aee82e57a85aaf4e2513e4f05796b07ba2ee47d80506f8d2c25e50fd"
    "14de71e6c418559302f939b0e1abd576f279c4b2e0feb85c1f28ff18f58891ff"
    "ef132eef2fa09346aee33c28eb130ff28f5b766953334113211996d20011a198"
    "e3fc433f9f2541010ae17c1bf202580f6047472fb36857fe843b19f5984009dd"
    "c324044e847a4f4a0ab34f719595de37252d6235365e9b84392b061085349d73"
    "203a4a13e96f5432ec0fd4a1ee65accdd5e3904df54c1da510b0ff20dcc0c77f"
    "cb2c0e0eb605cb0504db87632cf3d8b4dae6e705769d1de354270123cb11450e"
    "fc60ac47683d7b8d0f811365565fd98c4c8eb936bcab8d069fc33bd801b03ade"
    "a2e1fbc5aa463d08ca19896d2bf59a071b851e6c239052172f296bfb5e724047"
    "90a2181014f3b94a4e97d117b438130368cc39dbb2d198065ae3986547926cd2"
    "162f40a29f0c3c8745c0f50fba3852e566d44575c29d39a03f0cda721984b6f4"
    "40591f355e12d439ff150aab7613499dbd49adabc8676eef023b15b65bfc5ca0"
    "6948109f23f350db82123535eb8a7433bdabcb909271a6ecbcb58b936a88cd4e"
    "8f2e6ff5800175f113253d8fa9ca8885c2f552e657dc603f252e1a8e308f76f0"
    "be79e2fb8f5d5fbbe2e30ecadd220723c8c0aea8078cdfcb3868263ff8f09400"
    "54da48781893a7e49ad5aff4af300cd804a6b6279ab3ff3afb64491c85194aab"
    "760d58a606654f9f4400e8b38591356fbf6425aca26dc85244259ff2b19c41b9"
    "f96f3ca9ec1dde434da7d2d392b905ddf3d1f9af93d1af5950bd493f5aa731b4"
    "056df31bd267b6b90a079831aaf579be0a39013137aac6d404f518cfd4684064"
    "7e78bfe706ca4cf5e9c5453e9f7cfd2b8b4c8d169a44e55c88d4a9a7f9474241"
    "e221af44860018ab0856972e194cd934";

static const char v1_server_initial[] =
    "cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a"
    "5816b6394100f37a1c69797554780bb38cc5a99f5ede4cf73c3ec2493a1839b3"
    "dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73cc3f3bded74b562bfb19fb84"
    "022f8ef4cdd93795d77d06edbb7aaf2f58891850abbdca3d20398c276456cbc4"
    "2158407dd074ee";

static const char v2_client_initial[] =
    "d76b3343cf088394c8f03e5157080000449ea0c95e82ffe67b6abcdb4298b485"
    "dd04de806071bf03dceebfa162e75d6c96058bdbfb127cdfcbf903388e99ad04"
    "9f9a3dd4425ae4d0992cfff18ecf0fdb5a842d09747052f17ac2053d21f57c5d"
    "250f2c4f0e0202b70785b7946e992e58a59ac52dea6774d4f03b55545243cf1a"
    "12834e3f249a78d395e0d18f4d766004f1a2674802a747eaa901c3f10cda5500"
    "cb9122faa9f1df66c392079a1b40f0de1c6054196a11cbea40afb6ef5253cd68"
    "18f6625efce3b6def6ba7e4b37a40f7732e093daa7d52190935b8da58976ff33"
    "12ae50b187c1433c0f028edcc4c2838b6a9bfc226ca4b4530e7a4ccee1bfa2a3"
    "d396ae5a3fb512384b2fdd851f784a65e03f2c4fbe11a53c7777c023462239dd"
    "6f7521a3f6c7d5dd3ec9b3f233773d4b46d23cc375eb198c63301c21801f6520"
    "bcfb7966fc49b393f0061d974a2706df8c4a9449f11d7f3d2dcbb90c6b877045"
    "636e7c0c0fe4eb0f697545460c806910d2c355f1d253bc9d2452aaa549e27a1f"
    "ac7cf4ed77f322e8fa894b6a83810a34b361901751a6f5eb65a0326e07de7c12"
    "16ccce2d0193f958bb3850a833f7ae432b65bc5a53975c155aa4bcb4f7b2c4e5"
    "4df16efaf6ddea94e2c50b4cd1dfe06017e0e9d02900cffe1935e0491d77ffb4"
    "fdf85290fdd893d577b1131a610ef6a5c32b2ee0293617a37cbb08b847741c3b"
    "8017c25ca9052ca1079d8b78aebd47876d330a30f6a8c6d61dd1ab5589329de7"
    "14d19d61370f8149748c72f132f0fc99f34d766c6938597040d8f9e2bb522ff9"
    "9c63a344d6a2ae8aa8e51b7b90a4a806105fcbca31506c446151adfeceb51b91"
    "abfe43960977c87471cf9ad4074d30e10d6a7f03c63bd5d4317f68ff325ba3bd"
    "80bf4dc8b52a0ba031758022eb025cdd770b44d6d6cf0670f4e990b22347a7db"
    "848265e3e5eb72dfe8299ad7481a408322cac55786e52f633b2fb6b614eaed18"
    "d703dd84045a274ae8bfa73379661388d6991fe39b0d93debb41700b41f90a15"
    "c4d526250235ddcd6776fc77bc97e7a417ebcb31600d01e57f32162a8560cacc"
    "7e27a096d37a1a86952ec71bd89a3e9a30a2a26162984d7740f81193e8238e61"
    "f6b5b984d4d3dfa033c1bb7e4f0037febf406d91c0dccf32acf423cfa1e70710"
    "10d3f270121b493ce85054ef58bada42310138fe081adb04e2bd901f2f13458b"
    "3d6758158197107c14ebb193230cd1157380aa79cae1374a7c1e5bbcb80ee23e"
    "06ebfde206bfb0fcbc0edc4ebec309661bdd908d532eb0c6adc38b7ca7331dce"
    "8dfce39ab71e7c32d318d136b6100671a1ae6a6600e3899f31f0eed19e3417d1"
    "34b90c9058f8632c798d4490da4987307cba922d61c39805d072b589bd52fdf1"
    "e86215c2d54e6670e07383a27bbffb5addf47d66aa85a0c6f9f32e59d85a44dd"
    "5d3b22dc2be80919b490437ae4f36a0ae55edf1d0b5cb4e9a3ecabee93dfc6e3"
    "8d209d0fa6536d27a5d6fbb17641cde27525d61093f1b28072d111b2b4ae5f89"
    "d5974ee12e5cf7d5da4d6a31123041f33e61407e76cffcdcfd7e19ba58cf4b53"
    "6f4c4938ae79324dc402894b44faf8afbab35282ab659d13c93f70412e85cb19"
    "9a37ddec600545473cfb5a05e08d0b209973b2172b4d21fb69745a262ccde96b"
    "a18b2faa745b6fe189cf772a9f84cbfc";

static const char v2_server_initial[] =
    "dc6b3343cf0008f067a5502a4262b5004075d92faaf16f05d8a4398c47089698"
    "baeea26b91eb761d9b89237bbf87263017915358230035f7fd3945d88965cf17"
    "f9af6e16886c61bfc703106fbaf3cb4cfa52382dd16a393e42757507698075b2"
    "c984c707f0a0812d8cd5a6881eaf21ceda98f4bd23f6fe1a3e2c43edd9ce7ca8"
    "4bed8521e2e140";

static const char client_crypto_frame[] =
    "060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
    "04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
    "616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
    "04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
    "baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
    "0d0010000e0403050306030203080408050806002d00020101001c0002400100"
    "3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
    "75300901100f088394c8f03e51570806048000ffff";

static const char server_payload[] =
    "02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf739"
    "88cfc79825df566dc5430b9a045a1200130100002e00330024001d00209d3c94"
    "0d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00"
    "020304";
/* the unprotected headers the RFCs give */
static const char v1_client_header[] = "c300000001088394c8f03e5157080000449e00000002";
static const char v1_server_header[] = "c1000000010008f067a5502a4262b50040750001";
static const char v2_client_header[] = "d36b3343cf088394c8f03e5157080000449e00000002";
static const char v2_server_header[] = "d16b3343cf0008f067a5502a4262b50040750001";

static const uint8_t rfc_dcid[8] = {0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08};

static size_t
unhex(const char *s, uint8_t *out, size_t room)
{
    size_t n = 0;
    unsigned v;

    while (s[0] && s[1] && n < room) {
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void
check_hex(const uint8_t *got, size_t n, const char *hex)
{
    uint8_t want[64];

    CU_ASSERT_EQUAL_FATAL(unhex(hex, want, sizeof(want)), n);
    CU_ASSERT_EQUAL(memcmp(got, want, n), 0);
}

/* ------------------------------------------------------------ App. A.1 */

static void
test_keys_v1(void)
{
    struct ew_quic_initial_secrets s;

    CU_ASSERT_EQUAL_FATAL(ew_quic_derive_initial(EW_QUIC_V1, rfc_dcid, 8, &s), 0);
    check_hex(s.initial, 32, "7db5df06e7a69e432496adedb00851923595221596ae2ae9fb8115c1e9ed0a44");
    check_hex(s.client, 32, "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea");
    check_hex(s.ck.key, 16, "1f369613dd76d5467730efcbe3b1a22d");
    check_hex(s.ck.iv, 12, "fa044b2f42a3fd3b46fb255c");
    check_hex(s.ck.hp, 16, "9f50449e04a0e810283a1e9933adedd2");
    check_hex(s.server, 32, "3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b");
    check_hex(s.sk.key, 16, "cf3a5331653c364c88f0f379b6067e37");
    check_hex(s.sk.iv, 12, "0ac1493ca1905853b0bba03e");
    check_hex(s.sk.hp, 16, "c206b8d9b9f0f37644430b490eeaa314");
}

static void
test_keys_v2(void)
{
    struct ew_quic_initial_secrets s;

    CU_ASSERT_EQUAL_FATAL(ew_quic_derive_initial(EW_QUIC_V2, rfc_dcid, 8, &s), 0);
    check_hex(s.initial, 32, "2062e8b3cd8d52092614b8071d0aa1fb7c2e3ac193f78b280e72d8f5751f6aba");
    check_hex(s.client, 32, "14ec9d6eb9fd7af83bf5a668bc17a7e283766aade7ecd0891f70f9ff7f4bf47b");
    check_hex(s.ck.key, 16, "8b1a0bc121284290a29e0971b5cd045d");
    check_hex(s.ck.iv, 12, "91f73e2351d8fa91660e909f");
    check_hex(s.ck.hp, 16, "45b95e15235d6f45a6b19cbcb0294ba9");
    check_hex(s.server, 32, "0263db1782731bf4588e7e4d93b7463907cb8cd8200b5da55a8bd488eafc37c1");
    check_hex(s.sk.key, 16, "82db637861d55e1d011f19ea71d5d2a7");
    check_hex(s.sk.iv, 12, "dd13c276499c0249d3310652");
    check_hex(s.sk.hp, 16, "edf6d05c83121201b436e16877593c3a");
}

static void
test_unknown_version_no_keys(void)
{
    struct ew_quic_initial_secrets s;
    uint8_t long_cid[21] = {0};

    CU_ASSERT_EQUAL(ew_quic_derive_initial(0xff00001d, rfc_dcid, 8, &s), -1);
    CU_ASSERT_EQUAL(ew_quic_derive_initial(EW_QUIC_V1, long_cid, 21, &s), -1);
    /* a zero-length DCID is allowed after a Retry (RFC 9001 §5.2) */
    CU_ASSERT_EQUAL(ew_quic_derive_initial(EW_QUIC_V1, long_cid, 0, &s), 0);
}

/* ------------------------------------------------------------ App. A.2, A.3 */

/* the client's payload: the CRYPTO frame and PADDING to 1162 bytes */
static size_t
client_plaintext(uint8_t *out)
{
    size_t n = unhex(client_crypto_frame, out, 1162);

    CU_ASSERT_EQUAL(n, 245);
    memset(out + n, 0, 1162 - n);
    return 1162;
}

static void
open_sample(uint32_t version, const char *pkt_hex, bool server, uint64_t want_pn)
{
    struct ew_quic_initial_secrets s;
    struct ew_quic_crypto *cx = ew_quic_crypto_new();
    struct ew_quic_hdr h;
    struct ew_quic_frames fr;
    uint8_t *pkt = malloc(1200), *out = malloc(1200), want[1200];
    size_t n, wn;
    uint64_t pn = 99;
    long got;

    CU_ASSERT_PTR_NOT_NULL_FATAL(cx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pkt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    n = unhex(pkt_hex, pkt, 1200);
    CU_ASSERT_EQUAL(n, server ? 135 : 1200);
    CU_ASSERT_EQUAL_FATAL(ew_quic_parse_header(pkt, n, n, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_INITIAL);
    CU_ASSERT_EQUAL(h.version, version);
    CU_ASSERT_EQUAL(h.len, n);
    CU_ASSERT_TRUE(h.has_length);
    CU_ASSERT_EQUAL(h.pn_offset, 18);
    CU_ASSERT_EQUAL(h.token_len, 0);
    if (server) {
        CU_ASSERT_EQUAL(h.dcid_len, 0);
        CU_ASSERT_EQUAL(h.scid_len, 8);
        wn = unhex(server_payload, want, sizeof(want));
        CU_ASSERT_EQUAL(wn, 99);
    } else {
        CU_ASSERT_EQUAL(h.dcid_len, 8);
        CU_ASSERT_EQUAL(memcmp(h.dcid, rfc_dcid, 8), 0);
        CU_ASSERT_EQUAL(h.scid_len, 0);
        wn = client_plaintext(want);
    }
    /* both directions' keys come from the client's DCID */
    CU_ASSERT_EQUAL_FATAL(ew_quic_derive_initial(version, rfc_dcid, 8, &s), 0);
    got = ew_quic_open(cx, server ? &s.sk : &s.ck, pkt, &h, -1, out, 1200, &pn);
    CU_ASSERT_EQUAL(got, (long)wn);
    CU_ASSERT_EQUAL(pn, want_pn);
    if (got == (long)wn)
        CU_ASSERT_EQUAL(memcmp(out, want, wn), 0);
    /* the other direction's keys do not open it */
    CU_ASSERT_EQUAL(ew_quic_open(cx, server ? &s.ck : &s.sk, pkt, &h, -1, out, 1200, &pn), -1);
    /* the frames */
    ew_quic_parse_frames(want, wn, &fr);
    CU_ASSERT_FALSE(fr.malformed);
    CU_ASSERT_FALSE(fr.stopped);
    CU_ASSERT_EQUAL(fr.crypto, 1);
    if (server) {
        /* ACK (0x02): largest 0, no ECN counts */
        CU_ASSERT_EQUAL(fr.acks, 1);
        CU_ASSERT_EQUAL(fr.ack.largest, 0);
        CU_ASSERT_EQUAL(fr.ack.acked_mask, 1);
        CU_ASSERT_FALSE(fr.ack.ecn);
        CU_ASSERT_EQUAL(fr.crypto_bytes, 90);
    } else {
        CU_ASSERT_EQUAL(fr.acks, 0);
        CU_ASSERT_EQUAL(fr.crypto_bytes, 241);
        CU_ASSERT_EQUAL(fr.padding, 1);
    }
    ew_quic_crypto_free(cx);
    free(pkt);
    free(out);
}

static void
test_v1_client_initial(void)
{
    open_sample(EW_QUIC_V1, v1_client_initial, false, 2);
}

static void
test_v1_server_initial(void)
{
    open_sample(EW_QUIC_V1, v1_server_initial, true, 1);
}

static void
test_v2_client_initial(void)
{
    open_sample(EW_QUIC_V2, v2_client_initial, false, 2);
}

static void
test_v2_server_initial(void)
{
    open_sample(EW_QUIC_V2, v2_server_initial, true, 1);
}

/* sealing the RFC's plaintext under its header gives the RFC's packet */
static void
seal_sample(uint32_t version, const char *hdr_hex, const char *pkt_hex, bool server, uint64_t pn)
{
    struct ew_quic_initial_secrets s;
    struct ew_quic_crypto *cx = ew_quic_crypto_new();
    uint8_t hdr[32], plain[1200], want[1200], out[1300];
    size_t hl = unhex(hdr_hex, hdr, sizeof(hdr)), pl, wl = unhex(pkt_hex, want, sizeof(want));
    long got;

    CU_ASSERT_PTR_NOT_NULL_FATAL(cx);
    pl = server ? unhex(server_payload, plain, sizeof(plain)) : client_plaintext(plain);
    CU_ASSERT_EQUAL_FATAL(ew_quic_derive_initial(version, rfc_dcid, 8, &s), 0);
    got = ew_quic_seal(cx, server ? &s.sk : &s.ck, hdr, hl, hl - (server ? 2 : 4), pn, plain, pl,
                       out, sizeof(out));
    CU_ASSERT_EQUAL(got, (long)wl);
    if (got == (long)wl)
        CU_ASSERT_EQUAL(memcmp(out, want, wl), 0);
    ew_quic_crypto_free(cx);
}

static void
test_seal_samples(void)
{
    seal_sample(EW_QUIC_V1, v1_client_header, v1_client_initial, false, 2);
    seal_sample(EW_QUIC_V1, v1_server_header, v1_server_initial, true, 1);
    seal_sample(EW_QUIC_V2, v2_client_header, v2_client_initial, false, 2);
    seal_sample(EW_QUIC_V2, v2_server_header, v2_server_initial, true, 1);
}

/* ------------------------------------------------------------ varints */

static bool
varint_of(const char *hex, uint64_t *v, size_t *used)
{
    uint8_t b[16];
    size_t n = unhex(hex, b, sizeof(b));
    struct ew_cur c;
    bool ok;

    ew_cur_init(&c, b, n);
    ok = ew_quic_varint(&c, v);
    *used = (size_t)(c.p - b);
    return ok;
}

static void
test_varint(void)
{
    uint64_t v;
    size_t used;

    /* RFC 9000 App. A.1's examples */
    CU_ASSERT_TRUE(varint_of("c2197c5eff14e88c", &v, &used));
    CU_ASSERT_EQUAL(v, 151288809941952652ull);
    CU_ASSERT_EQUAL(used, 8);
    CU_ASSERT_TRUE(varint_of("9d7f3e7d", &v, &used));
    CU_ASSERT_EQUAL(v, 494878333);
    CU_ASSERT_TRUE(varint_of("7bbd", &v, &used));
    CU_ASSERT_EQUAL(v, 15293);
    CU_ASSERT_TRUE(varint_of("25", &v, &used));
    CU_ASSERT_EQUAL(v, 37);
    CU_ASSERT_TRUE(varint_of("4025", &v, &used));
    CU_ASSERT_EQUAL(v, 37);
    CU_ASSERT_EQUAL(used, 2);
    /* the extremes of each length */
    CU_ASSERT_TRUE(varint_of("3f", &v, &used));
    CU_ASSERT_EQUAL(v, 63);
    CU_ASSERT_TRUE(varint_of("7fff", &v, &used));
    CU_ASSERT_EQUAL(v, 16383);
    CU_ASSERT_TRUE(varint_of("bfffffff", &v, &used));
    CU_ASSERT_EQUAL(v, 1073741823);
    CU_ASSERT_TRUE(varint_of("ffffffffffffffff", &v, &used));
    CU_ASSERT_EQUAL(v, ((uint64_t)1 << 62) - 1);
    CU_ASSERT_TRUE(varint_of("c000000000000000", &v, &used));
    CU_ASSERT_EQUAL(v, 0);
    /* cut: nothing is consumed past the end */
    CU_ASSERT_FALSE(varint_of("", &v, &used));
    CU_ASSERT_FALSE(varint_of("7b", &v, &used));
    CU_ASSERT_FALSE(varint_of("9d7f3e", &v, &used));
    CU_ASSERT_FALSE(varint_of("c2197c5eff14e8", &v, &used));
    CU_ASSERT_EQUAL(used, 7);
}

/* ------------------------------------------------------------ headers */

static enum ew_quic_hdr_result
hdr_of(const char *hex, size_t claimed_extra, bool known, struct ew_quic_hdr *h)
{
    uint8_t b[256];
    size_t n = unhex(hex, b, sizeof(b));

    return ew_quic_parse_header(b, n, n + claimed_extra, known, h);
}

static void
test_header_rules(void)
{
    struct ew_quic_hdr h;
    char buf[200];

    /* Version Negotiation (RFC 9000 §17.2.1) answers a client whose version
     * the server lacks, so it may come first on its flow: taken then when it
     * holds together on its own, a known version family listed */
    snprintf(buf, sizeof(buf), "80000000000401020304040506070800000001%s", "6b3343cf");
    CU_ASSERT_EQUAL(hdr_of(buf, 0, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_VN);
    CU_ASSERT_EQUAL(h.vn_listed, 2);
    CU_ASSERT_EQUAL(h.vn_versions[0], EW_QUIC_V1);
    CU_ASSERT_EQUAL(h.vn_versions[1], EW_QUIC_V2);
    CU_ASSERT_EQUAL(h.dcid_len, 4);
    CU_ASSERT_EQUAL(h.dcid[3], 4);
    CU_ASSERT_EQUAL(h.len, 23);
    CU_ASSERT_EQUAL(hdr_of(buf, 0, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_VN);
    /* the unused bits of byte 0 are the server's to choose */
    CU_ASSERT_EQUAL(hdr_of("ff00000000000000000001", 0, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.vn_listed, 1);
    /* a reserved version (0x?a?a?a?a, §15), an IETF draft: QUIC families */
    CU_ASSERT_EQUAL(hdr_of("800000000000001a2a3a4a", 0, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(hdr_of("80000000000000ff00001d", 0, false, &h), EW_QH_OK);
    /* no version of a known family, a listed 0, CIDs over 20 bytes: not
     * QUIC on an unknown flow, still Version Negotiation on a QUIC one */
    CU_ASSERT_EQUAL(hdr_of("8000000000000012345678", 0, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("8000000000000012345678", 0, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(hdr_of("800000000000000000000000000001", 0, false, &h), EW_QH_NOT_QUIC);
    snprintf(buf, sizeof(buf), "8000000000%s%s0000000001", "15",
             "000102030405060708090a0b0c0d0e0f1011121314");
    CU_ASSERT_EQUAL(hdr_of(buf, 0, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of(buf, 0, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.dcid_len, 21);
    /* no whole version, or none at all */
    CU_ASSERT_EQUAL(hdr_of("800000000004010203040405060708000001", 0, true, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("80000000000000", 0, true, &h), EW_QH_NOT_QUIC);
    /* the CIDs cut: truncated; the list cut: the versions captured count,
     * the UDP length says how many there are */
    CU_ASSERT_EQUAL(hdr_of("8000000000040102", 0, false, &h), EW_QH_TRUNC);
    CU_ASSERT_EQUAL(hdr_of("8000000000000000000001", 4, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.vn_listed, 2);
    CU_ASSERT_EQUAL(h.vn_versions[0], EW_QUIC_V1);
    CU_ASSERT_EQUAL(h.vn_versions[1], 0);
    CU_ASSERT_EQUAL(hdr_of("80000000000000000000", 1, false, &h), EW_QH_NOT_QUIC);
    /* ten versions: all counted, the first EW_QUIC_VN_KEEP kept */
    snprintf(buf, sizeof(buf), "80000000000000%s%s",
             "0000000100000002000000030000000400000005", "0000000600000007000000086b3343cf00000001");
    CU_ASSERT_EQUAL(hdr_of(buf, 0, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.vn_listed, 10);
    CU_ASSERT_EQUAL(h.vn_versions[EW_QUIC_VN_KEEP - 1], 8);
    CU_ASSERT_EQUAL(hdr_of("40", 40, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_SHORT);
    CU_ASSERT_EQUAL(hdr_of("40", 40, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("40", 10, true, &h), EW_QH_NOT_QUIC); /* no room for a sample */
    /* long headers: v1 types, fixed bit, version, CID lengths, Length */
    CU_ASSERT_EQUAL(hdr_of("c0000000010100010000" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_INITIAL);
    CU_ASSERT_EQUAL(h.pn_offset, 11);
    CU_ASSERT_EQUAL(h.len, 31);
    /* the fixed bit clear: greased (RFC 9287) on a QUIC flow, or in an Initial
     * with a token; not QUIC otherwise */
    CU_ASSERT_EQUAL(hdr_of("80000000010100010000" "14", 20, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("80000000010100010000" "14", 20, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(hdr_of("800000000101000100" "02aabb" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.token_len, 2);
    CU_ASSERT_EQUAL(hdr_of("a00000000101000100" "14", 20, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("a00000000101000100" "14", 20, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(hdr_of("b00000000101000100aa", 16, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("00", 40, true, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_SHORT);
    CU_ASSERT_EQUAL(hdr_of("c0ff00001d0100010000" "14", 20, false, &h), EW_QH_NOT_QUIC);
    CU_ASSERT_EQUAL(hdr_of("c00000000115", 60, false, &h), EW_QH_NOT_QUIC); /* DCID 21 bytes */
    CU_ASSERT_EQUAL(hdr_of("c0000000010100010000" "13", 20, false, &h), EW_QH_NOT_QUIC); /* < 20 */
    CU_ASSERT_EQUAL(hdr_of("c0000000010100010000" "14", 19, false, &h), EW_QH_NOT_QUIC); /* past */
    CU_ASSERT_EQUAL(hdr_of("c0000000010100010000", 20, false, &h), EW_QH_TRUNC);
    CU_ASSERT_EQUAL(hdr_of("c000000001080102", 40, false, &h), EW_QH_TRUNC);
    CU_ASSERT_EQUAL(hdr_of("e00000000101000100" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_HANDSHAKE);
    CU_ASSERT_EQUAL(hdr_of("d00000000101000100" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_0RTT);
    /* Retry: no Length; a token and the 16-byte tag fill the datagram */
    CU_ASSERT_EQUAL(hdr_of("f00000000101000100aa", 16, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_RETRY);
    CU_ASSERT_FALSE(h.has_length);
    CU_ASSERT_EQUAL(hdr_of("f00000000101000100", 16, false, &h), EW_QH_NOT_QUIC);
    /* v2's type codes (RFC 9369 §3.2) */
    CU_ASSERT_EQUAL(hdr_of("d06b3343cf0100010000" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_INITIAL);
    CU_ASSERT_EQUAL(hdr_of("c06b3343cf01000100aa", 16, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_RETRY);
    CU_ASSERT_EQUAL(hdr_of("f06b3343cf01000100" "14", 20, false, &h), EW_QH_OK);
    CU_ASSERT_EQUAL(h.type, EW_QP_HANDSHAKE);
    /* a token longer than the datagram */
    CU_ASSERT_EQUAL(hdr_of("c0000000010100010040ff", 40, false, &h), EW_QH_NOT_QUIC);
    /* nothing at all */
    CU_ASSERT_EQUAL(ew_quic_parse_header(NULL, 0, 0, true, &h), EW_QH_NOT_QUIC);
}

/* ------------------------------------------------------------ frames */

static void
frames_of(const char *hex, struct ew_quic_frames *fr)
{
    uint8_t b[256];
    size_t n = unhex(hex, b, sizeof(b));
    uint8_t *exact = malloc(n ? n : 1);

    CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
    memcpy(exact, b, n);
    ew_quic_parse_frames(exact, n, fr);
    free(exact);
}

static void
test_frames(void)
{
    struct ew_quic_frames fr;

    /* largest 10, first range 2: 8..10; gap 1: 4..5 (RFC 9000 §19.3.1) */
    frames_of("020a0001020101", &fr);
    CU_ASSERT_EQUAL(fr.acks, 1);
    CU_ASSERT_FALSE(fr.malformed);
    CU_ASSERT_EQUAL(fr.ack.acked_mask, (1u << 4) | (1u << 5) | (1u << 8) | (1u << 9) | (1u << 10));
    CU_ASSERT_FALSE(fr.ack.ecn);
    frames_of("030a000102010105" "01" "02", &fr);
    CU_ASSERT_TRUE(fr.ack.ecn);
    CU_ASSERT_EQUAL(fr.ack.ect0, 5);
    CU_ASSERT_EQUAL(fr.ack.ect1, 1);
    CU_ASSERT_EQUAL(fr.ack.ce, 2);
    /* a range past 63 and one reaching 0 */
    frames_of("0240c8000040c8", &fr);
    CU_ASSERT_EQUAL(fr.ack.acked_mask, ~(uint64_t)0);
    CU_ASSERT_EQUAL(fr.ack.largest, 200);
    /* first range past largest; a gap below zero; ECN counts cut */
    frames_of("0201000002", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    frames_of("02050001000500", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    frames_of("030100000101", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    CU_ASSERT_EQUAL(fr.acks, 0);
    /* a huge range count with two bytes left ends with the bytes */
    frames_of("027fff00bfffffff00" "000000000000", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    /* PADDING, PING, CRYPTO, CONNECTION_CLOSE; stop at STREAM (0x08) */
    frames_of("00000001060003616263" "1c0a0602" "6869" "1d0b00" "0104", &fr);
    CU_ASSERT_FALSE(fr.malformed);
    CU_ASSERT_EQUAL(fr.padding, 1);
    CU_ASSERT_EQUAL(fr.ping, 2);
    CU_ASSERT_EQUAL(fr.crypto, 1);
    CU_ASSERT_EQUAL(fr.crypto_bytes, 3);
    CU_ASSERT_EQUAL(fr.close, 2);
    CU_ASSERT_EQUAL(fr.close_error, 11);
    CU_ASSERT_TRUE(fr.stopped);
    CU_ASSERT_EQUAL(fr.stop_type, 4);
    frames_of("0100" "08" "00", &fr);
    CU_ASSERT_TRUE(fr.stopped);
    CU_ASSERT_EQUAL(fr.stop_type, 8);
    /* CRYPTO and CONNECTION_CLOSE lengths past the payload */
    frames_of("060005aa", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    frames_of("1c0a0603aa", &fr);
    CU_ASSERT_TRUE(fr.malformed);
    frames_of("", &fr);
    CU_ASSERT_EQUAL(fr.acks + fr.crypto + fr.padding, 0);
}

/* ------------------------------------------------------------ exchanges */

static const uint8_t cli_dcid[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t cli_scid[4] = {0xc1, 0xc2, 0xc3, 0xc4};
static const uint8_t srv_scid[8] = {0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58};

/* a v1 Initial with a 2-byte packet number, frames padded to pad_to */
static size_t
build_initial(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *dcid,
              size_t dl, const uint8_t *scid, size_t sl, uint64_t pn, const uint8_t *frames,
              size_t flen, size_t pad_to, uint8_t *out, size_t room)
{
    uint8_t hdr[64], payload[1300];
    size_t h = 0, plen = flen, len, pno;
    long n;

    memcpy(payload, frames, flen);
    while (plen < pad_to)
        payload[plen++] = 0;
    hdr[h++] = 0xc1;
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 0;
    hdr[h++] = 1;
    hdr[h++] = (uint8_t)dl;
    memcpy(hdr + h, dcid, dl);
    h += dl;
    hdr[h++] = (uint8_t)sl;
    memcpy(hdr + h, scid, sl);
    h += sl;
    hdr[h++] = 0; /* no token */
    len = 2 + plen + 16;
    hdr[h++] = (uint8_t)(0x40 | (len >> 8));
    hdr[h++] = (uint8_t)len;
    pno = h;
    hdr[h++] = (uint8_t)(pn >> 8);
    hdr[h++] = (uint8_t)pn;
    n = ew_quic_seal(cx, k, hdr, h, pno, pn, payload, plen, out, room);
    CU_ASSERT_TRUE(n > 0);
    return n > 0 ? (size_t)n : 0;
}

struct exch {
    struct ew_quic_pool *pool;
    struct ew_quic_crypto *cx;
    struct ew_quic_initial_secrets s;
    struct ew_flow f;
    uint64_t frame;
};

static void
exch_init(struct exch *x, const uint8_t *dcid, size_t dl)
{
    memset(x, 0, sizeof(*x));
    x->pool = ew_quic_pool_new(4);
    x->cx = ew_quic_crypto_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->pool);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x->cx);
    CU_ASSERT_EQUAL(ew_quic_derive_initial(EW_QUIC_V1, dcid, dl, &x->s), 0);
    x->f.client_from = EW_CLIENT_FIRST_PACKET;
}

static void
exch_free(struct exch *x)
{
    ew_quic_release(x->pool, &x->f);
    ew_quic_pool_free(x->pool);
    ew_quic_crypto_free(x->cx);
}

/* the client (dir 0) sends Initial pn with ecn; frames as given */
static void
client_sends(struct exch *x, uint64_t pn, uint8_t ecn, const uint8_t *dcid, size_t dl,
             const struct ew_quic_keys *k, const uint8_t *frames, size_t flen)
{
    uint8_t pkt[1300];
    size_t n = build_initial(x->cx, k, dcid, dl, cli_scid, 4, pn, frames, flen, 1162, pkt,
                             sizeof(pkt));

    ew_quic_datagram(x->pool, &x->f, 0, ecn, pkt, (uint32_t)n, (uint32_t)n, ++x->frame);
}

static void
server_sends(struct exch *x, uint64_t pn, uint8_t ecn, const struct ew_quic_keys *k,
             const uint8_t *frames, size_t flen)
{
    uint8_t pkt[1300];
    size_t n = build_initial(x->cx, k, cli_scid, 4, srv_scid, 8, pn, frames, flen, 0, pkt,
                             sizeof(pkt));

    ew_quic_datagram(x->pool, &x->f, 1, ecn, pkt, (uint32_t)n, (uint32_t)n, ++x->frame);
}

static const uint8_t crypto_hello[] = {0x06, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00};

static void
test_exchange_validated(void)
{
    struct exch x;
    struct ew_quic_summary s;
    /* ACK largest 0 with counts ECT(0) 1, and a CRYPTO frame */
    static const uint8_t ack[] = {0x03, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                  0x06, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00};

    exch_init(&x, cli_dcid, 8);
    client_sends(&x, 0, EW_ECN_ECT_0, cli_dcid, 8, &x.s.ck, crypto_hello, sizeof(crypto_hello));
    CU_ASSERT_PTR_NOT_NULL_FATAL(x.f.quic);
    server_sends(&x, 0, EW_ECN_ECT_0, &x.s.sk, ack, sizeof(ack));
    CU_ASSERT_EQUAL(x.f.quic->dir[0].opened, 1);
    CU_ASSERT_EQUAL(x.f.quic->dir[1].opened, 1);
    CU_ASSERT_TRUE(x.f.quic->have_client);
    CU_ASSERT_EQUAL(x.f.quic->client_dir, 0);
    CU_ASSERT_TRUE(ew_quic_conclude(&x.f, &s));
    CU_ASSERT_EQUAL(s.dir[0].result, EW_QD_VALIDATED);
    CU_ASSERT_EQUAL(s.dir[1].result, EW_QD_NO_ACK);
    CU_ASSERT_EQUAL(s.verdict, EW_QV_VALIDATED);
    exch_free(&x);
}

static void
test_exchange_counts_missing_and_reordered(void)
{
    struct exch x;
    struct ew_quic_summary s;
    /* ACK of 0..1 with ECT(0) 2; then a late ACK of 0 only, without counts */
    static const uint8_t ack01[] = {0x03, 0x01, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00};
    static const uint8_t ack0[] = {0x02, 0x00, 0x00, 0x00, 0x00};

    exch_init(&x, cli_dcid, 8);
    client_sends(&x, 0, EW_ECN_ECT_0, cli_dcid, 8, &x.s.ck, crypto_hello, sizeof(crypto_hello));
    client_sends(&x, 1, EW_ECN_ECT_0, cli_dcid, 8, &x.s.ck, crypto_hello, sizeof(crypto_hello));
    server_sends(&x, 0, EW_ECN_NOT_ECT, &x.s.sk, ack01, sizeof(ack01));
    server_sends(&x, 1, EW_ECN_NOT_ECT, &x.s.sk, ack0, sizeof(ack0));
    /* the late ACK does not raise the largest acknowledged: no failure */
    CU_ASSERT_TRUE(ew_quic_conclude(&x.f, &s));
    CU_ASSERT_EQUAL(s.dir[0].result, EW_QD_VALIDATED);
    CU_ASSERT_EQUAL(s.verdict, EW_QV_VALIDATED);
    exch_free(&x);

    /* an ACK without counts that newly acknowledges an ECT(0) packet */
    exch_init(&x, cli_dcid, 8);
    client_sends(&x, 0, EW_ECN_ECT_0, cli_dcid, 8, &x.s.ck, crypto_hello, sizeof(crypto_hello));
    server_sends(&x, 0, EW_ECN_NOT_ECT, &x.s.sk, ack0, sizeof(ack0));
    CU_ASSERT_TRUE(ew_quic_conclude(&x.f, &s));
    CU_ASSERT_EQUAL(s.dir[0].result, EW_QD_FAILED);
    CU_ASSERT_EQUAL(s.dir[0].fail, EW_QF_COUNTS_MISSING);
    CU_ASSERT_EQUAL(s.dir[0].frame, 2);
    CU_ASSERT_EQUAL(s.dir[0].first_frame, 1);
    CU_ASSERT_EQUAL(s.verdict, EW_QV_FAILED);
    CU_ASSERT_EQUAL(x.f.quic->dir[0].plain_on_ect, 1);
    exch_free(&x);
}

static void
test_exchange_after_retry(void)
{
    struct exch x;
    struct ew_quic_summary s;
    struct ew_quic_initial_secrets s2;
    static const uint8_t new_dcid[8] = {9, 9, 9, 9, 8, 8, 8, 8};
    static const uint8_t ack[] = {0x03, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
    uint8_t retry[64];
    size_t n = 0;

    exch_init(&x, cli_dcid, 8);
    client_sends(&x, 0, EW_ECN_ECT_0, cli_dcid, 8, &x.s.ck, crypto_hello, sizeof(crypto_hello));
    /* Retry (type 3): DCID the client's SCID, SCID the new CID, a token, a tag */
    retry[n++] = 0xf0;
    retry[n++] = 0;
    retry[n++] = 0;
    retry[n++] = 0;
    retry[n++] = 1;
    retry[n++] = 4;
    memcpy(retry + n, cli_scid, 4);
    n += 4;
    retry[n++] = 8;
    memcpy(retry + n, new_dcid, 8);
    n += 8;
    memcpy(retry + n, "token", 5);
    n += 5;
    memset(retry + n, 0xab, 16);
    n += 16;
    ew_quic_datagram(x.pool, &x.f, 1, EW_ECN_NOT_ECT, retry, (uint32_t)n, (uint32_t)n, ++x.frame);
    CU_ASSERT_TRUE(x.f.quic->retry);
    /* keys from the Retry's SCID for both directions from now on (RFC 9001 §5.2) */
    CU_ASSERT_EQUAL(ew_quic_derive_initial(EW_QUIC_V1, new_dcid, 8, &s2), 0);
    client_sends(&x, 1, EW_ECN_ECT_0, new_dcid, 8, &s2.ck, crypto_hello, sizeof(crypto_hello));
    server_sends(&x, 0, EW_ECN_NOT_ECT, &s2.sk, ack, sizeof(ack));
    CU_ASSERT_EQUAL(x.f.quic->dir[0].opened, 2);
    CU_ASSERT_EQUAL(x.f.quic->dir[1].opened, 1);
    CU_ASSERT_EQUAL(x.f.quic->dcid_len, 8);
    CU_ASSERT_EQUAL(memcmp(x.f.quic->dcid, new_dcid, 8), 0);
    CU_ASSERT_TRUE(ew_quic_conclude(&x.f, &s));
    CU_ASSERT_EQUAL(s.dir[0].result, EW_QD_VALIDATED);
    exch_free(&x);
}

/* the client's Initial cut at every length: with the datagram cut (its
 * Length then lies) nothing is QUIC; with the snaplen cut the header is
 * seen but nothing decrypts */
static void
test_cut_every_length(void)
{
    static uint8_t full[1200];
    struct ew_quic_pool *pool = ew_quic_pool_new(2);
    struct ew_quic_hdr h;
    struct ew_flow f;
    size_t n = unhex(v1_client_initial, full, sizeof(full)), cut;

    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    for (cut = 0; cut <= n; cut++) {
        uint8_t *b = malloc(cut ? cut : 1);

        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        memcpy(b, full, cut);
        if (cut < n)
            CU_ASSERT_NOT_EQUAL(ew_quic_parse_header(b, cut, cut, false, &h), EW_QH_OK);
        memset(&f, 0, sizeof(f));
        ew_quic_datagram(pool, &f, 0, EW_ECN_ECT_0, b, (uint32_t)cut, (uint32_t)cut, 1);
        CU_ASSERT_TRUE(cut == n ? f.quic != NULL : f.quic == NULL);
        if (f.quic)
            CU_ASSERT_EQUAL(f.quic->dir[0].opened, 1);
        ew_quic_release(pool, &f);
        memset(&f, 0, sizeof(f));
        ew_quic_datagram(pool, &f, 0, EW_ECN_ECT_0, b, (uint32_t)cut, (uint32_t)n, 1);
        if (f.quic)
            CU_ASSERT_EQUAL(f.quic->dir[0].opened, cut == n ? 1u : 0u);
        ew_quic_release(pool, &f);
        free(b);
    }
    ew_quic_pool_free(pool);
}

/* every single bit flipped: never decrypts (AEAD, keys from the DCID) */
static void
test_bit_flips(void)
{
    static uint8_t full[1200];
    struct ew_quic_pool *pool = ew_quic_pool_new(2);
    struct ew_flow f;
    size_t n = unhex(v1_client_initial, full, sizeof(full)), i;
    unsigned opened = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    for (i = 0; i < n * 8; i += 3) {
        full[i / 8] ^= (uint8_t)(1u << (i % 8));
        memset(&f, 0, sizeof(f));
        ew_quic_datagram(pool, &f, 0, EW_ECN_ECT_0, full, (uint32_t)n, (uint32_t)n, 1);
        if (f.quic)
            opened += f.quic->dir[0].opened + f.quic->dir[1].opened;
        ew_quic_release(pool, &f);
        full[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
    CU_ASSERT_EQUAL(opened, 0);
    ew_quic_pool_free(pool);
}

/* the pool: as many entries as flows, given back and taken again */
static void
test_pool_reuse(void)
{
    static uint8_t pkt[1200];
    struct ew_quic_pool *pool = ew_quic_pool_new(2);
    struct ew_flow f[3];
    size_t n = unhex(v1_client_initial, pkt, sizeof(pkt));
    int i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    memset(f, 0, sizeof(f));
    for (i = 0; i < 3; i++)
        ew_quic_datagram(pool, &f[i], 0, EW_ECN_ECT_0, pkt, (uint32_t)n, (uint32_t)n, 1);
    CU_ASSERT_PTR_NOT_NULL(f[0].quic);
    CU_ASSERT_PTR_NOT_NULL(f[1].quic);
    CU_ASSERT_PTR_NULL(f[2].quic); /* cannot happen with the analyzer: cap = flows */
    CU_ASSERT_EQUAL(f[0].quic->dir[0].opened, 1);
    ew_quic_release(pool, &f[1]);
    ew_quic_datagram(pool, &f[2], 0, EW_ECN_ECT_0, pkt, (uint32_t)n, (uint32_t)n, 2);
    CU_ASSERT_PTR_EQUAL(f[2].quic, f[1].quic);
    CU_ASSERT_EQUAL(f[2].quic->first_frame, 2);
    CU_ASSERT_EQUAL(f[2].quic->dir[0].opened, 1);
    ew_quic_pool_free(pool);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd32(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned
count_opened(const struct ew_flowtab *tab)
{
    struct ew_flow_iter it;
    const struct ew_flow *f;
    unsigned n = 0;

    ew_flow_iter_start(&it, tab, EW_ITER_HELD, 0);
    CU_ASSERT_FALSE(it.nomem);
    while ((f = ew_flow_iter_next(&it)) != NULL)
        if (f->quic)
            n += f->quic->dir[0].opened + f->quic->dir[1].opened;
    ew_flow_iter_end(&it);
    return n;
}

/* random UDP payloads to port 443 through the dissector and the analyzer,
 * many shaped to pass the cheap checks (long header, version 1, sane CID
 * lengths), in a table of 8 flows so that QUIC state is given back */
static void
test_garbage_on_443(void)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 8, .hash_seed = 1};
    struct ew_analyzer an;
    static uint8_t frame[14 + 20 + 8 + 1400];
    struct ew_pkt pkt;
    unsigned i, j;

    CU_ASSERT_EQUAL_FATAL(ew_analyzer_init(&an, &cfg), 0);
    for (i = 0; i < 20000; i++) {
        uint32_t plen = rnd32() % 1400, iplen = 20 + 8 + plen;
        uint8_t *ip = frame + 14, *udp = ip + 20, *pl = udp + 8;
        uint8_t *exact;
        int shape = (int)(rnd32() % 4);

        memset(frame, 0, 14 + 20 + 8);
        frame[12] = 0x08;
        ip[0] = 0x45;
        ip[1] = (uint8_t)(rnd32() & 3);
        ip[2] = (uint8_t)(iplen >> 8);
        ip[3] = (uint8_t)iplen;
        ip[8] = 64;
        ip[9] = 17;
        ip[12] = 192;
        ip[15] = (uint8_t)(rnd32() % 16);
        ip[16] = 198;
        ip[19] = 1;
        udp[0] = (uint8_t)(rnd32() & 0xff);
        udp[1] = (uint8_t)(rnd32() & 0xff);
        udp[2] = 443 >> 8;
        udp[3] = 443 & 0xff;
        udp[4] = (uint8_t)((8 + plen) >> 8);
        udp[5] = (uint8_t)(8 + plen);
        for (j = 0; j < plen; j++)
            pl[j] = (uint8_t)rnd32();
        if (shape >= 1 && plen > 8) {
            pl[0] = (uint8_t)(0xc0 | (pl[0] & 0x3f));
            pl[1] = pl[2] = pl[3] = 0;
            pl[4] = 1;
            pl[5] = (uint8_t)(pl[5] % 21);
        }
        if (shape >= 2 && plen > 8u + pl[5] + 1u)
            pl[6 + pl[5]] = (uint8_t)(pl[6 + pl[5]] % 21);
        if (shape == 3 && i > 0) {
            /* answer on the same 5-tuple, the other way */
            memcpy(udp, "\x01\xbb", 2);
            udp[2] = 0x30;
            udp[3] = 0x39;
        }
        exact = malloc(14 + iplen);
        CU_ASSERT_PTR_NOT_NULL_FATAL(exact);
        memcpy(exact, frame, 14 + iplen);
        ew_dissect_frame(EW_LINK_ETHERNET, exact, 14 + iplen, 14 + iplen, &pkt);
        ew_analyzer_frame(&an, &pkt, (int64_t)i * 1000000);
        free(exact);
    }
    CU_ASSERT_EQUAL(count_opened(an.tab), 0);
    ew_analyzer_free(&an);
}

int
ew_test_register_quic(void)
{
    CU_pSuite s = CU_add_suite("quic", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "RFC 9001 A.1: v1 Initial keys", test_keys_v1) ||
        !CU_add_test(s, "RFC 9369 A.1: v2 Initial keys", test_keys_v2) ||
        !CU_add_test(s, "no keys for unknown versions or long CIDs",
                     test_unknown_version_no_keys) ||
        !CU_add_test(s, "RFC 9001 A.2: v1 client Initial opens", test_v1_client_initial) ||
        !CU_add_test(s, "RFC 9001 A.3: v1 server Initial opens", test_v1_server_initial) ||
        !CU_add_test(s, "RFC 9369 A.2: v2 client Initial opens", test_v2_client_initial) ||
        !CU_add_test(s, "RFC 9369 A.3: v2 server Initial opens", test_v2_server_initial) ||
        !CU_add_test(s, "sealing the samples gives the RFCs' packets", test_seal_samples) ||
        !CU_add_test(s, "varints: RFC 9000 A.1, extremes, cut", test_varint) ||
        !CU_add_test(s, "header rules: types, versions, lengths", test_header_rules) ||
        !CU_add_test(s, "frames: ACK ranges and counts, malformed, unknown", test_frames) ||
        !CU_add_test(s, "exchange: ECT(0) counted and validated", test_exchange_validated) ||
        !CU_add_test(s, "exchange: counts missing; a late ACK does not fail",
                     test_exchange_counts_missing_and_reordered) ||
        !CU_add_test(s, "exchange: keys from the Retry's SCID", test_exchange_after_retry) ||
        !CU_add_test(s, "pool: entries given back and taken again", test_pool_reuse) ||
        !CU_add_test(s, "client Initial cut at every length", test_cut_every_length) ||
        !CU_add_test(s, "client Initial with bits flipped", test_bit_flips) ||
        !CU_add_test(s, "garbage on UDP port 443 never decodes", test_garbage_on_443))
        return -1;
    return 0;
}
