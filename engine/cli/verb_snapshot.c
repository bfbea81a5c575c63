/* verb_snapshot.c: `cx5prof snapshot DIR [--tar FILE]` or `snapshot --tar
 * FILE`: this host as cx5prof reads it, in a directory (or a tar archive of
 * one) that `--sysroot` reads on another machine.
 *
 * Owns: the command line, the archive (tar(1) of the directory; without
 * DIR, of a temporary one removed afterwards) and the one report
 * (schemas/snapshot.schema.json). Must never: change the host; it writes
 * only the new directory and the new archive. */
#define _GNU_SOURCE
#include <ftw.h>

#include "base/child.h"
#include "base/log.h"
#include "base/output.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "os/snapshot.h"
#include "os/sysroot.h"
#include "verbs.h"

#define TAR_TIMEOUT_USEC (300 * 1000000ULL)

enum { OPT_TAR = 1000 };

const struct cli_option snapshot_options[] = {
    {"tar", CLI_ARG_REQUIRED, OPT_TAR, "FILE",
     "also write the snapshot as a tar archive (FILE must not exist)"},
    {0},
};

static int handle(int id, const char *arg, void *userdata)
{
	if (id != OPT_TAR)
		return EXIT_USAGE;
	*(const char **)userdata = arg;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

/* tar -C DIR -cf FILE . */
static int write_tar(const char *dir, const char *file, char **ret_output)
{
	_cleanup_(child_done) struct child c = {.out_fd = -1};
	const char *argv[] = {"tar", "-C", dir, "-cf", file, ".", NULL};
	int r;

	r = child_spawn("tar", (char *const *)argv, NULL, &c);
	if (r < 0)
		return r;
	r = child_wait_all(&c, 1, now_usec() + TAR_TIMEOUT_USEC);
	if (r < 0)
		return r;
	if (c.exit_status != 0) {
		*ret_output = c.output ? strdup(strstrip_trailing(c.output)) : NULL;
		return c.exit_status == 127 ? -ENOENT : -EIO;
	}
	return 0;
}

static void print_unreadable(struct json_object *a)
{
	size_t n = json_object_array_length(a);

	out_open_array("unreadable");
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i), *path, *error;

		json_object_object_get_ex(o, "path", &path);
		json_object_object_get_ex(o, "error", &error);
		out_open_object(NULL);
		out_string(OUT_ANY, "path", "  %s: ", json_object_get_string(path));
		out_string(OUT_ANY, "error", "%s\n", json_object_get_string(error));
		out_close_object();
	}
	out_close_array();
}

int verb_snapshot(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_free_ char *tmp = NULL, *tar_output = NULL;
	struct snapshot_summary sum = {0};
	const char *tar = NULL, *dir;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, handle, &tar, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) > 1 || (!args[0] && !tar)) {
		log_error("snapshot: expected one directory DIR, or --tar FILE");
		return EXIT_USAGE;
	}
	if (tar && access(tar, F_OK) == 0) {
		log_error("snapshot: %s exists: choose a new archive name", tar);
		return EXIT_CANT_CREATE;
	}
	dir = args[0];
	if (!dir) {
		const char *t = getenv("TMPDIR");

		tmp = strprintf("%s/cx5prof-snapshot.XXXXXX", t && *t ? t : "/tmp");
		if (!tmp || !mkdtemp(tmp)) {
			log_error_errno(tmp ? -errno : -ENOMEM,
					"snapshot: cannot create a temporary directory: %m");
			return EXIT_CANT_CREATE;
		}
		dir = tmp;
	}
	/* The change kinds' facts, as kinds_probe_host asks for them. */
	const struct probe_fact *port[n_change_kinds + 1];
	const struct probe_host_fact *host[n_change_kinds + 1];
	struct probe_facts facts;
	kinds_probe_request(&facts, port, host);
	r = snapshot_take(dir, &facts, &sum);
	if (r == 0 && tar) {
		r = write_tar(dir, tar, &tar_output);
		if (r < 0)
			log_error("snapshot: cannot write the archive %s: %s", tar,
				  tar_output ? tar_output : strerror(-r));
	} else if (r == -ENOTEMPTY)
		log_error("snapshot: directory %s is not empty: choose a new or empty directory", dir);
	else if (r < 0)
		log_error_errno(r, "snapshot: cannot write the snapshot to %s: %m", dir);
	if (tmp)
		(void)nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (r < 0) {
		json_object_put(sum.unreadable);
		return r == -ENOTEMPTY || r == -EEXIST ? EXIT_CANT_CREATE
		       : r == -EACCES || r == -EPERM   ? EXIT_PERMISSION
						       : EXIT_ERROR;
	}
	out_open_object(NULL);
	out_string(OUT_ANY, "source", "snapshot of %s", sysroot_get());
	out_string(OUT_JSON, "dir", NULL, tmp ? NULL : dir);
	if (!tmp)
		out_text(" in %s", dir);
	out_string(OUT_JSON, "tar", NULL, tar);
	if (tar)
		out_text("%s %s", tmp ? " as" : ", archived as", tar);
	out_uint(OUT_ANY, "files", ": %" PRIu64 " files", sum.files);
	out_uint(OUT_ANY, "links", ", %" PRIu64 " network links", sum.links);
	out_uint(OUT_HUMAN, NULL, ", %" PRIu64 " not read\n", json_object_array_length(sum.unreadable));
	print_unreadable(sum.unreadable);
	out_close_object();
	json_object_put(sum.unreadable);
	if (!out_is_json())
		out_text(
		    "Read it elsewhere with `cx5prof --sysroot DIR show`, `plan PROFILE` or `doctor`.\n");
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}
