/* requires.h: the one evaluation of a profile's requires section against a
 * port, for plan (a requirement not met is a problem) and doctor (a FAIL).
 *
 * Owns: which fact each requirement is compared with, and the verdict.
 * The driver version is MLNX_OFED's when the module publishes one
 * (/sys/module/<driver>/version) and is then compared with
 * requires.driver.min_version; otherwise the driver is the kernel's own
 * (inbox), its version is the kernel release, and it is compared with
 * requires.driver.min_kernel. A minimum for the other kind of driver is
 * not compared (REQUIRES_NOT_APPLICABLE): OFED numbers ("5.0-0") and
 * kernel releases ("4.18.0-513.el8") are not one scale. A fact that is
 * unknown, or a version that cannot be compared, is not met: plan cannot
 * promise what it cannot check. Every message names what was compared with
 * what, and the profile key. Must never: read the host except through
 * nicfacts.h. */
#ifndef CX5_REQUIRES_H
#define CX5_REQUIRES_H

#include "os/probe.h"
#include "profile.h"

enum requires_verdict {
	REQUIRES_MET,
	REQUIRES_NOT_MET,	 /* older, other, or unknown / not comparable */
	REQUIRES_NOT_APPLICABLE, /* a driver minimum for the other kind of driver */
};

struct requires_finding {
	const char *check; /* "driver", "firmware", "link" (doctor's check names) */
	const char *key;   /* "requires.driver.min_kernel" */
	enum requires_verdict verdict;
	char *message; /* one line: what was compared with what, and how it came out */
	const char *remedy;
};

struct requires_findings {
	struct requires_finding *v;
	size_t n;
};

/* Evaluate every requirement the profile sets on port s, in the order
 * driver, firmware, link. 0 or -ENOMEM. */
int requires_evaluate(const struct profile *p, const struct iface_state *s, struct requires_findings *ret);
void requires_findings_done(struct requires_findings *f);

/* The profile sets a requirement on ports. */
bool requires_set(const struct profile *p);

#endif
