/* cli.c: table-driven option parsing shared by all verbs (see cli.h). */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>

#include "base/log.h"
#include "base/output.h"
#include "kinds/kinds.h"
#include "os/snapshot.h"
#include "os/sysroot.h"

static const struct cli_option global_options[] = {
    {"sysroot", CLI_ARG_REQUIRED, CLI_GOPT_SYSROOT, "DIR", "read /proc and /sys under DIR"},
    {"db", CLI_ARG_REQUIRED, CLI_GOPT_DB, "PATH", "history database"},
    {"json", CLI_ARG_NONE, CLI_GOPT_JSON, NULL, "machine-readable output"},
    {"verbose", CLI_ARG_NONE, 'v', NULL, "more diagnostics (twice: debug)"},
    {"help", CLI_ARG_NONE, 'h', NULL, "show this help"},
    {0},
};

void cli_init(struct cli *cli, const char *argv0)
{
	const char *env_db = getenv("CX5PROF_DB");

	*cli = (struct cli){.db_path = CX5PROF_DEFAULT_DB, .argv0 = argv0};
	if (env_db && *env_db)
		cli->db_path = env_db;
}

bool cli_global_option(struct cli *cli, int id, const char *arg)
{
	switch (id) {
	case CLI_GOPT_SYSROOT:
		cli->sysroot = arg;
		return true;
	case CLI_GOPT_DB:
		cli->db_path = arg;
		return true;
	case CLI_GOPT_JSON:
		cli->json = true;
		return true;
	case 'v':
		cli->verbose++;
		return true;
	}
	return false;
}

static size_t options_count(const struct cli_option *o)
{
	size_t n = 0;
	while (o && o[n].name)
		n++;
	return n;
}

static void print_options(const struct cli_option *o, FILE *f)
{
	for (; o && o->name; o++) {
		char left[64];
		if (o->id < 256 && o->id > ' ')
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->id, o->name, o->arg_name ? " " : "",
				 o->arg_name ? o->arg_name : "");
		else
			snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg_name ? " " : "",
				 o->arg_name ? o->arg_name : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

void cli_verb_usage(const struct verb *verb, FILE *f)
{
	fprintf(f, "Usage: cx5prof %s [OPTIONS] %s\n\n%s.\n", verb->name, verb->args, verb->summary);
	if (options_count(verb->options) > 0) {
		fprintf(f, "\nOptions:\n");
		print_options(verb->options, f);
	}
	fprintf(f, "\nGlobal options:\n");
	print_options(global_options, f);
}

/* After a bad option getopt stops: a --json still ahead asks for the error
 * document all the same. */
static void scan_json(struct cli *cli, int argc, char **argv)
{
	for (int k = optind; k < argc && !streq(argv[k], "--"); k++)
		if (streq(argv[k], "--json"))
			cli->json = true;
}

int cli_parse(struct cli *cli, const struct verb *verb, int argc, char **argv,
	      int (*handle)(int id, const char *arg, void *userdata), void *userdata, char ***ret_args)
{
	size_t nv = options_count(verb->options), ng = options_count(global_options);
	_cleanup_free_ struct option *longopts = calloc(nv + ng + 1, sizeof(struct option));
	char shortopts[128] = "+:";
	size_t sl = strlen(shortopts);
	int c, r;

	if (!longopts)
		return log_error("out of memory"), EXIT_ERROR;
	for (size_t i = 0; i < nv + ng; i++) {
		const struct cli_option *o = i < nv ? &verb->options[i] : &global_options[i - nv];
		longopts[i] = (struct option){o->name, o->has_arg, NULL, o->id};
		if (o->id < 256 && o->id > ' ' && sl + 3 < sizeof(shortopts)) {
			shortopts[sl++] = (char)o->id;
			if (o->has_arg)
				shortopts[sl++] = ':';
		}
	}
	/* Options may follow positional arguments ("show ens1f0 --json"). */
	shortopts[0] = '-';
	shortopts[sl] = '\0';

	_cleanup_strv_free_ char **positional = NULL;
	optind = 0; /* full reset of getopt state between verbs */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (strv_extend(&positional, optarg) < 0)
				return log_error("out of memory"), EXIT_ERROR;
			continue;
		case CLI_GOPT_SYSROOT:
		case CLI_GOPT_DB:
		case CLI_GOPT_JSON:
		case 'v':
			(void)cli_global_option(cli, c, optarg);
			continue;
		case 'h':
			cli_verb_usage(verb, stdout);
			return -1;
		case ':':
			scan_json(cli, argc, argv);
			log_error("%s: option '%s' needs a value", verb->name, argv[optind - 1]);
			fprintf(stderr, "Run 'cx5prof %s --help' for its options.\n", verb->name);
			return EXIT_USAGE;
		case '?':
			scan_json(cli, argc, argv);
			if (optopt && optopt < 256)
				log_error("%s: unknown option '-%c'", verb->name, optopt);
			else
				log_error("%s: unknown option '%s'", verb->name, argv[optind - 1]);
			fprintf(stderr, "Run 'cx5prof %s --help' for its options.\n", verb->name);
			return EXIT_USAGE;
		default:
			r = handle ? handle(c, optarg, userdata) : EXIT_USAGE;
			if (r != 0)
				return r;
		}
	}
	for (int k = optind; k < argc; k++) /* after "--" */
		if (strv_extend(&positional, argv[k]) < 0)
			return log_error("out of memory"), EXIT_ERROR;
	if (!positional) {
		positional = calloc(1, sizeof(char *));
		if (!positional)
			return log_error("out of memory"), EXIT_ERROR;
	}
	r = cli_setup(cli);
	if (r != 0)
		return r;
	if (verb->changes_host && snapshot_active()) {
		log_error("%s: %s is a snapshot of a host (%s): it can be shown, planned and checked "
			  "(show, plan, doctor), never changed or benchmarked: run %s on the host itself",
			  verb->name, cli->sysroot, SNAPSHOT_MARKER, verb->name);
		return EXIT_USAGE;
	}
	*ret_args = TAKE_PTR(positional);
	return 0;
}

int cli_setup(struct cli *cli)
{
	_cleanup_free_ char *why = NULL;
	int r;

	log_set_level(cli->verbose >= 2 ? LOG_DEBUG : cli->verbose == 1 ? LOG_INFO : LOG_NOTICE);
	r = sysroot_set(cli->sysroot);
	if (r < 0) {
		log_error_errno(r, "cannot use sysroot '%s': %m", cli->sysroot);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_USAGE;
	}
	const struct probe_fact *facts[n_change_kinds + 1];
	kinds_probe_facts(facts);
	r = snapshot_load(facts, n_change_kinds, &why);
	if (r < 0) {
		log_error("--sysroot %s: %s", cli->sysroot, why ? why : strerror(-r));
		return r == -ENOMEM ? EXIT_ERROR : EXIT_INVALID;
	}
	out_init(cli->json);
	return 0;
}
