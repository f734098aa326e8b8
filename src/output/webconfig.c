/* webconfig.c - the --web-config file (see webconfig.h), read with libyaml's
 * document loader; the certificate and key checked with libcrypto, the
 * passwords with crypt(3). */
#include "output/webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/dynlib.h"
#include "base/crypto_soname.h"

/* The libraries only --web-config needs, loaded by ew_webcfg_load()
 * (base/dynlib.h): libyaml, libcrypto and libcrypt; the functions used,
 * called through yl, cl and pl */
#ifndef YAML_SONAME
#define YAML_SONAME "libyaml-0.so.2"
#endif
#ifndef CRYPT_SONAME
#define CRYPT_SONAME "libcrypt.so.1"
#endif
#define WL_YAML(X)                                                                             \
    X(yaml_document_delete) X(yaml_document_get_node) X(yaml_document_get_root_node)           \
    X(yaml_parser_delete) X(yaml_parser_initialize) X(yaml_parser_load)                        \
    X(yaml_parser_set_input_string)
#define WL_CRYPTO(X)                                                                           \
    X(BIO_free) X(BIO_new_mem_buf) X(CRYPTO_memcmp) X(EVP_Digest) X(EVP_PKEY_free)             \
    X(EVP_sha256) X(OPENSSL_cleanse) X(PEM_read_bio_PrivateKey) X(PEM_read_bio_X509)           \
    X(X509_check_private_key) X(X509_free)
#define WL_CRYPT(X) X(crypt_r)
#define WL_PTR(f) __typeof__(f) *f;
#define WL_NAME(f) #f,
static struct {
    WL_YAML(WL_PTR)
} yl;
static struct {
    WL_CRYPTO(WL_PTR)
} cl;
static struct {
    WL_CRYPT(WL_PTR)
} pl;

/* the three loaded: 0, or -1 with err set */
static int
wl_load(char *err, size_t errlen)
{
    static const char *const yaml[] = {WL_YAML(WL_NAME) NULL};
    static const char *const crypto[] = {WL_CRYPTO(WL_NAME) NULL};
    static const char *const crypt[] = {WL_CRYPT(WL_NAME) NULL};

    if (ew_dynlib_load(YAML_SONAME, "--web-config", yaml, &yl, sizeof(yl), err, errlen) != 0 ||
        ew_dynlib_load(CRYPTO_SONAME, "--web-config", crypto, &cl, sizeof(cl), err, errlen) != 0 ||
        ew_dynlib_load(CRYPT_SONAME, "--web-config", crypt, &pl, sizeof(pl), err, errlen) != 0)
        return -1;
    return 0;
}

/* a configuration, a certificate or a key larger than this is no such thing */
#define FILE_MAX (1u << 20)

/* what one load works with: the file's name (for the messages) and folder */
struct load {
    const char *path;
    yaml_document_t *doc;
    struct ew_webcfg *c;
    char *err;
    size_t errlen;
};

