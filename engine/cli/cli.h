/* cli.h: the command layer's shared pieces: global options, the verb table
 * entry, and option parsing from a table.
 *
 * Owns: argv. Each verb is one function `int verb_X(struct cli *, int argc,
 * char **argv)` returning an exit code (exitcode.h), listed in one table in
 * main.c. Verbs report failures once, on stderr, with the object and the
 * remedy; results go through output.h. */
#ifndef CX5_CLI_H
#define CX5_CLI_H

#include "base/exitcode.h"
#include "base/util.h"
#include "base/version.h"

#define CX5PROF_DEFAULT_DB "/var/lib/cx5prof/history.db"

struct cli {
	const char *sysroot; /* NULL: live host */
	const char *db_path;
	bool json;
	int verbose;
	const char *argv0;
	/* The verb main() runs: its options and usage for cli_parse(). */
	const struct verb *verb;
};

struct verb {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *args;    /* positional arguments for the usage line */
	const char *summary; /* one line for `cx5prof --help` */
	const struct cli_option *options;
	/* Changes or benchmarks the host: refused against a snapshot. */
	bool changes_host;
};

enum { CLI_ARG_NONE = 0, CLI_ARG_REQUIRED = 1 };

/* The global options' ids, before the verb (main.c) and after it
 * (cli_parse) alike; -v is 'v'. */
enum { CLI_GOPT_SYSROOT = 2000, CLI_GOPT_DB, CLI_GOPT_JSON };

/* The defaults: the history at CX5PROF_DB when set, else
 * CX5PROF_DEFAULT_DB. */
void cli_init(struct cli *cli, const char *argv0);
/* A global option (--sysroot, --db, --json, -v) into cli, wherever it was
 * given: the one place they are set. false for any other id. */
bool cli_global_option(struct cli *cli, int id, const char *arg);

struct cli_option {
	const char *name; /* long name without "--" */
	int has_arg;	  /* CLI_ARG_NONE or CLI_ARG_REQUIRED */
	int id;		  /* returned to the verb; > 255, or a short option char */
	const char *arg_name;
	const char *help;
};

/* Parse a verb's argv (argv[0] is the verb): the verb's own options from
 * verb->options, the global options (--json, --sysroot, --db, -v) and
 * --help, before or after positional arguments ("--" ends options). For
 * each verb option, handle(id, optarg, userdata) is called; it returns 0
 * or an exit code. On success *ret_args is the NULL-terminated list of
 * positional arguments (caller frees, strv_free) and 0 is returned, with
 * the sysroot, log level and printer set up; otherwise an exit code
 * (EXIT_USAGE after an error, or -1 after --help was printed: the verb
 * returns EXIT_OK). */
int cli_parse(struct cli *cli, const struct verb *verb, int argc, char **argv,
	      int (*handle)(int id, const char *arg, void *userdata), void *userdata, char ***ret_args);

/* The verb's entry by name (main.c's table: for usage text). A verb does
 * not call it: main() hands the verb its entry as cli->verb. */
const struct verb *cli_verb(const char *name);
void cli_verb_usage(const struct verb *verb, FILE *f);

/* Apply global settings (sysroot, log level); returns an exit code. */
int cli_setup(struct cli *cli);

#endif
