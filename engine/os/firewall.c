/* firewall.c: packet filter detection from sysroot files (see firewall.h).
 *
 * Owns: the list of evidence sources, one table row each. Must never: run
 * iptables/nft/firewall-cmd, load modules, or change anything. */
#define _GNU_SOURCE
#include "firewall.h"

#include "procscan.h"
#include "sysroot.h"

/* Every table name listed in /proc/net/ip_tables_names (or ip6_): the table
 * exists, so its hooks filter packets. */
static int evidence_tables(const char *path, const char *label, char **ev)
{
	_cleanup_free_ char *s = NULL;
	char *save = NULL, *line;
	int r;

	r = sysroot_read_all(path, &s, NULL);
	if (r < 0)
		return 0; /* absent: module not loaded */
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *n;

		strstrip_trailing(line);
		if (!*line)
			continue;
		n = *ev ? strprintf("%s, %s", *ev, line) : strprintf("%s: %s", label, line);
		if (!n)
			return -ENOMEM;
		free(*ev);
		*ev = n;
	}
	return 0;
}

/* nf_tables in /proc/modules with a use count > 0: rulesets are loaded. */
static int evidence_nf_tables(char **ev)
{
	_cleanup_free_ char *s = NULL;
	char *save = NULL, *line;

	if (sysroot_read_all("/proc/modules", &s, NULL) < 0)
		return 0;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long size, use;

		if (sscanf(line, "%63s %lu %lu", name, &size, &use) != 3)
			continue;
		if (streq(name, "nf_tables") && use > 0) {
			*ev = strprintf("nf_tables in use (%lu)", use);
			return *ev ? 0 : -ENOMEM;
		}
	}
	return 0;
}

static const char *const firewall_processes[] = {"firewalld", "ufw", "nftables"};

static int evidence_process(char **ev)
{
	for (size_t i = 0; i < ARRAY_SIZE(firewall_processes); i++)
		if (procscan_find(firewall_processes[i]) > 0) {
			*ev = strprintf("process %s", firewall_processes[i]);
			return *ev ? 0 : -ENOMEM;
		}
	return 0;
}

int firewall_detect(struct firewall_state *ret)
{
	_cleanup_free_ char *all = NULL;
	char *parts[4] = {NULL};
	int r;

	r = evidence_tables("/proc/net/ip_tables_names", "ip_tables", &parts[0]);
	if (r >= 0)
		r = evidence_tables("/proc/net/ip6_tables_names", "ip6_tables", &parts[1]);
	if (r >= 0)
		r = evidence_nf_tables(&parts[2]);
	if (r >= 0)
		r = evidence_process(&parts[3]);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(parts); i++) {
		char *n;

		if (!parts[i])
			continue;
		n = all ? strprintf("%s; %s", all, parts[i]) : strdup(parts[i]);
		if (!n)
			r = -ENOMEM;
		free(all);
		all = n;
	}
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		free(parts[i]);
	if (r < 0)
		return r;
	ret->active = all != NULL;
	ret->evidence = TAKE_PTR(all);
	return 0;
}

void firewall_state_done(struct firewall_state *s)
{
	free(s->evidence);
	s->evidence = NULL;
	s->active = false;
}
