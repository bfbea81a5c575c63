/* bundle.c: the bundle `export` writes for one run: README.md (what each
 * file is and how to reproduce the round), run.json, command.txt, the
 * applied profile and the run's artifacts, in a new or empty directory.
 *
 * Owns: the bundle's layout (what fleet.c and report --hosts read back).
 * Must never: write to the history, or write outside the directory it is
 * given; the TaoToken key is never in a bundle. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "base/version.h"
#include "store/history.h"
#include "store/runs.h"

static const char *bundle_time(int64_t usec, char buf[static 32])
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec <= 0 || !localtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return "-";
	return buf;
}

/* What the known artifacts are, for the bundle's README. */
static const struct {
	const char *name;
	const char *what;
} artifact_descriptions[] = {
    {"command", "the exact command line(s) run"},
    {"runner_output", "the benchmark tool's raw output"},
    {"ethtool_i", "driver and firmware facts (`ethtool -i`)"},
    {"counters_before", "NIC drop counters before the run"},
    {"counters_after", "NIC drop counters after the run"},
    {"interrupts_before", "/proc/interrupts before the run"},
    {"interrupts_after", "/proc/interrupts after the run"},
    {"proc_stat_before", "/proc/stat before the run (softirq load)"},
    {"proc_stat_after", "/proc/stat after the run"},
    {"irq_map", "the IRQ -> CPU map during the run"},
    {"profile", "the effective profile verified"},
    {"verify_summary", "the verification report"},
    {"peer_state.json", "the benchmark peer's state and its changes over the run (`cx5prof serve`)"},
    {"loss_ledger", "where the lost datagrams went, stage by stage on both hosts, and the bottleneck"},
    {"host_tuning", "socket sysctls, irqbalance and the benchmark's CPUs during the run"},
    {"host_facts.json", "the host: its name, kernel, NIC model, PCI address, NUMA node and local CPUs"},
    {"analysis.json", "the model's bottleneck analysis (`cx5prof analyze`)"},
};

static const char *artifact_description(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(artifact_descriptions); i++)
		if (streq(artifact_descriptions[i].name, name))
			return artifact_descriptions[i].what;
	return NULL;
}

static char *export_readme(const struct run_record *run, bool has_profile)
{
	char tb[32], loss[32] = "n/a (nothing sent)";
	_cleanup_free_ char *files = NULL;
	size_t fl = 0;
	FILE *f = open_memstream(&files, &fl);
	char *s;

	if (!f)
		return NULL;
	if (isfinite(run->loss_pct))
		snprintf(loss, sizeof(loss), "%.2f%%", run->loss_pct);
	fprintf(f,
		"- `run.json`: the round: parameters and results (schemas/history.schema.json, \"run\").\n");
	fprintf(f, "- `command.txt`: the exact benchmark command line.\n");
	if (has_profile)
		fprintf(f, "- `profile.json`: the effective profile the transaction applied.\n");
	for (size_t i = 0; i < run->n_artifacts; i++) {
		const char *what = artifact_description(run->artifacts[i].name);

		fprintf(f, "- `artifacts/%s`%s%s\n", run->artifacts[i].name, what ? ": " : "",
			what ? what : "");
	}
	if (fclose(f) != 0)
		return NULL;
	s = strprintf("# cx5prof run %" PRId64 "\n\n"
		      "Exported by cx5prof " CX5PROF_VERSION
		      ". Recorded %s, runner %s%s%s, interface %s, peer %s.\n"
		      "Result: %.1f Mbps received, loss %s, %s.\n\n"
		      "## Files\n\n%s\n"
		      "## Reproduce\n\n"
		      "1. Put the host in the same state: `cx5prof apply profile.json` (JSON is valid\n"
		      "   YAML) when the bundle has it, and compare `artifacts/` with `cx5prof show`.\n"
		      "2. Run the command in `command.txt` against the same peer.\n"
		      "3. Compare with this round: `cx5prof compare %" PRId64 " NEW_RUN` on the original\n"
		      "   history database, or by hand with `run.json`.\n\n"
		      "This bundle holds no credentials: the TaoToken API key is never stored in the\n"
		      "history database or exported.\n",
		      run->id, bundle_time(run->started_usec, tb), strna(run->runner),
		      run->profile ? ", profile " : "", run->profile ? run->profile : "", strna(run->ifname),
		      strna(run->peer), run->recv_mbps, loss, run_record_outcome_label(run), files, run->id);
	return s;
}

int bundle_export(struct history *h, const struct run_record *run, const char *dir)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	_cleanup_close_ int dfd = -1, afd = -1;
	_cleanup_free_ char *readme = NULL, *json = NULL;
	struct json_object *j;
	bool has_profile = false;
	int r;

	if (run->transaction_id) {
		r = history_txn_get(h, run->transaction_id, &t);
		if (r < 0 && r != -ENOENT)
			return r;
		has_profile = r >= 0 && t.profile_json;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = dir_is_empty(dir);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOTEMPTY;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	j = run_record_to_json(run, false);
	if (!j)
		return -ENOMEM;
	json = strprintf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
								       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	readme = export_readme(run, has_profile);
	if (!json || !readme)
		return -ENOMEM;
	r = write_file_at(dfd, "README.md", readme);
	if (r >= 0)
		r = write_file_at(dfd, "run.json", json);
	if (r >= 0) {
		_cleanup_free_ char *cmd = strprintf("%s\n", strna(run->command_line));
		r = cmd ? write_file_at(dfd, "command.txt", cmd) : -ENOMEM;
	}
	if (r >= 0 && has_profile)
		r = write_file_at(dfd, "profile.json", t.profile_json);
	if (r < 0)
		return r;
	if (mkdirat(dfd, "artifacts", 0755) < 0)
		return -errno;
	afd = openat(dfd, "artifacts", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (afd < 0)
		return -errno;
	for (size_t i = 0; i < run->n_artifacts; i++) {
		/* Names were validated when recorded: [a-z0-9_.-], no leading dot. */
		if (!run_artifact_name_valid(run->artifacts[i].name))
			continue;
		r = write_file_at(afd, run->artifacts[i].name, run->artifacts[i].content);
		if (r < 0)
			return r;
	}
	return fsync(dfd) < 0 ? -errno : 0;
}
