/* verb_counters.c: `cx5prof counters [IFACE | --address ADDR]`: the
 * kernel counters the loss ledger reads on this host, as they are now.
 *
 * Owns: the command line and the document (schemas/counters.schema.json):
 * the interface, when taken, every counter by name, the sources that could
 * not be read. A peer tuned through SSH answers with it what `serve`'s
 * STATE would (ledgerwatch.h asks before and after a run). Must never:
 * change anything. */
#define _GNU_SOURCE
#include <inttypes.h>

#include "base/log.h"
#include "base/output.h"
#include "bench/peerstate.h"
#include "os/link.h"
#include "os/snapshot.h"
#include "verbs.h"

enum { OPT_ADDRESS = 1000 };

const struct cli_option counters_options[] = {
    {"address", CLI_ARG_REQUIRED, OPT_ADDRESS, "ADDR",
     "the counters of the interface that owns the numeric address ADDR (the peer's: verify.peer)"},
    {0},
};

static int handle(int id, const char *arg, void *userdata)
{
	const char **address = userdata;

	if (id != OPT_ADDRESS)
		return EXIT_USAGE;
	*address = arg;
	return 0;
}

int verb_counters(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_(netcounters_done) struct netcounters s = {0};
	const char *address = NULL;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, handle, &address, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (snapshot_active()) {
		/* doctor's reason for skipping them on a snapshot */
		log_error(
		    "counters: %s is a snapshot of a host (%s): the counters move on the host itself: run "
		    "counters on the host itself",
		    cli->sysroot, SNAPSHOT_MARKER);
		return EXIT_USAGE;
	}
	if (strv_length(args) > 1 || (args[0] && address)) {
		log_error("counters: one IFACE or --address ADDR");
		return EXIT_USAGE;
	}
	if (args[0] && !ifname_valid(args[0])) {
		log_error("counters: '%s' is not an interface name", args[0]);
		return EXIT_USAGE;
	}
	if (args[0] && link_get(args[0], &(struct link_info){0}) == -ENODEV) {
		log_error("counters: no interface %s in this network namespace", args[0]);
		return EXIT_NOT_FOUND;
	}
	r = address ? peerstate_counters_at(address, &s) : netcounters_take(args[0], &s);
	if (r == -EINVAL) {
		log_error("counters: --address '%s' is not a numeric IPv4 or IPv6 address", address);
		return EXIT_USAGE;
	}
	if (r == -EADDRNOTAVAIL) {
		log_error("counters: no interface of this network namespace has the address %s", address);
		return EXIT_NOT_FOUND;
	}
	if (r < 0) {
		log_error_errno(r, "counters: %m");
		return EXIT_ERROR;
	}
	out_open_object(NULL);
	out_string(OUT_ANY, "interface", "interface   %s\n", s.ifname[0] ? s.ifname : NULL);
	out_uint(OUT_JSON, "taken_usec", NULL, s.taken_usec);
	out_open_object("counters");
	for (size_t i = 0; i < s.n; i++) {
		out_uint(OUT_JSON, s.v[i].name, NULL, s.v[i].value);
		out_text("%-28s %" PRIu64 "\n", s.v[i].name, s.v[i].value);
	}
	out_close_object();
	out_open_array("unavailable");
	for (char **u = s.unavailable; u && *u; u++)
		out_string(OUT_ANY, NULL, "unavailable %s\n", *u);
	out_close_array();
	out_close_object();
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}
