/* format.c - text formatting for the reasons and notes of a report (see
 * format.h). */
#include "ecnwatch/format.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool
simple_format(const char *fmt)
{
    while ((fmt = strchr(fmt, '%')) != NULL) {
        fmt++;
        if (*fmt == 'l' && fmt[1] == 'l' && fmt[2] == 'u')
            fmt += 3;
        else if (*fmt == 's' || *fmt == 'u' || *fmt == '%')
            fmt++;
        else
            return false;
    }
    return true;
}

/* append n bytes of s at *p, as far as end allows */
static inline void
append(char **p, const char *end, const char *s, size_t n)
{
    if (n > (size_t)(end - *p))
        n = (size_t)(end - *p);
    memcpy(*p, s, n);
    *p += n;
}

void
ew_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
    char *p = buf, *end = buf + size - 1, num[24];

    if (!simple_format(fmt)) {
        vsnprintf(buf, size, fmt, ap);
        return;
    }
    for (;;) {
        const char *pct = strchr(fmt, '%'), *s;
        unsigned long long v;
        char *q;

        if (!pct)
            pct = fmt + strlen(fmt);
        append(&p, end, fmt, (size_t)(pct - fmt));
        if (!*pct)
            break;
        fmt = pct + 2;
        switch (pct[1]) {
        case '%':
            append(&p, end, "%", 1);
            continue;
        case 's':
            s = va_arg(ap, const char *);
            if (!s)
                s = "(null)"; /* as glibc prints it */
            append(&p, end, s, strlen(s));
            continue;
        case 'l':
            fmt += 2;
            v = va_arg(ap, unsigned long long);
            break;
        default: /* 'u' */
            v = va_arg(ap, unsigned int);
            break;
        }
        q = num + sizeof(num);
        do {
            *--q = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        append(&p, end, q, (size_t)(num + sizeof(num) - q));
    }
    *p = '\0';
}
