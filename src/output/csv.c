/* csv.c - --csv FILE (csv.h) */
#include "output/csv.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/format.h"
#include "base/outfile.h"
#include "dissectors/ecn.h"
#include "dissectors/pkt.h"
#include "findings/conclusions.h"
#include "findings/misuse.h"
#include "infer/infer.h"
#include "infer/negotiation.h"

static const char header[] =
    "id,proto,client,client_port,server,server_port,first_time,last_time,verdict,"
    "verdict_confidence,negotiation,"
    "c2s_packets,c2s_not_ect,c2s_ect0,c2s_ect1,c2s_ce,c2s_feedback,c2s_ect1_as,c2s_aqm,"
    "s2c_packets,s2c_not_ect,s2c_ect0,s2c_ect1,s2c_ce,s2c_feedback,s2c_ect1_as,s2c_aqm,"
    "misuse\n";

/* one endpoint: its address and port (empty without ports) */
static void
endpoint(FILE *out, const struct ew_flow *f, bool client)
{
    char buf[64];
    int from_lo = client ? f->client_dir == EW_DIR_LO_HI : f->client_dir != EW_DIR_LO_HI;

    ew_addr_str(from_lo ? f->key.lo : f->key.hi, f->key.family, buf, sizeof(buf));
    fprintf(out, "%s,", buf);
    if (f->key.l4 != EW_L4_NONE)
        fprintf(out, "%u", (unsigned)(from_lo ? f->key.port_lo : f->key.port_hi));
    fputc(',', out);
}

/* one direction d (canonical) of row r */
static void
direction(FILE *out, const struct ew_flow *f, const struct ew_conclusion *r, int d)
{
    const struct ew_dir_stats *s = &f->dir[d];

    fprintf(out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%s,", s->packets,
            s->ecn[EW_ECN_NOT_ECT], s->ecn[EW_ECN_ECT_0], s->ecn[EW_ECN_ECT_1], s->ecn[EW_ECN_CE],
            ew_fb_name[r->fb[d]], ew_ect1_name[r->ect1[d]]);
    /* as the report: the path of a TCP direction that carried data */
    if ((r->flags & EW_CONCL_HAS_PATH) && f->key.l4 == EW_L4_TCP && f->inf->half[d].data_pkts > 0)
        fputs(ew_aqm_name[r->aqm[d]], out);
    fputc(',', out);
}

int
ew_csv_print(FILE *out, const struct ew_pass *p)
{
    const struct ew_conclusions *c = p->c;
    struct ew_flow_room *room = malloc(sizeof(*room));
    char first[40], last[40];
    size_t i;
    int k;

    if (!room)
        return -1;
    fputs(header, out);
    for (i = 0; i < c->n; i++) {
        const struct ew_conclusion *r = &c->row[i];
        const struct ew_flow *f = ew_flowtab_view(c->tab, r->ref, room);
        const char *sep = "";

        ew_time_str(f->first_ns, first, sizeof(first));
        ew_time_str(f->last_ns, last, sizeof(last));
        fprintf(out, "%" PRIu64 ",%s,", f->id, ew_ip_proto_name(f->key.proto));
        endpoint(out, f, true);
        endpoint(out, f, false);
        fprintf(out, "%s,%s,%s,%s,%s,", first, last, ew_verdict_name[r->verdict],
                r->verdict == EW_V_UNKNOWN              ? ""
                : (r->flags & EW_CONCL_LIKELY) ? "likely"
                                                : "certain",
                r->neg >= 0 ? ew_neg_name[r->neg] : "");
        direction(out, f, r, f->client_dir);
        direction(out, f, r, f->client_dir ^ 1);
        for (k = 0; k < EW_MU_COUNT; k++) {
            if (r->kinds & (1u << k)) {
                fprintf(out, "%s%s", sep, ew_misuse_name[k]);
                sep = ";";
            }
        }
        fputc('\n', out);
    }
    free(room);
    return ferror(out) ? -1 : 0;
}

static int
fill(void *arg, FILE *out)
{
    return ew_csv_print(out, arg);
}

int
ew_csv_write_file(const struct ew_pass *p, const char *path, char *err, size_t errlen)
{
    return ew_outfile_write(path, fill, (void *)p, "flow table", err, errlen);
}
