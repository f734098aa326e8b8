/* exporter.c - /metrics over libmicrohttpd in external-polling mode, and the
 * metrics file (see exporter.h). */
#define _GNU_SOURCE /* accept4 */
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
static const char unauthorized[] = "unauthorized: give the user name and password of --web-config\n";

/* The connection policy: a complete request always gets in.
 *
 * ecnwatch accepts the connections itself and hands them to libmicrohttpd
 * (MHD_add_connection), so that a new connection is never refused for want
 * of a slot. Each connection has a slot here: when it started, how far its
 * request has come (nothing yet, the request line, the whole request) and
 * its last progress (its start, its request line, the end of the previous
 * answer on it). At most EW_EXPORTER_CONNS connections are live. When they
 * all are and another arrives, the live connection that has made no
 * progress for the longest time makes way: shutdown() ends its stream and
 * libmicrohttpd closes it at its next read. A connection whose request has
 * arrived whole is being answered and never makes way; a connection that
 * libmicrohttpd has not yet had a chance to read from (added since it last
 * ran) does not either: when only such ones are left, the newcomers wait in
 * the listen queue until the next turn of the loop. So a client that sends
 * its request as soon as it has connected is read before it can be evicted,
 * and after that only connections newer than its own progress stand behind
 * it: slow clients, however many and from however many addresses, only
 * evict each other, oldest first.
 *
 * Besides: one address holds at most EW_EXPORTER_CONNS_PER_IP live
 * connections (one more is closed at once), a request must arrive whole
 * within EW_EXPORTER_REQUEST_S of its connection's start or of the previous
 * answer on it, and libmicrohttpd closes a connection idle for
 * CONN_TIMEOUT_S. An evicted connection keeps its slot until libmicrohttpd
 * has closed it (at its next turn), so twice as many slots as live
 * connections bound the descriptors. */
#define SLOTS (2 * EW_EXPORTER_CONNS)

enum conn_stage {
    CONN_WAITING,   /* connected, or answered: no request line yet */
    CONN_LINE,      /* the request line has arrived, not the whole request */
    CONN_ANSWERING, /* the request has arrived whole: being answered */
};

struct conn_slot {
    int fd;
    bool used;    /* libmicrohttpd has it, until it says it has closed it */
    bool evicted; /* shut down; no longer live */
    bool fresh;   /* added since libmicrohttpd last ran: not read from yet */
    bool bound;   /* libmicrohttpd's connection points to it */
    enum conn_stage stage;
    int64_t waiting_since; /* since when its request has been awaited; 0 while answered */
    int64_t progress;      /* its last progress: start, request line, answer sent */
    int family;
    unsigned char addr[16]; /* the client's address, for the per-address limit */
};

struct ew_exporter {
    struct ew_exporter_cfg cfg;
    struct conn_slot conns[SLOTS];
    int live;                        /* used and not evicted */
    int lfd;                         /* the listening socket, or -1 */
    struct MHD_Daemon *d;
    struct MHD_Response *resp;       /* the latest snapshot; NULL before the first */
    struct MHD_Response *r401, *r404, *r405, *r503;
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

static struct conn_slot *
slot_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci ? ci->socket_context : NULL;
}

/* end a connection's stream: libmicrohttpd closes it at its next read (the
 * descriptor stays libmicrohttpd's: it is not closed here) */
static void
evict(struct ew_exporter *x, struct conn_slot *s)
{
    shutdown(s->fd, SHUT_RDWR);
    s->evicted = true;
    s->waiting_since = 0;
    x->live--;
}

/* the request line has arrived */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct conn_slot *s = slot_of(c);

    (void)cls;
    (void)uri;
    if (s) {
        s->stage = CONN_LINE;
        s->progress = mono_ns();
    }
    return NULL;
}

/* basic authentication: the request's user and password are one of
 * --web-config's (every path asks for them, as the exporters' do) */
static bool
authorized(struct ew_exporter *x, struct MHD_Connection *c)
{
    char *password = NULL, *user = MHD_basic_auth_get_username_password(c, &password);
    bool ok = user && ew_webcfg_check(x->cfg.web, user, password);

    if (password) {
        explicit_bzero(password, strlen(password));
        MHD_free(password);
    }
    if (user)
        MHD_free(user);
    return ok;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
           const char *version, const char *upload_data, size_t *upload_data_size,
           void **con_cls)
{
    struct ew_exporter *x = cls;
    struct conn_slot *s = slot_of(c);

    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    /* the request has arrived whole: its bound no longer runs, and it is
     * answered whatever arrives */
    if (s) {
        s->stage = CONN_ANSWERING;
        s->waiting_since = 0;
    }
    if (x->cfg.web && x->cfg.web->nusers > 0 && !authorized(x, c))
        return MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, x->r401);
    if (strcmp(url, "/metrics") != 0)
        return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, x->r404);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, x->r405);
    if (!x->resp)
        return MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, x->r503);
    return MHD_queue_response(c, MHD_HTTP_OK, x->resp);
}

