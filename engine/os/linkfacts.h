/* linkfacts.h: what the kernel says of each link (rtnetlink and ethtool),
 * read in one place: from this network namespace, or from the record a
 * snapshot kept of another host's (snapshot.h).
 *
 * Owns: the list of link facts a probe joins with the sysroot's, the
 * switch to a snapshot's record, and that record's JSON form. Must never:
 * change a link, log above debug, read the kernel while a snapshot's
 * record is in use. */
#ifndef CX5_LINKFACTS_H
#define CX5_LINKFACTS_H

#include <json-c/json.h>

#include "ethfeatures.h"
#include "ethnl.h"
#include "ethtool.h"
#include "link.h"

/* One link and the result of each ethtool read: 0, -EOPNOTSUPP
 * (unsupported), other -errno; *_kmsg the kernel's extack text when the
 * read failed and it sent one, else NULL. */
struct link_facts {
	struct link_info link;
	int drvinfo_r;
	struct eth_drvinfo drvinfo;
	int ethlink_r;
	struct eth_link ethlink;
	int channels_r;
	struct eth_channels channels;
	int rings_r;
	struct eth_rings rings;
	int features_r;
	struct eth_features features;
	int coalesce_r;
	struct ethnl_values coalesce;
	char *coalesce_kmsg;
	int pause_r;
	struct ethnl_values pause;
	char *pause_kmsg;
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
 * *ret_field naming the bad field ("links[1].channels.rx"; caller frees). */
struct json_object *linkfacts_to_json(const struct link_facts *v, size_t n);
int linkfacts_from_json(struct json_object *a, struct link_facts **ret, size_t *ret_n, char **ret_field);

#endif