/* "--web-config FILE:LINE: " and the message; -1 */
static int
fail(const struct load *l, const yaml_node_t *at, const char *fmt, ...)
{
    size_t n;
    va_list ap;

    if (at)
        snprintf(l->err, l->errlen, "--web-config %s:%lu: ", l->path,
                 (unsigned long)at->start_mark.line + 1);
    else
        snprintf(l->err, l->errlen, "--web-config %s: ", l->path);
    n = strlen(l->err);
    va_start(ap, fmt);
    vsnprintf(l->err + n, l->errlen - n, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *
scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* a mapping's pair: its key's name (NULL when the key is not a scalar),
 * the key's node in *kn and the value's in *v */
static const char *
pair(const struct load *l, const yaml_node_pair_t *p, const yaml_node_t **kn,
     const yaml_node_t **v)
{
    *kn = yl.yaml_document_get_node(l->doc, p->key);
    *v = yl.yaml_document_get_node(l->doc, p->value);
    return scalar(*kn);
}

/* an empty value (nothing after the colon, ~ or null) */
static bool
is_null(const yaml_node_t *n)
{
    const char *s = scalar(n);

    return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
            !strcmp(s, "NULL"));
}

/* the whole file, NUL-terminated (its length in *len); NULL and errno when
 * it cannot be read */
static char *
read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    size_t n;

    if (!fp)
        return NULL;
    buf = malloc(FILE_MAX + 1);
    if (!buf) {
        fclose(fp);
        errno = ENOMEM;
        return NULL;
    }
    n = fread(buf, 1, FILE_MAX + 1, fp);
    if (ferror(fp) || n > FILE_MAX) {
        int e = ferror(fp) ? (errno ? errno : EIO) : EFBIG;

        cl.OPENSSL_cleanse(buf, n);
        free(buf);
        fclose(fp);
        errno = e;
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* cert_file or key_file's value: the file it names (relative to the
 * configuration's folder), read whole */
static int
read_named(const struct load *l, const char *key, const yaml_node_t *v, char **out, size_t *len)
{
    const char *name = scalar(v), *slash = strrchr(l->path, '/');
    char *path;
    size_t dir;

    if (!name || !*name)
        return fail(l, v, "tls_server_config.%s: want a file name", key);
    if (*out)
        return fail(l, v, "tls_server_config.%s: given twice", key);
    dir = name[0] != '/' && slash ? (size_t)(slash - l->path) + 1 : 0;
    path = malloc(dir + strlen(name) + 1);
    if (!path)
        return fail(l, v, "out of memory");
    memcpy(path, l->path, dir);
    strcpy(path + dir, name);
    *out = read_all(path, len);
    if (!*out) {
        int e = errno;

        fail(l, v, "tls_server_config.%s %s: %s", key, path, strerror(e));
        free(path);
        return -1;
    }
    free(path);
    return 0;
}

/* the keys of exporter-toolkit's file that ecnwatch does not implement:
 * refused by name */
static bool
toolkit_key(const char *k)
{
    static const char *const known[] = {
        "http_server_config", "cert", "key", "client_auth_type", "client_ca_file", "client_ca",
        "cipher_suites", "curve_preferences", "min_version", "max_version",
        "prefer_server_cipher_suites", "client_allowed_sans", NULL,
    };
    size_t i;

    for (i = 0; known[i]; i++)
        if (!strcmp(k, known[i]))
            return true;
    return false;
}

static int
unsupported(const struct load *l, const yaml_node_t *at, const char *where, const char *k)
{
    if (toolkit_key(k))
        return fail(l, at,
                    "%s%s: not supported by ecnwatch (it takes tls_server_config's cert_file and "
                    "key_file, and basic_auth_users)",
                    where, k);
    return fail(l, at, "%s%s: unknown key (ecnwatch takes tls_server_config's cert_file and "
                       "key_file, and basic_auth_users)",
                where, k);
}

static int
no_password(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

/* the certificate and key are PEM, and the key is the certificate's */
static int
check_pem(const struct load *l, const yaml_node_t *cert_at, const yaml_node_t *key_at)
{
    struct ew_webcfg *c = l->c;
    BIO *cb = cl.BIO_new_mem_buf(c->cert, -1), *kb = cl.BIO_new_mem_buf(c->key, (int)c->key_len);
    X509 *x = cb ? cl.PEM_read_bio_X509(cb, NULL, no_password, NULL) : NULL;
    EVP_PKEY *k = kb ? cl.PEM_read_bio_PrivateKey(kb, NULL, no_password, NULL) : NULL;
    int rc = 0;

    if (!x)
        rc = fail(l, cert_at, "tls_server_config.cert_file: not a PEM certificate");
    else if (!k)
        rc = fail(l, key_at, "tls_server_config.key_file: not a PEM private key (or one that "
                             "needs a password)");
    else if (cl.X509_check_private_key(x, k) != 1)
        rc = fail(l, key_at, "tls_server_config.key_file: not the private key of cert_file");
    cl.X509_free(x);
    cl.EVP_PKEY_free(k);
    cl.BIO_free(cb);
    cl.BIO_free(kb);
    return rc;
}

static int
tls_part(const struct load *l, const yaml_node_t *m)
{
    const yaml_node_pair_t *p;
    const yaml_node_t *cert_at = NULL, *key_at = NULL;
    size_t certlen = 0;

    if (m->type != YAML_MAPPING_NODE)
        return fail(l, m, "tls_server_config: want cert_file and key_file under it");
    for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn, *v;
        const char *k = pair(l, p, &kn, &v);

        if (!k)
            return fail(l, kn, "tls_server_config: a key that is not a name");
        if (!strcmp(k, "cert_file")) {
            if (read_named(l, k, v, &l->c->cert, &certlen) != 0)
                return -1;
            cert_at = kn;
        } else if (!strcmp(k, "key_file")) {
            if (read_named(l, k, v, &l->c->key, &l->c->key_len) != 0)
                return -1;
            key_at = kn;
        } else {
            return unsupported(l, kn, "tls_server_config.", k);
        }
    }
    if (!l->c->cert || !l->c->key)
        return fail(l, m, "tls_server_config: needs both cert_file and key_file");
    return check_pem(l, cert_at, key_at);
}

/* $2a$, $2b$ or $2y$, a cost from 04 to 31, 22 characters of salt and 31 of
 * hash (not hashed here: a high cost would hold the start) */
static bool
is_bcrypt(const char *h)
{
    int cost, i;

    if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
        h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$')
        return false;
    cost = (h[4] - '0') * 10 + (h[5] - '0');
    if (cost < 4 || cost > 31)
        return false;
    for (i = 7; i < 60; i++)
        if (!strchr("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", h[i]))
            return false;
    return true;
}

static int
users_part(const struct load *l, const yaml_node_t *m)
{
    const yaml_node_pair_t *p;
    struct ew_webcfg *c = l->c;
    size_t n, i;

    if (is_null(m))
        return 0;
    if (m->type != YAML_MAPPING_NODE)
        return fail(l, m, "basic_auth_users: want user names, each with a bcrypt hash");
    n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
    c->users = calloc(n ? n : 1, sizeof(*c->users));
    if (!c->users)
        return fail(l, m, "out of memory");
    for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn, *v;
        const char *k = pair(l, p, &kn, &v), *h = scalar(v);

        if (!k || !*k || strchr(k, ':'))
            return fail(l, kn, "basic_auth_users: a user name must be a name without ':'");
        for (i = 0; i < c->nusers; i++)
            if (!strcmp(c->users[i].name, k))
                return fail(l, kn, "basic_auth_users.%s: given twice", k);
        if (!h || !is_bcrypt(h))
            return fail(l, v ? v : kn,
                        "basic_auth_users.%s: not a bcrypt hash ($2y$, $2b$ or $2a$; make one "
                        "with htpasswd -nB or mkpasswd -m bcrypt)",
                        k);
        c->users[c->nusers].name = strdup(k);
        c->users[c->nusers].hash = strdup(h);
        if (!c->users[c->nusers].name || !c->users[c->nusers].hash) {
            free(c->users[c->nusers].name);
            free(c->users[c->nusers].hash);
            return fail(l, kn, "out of memory");
        }
        c->nusers++;
    }
    return 0;
}

static int
top(const struct load *l, const yaml_node_t *root)
{
    const yaml_node_pair_t *p;
    bool tls = false, users = false;

    if (!root || is_null(root))
        return 0; /* an empty file: plain HTTP, no authentication */
    if (root->type != YAML_MAPPING_NODE)
        return fail(l, root, "want tls_server_config and basic_auth_users");
    for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn, *v;
        const char *k = pair(l, p, &kn, &v);

        if (!k)
            return fail(l, kn, "a key that is not a name");
        if (!strcmp(k, "tls_server_config")) {
            if (tls)
                return fail(l, kn, "tls_server_config: given twice");
            tls = true;
            if (tls_part(l, v) != 0)
                return -1;
        } else if (!strcmp(k, "basic_auth_users")) {
            if (users)
                return fail(l, kn, "basic_auth_users: given twice");
            users = true;
            if (users_part(l, v) != 0)
                return -1;
        } else {
            return unsupported(l, kn, "", k);
        }
    }
    return 0;
}