/* a connection opens or closes: point it to its slot, or free its slot */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
              enum MHD_ConnectionNotificationCode toe)
{
    struct ew_exporter *x = cls;
    struct conn_slot *s = *socket_context;
    const union MHD_ConnectionInfo *ci;
    size_t i;

    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (s) {
            if (!s->evicted)
                x->live--;
            s->used = false;
        }
        *socket_context = NULL;
        return;
    }
    ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    for (i = 0; i < SLOTS && ci; i++) {
        if (x->conns[i].used && !x->conns[i].bound && x->conns[i].fd == ci->connect_fd) {
            x->conns[i].bound = true;
            *socket_context = &x->conns[i];
            return;
        }
    }
}

/* a response has been sent: the next request's bound starts now */
static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    struct conn_slot *s = slot_of(c);

    (void)cls;
    (void)con_cls;
    (void)toe;
    if (s && !s->evicted) {
        s->stage = CONN_WAITING;
        s->progress = s->waiting_since = mono_ns();
    }
}

/* Cut off every connection whose request has taken longer than the bound to
 * arrive. Returns the milliseconds until the next deadline, or -1 when none
 * runs. */
static int
cut_slow(struct ew_exporter *x)
{
    int64_t now = mono_ns(), bound = (int64_t)EW_EXPORTER_REQUEST_S * 1000000000, next = -1;
    size_t i;

    for (i = 0; i < SLOTS; i++) {
        struct conn_slot *s = &x->conns[i];
        int64_t left;

        if (!s->used || s->evicted || s->waiting_since == 0)
            continue;
        left = s->waiting_since + bound - now;
        if (left <= 0) {
            evict(x, s);
            continue;
        }
        if (next < 0 || left < next)
            next = left;
    }
    return next < 0 ? -1 : (int)(next / 1000000) + 1;
}

/* The live connection that makes way for a new one: of those neither being
 * answered nor yet unread, the one whose last progress is the oldest (of
 * equal ones, the one that has sent less). NULL when there is none; *unread
 * then says whether some are only waiting for their first read. */
static struct conn_slot *
victim(struct ew_exporter *x, bool *unread)
{
    struct conn_slot *v = NULL;
    size_t i;

    *unread = false;
    for (i = 0; i < SLOTS; i++) {
        struct conn_slot *s = &x->conns[i];

        if (!s->used || s->evicted || s->stage == CONN_ANSWERING)
            continue;
        if (s->fresh) {
            *unread = true;
            continue;
        }
        if (!v || s->progress < v->progress || (s->progress == v->progress && s->stage < v->stage))
            v = s;
    }
    return v;
}

