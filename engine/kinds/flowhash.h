/* kinds/flowhash.h: what the flow_hash kind's probe read of a port (the
 * kernel's answer, or a snapshot's record of it), for doctor. */
#ifndef CX5_KINDS_FLOWHASH_H
#define CX5_KINDS_FLOWHASH_H

#include "os/ethflowhash.h"

struct iface_state;

/* The fields of flow f of port s as the probe read them: 0, -EOPNOTSUPP
 * (the driver does not report them), -ENODEV (not in this namespace),
 * -errno. */
int flow_hash_probed(const struct iface_state *s, enum eth_flow f, uint64_t *ret);

#endif
