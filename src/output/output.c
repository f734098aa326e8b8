/* output.c - the pass every output writes from */
#include "output/output.h"

#include <string.h>

void
ew_pass_init(struct ew_pass *p, const struct ew_analyzer *an, const struct ew_conclusions *c,
             const struct ew_report_src *src, const struct ew_report_path *path)
{
    memset(p, 0, sizeof(*p));
    p->an = an;
    p->c = c;
    p->src = src;
    p->path = path;
    p->found = ew_analyzer_findings(an, c, p->counts);
}
