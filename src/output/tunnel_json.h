/* tunnel_json.h - a flow's tunnel (tunrec.h) as the report's "tunnel"
 * objects (ecnwatch-report(5)): the flow's, which names the
 * encapsulations, and each direction's, which counts the outer and inner
 * codepoints. */
#ifndef ECNWATCH_TUNNEL_JSON_H
#define ECNWATCH_TUNNEL_JSON_H

struct ew_flow;
struct jw;

/* the flow's object as the member key; nothing when it has no tunnel */
void ew_tunnel_write(struct jw *w, const char *key, const struct ew_flow *f);
/* direction dir's (canonical) object as the member key; nothing when the
 * flow has no tunnel */
void ew_tunnel_dir_write(struct jw *w, const char *key, const struct ew_flow *f, int dir);

#endif /* ECNWATCH_TUNNEL_JSON_H */
