/* probe_main.c - the --probe driver: the raw sockets opened (probe_net.c)
 * while root, the privileges dropped (privs.h) before the first probe, the
 * probes, the verdicts, the outputs (text, --json, -o FILE atomically) and
 * --fail-on. Nothing is sent until the options, the target and the outputs
 * are known good. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "base/outfile.h"
#include "cli/cli.h"
#include "cli/privs.h"
#include "cli/probe_main.h"
#include "probe/probe.h"

struct fill_arg {
    const struct ew_probe_result *r;
    const struct ew_probe_meta *m;
};

static int
json_fill(void *arg, FILE *out)
{
    const struct fill_arg *a = arg;

    return ew_probe_write_json(out, a->r, a->m);
}

/* --fail-on's line, as captures print it, counting the probe's findings */
static void
fail_on_print(const struct ew_probe_result *r, uint32_t mask)
{
    struct ew_fail_on f;
    size_t i;

    memset(&f, 0, sizeof(f));
    f.found = ew_probe_found(r) & mask;
    for (i = 0; i < r->nfindings; i++)
        f.probe[r->findings[i].kind]++;
    ew_fail_on_print(stderr, &f);
}

int
ew_probe_main(const struct ew_options *o, volatile sig_atomic_t *stop)
{
    struct ew_probe_result *r = calloc(1, sizeof(*r));
    struct ew_probe_meta m;
    struct ew_probe_net *net = NULL;
    struct ew_privs pv;
    struct fill_arg fa;
    char err[512];
    int status = EW_EXIT_DONE;

    if (!r) {
        ew_err("ecnwatch: out of memory\n");
        return EW_EXIT_USAGE;
    }
    memset(&m, 0, sizeof(m));
    m.name = o->probe.target;
    m.rate = o->probe.rate;
    m.max_probes = o->probe.max_probes;
    m.wait_ms = o->probe.wait_ms;
    m.udp_port = (uint16_t)o->probe.udp_port;
    m.stopped = "max_ttl";
    if (ew_privs_plan(o->user, &pv, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        status = EW_EXIT_USAGE;
    } else if (ew_privs_guard(&pv, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        status = EW_EXIT_OUTPUT;
    } else if (o->out_file && ew_outfile_check(o->out_file, "report", err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        status = EW_EXIT_OUTPUT;
    }
    if (status == EW_EXIT_DONE) {
        int rc = ew_probe_net_open(&o->probe, &net, r, err, sizeof(err));

        if (rc != 0) {
            ew_err("ecnwatch: %s\n", err);
            status = rc == 3 ? EW_EXIT_INPUT : EW_EXIT_USAGE;
        }
    }
    if (status == EW_EXIT_DONE && (status = ew_privs_drop(&pv, err, sizeof(err))) != 0)
        ew_err("ecnwatch: %s\n", err);
    if (status == EW_EXIT_DONE) {
        if (ew_probe_net_run(net, r, &m, stop, err, sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", err);
            status = EW_EXIT_INPUT; /* what was seen is still written */
        }
        ew_probe_judge(r);
        fa.r = r;
        fa.m = &m;
        if (o->out_file && ew_outfile_write(o->out_file, json_fill, &fa, "report", err,
                                            sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", err);
            status = EW_EXIT_OUTPUT;
        }
        if (o->json) {
            if (ew_probe_write_json(stdout, r, &m) != 0 || fflush(stdout) != 0) {
                ew_err("ecnwatch: standard output: cannot write the report\n");
                status = EW_EXIT_OUTPUT;
            }
        } else if (!o->quiet) {
            if (ew_probe_write_text(stdout, r, &m) != 0 || fflush(stdout) != 0) {
                ew_err("ecnwatch: standard output: cannot write the summary\n");
                status = EW_EXIT_OUTPUT;
            }
        }
        if (status == EW_EXIT_DONE && (ew_probe_found(r) & o->fail_on)) {
            fail_on_print(r, o->fail_on);
            status = EW_EXIT_FAIL_ON;
        }
    }
    ew_probe_net_close(net);
    free(r);
    ew_privs_end();
    return status;
}
