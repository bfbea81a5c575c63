/* main.c: cx5prof's entry point: global options and the verb table.
 *
 * Owns: dispatch only. Adding a verb means one row in `verbs` and one
 * verb_*.c file. */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>

#include "base/log.h"
#include "base/output.h"
#include "cli.h"
#include "os/sysroot.h"
#include "verbs.h"

static int verb_help(struct cli *cli, int argc, char **argv);

static const struct verb verbs[] = {
    {"help", verb_help, "[VERB]", "show the usage of cx5prof or of one verb", NULL, false},
    {"show", verb_show, "[IFACE...]", "print the observed state of the NICs and the host", NULL, false},
    {"counters", verb_counters, "[IFACE]",
     "print the kernel's drop counters the loss ledger reads (UDP, IP, backlog, qdisc, device)",
     counters_options, false},
    {"validate", verb_validate, "FILE...",
     "check profiles (syntax, keys, ranges, extends) without touching anything", validate_options, false},
    {"plan", verb_plan, "PROFILE",
     "show every change a profile would make, in order, with preconditions checked", plan_options, false},
    {"apply", verb_apply, "PROFILE", "apply a profile as one transaction; undone on any failure",
     apply_options, true},
    {"rollback", verb_rollback, "[TXN]", "restore the state before the last (or the given) transaction",
     rollback_options, true},
    {"commit", verb_commit, "", "keep a transaction applied with --confirm", commit_options, true},
    {"verify", verb_verify, "[PROFILE]",
     "check the host against a profile (default: the last applied) and benchmark it", verify_cli_options,
     true},
    {"doctor", verb_doctor, "[PROFILE]",
     "check the NIC, the host and the path to the peer before benchmarking", doctor_cli_options, false},
    {"snapshot", verb_snapshot, "DIR | --tar FILE",
     "copy what cx5prof reads of this host into a directory that --sysroot reads elsewhere", snapshot_options,
     false},
    {"serve", verb_serve, "[PROFILE]", "receive the built-in UDP benchmark (the peer of `bench`)",
     serve_options, true},
    {"bench", verb_bench, "", "run the built-in UDP stream benchmark against `serve`", bench_options, true},
    {"campaign", verb_campaign, "FILE",
     "run comparison rounds: each group applied, verified and rolled back, with a table and a report",
     campaign_options, true},
    {"tune", verb_tune, "[PROFILE]",
     "find what limits UDP, try one change at a time, keep what measurably helps: a minimal profile",
     tune_options, true},
    {"report", verb_report, "RUN... --dir DIR | --hosts HOSTDIR... --dir DIR",
     "write report.html (and the runs' bundles) for some runs, or of a fleet's hosts", report_options, false},
    {"history", verb_history, "[show [run] RUN | show txn TXN]",
     "list transactions, runs and campaigns, newest first; or everything about one run or transaction",
     history_options, false},
    {"compare", verb_compare, "RUN RUN [RUN...] | --campaign A B",
     "side-by-side table of what differed between runs, with result deltas; or two campaigns group by group",
     compare_options, false},
    {"export", verb_export, "RUN --dir DIR", "write a self-contained bundle to reproduce one run",
     export_options, false},
    {"mirror", verb_mirror, "", "send pending history records to the TaoToken mirror", mirror_verb_options,
     false},
    {"analyze", verb_analyze, "RUN", "ask the model whether the sender or the receiver limited a run",
     analyze_options, false},
};

enum { OPT_VERSION = 1000 };

static const struct option global_longopts[] = {
    {"sysroot", required_argument, NULL, CLI_GOPT_SYSROOT},
    {"db", required_argument, NULL, CLI_GOPT_DB},
    {"json", no_argument, NULL, CLI_GOPT_JSON},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {0},
};

