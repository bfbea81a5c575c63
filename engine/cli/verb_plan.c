/* verb_plan.c: `cx5prof plan PROFILE`.
 *
 * Owns: the plan's rendering and exit code (the planning steps and their
 * errors are verbkit.h's, shared with apply). Must never: change the host. Exit codes as terraform
 * plan -detailed-exitcode: 0 nothing to do, 2 changes pending, 1 error,
 * plus 5, 65, 66, 69 for the plan's problems. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <libgen.h>

#include "base/log.h"
#include "base/output.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "profile.h"
#include "store/lock.h"
#include "verbkit.h"
#include "verbs.h"

static const char *plan_message(const struct plan *p, char *buf, size_t size)
{
	if (p->n_problems > 0)
		snprintf(buf, size, "cannot apply: %zu problem%s", p->n_problems,
			 p->n_problems == 1 ? "" : "s");
	else if (p->n_changes == 0)
		snprintf(buf, size, "nothing to change");
	else
		snprintf(buf, size, "%zu change%s pending", p->n_changes, p->n_changes == 1 ? "" : "s");
	return buf;
}

enum { OPT_RUNTIME_ONLY = 1000 };

const struct cli_option plan_options[] = {
    {"runtime-only", CLI_ARG_NONE, OPT_RUNTIME_ONLY, NULL,
     "plan as `apply --runtime-only` would: without enabling the boot-time unit"},
    {0},
};

static int plan_option(int id, const char *arg, void *userdata)
{
	(void)arg;
	if (id != OPT_RUNTIME_ONLY)
		return EXIT_USAGE;
	*(bool *)userdata = true;
	return 0;
}

int verb_plan(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	bool runtime_only = false;
	char msg[128];
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, plan_option, &runtime_only, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) != 1) {
		log_error("plan: expected one PROFILE");
		return EXIT_USAGE;
	}
	r = txn_verb_plan(args[0], runtime_only, &prof, &p);
	if (r != EXIT_OK)
		return r;
	txn_verb_report_problems(p);
	out_open_object(NULL);
	plan_render(p, plan_message(p, msg, sizeof(msg)));
	out_close_object();
	(void)out_finish();
	if (p->n_problems > 0)
		return plan_problems_exit_code(p);
	return p->n_changes > 0 ? EXIT_CHANGES : EXIT_OK;
}
