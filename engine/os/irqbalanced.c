/* irqbalanced.c: irqbalance detection and the stop/ban/leave actions (see
 * irqbalanced.h for the design and its limits).
 *
 * Owns: the process scan, irqbalance.service's state and control (through
 * service.h), the IRQBALANCE_ARGS line of irqbalance's config file, and the
 * undo records (JSON strings) of its actions. Must never: kill a process,
 * or touch any other line of the config file. */
#define _GNU_SOURCE
#include "irqbalanced.h"

#include <ctype.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "procscan.h"
#include "service.h"
#include "sysroot.h"

static const char *const action_names[_IRQBALANCE_ACTION_MAX] = {
    [IRQBALANCE_LEAVE] = "leave",
    [IRQBALANCE_STOP] = "stop",
    [IRQBALANCE_BAN] = "ban",
};

const char *irqbalance_action_to_string(enum irqbalance_action a)
{
	return a < _IRQBALANCE_ACTION_MAX ? action_names[a] : NULL;
}

int irqbalance_action_from_string(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(action_names); i++)
		if (streq(s, action_names[i]))
			return (int)i;
	return -EINVAL;
}

/* Debian/Ubuntu first, then RHEL/SUSE; both are EnvironmentFile= of the
 * distributions' irqbalance.service, which passes $IRQBALANCE_ARGS. */
static const char *const config_paths[] = {
    "/etc/default/irqbalance",
    "/etc/sysconfig/irqbalance",
};

void irqbalance_state_done(struct irqbalance_state *s)
{
	free(s->config_path);
	free(s->args);
	s->config_path = s->args = NULL;
}

static int service_do(const char *verb)
{
	return service_run(verb, IRQBALANCE_SERVICE, NULL, NULL);
}

/* A systemd enablement link for the service in /etc/systemd/system/
 * *.wants/ (what `systemctl enable` creates), through the sysroot. The
 * link itself counts (lstat): its absolute target is the host's path. */
static bool enabled_in_unit_files(void)
{
	_cleanup_strv_free_ char **dirs = NULL;

	if (sysroot_listdir("/etc/systemd/system", &dirs) < 0)
		return false;
	for (char **d = dirs; *d; d++) {
		_cleanup_free_ char *link = NULL, *full = NULL;
		size_t len = strlen(*d);
		struct stat st;

		if (len < 6 || !streq(*d + len - 6, ".wants"))
			continue;
		link = strprintf("/etc/systemd/system/%s/" IRQBALANCE_SERVICE, *d);
		if (!link || sysroot_path(link, &full) < 0 || lstat(full, &st) == 0)
			return true;
	}
	return false;
}

static const char *find_config(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_paths); i++)
		if (sysroot_exists(config_paths[i]))
			return config_paths[i];
	return NULL;
}

/* The IRQBALANCE_ARGS value in `text` (the last uncommented assignment,
 * quotes removed), *ret NULL when unset; the line's offsets in *ret_start /
 * *ret_end (end excludes the newline), both -1 when absent. */
static int parse_args(const char *text, char **ret, long *ret_start, long *ret_end)
{
	const char *p = text;
	char *val = NULL;
	long start = -1, end = -1;

	while (*p) {
		const char *eol = strchrnul(p, '\n'), *q = p;

		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (strncmp(q, "IRQBALANCE_ARGS=", 16) == 0) {
			const char *v = q + 16, *ve = eol;
			free(val);
			while (ve > v && isspace((unsigned char)ve[-1]))
				ve--;
			if (ve - v >= 2 && (*v == '"' || *v == '\'') && ve[-1] == *v) {
				v++;
				ve--;
			}
			val = strndup(v, (size_t)(ve - v));
			if (!val)
				return -ENOMEM;
			start = p - text;
			end = eol - text;
		}
		p = *eol ? eol + 1 : eol;
	}
	*ret = val;
	*ret_start = start;
	*ret_end = end;
	return 0;
}

