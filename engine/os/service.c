/* service.c: the service-control command (see service.h).
 *
 * Owns: choosing the command, its timeout, and reading its answer; the
 * process itself is child.h's. Must never: run the live host's systemctl
 * while a sysroot is set, or use more than the first line of its answer. */
#define _GNU_SOURCE
#include "service.h"

#include "base/child.h"
#include "sysroot.h"

const char *service_command(void)
{
	const char *env = getenv("CX5PROF_SYSTEMCTL");

	if (env && *env)
		return env;
	return sysroot_is_live() ? "systemctl" : NULL;
}

/* How long one systemctl call may take: `stop` waits for the service's
 * own stop timeout (90 s by default). A service manager that does not
 * answer must not hold the apply lock forever. */
#define SERVICE_TIMEOUT_SEC_DEFAULT 120
#define SERVICE_TIMEOUT_SEC_MAX	    3600

static uint64_t timeout_usec(void)
{
	const char *env = getenv("CX5PROF_SERVICE_TIMEOUT");
	uint32_t v;

	if (!env || safe_atou32(env, &v) < 0 || v == 0 || v > SERVICE_TIMEOUT_SEC_MAX)
		v = SERVICE_TIMEOUT_SEC_DEFAULT;
	return (uint64_t)v * 1000000;
}

int service_run(const char *verb, const char *unit, const char *const *extra, char **ret_out)
{
	_cleanup_(child_done) struct child c = {.out_fd = -1};
	_cleanup_free_ char *sysroot_env = NULL;
	const char *cmd = service_command();
	const char *argv[8] = {cmd, verb, unit};
	char *env[2] = {NULL, NULL};
	size_t argc = 3;
	int r;

	if (!cmd)
		return -EOPNOTSUPP;
	for (; extra && *extra && argc < ARRAY_SIZE(argv) - 1; extra++)
		argv[argc++] = *extra;
	if (!sysroot_is_live()) {
		sysroot_env = strprintf("CX5PROF_SYSROOT=%s", sysroot_get());
		if (!sysroot_env)
			return -ENOMEM;
		env[0] = sysroot_env;
	}
	r = child_spawn(cmd, (char *const *)argv, &(struct child_options){.stderr_discard = true, .env = env},
			&c);
	if (r < 0)
		return r;
	r = child_wait_all(&c, 1, now_usec() + timeout_usec());
	if (r < 0)
		return r;
	if (c.timed_out)
		return -ETIMEDOUT;
	if (c.exit_status == 127)
		return -ENOENT; /* the command could not be run */
	if (c.exit_status > 127)
		return -ECHILD; /* killed by a signal */
	if (ret_out) {
		char *out = c.output ? c.output : (char *)"";
		char *nl = strchr(out, '\n');
		if (nl)
			*nl = '\0';
		*ret_out = strdup(strstrip_trailing(out));
		if (!*ret_out)
			return -ENOMEM;
	}
	return c.exit_status;
}

bool service_unit_missing(const char *unit)
{
	static const char *const extra[] = {"--property=LoadState", "--value", NULL};
	_cleanup_free_ char *out = NULL;
	int r = service_run("show", unit, extra, &out);

	return r == 0 && out && streq(out, "not-found");
}

/* systemctl is-enabled prints nothing on stdout (only an error on stderr)
 * for a unit that does not exist: that is a unit asked about explicitly,
 * not an unknown state. */
int service_state(const char *verb, const char *unit, char **ret)
{
	_cleanup_free_ char *out = NULL;
	int r = service_run(verb, unit, NULL, &out);

	if (r < 0)
		return r;
	if (!out || !*out || streq(out, "not-found"))
		return service_unit_missing(unit) ? -ENOENT : -EIO;
	*ret = TAKE_PTR(out);
	return 0;
}

bool service_state_enabled(const char *state)
{
	return streq(state, "enabled") || streq(state, "enabled-runtime");
}

/* 1, 0 (also: no such unit), -1 unknown. */
int service_is_enabled(const char *unit)
{
	_cleanup_free_ char *state = NULL;
	int r = service_state("is-enabled", unit, &state);

	return r == -ENOENT ? 0 : r < 0 ? -1 : service_state_enabled(state);
}

int service_is_active(const char *unit)
{
	_cleanup_free_ char *state = NULL;
	int r = service_state("is-active", unit, &state);

	return r == -ENOENT ? 0 : r < 0 ? -1 : streq(state, "active");
}
