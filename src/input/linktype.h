/* linktype.h - the libpcap link types ecnwatch decodes, and their
 * decoders' names for them (dissectors/pkt.h, enum ew_link). */
#ifndef ECNWATCH_LINKTYPE_H
#define ECNWATCH_LINKTYPE_H

#include "dissectors/pkt.h"

/* The libpcap link type dlt as ecnwatch decodes it: 0, or -1 when it is not. */
int ew_link_from_dlt(int dlt, enum ew_link *out);

#endif /* ECNWATCH_LINKTYPE_H */
