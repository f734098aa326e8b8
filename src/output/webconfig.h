/* webconfig.h - --web-config FILE: TLS and basic authentication for the
 * --metrics endpoint, configured as Prometheus exporters are (the
 * exporter-toolkit web configuration file, YAML), of which ecnwatch takes
 * exactly this part:
 *
 *     tls_server_config:
 *       cert_file: server.crt     # PEM; a relative name is the file's folder's
 *       key_file: server.key
 *     basic_auth_users:
 *       prometheus: $2y$10$...    # bcrypt hashes (htpasswd -B, mkpasswd -m bcrypt)
 *
 * Both parts are optional; any other key, even one exporter-toolkit knows
 * (client_auth_type, cipher_suites, http_server_config, ...), is refused
 * rather than ignored, since ignoring it would serve with less security
 * than asked for. The certificate and key are read at once (before
 * privileges are dropped) and checked to be a PEM certificate and its
 * private key. */
#ifndef ECNWATCH_WEBCONFIG_H
#define ECNWATCH_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct ew_webcfg_user {
    char *name;
    char *hash; /* bcrypt: $2a$, $2b$ or $2y$ */
    /* SHA-256 of the password that last matched the hash */
    unsigned char good[32];
    bool have_good;
};

struct ew_webcfg {
    char *cert; /* PEM text, or NULL: plain HTTP */
    char *key;  /* PEM text; wiped and freed by ew_webcfg_drop_key */
    size_t key_len;
    struct ew_webcfg_user *users; /* none: no authentication */
    size_t nusers;
};

/* Read FILE and the files it names. 0, or -1 with one line in err naming
 * the file, the line and the key at fault. */
int ew_webcfg_load(const char *path, struct ew_webcfg *c, char *err, size_t errlen);

/* The key's text wiped from memory and freed (once the server has taken it). */
void ew_webcfg_drop_key(struct ew_webcfg *c);

void ew_webcfg_free(struct ew_webcfg *c);

/* Whether user and password match one of the users: crypt(3) of the
 * password with the user's hash as setting, compared in constant time (an
 * unknown user costs the same hashing). The password that last matched is
 * kept (as its SHA-256) and taken again without hashing. */
bool ew_webcfg_check(struct ew_webcfg *c, const char *user, const char *password);

#endif /* ECNWATCH_WEBCONFIG_H */
