/* format.c - text formatting for the reasons and notes of a report,
 * addresses and packet times (see format.h). */
#include "base/format.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void
ew_addr_str(const uint8_t addr[16], int family, char *buf, size_t len)
{
    if (family == 4 && len >= INET_ADDRSTRLEN) {
        /* inet_ntop's dotted quad, without its cost (once per flow end) */
        char *p = buf;
        int i;

        for (i = 12; i < 16; i++) {
            unsigned b = addr[i];

            if (b >= 100)
                *p++ = (char)('0' + b / 100);
            if (b >= 10)
                *p++ = (char)('0' + b / 10 % 10);
            *p++ = (char)('0' + b % 10);
            *p++ = i < 15 ? '.' : '\0';
        }
    } else if (family == 4) {
        inet_ntop(AF_INET, addr + 12, buf, (socklen_t)len);
    } else {
        inet_ntop(AF_INET6, addr, buf, (socklen_t)len);
    }
}

/* n as exactly w decimal digits */
static char *
digits(char *p, unsigned long n, int w)
{
    int i;

    for (i = w - 1; i >= 0; i--) {
        p[i] = (char)('0' + n % 10);
        n /= 10;
    }
    return p + w;
}

/* RFC 3339 UTC with microseconds, from packet time */
void
ew_time_str(int64_t ns, char *buf, size_t len)
{
    time_t s = (time_t)(ns / 1000000000);
    long us = (long)((ns % 1000000000) / 1000);
    struct tm tm;

    if (us < 0) {
        us += 1000000;
        s -= 1;
    }
    if (!gmtime_r(&s, &tm)) {
        snprintf(buf, len, "invalid");
        return;
    }
    if (len >= 28 && tm.tm_year + 1900 >= 0 && tm.tm_year + 1900 <= 9999) {
        /* the snprintf below, digit by digit (twice per flow in the report) */
        char *p = buf;

        p = digits(p, (unsigned long)(tm.tm_year + 1900), 4);
        *p++ = '-';
        p = digits(p, (unsigned long)(tm.tm_mon + 1), 2);
        *p++ = '-';
        p = digits(p, (unsigned long)tm.tm_mday, 2);
        *p++ = 'T';
        p = digits(p, (unsigned long)tm.tm_hour, 2);
        *p++ = ':';
        p = digits(p, (unsigned long)tm.tm_min, 2);
        *p++ = ':';
        p = digits(p, (unsigned long)tm.tm_sec, 2);
        *p++ = '.';
        p = digits(p, (unsigned long)us, 6);
        *p++ = 'Z';
        *p = '\0';
        return;
    }
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

void
ew_size_str(char *buf, size_t len, double v, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T"};
    int i = 0;

    while (v >= 1000 && i < 4) {
        v /= 1000;
        i++;
    }
    snprintf(buf, len, i ? "%.1f %s%s" : "%.0f %s%s", v, pre[i], unit);
}

void
ew_err(const char *fmt, ...)
{
    char small[1024], *buf = small, *big = NULL, esc[8];
    size_t i, n, last;
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if ((size_t)len >= sizeof(small) && (big = malloc((size_t)len + 1))) {
        va_start(ap, fmt);
        vsnprintf(big, (size_t)len + 1, fmt, ap);
        va_end(ap);
        buf = big;
    }
    n = strlen(buf);
    last = n && buf[n - 1] == '\n' ? n - 1 : n; /* the line's own end */
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];

        if (i == last || (c >= 0x20 && c != 0x7f)) {
            fputc(c, stderr);
            continue;
        }
        if (c == '\n')
            fputs("\\n", stderr);
        else if (c == '\r')
            fputs("\\r", stderr);
        else if (c == '\t')
            fputs("\\t", stderr);
        else {
            snprintf(esc, sizeof(esc), "\\x%02x", c);
            fputs(esc, stderr);
        }
    }
    free(big);
}
