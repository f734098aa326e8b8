/* dynlib.c - libraries loaded when first needed (see dynlib.h). */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int
ew_dynlib_load(const char *soname, const char *what, const char *const *names, void **addr,
               char *err, size_t errlen)
{
    /* RTLD_LOCAL: its symbols reach ecnwatch only through addr[], never
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
        dlerror();
        addr[i] = dlsym(h, names[i]);
        if (!addr[i]) {
            e = dlerror();
            snprintf(err, errlen, "%s needs %s: %s", what, soname,
                     e ? e : "a symbol is missing");
            /* the reference is kept: what was found may be in use elsewhere */
            return -1;
        }
    }
    return 0;
}
