/* requires.c: a profile's requires section against a port (see
 * requires.h). */
#define _GNU_SOURCE
#include "requires.h"

#include <inttypes.h>
#include <stdarg.h>

#include "base/version.h"
#include "os/nicfacts.h"

static int add(struct requires_findings *f, const char *check, const char *key, enum requires_verdict v,
	       const char *remedy, const char *fmt, ...) _printf_(6, 7);

static int add(struct requires_findings *f, const char *check, const char *key, enum requires_verdict v,
	       const char *remedy, const char *fmt, ...)
{
	struct requires_finding *n;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = vstrprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return -ENOMEM;
	n = realloc(f->v, (f->n + 1) * sizeof(*n));
	if (!n) {
		free(msg);
		return -ENOMEM;
	}
	f->v = n;
	f->v[f->n++] = (struct requires_finding){
	    .check = check, .key = key, .verdict = v, .message = msg, .remedy = remedy};
	return 0;
}

/* have against the minimum min->value: "what" names the fact ("MLNX_OFED
 * driver", "firmware version"). */
static int compare_min(struct requires_findings *f, const char *check, const char *key, const char *what,
		       const char *have, const char *min, const char *remedy)
{
	int cmp;

	if (!have)
		return add(f, check, key, REQUIRES_NOT_MET, remedy,
			   "%s unknown, the profile requires at least %s (%s)", what, min, key);
	if (version_compare(have, min, &cmp) < 0)
		return add(f, check, key, REQUIRES_NOT_MET,
			   "compare it by hand with the release notes, then change or remove the minimum",
			   "%s \"%s\" cannot be compared with %s (%s)", what, have, min, key);
	if (cmp < 0)
		return add(f, check, key, REQUIRES_NOT_MET, remedy,
			   "%s %s is older than the required %s (%s)", what, have, min, key);
	return add(f, check, key, REQUIRES_MET, NULL, "%s %s >= %s (%s)", what, have, min, key);
}

#define KEY_OFED   "requires.driver.min_version"
#define KEY_KERNEL "requires.driver.min_kernel"

static int evaluate_driver(const struct profile *p, const struct iface_state *s, struct requires_findings *f)
{
	const struct profile_string *ofed = &p->requires.driver_min_version,
				    *kernel = &p->requires.driver_min_kernel;
	const char *driver = nicfacts_driver(s);
	_cleanup_free_ char *version = NULL;
	bool is_ofed = false;
	int r;

	if (p->requires.driver_name.set && !streq_ptr(driver, p->requires.driver_name.value) &&
	    (r = add(f, "driver", "requires.driver.name", REQUIRES_NOT_MET,
		     "use a port driven by it, or change requires.driver.name",
		     "driver is %s, the profile requires %s", strna(driver), p->requires.driver_name.value)) <
		0)
		return r;
	if (!ofed->set && !kernel->set)
		return 0;
	r = nicfacts_driver_release(s, &is_ofed, &version);
	if (r == -ENOMEM)
		return r;
	if (r < 0) /* nothing says which kind of driver: either minimum is unchecked */
		return compare_min(f, "driver", ofed->set ? KEY_OFED : KEY_KERNEL, "driver version", NULL,
				   ofed->set ? ofed->value : kernel->value, "check `ethtool -i` on the port");
	if (is_ofed && ofed->set)
		return compare_min(f, "driver", KEY_OFED, "MLNX_OFED driver", version, ofed->value,
				   "install a newer MLNX_OFED");
	if (!is_ofed && kernel->set)
		return compare_min(f, "driver", KEY_KERNEL, "inbox driver of kernel", version, kernel->value,
				   "boot a newer kernel, or install MLNX_OFED (then " KEY_OFED " applies)");
	if (is_ofed)
		return add(f, "driver", KEY_KERNEL, REQUIRES_NOT_APPLICABLE,
			   "add " KEY_OFED " for hosts with MLNX_OFED",
			   KEY_KERNEL " is for inbox drivers: MLNX_OFED driver %s not compared with %s",
			   version, kernel->value);
	return add(f, "driver", KEY_OFED, REQUIRES_NOT_APPLICABLE,
		   "add " KEY_KERNEL " for hosts without MLNX_OFED",
		   KEY_OFED " is for MLNX_OFED: inbox driver of kernel %s not compared with %s", version,
		   ofed->value);
}

static int evaluate_link(const struct profile *p, const struct iface_state *s, struct requires_findings *f)
{
	_cleanup_free_ char *duplex = NULL;
	const char *want_duplex =
	    p->requires.link_duplex.set ? profile_duplex_to_string(p->requires.link_duplex.value) : NULL;
	uint64_t speed = 0;
	int r;

	if (!p->requires.link_speed.set && !want_duplex)
		return 0;
	r = nicfacts_link(s, &speed, &duplex);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add(f, "link",
			   p->requires.link_speed.set ? "requires.link.speed" : "requires.link.duplex",
			   REQUIRES_NOT_MET, "check the cable and the switch port (ethtool IFACE)",
			   "link speed and duplex unknown (no link?)");
	if (p->requires.link_speed.set && speed != p->requires.link_speed.value &&
	    (r = add(f, "link", "requires.link.speed", REQUIRES_NOT_MET,
		     "check the cable, the transceiver and the switch port",
		     "link speed is %" PRIu64 " Mb/s, the profile requires %" PRIu64, speed,
		     p->requires.link_speed.value)) < 0)
		return r;
	if (want_duplex && !streq(duplex, want_duplex))
		return add(f, "link", "requires.link.duplex", REQUIRES_NOT_MET,
			   "check autonegotiation on both ends", "link is %s duplex, the profile requires %s",
			   duplex, want_duplex);
	return 0;
}

int requires_evaluate(const struct profile *p, const struct iface_state *s, struct requires_findings *ret)
{
	struct requires_findings f = {0};
	int r;

	r = evaluate_driver(p, s, &f);
	if (r >= 0 && p->requires.firmware_min_version.set)
		r = compare_min(&f, "firmware", "requires.firmware.min_version", "firmware version",
				nicfacts_firmware(s), p->requires.firmware_min_version.value,
				"update the NIC firmware (mlxup or mstflint)");
	if (r >= 0)
		r = evaluate_link(p, s, &f);
	if (r < 0) {
		requires_findings_done(&f);
		return r;
	}
	*ret = f;
	return 0;
}

void requires_findings_done(struct requires_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].message);
	free(f->v);
	*f = (struct requires_findings){0};
}

bool requires_set(const struct profile *p)
{
	return p->requires.driver_name.set || p->requires.driver_min_version.set ||
	       p->requires.driver_min_kernel.set || p->requires.firmware_min_version.set ||
	       p->requires.link_speed.set || p->requires.link_duplex.set;
}
