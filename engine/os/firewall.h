/* firewall.h: is a packet filter active on this host? Detection only.
 *
 * Owns: reading the evidence from sysroot files: iptables tables in
 * /proc/net/ip_tables_names and ip6_tables_names, nf_tables in use in
 * /proc/modules, a firewalld/ufw/nftables process in /proc/<pid>/comm.
 * Must never: run or change a firewall tool, or load a module. */
#ifndef CX5_FIREWALL_H
#define CX5_FIREWALL_H

#include "base/util.h"

struct firewall_state {
	bool active;
	/* What was seen, "; "-separated ("ip_tables: filter; nf_tables in use
	 * (3); process firewalld"), NULL when inactive. */
	char *evidence;
};

int firewall_detect(struct firewall_state *ret);
void firewall_state_done(struct firewall_state *s);

#endif