const struct verb *cli_verb(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (streq(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static void global_usage(FILE *f)
{
	fprintf(f, "Usage: cx5prof [--sysroot DIR] [--db PATH] [--json] [-v] VERB [ARGS]\n\n"
		   "Make ConnectX-5 NICs reach full UDP throughput, and prove it.\n\nVerbs:\n");
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nGlobal options:\n"
		   "  --sysroot DIR  read /proc and /sys under DIR (a copy of a host's files)\n"
		   "  --db PATH      history database (default " CX5PROF_DEFAULT_DB ")\n"
		   "  --json         machine-readable output on stdout\n"
		   "  -v, --verbose  more diagnostics on stderr (twice: debug)\n"
		   "  -h, --help     show this help\n"
		   "  --version      print the version\n\n"
		   "Run 'cx5prof VERB --help' for a verb's options.\n"
		   "Everything else: cx5prof(8) ('man 8 cx5prof'), or in a source tree\n"
		   "'man ./contrib/man/cx5prof.8'.\n");
}

/* With --json, a failure that printed no document still prints one: the
 * first error line as its msg, else what the exit code means. */
static int finish(const struct cli *cli, int code)
{
	static const struct {
		int code;
		const char *msg;
	} meanings[] = {
	    {EXIT_LOCKED, "another apply or rollback holds the lock"},
	    {EXIT_OPEN_TXN, "an earlier transaction must be rolled back or committed first"},
	    {EXIT_INVALID, "invalid input"},
	    {EXIT_NOT_FOUND, "not found"},
	    {EXIT_PERMISSION, "permission denied"},
	    {EXIT_USAGE, "bad command line"},
	};
	const char *msg = log_first_error();

	if (!cli->json || code == EXIT_OK)
		return code;
	for (size_t i = 0; !msg && i < ARRAY_SIZE(meanings); i++)
		if (meanings[i].code == code)
			msg = meanings[i].msg;
	if (!out_is_json()) /* failed before the verb set up the printer */
		out_init(true);
	(void)out_error(code, msg ? msg : "error (see stderr)");
	return code;
}

/* Suggest the closest verb for a typo (edit distance <= 2). */
static const char *closest_verb(const char *s)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		size_t d = edit_distance(s, verbs[i].name);

		if (d < best_d) {
			best_d = d;
			best = verbs[i].name;
		}
	}
	return best;
}

static int verb_help(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	const struct verb *verb;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, NULL, NULL, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (!args[0]) {
		global_usage(stdout);
		return EXIT_OK;
	}
	verb = cli_verb(args[0]);
	if (!verb) {
		const char *hint = closest_verb(args[0]);
		if (hint)
			log_error("help: unknown verb '%s' (did you mean '%s'?)", args[0], hint);
		else
			log_error("help: unknown verb '%s'", args[0]);
		return EXIT_USAGE;
	}
	cli_verb_usage(verb, stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct cli cli;
	const struct verb *verb;
	int c, r;

	cli_init(&cli, argv[0]);
	/* A reader that goes away (`cx5prof campaign FILE | head -c 1`) is
	 * an EPIPE the verb handles (a campaign stops and undoes its round),
	 * not a death in the middle of a transaction. */
	signal(SIGPIPE, SIG_IGN);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:vh", global_longopts, NULL)) != -1) {
		switch (c) {
		case CLI_GOPT_SYSROOT:
		case CLI_GOPT_DB:
		case CLI_GOPT_JSON:
		case 'v':
			(void)cli_global_option(&cli, c, optarg);
			break;
		case 'h':
			global_usage(stdout);
			return EXIT_OK;
		case OPT_VERSION:
			printf("cx5prof %s\n", CX5PROF_VERSION);
			return EXIT_OK;
		case ':':
			log_error("option '%s' needs a value", argv[optind - 1]);
			fprintf(stderr,
				"Usage: cx5prof [--sysroot DIR] [--db PATH] [--json] [-v] VERB [ARGS]\n");
			return finish(&cli, EXIT_USAGE);
		default:
			if (optopt && optopt < 256)
				log_error("unknown option '-%c'", optopt);
			else
				log_error("unknown option '%s'", argv[optind - 1]);
			fprintf(stderr,
				"Usage: cx5prof [--sysroot DIR] [--db PATH] [--json] [-v] VERB [ARGS]\n");
			return finish(&cli, EXIT_USAGE);
		}
	}
	if (optind >= argc) {
		global_usage(stderr);
		return finish(&cli, EXIT_USAGE);
	}
	verb = cli_verb(argv[optind]);
	if (!verb) {
		const char *hint = closest_verb(argv[optind]);
		if (hint)
			log_error("unknown verb '%s' (did you mean '%s'?)", argv[optind], hint);
		else
			log_error("unknown verb '%s'", argv[optind]);
		fprintf(stderr, "Run 'cx5prof --help' for the list of verbs.\n");
		return finish(&cli, EXIT_USAGE);
	}
	cli.verb = verb;
	r = verb->run(&cli, argc - optind, argv + optind);
	return finish(&cli, r);
}
