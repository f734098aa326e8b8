/* decap.c - the tunnels the decoders open (decap.h): the UDP ports of
 * each, or none. */
#include "dissectors/decap.h"

#include <stddef.h>
#include <string.h>

enum {
    PORT_VXLAN = 4789,
    PORT_VXLAN_GPE = 4790,
    PORT_GENEVE = 6081,
    PORT_GTPU = 2152,
};

#define PORT_BIT(p) ((uint64_t)1 << ((p) & 63u))

struct ew_decap_cfg ew_decap_active = {
    .off = false,
    .nports = 4,
    .port = {PORT_VXLAN, PORT_VXLAN_GPE, PORT_GENEVE, PORT_GTPU},
    .type = {EW_TUN_VXLAN, EW_TUN_VXLAN_GPE, EW_TUN_GENEVE, EW_TUN_GTPU},
    .port_bits = PORT_BIT(PORT_VXLAN) | PORT_BIT(PORT_VXLAN_GPE) | PORT_BIT(PORT_GENEVE) |
                 PORT_BIT(PORT_GTPU),
};

static void
port_bits(struct ew_decap_cfg *cfg)
{
    unsigned i;

    cfg->port_bits = 0;
    if (cfg->off)
        return;
    for (i = 0; i < cfg->nports; i++)
        cfg->port_bits |= PORT_BIT(cfg->port[i]);
}

void
ew_decap_defaults(struct ew_decap_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    ew_decap_set_port(cfg, EW_TUN_VXLAN, PORT_VXLAN);
    ew_decap_set_port(cfg, EW_TUN_VXLAN_GPE, PORT_VXLAN_GPE);
    ew_decap_set_port(cfg, EW_TUN_GENEVE, PORT_GENEVE);
    ew_decap_set_port(cfg, EW_TUN_GTPU, PORT_GTPU);
}

int
ew_decap_set_port(struct ew_decap_cfg *cfg, enum ew_tunnel type, uint16_t port)
{
    unsigned i;

    for (i = 0; i < cfg->nports && cfg->port[i] != port; i++)
        continue;
    if (i == EW_DECAP_PORTS_MAX)
        return -1;
    cfg->port[i] = port;
    cfg->type[i] = (uint8_t)type;
    if (i == cfg->nports)
        cfg->nports++;
    port_bits(cfg);
    return 0;
}

int
ew_decap_udp_type(const char *name)
{
    static const enum ew_tunnel udp[] = {EW_TUN_VXLAN, EW_TUN_VXLAN_GPE, EW_TUN_GENEVE,
                                         EW_TUN_GTPU};
    size_t i;

    for (i = 0; i < sizeof(udp) / sizeof(udp[0]); i++)
        if (!strcmp(name, ew_tunnel_name[udp[i]]))
            return (int)udp[i];
    return -1;
}

void
ew_decap_configure(const struct ew_decap_cfg *cfg)
{
    ew_decap_active = *cfg;
    port_bits(&ew_decap_active);
}

void
ew_decap_note_udp(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_cur pl;
    unsigned i;

    for (i = 0; i < ew_decap_active.nports; i++) {
        if (ew_decap_active.port[i] == pkt->u.udp.dport) {
            ew_cur_sub(c, pkt->u.udp.payload, &pl);
            ew_decap_note(pkt, ew_decap_active.type[i], &pl, fs);
            return;
        }
    }
}

void
ew_decap_note_ip(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    /* IP protocols 4 and 41, or 47 */
    ew_decap_note(pkt, pkt->ip_proto == 47 ? EW_TUN_GRE : EW_TUN_IPIP, c, fs);
}