int irqbalance_detect(struct irqbalance_state *ret)
{
	struct irqbalance_state s = {.enabled = -1, .active = -1};
	const char *cfg;
	int r;

	s.pid = procscan_find("irqbalance");
	s.running = s.pid > 0;
	if (service_command()) {
		s.enabled = service_is_enabled(IRQBALANCE_SERVICE);
		s.active = service_is_active(IRQBALANCE_SERVICE);
	} else {
		/* No service manager to ask (a sysroot without
		 * CX5PROF_SYSTEMCTL): an irqbalance the files prove off (no
		 * process, no enablement link) is off, so `stop` has nothing to
		 * do; anything else is unknown, as no one could change it. */
		bool off = !s.running && !enabled_in_unit_files();

		s.active = off ? 0 : -1;
		s.enabled = off ? 0 : -1;
	}
	cfg = find_config();
	if (cfg) {
		_cleanup_free_ char *text = NULL;
		long a, b;

		s.config_path = strdup(cfg);
		if (!s.config_path)
			return -ENOMEM;
		r = sysroot_read_all(cfg, &text, NULL);
		if (r >= 0)
			r = parse_args(text, &s.args, &a, &b);
		if (r < 0 && r != -ENOENT && r != -EACCES) {
			irqbalance_state_done(&s);
			return r;
		}
	}
	*ret = s;
	return 0;
}

