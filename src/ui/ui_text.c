/* ui_text.c - the live view's text as the terminal can show it (see
 * ui_text.h) */
#include "ui/ui_text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static bool text_utf8;

void
ew_text_set_utf8(bool on)
{
    text_utf8 = on;
}

bool
ew_text_utf8(void)
{
    return text_utf8;
}

/* The code point at s (n bytes of it, 1..4), or -1 for a malformed
 * sequence (n is then 1). */
static long
decode(const unsigned char *s, int *n)
{
    long cp;
    int len, i;

    *n = 1;
    if (s[0] < 0x80)
        return s[0];
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return -1;
    }
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    /* overlong forms, surrogates and beyond Unicode are malformed */
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return -1;
    *n = len;
    return cp;
}

/* the ASCII form of the characters ecnwatch's sentences use */
static const struct {
    long cp;
    const char *ascii;
} ascii_of[] = {
    {0x00A0, " "},   {0x00A7, "sect."}, {0x00B0, " deg"}, {0x00B1, "+/-"}, {0x00B5, "u"},
    {0x00B6, "par."}, {0x00B7, "."},    {0x00D7, "x"},    {0x03BC, "u"},   {0x2010, "-"},
    {0x2011, "-"},   {0x2013, "-"},     {0x2014, "--"},   {0x2018, "'"},   {0x2019, "'"},
    {0x201C, "\""},  {0x201D, "\""},    {0x2026, "..."},  {0x2190, "<-"},  {0x2192, "->"},
    {0x2248, "~"},   {0x2260, "!="},    {0x2264, "<="},   {0x2265, ">="},
};

/* the width of code point cp on a UTF-8 terminal: -1 when it cannot be shown */
static int
cp_width(long cp)
{
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
        return -1;
    if (cp < 0x7F)
        return 1;
    return wcwidth((wchar_t)cp);
}

const char *
ew_text_shown(const char *in, char *out, size_t len)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t o = 0;

    if (!len)
        return out;
    while (*p) {
        char buf[8];
        const char *put = buf;
        size_t k;
        int n;
        long cp = decode(p, &n);

        if (cp >= 0 && cp_width(cp) >= 0 && (cp < 0x80 || text_utf8)) {
            memcpy(buf, p, (size_t)n);
            buf[n] = '\0';
        } else if (cp < 0x80 || !text_utf8) {
            put = "?";
            for (k = 0; cp >= 0x80 && k < sizeof(ascii_of) / sizeof(ascii_of[0]); k++)
                if (ascii_of[k].cp == cp)
                    put = ascii_of[k].ascii;
            /* "§6.1.3" reads "sect. 6.1.3" */
            if (cp == 0x00A7 && p[n] && p[n] != ' ') {
                snprintf(buf, sizeof(buf), "%s ", put);
                put = buf;
            }
        } else {
            put = "?";
        }
        k = strlen(put);
        if (o + k >= len)
            break;
        memcpy(out + o, put, k);
        o += k;
        p += n;
    }
    out[o] = '\0';
    return out;
}

size_t
ew_text_fit(const char *s, int cols, int *used)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    int w = 0;

    while (p[i]) {
        int n, cw;
        long cp = decode(p + i, &n);

        cw = cp < 0 ? 1 : cp_width(cp);
        if (cw < 0)
            cw = 1;
        if (w + cw > cols)
            break;
        w += cw;
        i += (size_t)n;
    }
    if (used)
        *used = w;
    return i;
}

int
ew_text_width(const char *s)
{
    int w;

    ew_text_fit(s, 1 << 30, &w);
    return w;
}
