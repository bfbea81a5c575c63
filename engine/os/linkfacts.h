/* linkfacts.h: what the kernel says of each link (rtnetlink and ethtool),
 * read in one place: from this network namespace, or from the record a
 * snapshot kept of another host's (snapshot.h), with the per-port facts
 * the probe's callers read (probe.h's struct probe_fact: the change
 * kinds' live state) as that host gave them.
 *
 * Owns: the list of links a probe joins with the sysroot's, the switch to
 * a snapshot's record, and that record's JSON form. A recorded per-port
 * fact is the caller's plain-data buffer as it was, under the name of the
 * kind that read it, with that kind's layout tag and the buffer's size
 * (probe.h): snapshot_load refuses a record whose kind, layout or size is
 * not the reader's. Must never: change a link, log above debug, read the
 * kernel while a snapshot's record is in use. */
#ifndef CX5_LINKFACTS_H
#define CX5_LINKFACTS_H

#include <json-c/json.h>

#include "ethtool.h"
#include "link.h"

/* One recorded per-port fact: the kind that read it and its layout tag
 * (probe.h's struct probe_fact), r, the buffer (size bytes; NULL unless
 * r == 0) and the kernel's text. */
struct recorded_fact {
	char *kind;
	unsigned layout;
	int r;
	size_t size;
	void *value;
	char *kmsg;
};

/* One link and the result of each ethtool read: 0, -EOPNOTSUPP
 * (unsupported), other -errno. facts: the per-port facts recorded with it
 * (n_facts of them), none while the kernel is read. */
struct link_facts {
	struct link_info link;
	int drvinfo_r;
	struct eth_drvinfo drvinfo;
	int ethlink_r;
	struct eth_link ethlink;
	struct recorded_fact *facts;
	size_t n_facts;
};

/* Every link but loopback named in only (NULL: all), by ifindex, with its
 * ethtool facts: from the kernel (this network namespace), or from the
 * record given to linkfacts_use. -errno only when the kernel's link list
 * itself cannot be read. */
int linkfacts_list(char *const *only, struct link_facts **ret, size_t *ret_n);
void linkfacts_free(struct link_facts *v, size_t n);

/* From now on linkfacts_list answers from v (taken over), not from the
 * kernel; NULL: from the kernel again. of_live_host: v was read on the
 * host the sysroot describes (a snapshot of "/"), not beside a copy of
 * its files. */
void linkfacts_use(struct link_facts *v, size_t n, bool of_live_host);
/* The links are the sysroot's own ports: the live host, or the record of
 * one; false beside a sysroot that describes another host's ports. */
bool linkfacts_of_this_host(void);

/* The JSON array of a snapshot ("links"), and back: -EINVAL with
 * *ret_field naming the bad field ("links[1].ethlink.speed"; caller
 * frees). */
struct json_object *linkfacts_to_json(const struct link_facts *v, size_t n);
int linkfacts_from_json(struct json_object *a, struct link_facts **ret, size_t *ret_n, char **ret_field);

#endif
