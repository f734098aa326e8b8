/* exporter.c - /metrics over libmicrohttpd in external-polling mode, and the
 * metrics file (see exporter.h). */
#include "base/format.h"
#include "output/exporter.h"

#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* idle seconds before libmicrohttpd closes a connection (it counts from the
 * last byte); the whole-request bound below is the stricter one */
#define CONN_TIMEOUT_S 10

static const char not_found[] = "not found: the metrics are at /metrics\n";
static const char not_allowed[] = "only GET and HEAD\n";
static const char unavailable[] = "no metrics yet\n";

/* one tracked connection: its socket, and since when it has been waiting
 * for a request to arrive whole (0 while one is being answered) */
struct conn_slot {
    int fd;
    bool used;
    int64_t waiting_since;
};

struct ew_exporter {
    struct ew_exporter_cfg cfg;
    struct conn_slot conns[EW_EXPORTER_CONNS];
    struct MHD_Daemon *d;
    struct MHD_Response *resp;       /* the latest snapshot; NULL before the first */
    struct MHD_Response *r404, *r405, *r503;
    struct ew_metrics_flows fl;      /* per-flow gauges, as last computed */
    bool have_fl;
    int64_t flows_due;               /* monotonic ns: when to recompute them */
    uint64_t writes;                 /* successful writes of the metrics file */
    char file_err[512];
    bool file_failed;
};

static int64_t
mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
           const char *version, const char *upload_data, size_t *upload_data_size,
           void **con_cls)
{
    struct ew_exporter *x = cls;

    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    /* the request has arrived whole: its bound no longer runs */
    if (ci && ci->socket_context)
        ((struct conn_slot *)ci->socket_context)->waiting_since = 0;
    if (strcmp(url, "/metrics") != 0)
        return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, x->r404);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, x->r405);
    if (!x->resp)
        return MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, x->r503);
    return MHD_queue_response(c, MHD_HTTP_OK, x->resp);
}

/* a connection opens or closes: give it a slot, or free its slot */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
              enum MHD_ConnectionNotificationCode toe)
{
    struct ew_exporter *x = cls;
    struct conn_slot *slot = *socket_context;
    const union MHD_ConnectionInfo *ci;
    size_t i;

    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (slot)
            slot->used = false;
        *socket_context = NULL;
        return;
    }
    ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    for (i = 0; i < EW_EXPORTER_CONNS && ci; i++) {
        if (!x->conns[i].used) {
            x->conns[i].used = true;
            x->conns[i].fd = ci->connect_fd;
            x->conns[i].waiting_since = mono_ns();
            *socket_context = &x->conns[i];
            return;
        }
    }
}

/* a response has been sent: the next request's bound starts now */
static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    (void)cls;
    (void)con_cls;
    (void)toe;
    if (ci && ci->socket_context)
        ((struct conn_slot *)ci->socket_context)->waiting_since = mono_ns();
}

/* Cut off every connection whose request has taken longer than the bound to
 * arrive: shutdown() ends its stream and libmicrohttpd closes it at its next
 * read (the descriptor stays libmicrohttpd's: it is not closed here). Returns
 * the milliseconds until the next deadline, or -1 when none runs. */
static int
cut_slow(struct ew_exporter *x)
{
    int64_t now = mono_ns(), bound = (int64_t)EW_EXPORTER_REQUEST_S * 1000000000, next = -1;
    size_t i;

    for (i = 0; i < EW_EXPORTER_CONNS; i++) {
        struct conn_slot *s = &x->conns[i];
        int64_t left;

        if (!s->used || s->waiting_since == 0)
            continue;
        left = s->waiting_since + bound - now;
        if (left <= 0) {
            shutdown(s->fd, SHUT_RDWR);
            s->waiting_since = 0;
            continue;
        }
        if (next < 0 || left < next)
            next = left;
    }
    return next < 0 ? -1 : (int)(next / 1000000) + 1;
}

static struct MHD_Response *
fixed(const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text,
                                        MHD_RESPMEM_PERSISTENT);

    if (r)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    return r;
}

/* a socket bound to exactly the address given, listening */
static int
listen_on(const char *spec, bool *v6, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    char why[160];
    int fd, one = 1;

    if (ew_metrics_parse_addr(spec, &ss, &sslen, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--metrics %s: %s", spec, why);
        return -1;
    }
    *v6 = ss.ss_family == AF_INET6;
    if ((*v6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) ||
        (!*v6 && ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY)))
        ew_err(
                "ecnwatch: warning: --metrics %s serves the metrics on every address of this "
                "host, to anyone who can reach it; give one address (e.g. 127.0.0.1:PORT) to "
                "serve them there only\n",
                spec);
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "--metrics %s: cannot make a socket: %s", spec, strerror(errno));
        return -1;
    }
    /* SO_REUSEADDR only skips TIME_WAIT: a port someone listens on stays taken */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (*v6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, sslen) != 0 || listen(fd, 128) != 0) {
        int e = errno;

        snprintf(err, errlen, "--metrics %s: cannot listen: %s%s", spec, strerror(e),
                 e == EADDRINUSE ? " (another program has the port)" : "");
        close(fd);
        return -1;
    }
    return fd;
}

