/* kinds/irqbalance.h: irqbalance as the probe found it (the irqbalance
 * kind's host-wide fact: irqbalanced.h's process and service state).
 *
 * Owns: how others read it (verify's host tuning, doctor). Must never:
 * probe again: the state is the one kinds_probe_host read. */
#ifndef CX5_KINDS_IRQBALANCE_H
#define CX5_KINDS_IRQBALANCE_H

#include "os/irqbalanced.h"

struct host_state;

/* irqbalance on a probed host; not probed: not running, service state
 * unknown (-1). Never NULL. */
const struct irqbalance_state *irqbalance_probed(const struct host_state *h);

#endif
