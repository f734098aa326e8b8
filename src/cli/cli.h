/* cli.h - the command line: the options as given, the exit statuses, and
 * --fail-on's outcome, which both the offline and the live driver report.
 *
 * Exit statuses (man/ecnwatch.1): 0 done; 1 reserved for --fail-on; 2 bad
 * usage (unknown option, bad value, bad filter expression); 3 the input
 * cannot be read (missing, permission, not a capture, unsupported link type);
 * 4 the report cannot be written. */
#ifndef ECNWATCH_CLI_H
#define ECNWATCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissectors/decap.h"
#include "engine/analyze.h"
#include "probe/probe.h"

enum {
    EW_EXIT_DONE = 0,
    EW_EXIT_FAIL_ON = 1,
    EW_EXIT_USAGE = 2,
    EW_EXIT_INPUT = 3,
    EW_EXIT_OUTPUT = 4,
};

/* --workers, at most (the mirror's EW_MIRROR_MAX) */
#define EW_WORKERS_MAX 64

/* captures (-r) read at once, at most */
#define EW_CLI_MAX_FILES 8

struct ew_options {
    const char *read_file; /* the first -r */
    const char *files[EW_CLI_MAX_FILES];
    int nfiles;
    const char *out_file;
    const char *iface;
    int snaplen;
    int buffer_kib;
    int workers; /* --workers: capture threads (live) */
    const char *user;
    double interval_s;
    bool interval_set;
    bool timeseries;
    const char *plot_dir;
    const char *csv_file;       /* --csv FILE */
    const char *metrics_listen; /* --metrics ADDR:PORT (":PORT" and "localhost:PORT" spelt out) */
    char metrics_spec[128];     /* where a spelt-out --metrics is kept */
    bool list_ifaces;           /* -D */
    const char *list;           /* --list WHAT, or NULL */
    const char *write_file;     /* -w FILE: the packets read, as pcap */
    const char *filter_file;    /* -F FILE: the filter expression */
    const char *metrics_file;
    const char *web_config;     /* --web-config FILE */
    bool json;
    bool ndjson;
    bool quiet;
    uint64_t count; /* 0: no limit */
    uint64_t max_output; /* --max-output: bytes of NDJSON events; 0: no limit */
    uint32_t max_flows;
    uint32_t hot_flows; /* 0: the table's default */
    double idle_s;
    bool have_seed;
    uint64_t seed;
    size_t text_flows;
    int text_sort;
    bool text_all;
    uint32_t fail_on; /* mask of misuse kinds */
    struct ew_decap_cfg decap; /* --decap, --no-decap: set in the decoders before reading */
    bool decap_given;          /* a --decap was given */
    char *filter;     /* joined trailing words, or NULL */
    struct ew_probe_opts probe; /* --probe: target NULL when not probing */
    const char *probe_report;   /* --probe-report FILE (with -r) */
};

/* Fill o from argv (o is set to the defaults first). Returns -1 to go on,
 * or the exit status to end with: --help and --version print and give 0,
 * a bad option or combination says why on standard error and gives 2.
 * Free o with ew_cli_free() in either case. */
int ew_cli_parse(int argc, char **argv, struct ew_options *o);
void ew_cli_free(struct ew_options *o);

/* The flow-hash seed: --hash-seed, else ECNWATCH_HASH_SEED, else random. */
uint64_t ew_cli_hash_seed(const struct ew_options *o);

struct ew_hop;

/* --fail-on's outcome: the kinds of the mask found, with how many flows of
 * the analysis and how many packets between captures showed each. */
struct ew_fail_on {
    uint32_t found;
    uint64_t flows[EW_MU_MASK_BITS];
    uint64_t packets[EW_MU_MASK_BITS];
    uint64_t probe[EW_MU_MASK_BITS]; /* findings of --probe-report */
};

/* Which kinds of mask the pass p and the hops between captures (nhops of
 * them, or none) found; returns r->found. */
struct ew_pass;
uint32_t ew_fail_on_eval(const struct ew_pass *p, struct ew_hop *const *hops, int nhops,
                         uint32_t mask, struct ew_fail_on *r);

/* The run the options ask for (output.h), copied once. */
struct ew_run_cfg;
void ew_cli_run_cfg(const struct ew_options *o, struct ew_run_cfg *c);

/* --list WHAT: its index (kinds, aqm, links, events, tunnels), or -1; the list
 * printed a line each ("NUMBER\tNAME\tTEXT"), 0 or -1 when the write failed */
int ew_list_find(const char *what);
int ew_list_print(FILE *out, int which);

/* The line that names what matched, with its counts. */
void ew_fail_on_print(FILE *out, const struct ew_fail_on *r);

#endif /* ECNWATCH_CLI_H */