int
ew_exporter_open(const struct ew_exporter_cfg *cfg, struct ew_exporter **out, char *err,
                 size_t errlen)
{
    struct ew_exporter *x = calloc(1, sizeof(*x));
    bool v6 = false;
    int fd;

    *out = NULL;
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    x->cfg = *cfg;
    if (cfg->listen) {

        fd = listen_on(cfg->listen, &v6, err, errlen);
        if (fd < 0) {
            free(x);
            return -1;
        }
        x->r404 = fixed(not_found);
        x->r405 = fixed(not_allowed);
        x->r503 = fixed(unavailable);
        if (x->r405)
            MHD_add_response_header(x->r405, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        /* no MHD_USE_INTERNAL_POLLING_THREAD: MHD starts no thread and works
         * only inside MHD_run_from_select(), called from the live loop */
        if (x->r404 && x->r405 && x->r503)
            x->d = MHD_start_daemon(v6 ? MHD_USE_IPv6 : MHD_NO_FLAG, 0, NULL, NULL, on_request,
                                    x, MHD_OPTION_LISTEN_SOCKET, fd,
                                    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)EW_EXPORTER_CONNS,
                                    MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                    (unsigned int)EW_EXPORTER_CONNS_PER_IP,
                                    MHD_OPTION_NOTIFY_CONNECTION, on_connection, x,
                                    MHD_OPTION_NOTIFY_COMPLETED, on_completed, x,
                                    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
                                    MHD_OPTION_END);
        if (!x->d) {
            snprintf(err, errlen, "--metrics %s: cannot start the HTTP server", cfg->listen);
            ew_exporter_close(x);
            return -1;
        }
    }
    *out = x;
    return 0;
}

int
ew_exporter_pollfds(struct ew_exporter *x, struct pollfd *pfd, int room, int *timeout_ms)
{
    fd_set rs, ws, es;
    MHD_socket max = -1;
    MHD_UNSIGNED_LONG_LONG t;
    int fd, n = 0;

    if (!x->d)
        return 0;
    FD_ZERO(&rs);
    FD_ZERO(&ws);
    FD_ZERO(&es);
    if (MHD_get_fdset2(x->d, &rs, &ws, &es, &max, FD_SETSIZE) != MHD_YES)
        return 0;
    for (fd = 0; fd <= max && n < room; fd++) {
        short ev = (short)((FD_ISSET(fd, &rs) ? POLLIN : 0) | (FD_ISSET(fd, &ws) ? POLLOUT : 0));

        if (ev) {
            pfd[n].fd = fd;
            pfd[n].events = ev;
            pfd[n++].revents = 0;
        }
    }
    if (MHD_get_timeout(x->d, &t) == MHD_YES && t < (MHD_UNSIGNED_LONG_LONG)*timeout_ms)
        *timeout_ms = (int)t;
    {
        int due = cut_slow(x);

        if (due >= 0 && due < *timeout_ms)
            *timeout_ms = due;
    }
    return n;
}

void
ew_exporter_serve(struct ew_exporter *x, const struct pollfd *pfd, int n)
{
    fd_set rs, ws, es;
    int i;

    if (!x->d)
        return;
    FD_ZERO(&rs);
    FD_ZERO(&ws);
    FD_ZERO(&es);
    for (i = 0; i < n; i++) {
        short bad = POLLERR | POLLHUP | POLLNVAL;

        if ((pfd[i].events & POLLIN) && (pfd[i].revents & (POLLIN | bad)))
            FD_SET(pfd[i].fd, &rs);
        if ((pfd[i].events & POLLOUT) && (pfd[i].revents & (POLLOUT | bad)))
            FD_SET(pfd[i].fd, &ws);
    }
    /* also when nothing is ready: MHD closes idle connections here */
    MHD_run_from_select(x->d, &rs, &ws, &es);
    cut_slow(x);
}

int
ew_exporter_tick(struct ew_exporter *x, const struct ew_analyzer *an,
                 const struct ew_metrics_src *src, bool last, char *err, size_t errlen)
{
    int64_t now = mono_ns(), interval = (int64_t)(x->cfg.interval_s * 1e9);
    struct ew_metrics_src s = *src;
    char *text;
    size_t len;

    if (!x->have_fl || now >= x->flows_due || last) {
        int64_t took;

        ew_metrics_count_flows(an, EW_METRICS_FLOW_BUDGET, &x->fl);
        took = mono_ns() - now;
        x->have_fl = true;
        /* once per tick (ticks are an interval apart; the slack absorbs their
         * jitter), and no more than a tenth of the loop's time */
        x->flows_due = now + (10 * took > interval ? 10 * took : interval) - interval / 10;
    }
    s.interface = x->cfg.interface;
    text = ew_metrics_text(an, &x->fl, &s, &len);
    if (!text)
        return 0; /* out of memory: keep serving the previous snapshot */
    if (x->cfg.file) {
        char why[400];

        if (ew_metrics_write_file(x->cfg.file, text, len, why, sizeof(why)) == 0) {
            x->writes++;
        } else if (x->writes == 0) {
            snprintf(err, errlen, "--metrics-file %s", why);
            free(text);
            return -1;
        } else {
            snprintf(x->file_err, sizeof(x->file_err), "--metrics-file %s", why);
            x->file_failed = true;
        }
    }
    if (x->d) {
        struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);

        if (!r) {
            free(text);
            return 0;
        }
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE);
        /* a response still being sent keeps its own reference */
        if (x->resp)
            MHD_destroy_response(x->resp);
        x->resp = r;
    } else {
        free(text);
    }
    return 0;
}

const char *
ew_exporter_error(const struct ew_exporter *x)
{
    return x->file_failed ? x->file_err : NULL;
}

void
ew_exporter_close(struct ew_exporter *x)
{
    if (!x)
        return;
    if (x->d)
        MHD_stop_daemon(x->d);
    if (x->resp)
        MHD_destroy_response(x->resp);
    if (x->r404)
        MHD_destroy_response(x->r404);
    if (x->r405)
        MHD_destroy_response(x->r405);
    if (x->r503)
        MHD_destroy_response(x->r503);
    free(x);
}