int
ew_webcfg_load(const char *path, struct ew_webcfg *c, char *err, size_t errlen)
{
    struct load l = {path, NULL, c, err, errlen};
    yaml_parser_t parser;
    yaml_document_t doc;
    size_t len = 0;
    char *text;
    int rc;

    memset(c, 0, sizeof(*c));
    if (wl_load(err, errlen) != 0)
        return -1;
    text = read_all(path, &len);
    if (!text)
        return fail(&l, NULL, "%s", strerror(errno));
    if (!yl.yaml_parser_initialize(&parser)) {
        free(text);
        return fail(&l, NULL, "out of memory");
    }
    yl.yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yl.yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "--web-config %s:%lu: not YAML: %s%s%s", path,
                 (unsigned long)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "a syntax error",
                 parser.context ? ", " : "", parser.context ? parser.context : "");
        yl.yaml_parser_delete(&parser);
        free(text);
        return -1;
    }
    l.doc = &doc;
    rc = top(&l, yl.yaml_document_get_root_node(&doc));
    yl.yaml_document_delete(&doc);
    yl.yaml_parser_delete(&parser);
    free(text);
    if (rc != 0)
        ew_webcfg_free(c);
    return rc;
}

void
ew_webcfg_drop_key(struct ew_webcfg *c)
{
    if (c->key) {
        cl.OPENSSL_cleanse(c->key, c->key_len);
        free(c->key);
    }
    c->key = NULL;
    c->key_len = 0;
}