/* the client's address, as the per-address limit compares them */
static void
client_addr(const struct sockaddr_storage *ss, int *family, unsigned char addr[16])
{
    memset(addr, 0, 16);
    *family = ss->ss_family;
    if (ss->ss_family == AF_INET6)
        memcpy(addr, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
    else if (ss->ss_family == AF_INET)
        memcpy(addr, &((const struct sockaddr_in *)ss)->sin_addr, 4);
}

static int
live_from(const struct ew_exporter *x, int family, const unsigned char addr[16])
{
    int n = 0;
    size_t i;

    for (i = 0; i < SLOTS; i++) {
        const struct conn_slot *s = &x->conns[i];

        if (s->used && !s->evicted && s->family == family && !memcmp(s->addr, addr, 16))
            n++;
    }
    return n;
}

static struct conn_slot *
free_slot(struct ew_exporter *x)
{
    size_t i;

    for (i = 0; i < SLOTS; i++)
        if (!x->conns[i].used)
            return &x->conns[i];
    return NULL;
}

/* Accept what waits in the listen queue, each new connection in a slot of
 * its own, making way for it as the policy above says; stops when the queue
 * is empty, or when every live connection is unread or being answered. */
static void
accept_new(struct ew_exporter *x)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        struct conn_slot *s, *v = NULL;
        bool unread = false;
        unsigned char addr[16];
        int fd, family;

        if (x->live >= EW_EXPORTER_CONNS) {
            v = victim(x, &unread);
            if (!v && unread)
                return; /* the next turn, once they have been read */
        }
        s = free_slot(x);
        if (!s)
            return; /* the evicted ones are closed at the next turn */
        fd = accept4(x->lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == ECONNABORTED || errno == EINTR)
                continue;
            return;
        }
        client_addr(&ss, &family, addr);
        /* every live connection being answered, or this address's share taken */
        if ((x->live >= EW_EXPORTER_CONNS && !v) ||
            live_from(x, family, addr) >= EW_EXPORTER_CONNS_PER_IP) {
            close(fd);
            continue;
        }
        if (v)
            evict(x, v);
        memset(s, 0, sizeof(*s));
        s->fd = fd;
        s->used = s->fresh = true;
        s->stage = CONN_WAITING;
        s->progress = s->waiting_since = mono_ns();
        s->family = family;
        memcpy(s->addr, addr, 16);
        x->live++;
        /* on failure libmicrohttpd has closed the socket */
        if (MHD_add_connection(x->d, fd, (struct sockaddr *)&ss, len) != MHD_YES && s->used) {
            s->used = false;
            x->live--;
        }
    }
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
listen_on(const char *spec, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    char why[160];
    int fd, one = 1;
    bool v6;

    if (ew_metrics_parse_addr(spec, &ss, &sslen, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--metrics %s: %s", spec, why);
        return -1;
    }
    v6 = ss.ss_family == AF_INET6;
    if ((v6 && IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) ||
        (!v6 && ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY)))
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
    if (v6)
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
    struct ew_webcfg *web = cfg->web;

    *out = NULL;
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    x->cfg = *cfg;
    x->lfd = -1;
    if (cfg->listen) {
        x->lfd = listen_on(cfg->listen, err, errlen);
        if (x->lfd < 0) {
            free(x);
            return -1;
        }
        x->r401 = fixed(unauthorized);
        if (x->r401)
            MHD_add_response_header(x->r401, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                    "Basic realm=\"ecnwatch\"");
        x->r404 = fixed(not_found);
        x->r405 = fixed(not_allowed);
        x->r503 = fixed(unavailable);
        if (x->r405)
            MHD_add_response_header(x->r405, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        /* no MHD_USE_INTERNAL_POLLING_THREAD: MHD starts no thread and works
         * only inside MHD_run_from_select(), called from the live loop; it
         * listens on nothing: accept_new() hands it the connections, and
         * keeps their number and each address's share */
        if (x->r401 && x->r404 && x->r405 && x->r503) {
            /* TLS (--web-config): libmicrohttpd keeps the pointers to the
             * PEM texts and hands them to GnuTLS while it starts, which
             * keeps the key in its own form; the text is wiped after */
            struct MHD_OptionItem tls[] = {
                {MHD_OPTION_HTTPS_MEM_KEY, 0, web && web->cert ? web->key : NULL},
                {MHD_OPTION_HTTPS_MEM_CERT, 0, web && web->cert ? web->cert : NULL},
                {MHD_OPTION_END, 0, NULL},
            };

            x->d = MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET | (web && web->cert ? MHD_USE_TLS : 0),
                                    0, NULL, NULL, on_request, x,
                                    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SLOTS,
                                    MHD_OPTION_NOTIFY_CONNECTION, on_connection, x,
                                    MHD_OPTION_URI_LOG_CALLBACK, on_uri, x,
                                    MHD_OPTION_NOTIFY_COMPLETED, on_completed, x,
                                    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
                                    MHD_OPTION_ARRAY, web && web->cert ? tls : tls + 2,
                                    MHD_OPTION_END);
        }
        if (web)
            ew_webcfg_drop_key(web);
        if (!x->d) {
            snprintf(err, errlen, "--metrics %s: cannot start the HTTP server%s", cfg->listen,
                     web && web->cert ? " (with the certificate and key of --web-config)" : "");
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
    /* new connections while a slot is free (an evicted connection frees
     * its own at the next turn) */
    if (room > 0 && free_slot(x)) {
        pfd[n].fd = x->lfd;
        pfd[n].events = POLLIN;
        pfd[n++].revents = 0;
    }
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
    bool incoming = false;
    int i;

    if (!x->d)
        return;
    FD_ZERO(&rs);
    FD_ZERO(&ws);
    FD_ZERO(&es);
    for (i = 0; i < n; i++) {
        short bad = POLLERR | POLLHUP | POLLNVAL;

        if (pfd[i].fd == x->lfd) {
            incoming = pfd[i].revents != 0;
            continue;
        }
        if ((pfd[i].events & POLLIN) && (pfd[i].revents & (POLLIN | bad)))
            FD_SET(pfd[i].fd, &rs);
        if ((pfd[i].events & POLLOUT) && (pfd[i].revents & (POLLOUT | bad)))
            FD_SET(pfd[i].fd, &ws);
    }
    /* also when nothing is ready: MHD closes idle connections here */
    MHD_run_from_select(x->d, &rs, &ws, &es);
    /* every connection has now been polled and read once */
    for (i = 0; i < SLOTS; i++)
        x->conns[i].fresh = false;
    cut_slow(x);
    if (incoming)
        accept_new(x);
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
    if (x->lfd >= 0)
        close(x->lfd);
    if (x->resp)
        MHD_destroy_response(x->resp);
    if (x->r401)
        MHD_destroy_response(x->r401);
    if (x->r404)
        MHD_destroy_response(x->r404);
    if (x->r405)
        MHD_destroy_response(x->r405);
    if (x->r503)
        MHD_destroy_response(x->r503);
    free(x);
}
