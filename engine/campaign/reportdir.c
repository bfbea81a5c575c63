/* reportdir.c: the report directory of `campaign --report DIR`, `report
 * RUN... --dir DIR` and `report --hosts ... --dir DIR`.
 *
 * Owns: the directory's checks before anything runs (a new path whose
 * parent takes it, or an empty directory), and its writing: whole, into a
 * temporary directory beside it (report.html, report.svg, the document as
 * campaign.json or report.json, one runs/run-N/ bundle per run), renamed
 * into place, so that a failure leaves DIR as it was and nothing
 * half-written; the fleet's report.html and hosts.json. Must never: write
 * outside DIR and its temporary sibling, leave the sibling behind, or
 * report an error itself (the verb says it, once). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reportdir.h"
#include "bundle.h"
#include "report.h"
#include "report_hosts.h"
#include "store/history.h"
#include "store/runs.h"

int report_dir_check(const char *dir)
{
	_cleanup_free_ char *copy = strdup(dir);
	struct stat st;
	int r;

	if (!copy)
		return -ENOMEM;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		r = dir_is_empty(dir);
		return r < 0 ? r : r ? 0 : -ENOTEMPTY;
	}
	if (errno != ENOENT)
		return -errno;
	/* the temporary directory and the rename need the parent */
	return access(dirname(copy), W_OK | X_OK) < 0 ? -errno : 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/* A temporary directory beside dir, with the mode mkdir would give. */
static char *temp_sibling(const char *dir)
{
	_cleanup_free_ char *a = strdup(dir), *b = strdup(dir);
	char *path;
	mode_t um;

	if (!a || !b)
		return NULL;
	path = strprintf("%s/.%s.tmp-XXXXXX", dirname(a), basename(b));
	if (!path || !mkdtemp(path)) {
		free(path);
		return NULL;
	}
	um = umask(0);
	umask(um);
	(void)chmod(path, 0755 & ~um);
	return path;
}

/* The document, runs/run-N/ (each run once) and the pages, into tmp. */
static int fill(const char *tmp, struct history *h, struct json_object *doc, const char *json_name)
{
	_cleanup_close_ int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *html = NULL, *svg = NULL, *json = NULL;
	struct json_object *groups = json_object_object_get(doc, "groups");
	int r;

	if (dfd < 0)
		return -errno;
	json = strprintf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_SPACED |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!json)
		return -ENOMEM;
	r = write_file_at(dfd, json_name, json);
	if (r < 0)
		return r;
	if (mkdirat(dfd, "runs", 0755) < 0)
		return -errno;
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *rounds =
		    json_object_object_get(json_object_array_get_idx(groups, i), "rounds");
		for (size_t k = 0; k < json_object_array_length(rounds); k++) {
			struct json_object *run =
			    json_object_object_get(json_object_array_get_idx(rounds, k), "run");
			_cleanup_(run_record_done) struct run_record rec = {0};
			_cleanup_free_ char *sub = NULL;

			if (!run)
				continue;
			sub = strprintf("%s/runs/run-%" PRId64, tmp, json_object_get_int64(run));
			if (!sub)
				return -ENOMEM;
			if (access(sub, F_OK) == 0) /* `report 1 1`: one bundle */
				continue;
			r = runs_get(h, json_object_get_int64(run), &rec);
			if (r >= 0)
				r = bundle_export(h, &rec, sub);
			if (r < 0)
				return r;
		}
	}
	r = report_html(h, doc, &html);
	if (r >= 0)
		r = report_svg(doc, &svg);
	if (r >= 0)
		r = failpoint("report-write", 1) ? -ENOSPC : write_file_at(dfd, "report.html", html);
	if (r >= 0)
		r = write_file_at(dfd, "report.svg", svg);
	if (r >= 0 && fsync(dfd) < 0)
		r = -errno;
	return r;
}

int report_dir_write(const char *dir, struct history *h, struct json_object *doc, const char *json_name)
{
	_cleanup_free_ char *tmp = temp_sibling(dir);
	int r;

	if (!tmp)
		return errno ? -errno : -ENOMEM;
	r = fill(tmp, h, doc, json_name);
	if (r >= 0 && rename(tmp, dir) < 0)
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	if (r < 0)
		(void)nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}

int report_dir_write_page(const char *dir, const char *html, struct json_object *doc, const char *json_name)
{
	_cleanup_free_ char *json = NULL;
	_cleanup_close_ int dfd = -1;
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = dir_is_empty(dir);
	if (r <= 0)
		return r < 0 ? r : -ENOTEMPTY;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	json = strprintf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!json)
		return -ENOMEM;
	r = write_file_at(dfd, "report.html", html);
	if (r == 0)
		r = write_file_at(dfd, json_name, json);
	return r;
}

int report_dir_write_hosts(const char *dir, struct json_object *doc)
{
	_cleanup_free_ char *html = NULL;
	int r = report_hosts_html(doc, &html);

	return r < 0 ? r : report_dir_write_page(dir, html, doc, "hosts.json");
}