static int undo_to_string(struct json_object *o, char **ret)
{
	/* no "\/": the record is stored and shown in the history */
	const char *s =
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *d = s ? strdup(s) : NULL;

	json_object_put(o);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

/* "pid 812 (/usr/sbin/irqbalance --foreground)": the process that
 * irqbalance_stop found still running, for the step's error. */
static char *describe_process(int pid)
{
	_cleanup_free_ char *path = strprintf("/proc/%d/cmdline", pid), *cmdline = NULL;
	size_t len = 0;

	if (path && sysroot_read_all(path, &cmdline, &len) >= 0 && len > 0) {
		for (size_t i = 0; i + 1 < len; i++)
			if (cmdline[i] == '\0')
				cmdline[i] = ' ';
		return strprintf("pid %d (%s)", pid, strstrip_trailing(cmdline));
	}
	return strprintf("pid %d", pid);
}

int irqbalance_stop(char **ret_undo, char **ret_why)
{
	struct json_object *undo;
	int active = service_is_active(IRQBALANCE_SERVICE);
	int enabled = service_is_enabled(IRQBALANCE_SERVICE);
	int pid, r, changed = 0;

	if (!service_command())
		return -EOPNOTSUPP;
	if (active != 0) {
		r = service_do("stop");
		if (r < 0)
			return r;
		if (r != 0)
			return -EIO;
		changed = 1;
	}
	if (enabled == 1) {
		r = service_do("disable");
		if (r < 0)
			return r;
		if (r != 0)
			return -EIO;
		changed = 1;
	}
	undo = json_object_new_object();
	if (!undo)
		return -ENOMEM;
	json_object_object_add(undo, "action", json_object_new_string("stop"));
	json_object_object_add(undo, "active", json_object_new_int(active));
	json_object_object_add(undo, "enabled", json_object_new_int(enabled));
	pid = procscan_find("irqbalance");
	if (pid > 0) {
		/* An irqbalance the service did not start: we do not kill it.
		 * Put the service back as it was and fail, naming it. */
		_cleanup_free_ char *proc = describe_process(pid);
		const char *s = json_object_to_json_string_ext(undo, JSON_C_TO_STRING_PLAIN);

		if (s)
			(void)irqbalance_restore(s);
		json_object_put(undo);
		if (ret_why)
			*ret_why = strprintf("irqbalance %s still runs after `%s stop " IRQBALANCE_SERVICE
					     "`: the service did not start it (or did not stop it), and "
					     "cx5prof kills no process; the service was put back as it "
					     "was: end %d by hand, or stop what started it, then apply again",
					     proc ? proc : "?", service_command(), pid);
		return -EBUSY;
	}
	r = undo_to_string(undo, ret_undo);
	return r < 0 ? r : changed;
}

/* Replace the file at host path `path` under the sysroot (write a sibling,
 * rename over); `content` NULL removes it. */
static int config_replace(const char *path, const char *content, mode_t mode)
{
	_cleanup_free_ char *full = NULL, *tmp = NULL;
	_cleanup_close_ int fd = -1;
	size_t len;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	/* a sysroot's /etc/default must not lead out of it */
	r = sysroot_confine(full);
	if (r == -ENOENT && !content)
		return 0; /* no directory, no file: already removed */
	if (r < 0)
		return r;
	if (!content)
		return unlink(full) < 0 && errno != ENOENT ? -errno : 0;
	tmp = strprintf("%s.cx5prof-new", full);
	if (!tmp)
		return -ENOMEM;
	/* O_EXCL: never write through a symlink planted at the temporary name */
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	len = strlen(content);
	/* fchmod: the mode as recorded, whatever the umask */
	if (fchmod(fd, mode) < 0 || write(fd, content, len) != (ssize_t)len || fsync(fd) < 0) {
		r = errno ? -errno : -EIO;
		unlink(tmp);
		return r;
	}
	if (close(TAKE_FD(fd)) < 0 || rename(tmp, full) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

/* Is `tok` (after `prev`) a ban: --banirq=N, --banirq N, -i N, -iN? */
static bool token_ban(const char *tok, const char *prev, unsigned *ret_irq)
{
	const char *num = NULL;
	uint32_t irq;

	if (strncmp(tok, "--banirq=", 9) == 0)
		num = tok + 9;
	else if (prev && (streq(prev, "--banirq") || streq(prev, "-i")))
		num = tok;
	else if (strncmp(tok, "-i", 2) == 0 && isdigit((unsigned char)tok[2]))
		num = tok + 2;
	if (!num || safe_atou32(num, &irq) < 0)
		return false;
	*ret_irq = irq;
	return true;
}

/* The IRQs banned by an IRQBALANCE_ARGS value, in the order written. */
static int args_banned(const char *args, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *copy = strdup(args ? args : "");
	_cleanup_free_ unsigned *v = NULL;
	char *save = NULL, *tok, *prev = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t", &save); tok; prev = tok, tok = strtok_r(NULL, " \t", &save)) {
		unsigned irq, *t;

		if (!token_ban(tok, prev, &irq))
			continue;
		t = realloc(v, (n + 1) * sizeof(*v));
		if (!t)
			return -ENOMEM;
		v = t;
		v[n++] = irq;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static bool args_ban(const char *args, unsigned irq)
{
	_cleanup_free_ unsigned *v = NULL;
	size_t n = 0;

	if (args_banned(args, &v, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] == irq)
			return true;
	return false;
}

static bool value_quotable(const char *v)
{
	return !v || !strpbrk(v, "\"$`\\\n");
}

/* Where a ban goes: the existing config file, else the one to create (the
 * first whose directory exists; -ENOENT when none does). *ret_text is its
 * content, NULL when it does not exist; *ret_mode its permissions. */
static int ban_target(const char **ret_path, char **ret_text, mode_t *ret_mode)
{
	_cleanup_free_ char *text = NULL;
	const char *path = find_config();
	mode_t mode = 0644;
	struct stat st;
	int r;

	if (path) {
		/* A symlinked config (managed elsewhere) would be replaced by a
		 * regular file: refuse rather than break the link. */
		if (sysroot_stat(path, false, &st) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
		r = sysroot_read_all(path, &text, NULL);
		if (r < 0)
			return r;
		if (sysroot_stat(path, true, &st) == 0)
			mode = st.st_mode & 07777;
	}
	/* else create it where the distribution's unit looks for it */
	for (size_t i = 0; i < ARRAY_SIZE(config_paths) && !path; i++) {
		_cleanup_free_ char *dir =
		    strndup(config_paths[i], (size_t)(strrchr(config_paths[i], '/') - config_paths[i]));
		if (!dir)
			return -ENOMEM;
		if (sysroot_exists(dir))
			path = config_paths[i];
	}
	if (!path)
		return -ENOENT;
	*ret_path = path;
	*ret_text = TAKE_PTR(text);
	*ret_mode = mode;
	return 0;
}

/* The undo record of a ban: the file's path, content (null: absent), mode. */
static int ban_record(const char *path, const char *text, mode_t mode, char **ret)
{
	struct json_object *undo = json_object_new_object();

	if (!undo)
		return -ENOMEM;
	json_object_object_add(undo, "action", json_object_new_string("ban"));
	json_object_object_add(undo, "path", json_object_new_string(path));
	json_object_object_add(undo, "content", text ? json_object_new_string(text) : NULL);
	json_object_object_add(undo, "mode", json_object_new_int((int)mode));
	return undo_to_string(undo, ret);
}

int irqbalance_ban_snapshot(char **ret_undo)
{
	_cleanup_free_ char *text = NULL, *args = NULL;
	const char *path;
	long start, end;
	mode_t mode;
	int r;

	r = ban_target(&path, &text, &mode);
	if (r < 0)
		return r;
	r = parse_args(text ? text : "", &args, &start, &end);
	if (r < 0)
		return r;
	if (!value_quotable(args))
		return -EINVAL; /* irqbalance_ban would refuse it */
	return ban_record(path, text, mode, ret_undo);
}

/* The file irqbalance_ban writes: `base` with its IRQBALANCE_ARGS line
 * (offsets start/end, -1 when absent) set to `args`, or a line added. */
static char *ban_content(const char *base, long start, long end, const char *args)
{
	if (start >= 0)
		return strprintf("%.*sIRQBALANCE_ARGS=\"%s\"%s", (int)start, base, args, base + end);
	return strprintf("%s%s# added by cx5prof: keep irqbalance off the NIC's pinned IRQs\n"
			 "IRQBALANCE_ARGS=\"%s\"\n",
			 base, *base && base[strlen(base) - 1] != '\n' ? "\n" : "", args);
}

/* Is `have` exactly what irqbalance_ban writes over `old` (NULL: no file
 * then) for some IRQs: the old value with only --banirq=N appended, every
 * other byte as before? 1 yes, 0 no. */
static int ban_wrote(const char *old, const char *have)
{
	_cleanup_free_ char *oldargs = NULL, *haveargs = NULL, *rest = NULL, *content = NULL;
	const char *base = old ? old : "";
	long start, end, hs, he;
	char *save = NULL;
	size_t len;
	int r;

	if ((r = parse_args(base, &oldargs, &start, &end)) < 0 ||
	    (r = parse_args(have, &haveargs, &hs, &he)) < 0)
		return r;
	len = oldargs ? strlen(oldargs) : 0;
	if (!haveargs || strncmp(haveargs, oldargs ? oldargs : "", len) != 0)
		return 0;
	rest = strdup(haveargs + len);
	if (!rest)
		return -ENOMEM;
	for (char *tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		uint32_t irq;
		if (strncmp(tok, "--banirq=", 9) != 0 || safe_atou32(tok + 9, &irq) < 0)
			return 0;
	}
	content = ban_content(base, start, end, haveargs);
	if (!content)
		return -ENOMEM;
	return streq(content, have);
}

int irqbalance_ban(const unsigned *irqs, size_t n, char **ret_undo)
{
	_cleanup_free_ char *text = NULL, *args = NULL, *newargs = NULL, *content = NULL, *undo = NULL;
	const char *path, *base;
	long start, end;
	mode_t mode;
	int r;

	r = ban_target(&path, &text, &mode);
	if (r < 0)
		return r;
	base = text ? text : "";
	r = parse_args(base, &args, &start, &end);
	if (r < 0)
		return r;
	if (!value_quotable(args))
		return -EINVAL; /* a value we could not write back faithfully */
	newargs = strdup(args ? args : "");
	if (!newargs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char *t;
		if (args_ban(newargs, irqs[i]))
			continue;
		t = strprintf("%s%s--banirq=%u", newargs, *newargs ? " " : "", irqs[i]);
		if (!t)
			return -ENOMEM;
		free(newargs);
		newargs = t;
	}
	r = ban_record(path, text, mode, &undo);
	if (r < 0)
		return r;
	if (streq(newargs, args ? args : "")) {
		*ret_undo = TAKE_PTR(undo);
		return 0;
	}
	content = ban_content(base, start, end, newargs);
	if (!content)
		return -ENOMEM;
	r = config_replace(path, content, mode);
	if (r < 0)
		return r;
	*ret_undo = TAKE_PTR(undo);
	/* Make a running irqbalance read the new arguments. A non-zero exit
	 * means it did not come back: a failure, not a detail. */
	if (service_command() && (r = service_do("try-restart")) != 0)
		return r < 0 ? r : -EIO;
	return 1;
}

/* The config file's text as the undo record `undo` describes it (NULL
 * record: as it is now). *ret NULL when there is (was) no file. */
static int config_text(const char *undo, char **ret)
{
	struct json_object *o, *v;
	const char *path;
	char *text = NULL;
	int r = 0;

	if (!undo) {
		path = find_config();
		r = path ? sysroot_read_all(path, &text, NULL) : 0;
		if (r < 0)
			return r;
		*ret = text;
		return 0;
	}
	o = json_tokener_parse(undo);
	if (!o || !json_object_object_get_ex(o, "path", &v))
		r = -EINVAL;
	else if (json_object_object_get_ex(o, "content", &v) && json_object_is_type(v, json_type_string) &&
		 !(text = strdup(json_object_get_string(v))))
		r = -ENOMEM;
	if (o)
		json_object_put(o);
	if (r < 0)
		return r;
	*ret = text;
	return 0;
}

int irqbalance_ban_list(const char *undo, unsigned **ret_irqs, size_t *ret_n)
{
	_cleanup_free_ char *text = NULL, *args = NULL;
	long start, end;
	int r;

	r = config_text(undo, &text);
	if (r < 0)
		return r;
	r = parse_args(text ? text : "", &args, &start, &end);
	if (r < 0)
		return r;
	return args_banned(args, ret_irqs, ret_n);
}

int irqbalance_ban_matches(const char *undo)
{
	_cleanup_free_ char *want = NULL, *have = NULL, *path = NULL;
	struct json_object *o, *v;
	int mode = -1, r;
	struct stat st;

	r = config_text(undo, &want);
	if (r < 0)
		return r;
	o = json_tokener_parse(undo);
	if (o && json_object_object_get_ex(o, "path", &v) && json_object_is_type(v, json_type_string))
		path = strdup(json_object_get_string(v));
	if (o && json_object_object_get_ex(o, "mode", &v))
		mode = json_object_get_int(v) & 07777;
	if (o)
		json_object_put(o);
	if (!path || (!streq(path, config_paths[0]) && !streq(path, config_paths[1])))
		return -EINVAL;
	if (!want)
		return !sysroot_exists(path);
	r = sysroot_read_all(path, &have, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (!streq(have, want))
		return 0;
	r = sysroot_stat(path, true, &st);
	if (r < 0)
		return r;
	return mode < 0 || (int)(st.st_mode & 07777) == mode;
}

/* May the ban's undo overwrite the config file now? Only when it is as
 * the record left it (`old`, NULL: absent) or exactly as irqbalance_ban
 * wrote it: anything else (edited since, replaced by a symlink, removed)
 * would be lost by writing back the old content. 0 yes, -ESTALE no. */
static int ban_restorable(const char *path, const char *old)
{
	_cleanup_free_ char *have = NULL;
	struct stat st;
	int r;

	r = sysroot_stat(path, false, &st);
	if (r == -ENOENT)
		return old ? -ESTALE : 0;
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return -ESTALE;
	r = sysroot_read_all(path, &have, NULL);
	if (r < 0)
		return r;
	if (old && streq(have, old))
		return 0;
	r = ban_wrote(old, have);
	if (r < 0)
		return r;
	return r ? 0 : -ESTALE;
}

static void json_putp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
}

int irqbalance_restore(const char *undo)
{
	_cleanup_(json_putp) struct json_object *o = NULL;
	struct json_object *v;
	const char *action;
	int r;

	o = json_tokener_parse(undo);
	if (!o || !json_object_object_get_ex(o, "action", &v) || !json_object_is_type(v, json_type_string))
		return -EINVAL;
	action = json_object_get_string(v);
	if (streq(action, "stop")) {
		int active, enabled;

		if (!json_object_object_get_ex(o, "active", &v))
			return -EINVAL;
		active = json_object_get_int(v);
		if (!json_object_object_get_ex(o, "enabled", &v))
			return -EINVAL;
		enabled = json_object_get_int(v);
		if (active != 1 && enabled != 1)
			return 0;
		if (!service_command())
			return -EOPNOTSUPP;
		if (enabled == 1 && (r = service_do("enable")) != 0)
			return r < 0 ? r : -EIO;
		if (active == 1 && (r = service_do("start")) != 0)
			return r < 0 ? r : -EIO;
		return 0;
	}
	if (streq(action, "ban")) {
		const char *path, *content = NULL;
		int mode = 0644;

		if (!json_object_object_get_ex(o, "path", &v) || !json_object_is_type(v, json_type_string))
			return -EINVAL;
		path = json_object_get_string(v);
		/* only the files this module edits */
		if (!streq(path, config_paths[0]) && !streq(path, config_paths[1]))
			return -EINVAL;
		if (json_object_object_get_ex(o, "content", &v) && json_object_is_type(v, json_type_string))
			content = json_object_get_string(v);
		if (json_object_object_get_ex(o, "mode", &v))
			mode = json_object_get_int(v) & 07777;
		r = ban_restorable(path, content);
		if (r < 0)
			return r;
		r = config_replace(path, content, (mode_t)mode);
		if (r < 0)
			return r;
		if (service_command() && (r = service_do("try-restart")) != 0)
			return r < 0 ? r : -EIO;
		return 0;
	}
	return -EINVAL;
}

char *irqbalance_ban_record_path(const char *undo)
{
	struct json_object *o = undo ? json_tokener_parse(undo) : NULL, *v;
	char *path = NULL;

	if (o && json_object_object_get_ex(o, "path", &v) && json_object_is_type(v, json_type_string))
		path = strdup(json_object_get_string(v));
	if (o)
		json_object_put(o);
	return path;
}
