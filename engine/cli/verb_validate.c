/* verb_validate.c: `cx5prof validate FILE...`: check profiles, change nothing.
 *
 * Owns: the report of each file's verdict: "FILE: ok (name N, extends P)"
 * on stdout, the exact "file:line:col: message" on stderr, and the JSON
 * array of verdicts (schemas/validate.schema.json); with --flatten, the one
 * effective profile of a file and its extends chain, as a document that
 * stands alone. Must never: touch the host; it only reads the named files
 * and their extends chains. */
#define _GNU_SOURCE
#include "base/log.h"
#include "base/output.h"
#include "profile.h"
#include "verbs.h"

static void print_verdict(const char *file, const struct profile *p, const struct profile_error *err,
			  bool valid)
{
	out_open_object(NULL);
	out_string(valid ? OUT_ANY : OUT_JSON, "file", "%s: ", file);
	out_bool(OUT_JSON, "valid", NULL, valid);
	if (valid) {
		struct json_object *j = NULL, *files = json_object_new_array();
		_cleanup_free_ char *hash = NULL;

		out_json("error", NULL);
		if (profile_to_json(p, &j) >= 0)
			out_json("profile", j);
		for (size_t i = 0; files && p->files[i]; i++)
			json_object_array_add(files, json_object_new_string(p->files[i]));
		out_json("files", files);
		if (profile_hash(p, &hash) >= 0)
			out_string(OUT_JSON, "hash", NULL, hash);
		out_string(OUT_HUMAN, NULL, "ok (name %s", p->name.value);
		for (size_t i = 0; p->extends.set && p->extends.value[i]; i++)
			out_text("%s%s", i ? ", " : ", extends ", p->extends.value[i]);
		out_text(")\n");
	} else {
		out_open_object("error");
		out_string(OUT_JSON, "file", NULL, err->file);
		out_uint(OUT_JSON, "line", NULL, err->line);
		out_uint(OUT_JSON, "column", NULL, err->column);
		out_string(OUT_JSON, "message", NULL, err->message);
		out_close_object();
		out_json("profile", NULL);
		out_json("files", NULL);
		out_string(OUT_JSON, "hash", NULL, NULL);
	}
	out_close_object();
}

enum { OPT_FLATTEN = 1000 };

const struct cli_option validate_options[] = {
    {"flatten", CLI_ARG_NONE, OPT_FLATTEN, NULL,
     "print FILE's effective profile (its extends chain merged) as one file that stands alone"},
    {0},
};

static int validate_option(int id, const char *arg, void *userdata)
{
	(void)arg;
	if (id != OPT_FLATTEN)
		return EXIT_USAGE;
	*(bool *)userdata = true;
	return 0;
}

/* The effective profile as JSON, which is YAML too: `apply` and the boot
 * unit load it as they load the chain it came from, with no extends left
 * to resolve. */
static int flatten(const char *file)
{
	_cleanup_profile_ struct profile *p = NULL;
	_cleanup_free_ char *line = NULL;
	struct profile_error err = {0};
	struct json_object *j = NULL;
	int r;

	r = profile_load(file, &p, &err);
	if (r < 0) {
		line = profile_error_format(&err);
		log_error("%s", line ? line : err.message);
		return profile_load_exit_code(r);
	}
	if (profile_to_json(p, &j) < 0)
		return log_error("out of memory"), EXIT_ERROR;
	if (out_is_json())
		out_json(NULL, j);
	else {
		out_text("%s\n",
			 json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	}
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

int verb_validate(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **files = NULL;
	bool flat = false;
	int r, ret = EXIT_OK;

	r = cli_parse(cli, cli->verb, argc, argv, validate_option, &flat, &files);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (!files[0]) {
		log_error("validate: no profile given");
		fprintf(stderr, "Usage: cx5prof validate FILE...\n");
		return EXIT_USAGE;
	}
	if (flat && files[1]) {
		log_error("validate: --flatten takes one FILE");
		return EXIT_USAGE;
	}
	if (flat)
		return flatten(files[0]);

	out_open_array(NULL);
	for (size_t i = 0; files[i]; i++) {
		_cleanup_profile_ struct profile *p = NULL;
		_cleanup_free_ char *line = NULL;
		struct profile_error err = {0};
		int code;

		r = profile_load(files[i], &p, &err);
		if (r >= 0) {
			print_verdict(files[i], p, NULL, true);
			continue;
		}
		line = profile_error_format(&err);
		log_error("%s", line ? line : err.message);
		print_verdict(files[i], NULL, &err, false);
		/* A missing file outranks an invalid one: the command named
		 * something that is not there. */
		code = profile_load_exit_code(r);
		if (ret == EXIT_OK || code == EXIT_NOT_FOUND || (ret == EXIT_INVALID && code != EXIT_INVALID))
			ret = code;
	}
	out_close_array();
	r = out_finish();
	if (r < 0 && ret == EXIT_OK)
		ret = EXIT_ERROR;
	return ret;
}
