/* quic_json.h - a flow's QUIC state and conclusion as the report's "quic"
 * object (ecnwatch-report(5)). */
#ifndef ECNWATCH_QUIC_JSON_H
#define ECNWATCH_QUIC_JSON_H

struct ew_flow;
struct jw;

/* The flow's "quic" report object as the member key, written to w; nothing
 * when the flow has no QUIC state. */
void ew_quic_write(struct jw *w, const char *key, const struct ew_flow *f);

#endif /* ECNWATCH_QUIC_JSON_H */