void
ew_webcfg_free(struct ew_webcfg *c)
{
    size_t i;

    ew_webcfg_drop_key(c);
    free(c->cert);
    for (i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        free(c->users[i].hash);
    }
    free(c->users);
    memset(c, 0, sizeof(*c));
}

/* SHA-256 of the password, as the last good one of a user is kept */
static bool
digest(const char *password, unsigned char out[32])
{
    unsigned int n = 0;

    return cl.EVP_Digest(password, strlen(password), out, &n, cl.EVP_sha256(), NULL) == 1 &&
           n == 32;
}

bool
ew_webcfg_check(struct ew_webcfg *c, const char *user, const char *password)
{
    struct ew_webcfg_user *u = NULL;
    unsigned char d[32];
    bool have_d, ok;
    struct crypt_data *cd;
    const char *r;
    size_t i;

    if (c->nusers == 0)
        return false;
    if (!password)
        password = "";
    for (i = 0; i < c->nusers; i++)
        if (user && !strcmp(c->users[i].name, user))
            u = &c->users[i];
    /* the password that last matched: no hashing again (bcrypt is slow on
     * purpose, and the capture waits while it runs) */
    have_d = digest(password, d);
    if (u && u->have_good && have_d && cl.CRYPTO_memcmp(d, u->good, sizeof(d)) == 0)
        return true;
    cd = calloc(1, sizeof(*cd));
    if (!cd)
        return false;
    /* an unknown user is hashed too (against the first user's hash), so
     * that the time taken does not tell which names exist */
    r = pl.crypt_r(password, u ? u->hash : c->users[0].hash, cd);
    ok = u && r && strlen(r) == strlen(u->hash) && cl.CRYPTO_memcmp(r, u->hash, strlen(r)) == 0;
    cl.OPENSSL_cleanse(cd, sizeof(*cd));
    free(cd);
    if (ok && have_d) {
        memcpy(u->good, d, sizeof(d));
        u->have_good = true;
    }
    cl.OPENSSL_cleanse(d, sizeof(d));
    return ok;
}
