/* kinds/factproblem.c: the plan problem of a port fact the probe could
 * not read, one text for every ethtool kind (see kinds.h): a problem
 * added to the plan (changes.h). */
#include "kinds.h"

#include "base/exitcode.h"
#include "os/ethsysroot.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"

int kind_fact_problem(struct plan_ctx *ctx, const struct iface_state *s, const char *path,
		      const char *unsupported, const struct iface_fact *fact, const char *what)
{
	_cleanup_free_ char *note = ethsysroot_absent_note(s->name, what);
	_cleanup_free_ char *remedy = strprintf("remove %s from the profile for this port", path);
	bool unsup = fact->r == -EOPNOTSUPP;

	if (!note || !remedy)
		return -ENOMEM;
	return plan_add_problem(
	    ctx->plan, unsup ? EXIT_UNSUPPORTED : EXIT_ERROR, s->name, unsup ? remedy : "check the interface",
	    "%s: %s: %s%s%s%s%s", path, unsup ? unsupported : "cannot be read", sysroot_strerror(fact->r),
	    fact->kmsg ? " (kernel: " : "", fact->kmsg ? fact->kmsg : "", fact->kmsg ? ")" : "", note);
}
