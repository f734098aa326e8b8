/* dynlib.c - libraries loaded when first needed (see dynlib.h). */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int
ew_dynlib_load(const char *soname, const char *what, const char *const *names, void *table,
               size_t size, char *err, size_t errlen)
{
    void *addr[64];
    /* RTLD_LOCAL: its symbols reach ecnwatch only through the table, never
     * in place of another library's */
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    const char *e;
    size_t i;

    if (!h) {
        e = dlerror();
        /* dlerror() names the file first: once is enough */
        if (e && !strncmp(e, soname, strlen(soname)) && !strncmp(e + strlen(soname), ": ", 2))
            e += strlen(soname) + 2;
        snprintf(err, errlen, "%s needs %s: %s", what, soname, e ? e : "cannot be loaded");
        return -1;
    }
    for (i = 0; names[i]; i++) {
        if (i == sizeof(addr) / sizeof(addr[0]) || (i + 1) * sizeof(void *) > size) {
            snprintf(err, errlen, "%s needs %s: more names than room", what, soname);
            return -1;
        }
        dlerror();
        addr[i] = dlsym(h, names[i]);
        if (!addr[i]) {
            e = dlerror();
            snprintf(err, errlen, "%s needs %s: %s", what, soname,
                     e ? e : "a symbol is missing");
            /* the library stays loaded: it may be in use elsewhere */
            return -1;
        }
    }
    if (i * sizeof(void *) != size) {
        snprintf(err, errlen, "%s needs %s: fewer names than room", what, soname);
        return -1;
    }
    /* as POSIX has dlsym()'s result used: a function's address in the
     * representation of a void * */
    memcpy(table, addr, size);
    return 0;
}
