/* snapshot.c: copy what a probe reads into a directory, and read it back
 * as a host (see snapshot.h). */
#define _GNU_SOURCE
#include "snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "base/version.h"
#include "governor.h"
#include "linkfacts.h"
#include "nicfacts.h"
#include "pcicfg.h"
#include "probe.h"
#include "sysroot.h"
#include "topology.h"
#include "txqueues.h"

/* A chain of links longer than this is a loop (the kernel's own limit). */
#define SNAPSHOT_MAX_LINKS 40

static bool loaded;

bool snapshot_active(void)
{
	return loaded;
}

/* ---- what a probe reads ---- */

struct access {
	char *path;
	enum sysroot_access what;
};

struct recording {
	struct access *v;
	size_t n;
	int r; /* -ENOMEM once an access could not be kept */
};

static void record(const char *path, enum sysroot_access what, void *userdata)
{
	struct recording *rec = userdata;
	struct access *v;

	if (rec->r < 0)
		return;
	v = realloc(rec->v, (rec->n + 1) * sizeof(*v));
	if (!v) {
		rec->r = -ENOMEM;
		return;
	}
	rec->v = v;
	v[rec->n].path = strdup(path);
	v[rec->n].what = what;
	if (!v[rec->n].path)
		rec->r = -ENOMEM;
	else
		rec->n++;
}

static int cmp_access(const void *a, const void *b)
{
	const struct access *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (int)x->what - (int)y->what;
}

static void recording_done(struct recording *rec)
{
	for (size_t i = 0; i < rec->n; i++)
		free(rec->v[i].path);
	free(rec->v);
}

/* The record of the links a probe found (present in the kernel), with
 * the per-port facts it read of each. */
static int record_links(const struct host_state *h, const struct probe_fact *const *facts, size_t n_facts,
			struct link_facts **ret, size_t *ret_n)
{
	struct link_facts *v = calloc(h->n_ifaces + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_ifaces; i++) {
		const struct iface_state *s = &h->ifaces[i];
		struct link_facts *l;

		if (!s->present)
			continue;
		l = &v[n++];
		*l = (struct link_facts){.link = s->link,
					 .drvinfo_r = s->drvinfo_r,
					 .drvinfo = s->drvinfo,
					 .ethlink_r = s->ethlink_r,
					 .ethlink = s->ethlink};
		l->facts = calloc(n_facts + 1, sizeof(*l->facts));
		if (!l->facts)
			goto oom;
		for (size_t k = 0; k < n_facts && k < s->n_facts; k++) {
			const struct iface_fact *f = &s->facts[k];
			struct recorded_fact *rf;

			if (!facts[k])
				continue; /* a kind that reads no per-port fact */
			rf = &l->facts[l->n_facts++];
			*rf = (struct recorded_fact){
			    .layout = facts[k]->layout, .r = f->r, .size = facts[k]->size};
			if (!(rf->kind = strdup(facts[k]->name)))
				goto oom;
			if (f->r == 0 && f->value) {
				rf->value = malloc(rf->size);
				if (!rf->value)
					goto oom;
				memcpy(rf->value, f->value, rf->size);
			}
			if (f->kmsg && !(rf->kmsg = strdup(f->kmsg)))
				goto oom;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
oom:
	linkfacts_free(v, n);
	return -ENOMEM;
}

/* Each online CPU's frequency governor and those it offers. */
static void read_governors(const struct topology *t)
{
	CPUSET_FOREACH(cpu, &t->online)
	{
		_cleanup_free_ char *g = NULL;
		_cleanup_strv_free_ char **avail = NULL;

		(void)governor_read((unsigned)cpu, &g);
		(void)governor_available((unsigned)cpu, &avail);
	}
}

/* Everything show, plan and doctor read of the host through the sysroot:
 * the probe (with the IRQs' details and the callers' per-port facts, and
 * the ethtool texts of a sysroot that has them, ethsysroot.h), the CPU
 * topology and governors, each port's driver and link facts, transmit
 * queues and PCI config space; and the record of the links. */
static int probe_everything(struct recording *rec, const struct probe_facts *facts,
			    struct link_facts **ret_links, size_t *ret_n)
{
	_cleanup_host_state_ struct host_state *h = NULL;
	_cleanup_topology_ struct topology *t = NULL;
	int r;

	sysroot_observe(record, rec);
	r = probe_host(NULL, PROBE_IRQ_DETAILS, facts, &h);
	if (r >= 0 && topology_read(&t) == -ENOMEM)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && h && i < h->n_ifaces; i++) {
		_cleanup_free_ char *version = NULL, *release = NULL, *duplex = NULL;
		uint64_t speed;
		bool ofed;

		_cleanup_(xps_state_done) struct xps_state x = {0};
		unsigned mrrs;

		(void)nicfacts_driver_version(&h->ifaces[i], &version);
		(void)nicfacts_driver_release(&h->ifaces[i], &ofed, &release);
		(void)nicfacts_link(&h->ifaces[i], &speed, &duplex);
		(void)xps_read(h->ifaces[i].name, &x);
		if (h->ifaces[i].has_nic && h->ifaces[i].nic.pci_bdf)
			(void)pcicfg_read_max_read_request(h->ifaces[i].nic.pci_bdf, &mrrs);
	}
	if (t)
		read_governors(t);
	sysroot_observe(NULL, NULL);
	if (r >= 0)
		r = rec->r;
	if (r < 0)
		return r;
	qsort(rec->v, rec->n, sizeof(*rec->v), cmp_access);
	return record_links(h, facts ? facts->port : NULL, facts ? facts->n_port : 0, ret_links, ret_n);
}

/* ---- what a snapshot may hold ---- */

static const char *const copied_trees[] = {
    "/proc/", "/sys/", "/etc/default/", "/etc/sysconfig/", "/etc/systemd/system/", "/ethtool/"};

/* Names that may hold a secret wherever they are: a process's environment,
 * command line and memory, the kernel's keyrings and memory. */
static const char *const secret_names[] = {
    "environ", "cmdline",   "auxv",  "mem",  "maps", "smaps",	  "smaps_rollup", "pagemap", "fd",
    "fdinfo",  "map_files", "kcore", "kmem", "keys", "key-users", "ssh",	  "shadow",  "gshadow"};

static bool secret_component(const char *path)
{
	for (const char *c = path; c && *c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");

		for (size_t i = 0; i < ARRAY_SIZE(secret_names); i++)
			if (strlen(secret_names[i]) == n && strncmp(c + 1, secret_names[i], n) == 0)
				return true;
	}
	return false;
}

/* NULL when path may be copied, else why not. */
static const char *not_copied(const char *path)
{
	bool in_tree = false;

	for (size_t i = 0; i < ARRAY_SIZE(copied_trees); i++) {
		size_t n = strlen(copied_trees[i]);

		in_tree = in_tree || strncmp(path, copied_trees[i], n) == 0 ||
			  (strncmp(path, copied_trees[i], n - 1) == 0 && path[n - 1] == '\0');
	}
	if (!in_tree)
		return "not copied: outside /proc, /sys and the irqbalance configuration";
	if (secret_component(path))
		return "not copied: it may hold secrets";
	return NULL;
}

/* ---- the copy ---- */

struct copier {
	int dfd; /* the snapshot's directory */
	size_t files;
	struct json_object *unreadable;
};

static void note(struct copier *c, const char *path, const char *why)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "error", json_object_new_string(why));
	json_object_array_add(c->unreadable, o);
}

/* "/a/b/../c/./d" -> "/a/c/d" in place; ".." above the root stays there,
 * as the kernel resolves it. */
static void normalize(char *path)
{
	char *out = path, *p = path;

	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out > path && *--out != '/')
				;
			p += n;
			continue;
		}
		*out++ = '/';
		memmove(out, p, n);
		out += n;
		p += n;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

static int make_dir(struct copier *c, const char *path)
{
	return mkdirat(c->dfd, path + 1, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int make_link(struct copier *c, const char *path, const char *target)
{
	return symlinkat(target, c->dfd, path + 1) < 0 && errno != EEXIST ? -errno : 0;
}

/* An empty file where the host has a node that was only looked at. */
static int make_node(struct copier *c, const char *path, mode_t mode)
{
	int fd = openat(c->dfd, path + 1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 0;
}

static int copy_contents(struct copier *c, const char *path, mode_t mode)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0, done = 0;
	int r;

	r = sysroot_read_all(path, &buf, &len);
	if (r < 0)
		return r;
	fd = openat(c->dfd, path + 1, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		done += (size_t)w;
	}
	c->files++;
	return 0;
}

/* A directory's entries as the host has them: links as links, directories
 * empty, files empty (the reads that follow fill those a probe reads). */
static int copy_entries(struct copier *c, const char *path)
{
	_cleanup_strv_free_ char **names = NULL;
	int r;

	r = sysroot_listdir(path, &names);
	if (r < 0)
		return r;
	for (char **e = names; *e; e++) {
		_cleanup_free_ char *p = strprintf("%s/%s", streq(path, "/") ? "" : path, *e), *target = NULL;
		struct stat st;

		if (!p)
			return -ENOMEM;
		if (not_copied(p) || sysroot_stat(p, false, &st) < 0)
			continue; /* not copied, or gone meanwhile */
		if (S_ISLNK(st.st_mode))
			r = sysroot_readlink(p, &target) < 0 ? 0 : make_link(c, p, target);
		else if (S_ISDIR(st.st_mode))
			r = make_dir(c, p);
		else
			r = make_node(c, p, (st.st_mode & 0777) | 0400);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Copy path as the host resolves it: each link on the way made again as a
 * link, with what it points to, so that the snapshot resolves it alike.
 * A link to an absolute path is kept as it is and not followed: a sysroot
 * never leads out of itself either. */
static int copy_path(struct copier *c, const char *path, enum sysroot_access what, int depth)
{
	char done[PATH_MAX] = "", cur[PATH_MAX];
	const char *p = path;
	struct stat st = {.st_mode = S_IFDIR};
	int r;

	while (*p) {
		size_t n;
		bool last;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		last = p[n + strspn(p + n, "/")] == '\0';
		if ((size_t)snprintf(cur, sizeof(cur), "%s/%.*s", done, (int)n, p) >= sizeof(cur))
			return -ENAMETOOLONG;
		p += n;
		if (secret_component(cur))
			return -EPERM;
		r = sysroot_stat(cur, false, &st);
		if (r < 0)
			return r;
		if (S_ISLNK(st.st_mode)) {
			_cleanup_free_ char *target = NULL, *next = NULL;

			r = sysroot_readlink(cur, &target);
			if (r < 0)
				return r;
			r = make_link(c, cur, target);
			if (r < 0 || (last && what == SYSROOT_LINK) || target[0] == '/')
				return r;
			if (depth >= SNAPSHOT_MAX_LINKS)
				return -ELOOP;
			next = strprintf("%s/../%s/%s", cur, target, p);
			if (!next)
				return -ENOMEM;
			normalize(next);
			return copy_path(c, next, what, depth + 1);
		}
		if (S_ISDIR(st.st_mode))
			r = make_dir(c, cur);
		else if (!last)
			return -ENOTDIR;
		if (r < 0)
			return r;
		memcpy(done, cur, strlen(cur) + 1);
	}
	if (not_copied(done))
		return -EPERM;
	if (!done[0] || S_ISDIR(st.st_mode))
		return what == SYSROOT_LIST && done[0] ? copy_entries(c, done) : 0;
	if (what == SYSROOT_READ)
		return copy_contents(c, done, (st.st_mode & 0777) | 0400);
	return make_node(c, done, (st.st_mode & 0777) | 0400);
}

static void copy_one(struct copier *c, const struct access *a)
{
	const char *why = not_copied(a->path);
	int r;

	if (why) {
		note(c, a->path, why);
		return;
	}
	r = copy_path(c, a->path, a->what, 0);
	/* Missing on the host is missing in the snapshot: the same answer. */
	if (r == -ENOENT)
		return;
	if (r == -EPERM)
		note(c, a->path,
		     "not copied: it leads to a file that may hold secrets or lies outside /proc and /sys");
	else if (r < 0)
		note(c, a->path, sysroot_strerror(r));
}

/* ---- the marker ---- */

static int write_marker(int dfd, struct json_object *links, const struct snapshot_summary *s)
{
	_cleanup_free_ char *host = NULL;
	struct json_object *o = json_object_new_object();
	struct timespec now;
	const char *text;
	int fd, r = 0;

	if (!o)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &now);
	(void)sysroot_read_line("/proc/sys/kernel/hostname", &host);
	json_object_object_add(o, "format", json_object_new_string(SNAPSHOT_FORMAT));
	json_object_object_add(o, "version", json_object_new_int(SNAPSHOT_VERSION));
	json_object_object_add(o, "cx5prof_version", json_object_new_string(CX5PROF_VERSION));
	json_object_object_add(o, "created_usec",
			       json_object_new_int64((int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000));
	json_object_object_add(o, "host", host ? json_object_new_string(host) : NULL);
	json_object_object_add(o, "source", json_object_new_string(sysroot_get()));
	/* The links are the ports the files describe (not a lab's veths
	 * beside a copy of another host's files). */
	json_object_object_add(o, "of_live_host", json_object_new_boolean(linkfacts_of_this_host()));
	json_object_object_add(o, "files", json_object_new_int64((int64_t)s->files));
	json_object_object_add(o, "links", json_object_get(links));
	json_object_object_add(o, "unreadable", json_object_get(s->unreadable));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	fd = openat(dfd, SNAPSHOT_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		r = -errno;
	else {
		size_t len = strlen(text);
		if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) < 0)
			r = errno ? -errno : -EIO;
		close(fd);
	}
	json_object_put(o);
	return r;
}

static int open_empty_dir(const char *dir)
{
	_cleanup_close_ int dfd = -1;
	DIR *d;
	struct dirent *de;
	int fd, n = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = dup(dfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
			n++;
	closedir(d);
	if (n)
		return -ENOTEMPTY;
	return TAKE_FD(dfd);
}

int snapshot_take(const char *dir, const struct probe_facts *facts, struct snapshot_summary *ret)
{
	_cleanup_(recording_done) struct recording rec = {0};
	_cleanup_close_ int dfd = -1;
	struct copier c = {.dfd = -1};
	struct link_facts *links = NULL;
	struct json_object *links_json;
	size_t n_links = 0;
	int r;

	dfd = open_empty_dir(dir);
	if (dfd < 0)
		return dfd;
	r = probe_everything(&rec, facts, &links, &n_links);
	if (r < 0)
		return r;
	links_json = linkfacts_to_json(links, n_links);
	linkfacts_free(links, n_links);
	c = (struct copier){.dfd = dfd, .unreadable = json_object_new_array()};
	if (!links_json || !c.unreadable) {
		json_object_put(links_json);
		json_object_put(c.unreadable);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rec.n; i++)
		if (i == 0 || cmp_access(&rec.v[i - 1], &rec.v[i]) != 0)
			copy_one(&c, &rec.v[i]);
	*ret = (struct snapshot_summary){.files = c.files, .links = n_links, .unreadable = c.unreadable};
	r = write_marker(dfd, links_json, ret);
	json_object_put(links_json);
	if (r == 0 && fsync(dfd) < 0)
		r = -errno;
	if (r < 0) {
		json_object_put(ret->unreadable);
		ret->unreadable = NULL;
	}
	return r;
}

/* ---- reading one back ---- */

static const struct probe_fact *find_fact(const struct probe_fact *const *facts, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (facts[k] && streq(facts[k]->name, name))
			return facts[k];
	return NULL;
}

/* Recorded fact j of link i is one the reader knows, of its layout and
 * size, and recorded once: 0; else -EINVAL and *ret_why says what and what
 * to do (a record by another cx5prof is never read as this one's). */
static int check_fact(const struct link_facts *links, size_t i, size_t j,
		      const struct probe_fact *const *facts, size_t n_facts, char **ret_why)
{
	const struct recorded_fact *rf = &links[i].facts[j];
	const struct probe_fact *q = find_fact(facts, n_facts, rf->kind);

	if (!q)
		*ret_why = strprintf("%s: links[%zu].facts[%zu]: kind %s is not one this cx5prof (%s) reads: "
				     "take the snapshot again with this cx5prof",
				     SNAPSHOT_MARKER, i, j, rf->kind, CX5PROF_VERSION);
	else if (q->layout != rf->layout || q->size != rf->size)
		*ret_why =
		    strprintf("%s: links[%zu].facts[%zu]: kind %s was recorded in layout %u of %zu bytes, "
			      "this cx5prof (%s) reads layout %u of %zu bytes: take the snapshot again "
			      "with this cx5prof",
			      SNAPSHOT_MARKER, i, j, rf->kind, rf->layout, rf->size, CX5PROF_VERSION,
			      q->layout, q->size);
	else {
		_cleanup_free_ char *what = NULL;
		int r;

		for (size_t k = 0; k < j; k++)
			if (streq(links[i].facts[k].kind, rf->kind)) {
				*ret_why = strprintf("%s: links[%zu].facts[%zu]: kind %s is recorded twice",
						     SNAPSHOT_MARKER, i, j, rf->kind);
				return *ret_why ? -EINVAL : -ENOMEM;
			}
		/* A recording that ran out of memory writes no snapshot: a
		 * recorded -ENOMEM is no fact of the host (and must not
		 * read as this process's own failure). */
		if (rf->r == -ENOMEM) {
			*ret_why =
			    strprintf("%s: links[%zu].facts[%zu]: kind %s: result %d (%s) is a failure "
				      "of the recording, not a fact of the host: not a record cx5prof "
				      "writes (a damaged or edited snapshot): take the snapshot again",
				      SNAPSHOT_MARKER, i, j, rf->kind, rf->r, strerror(-rf->r));
			return *ret_why ? -EINVAL : -ENOMEM;
		}
		/* The kind's own check, field by field, before any reader
		 * trusts a count or a string of the buffer. */
		if (rf->r < 0 || !rf->value || !q->check)
			return 0;
		r = q->check(rf->value, &what);
		if (r != -EINVAL)
			return r;
		*ret_why = strprintf("%s: links[%zu].facts[%zu]: kind %s: %s: not a record cx5prof writes "
				     "(a damaged or edited snapshot): take the snapshot again",
				     SNAPSHOT_MARKER, i, j, rf->kind, what);
	}
	return *ret_why ? -EINVAL : -ENOMEM;
}

/* Each link once: the kernel has one link of a name and of an ifindex,
 * and a second record of it would show the port twice. */
static int check_link(const struct link_facts *links, size_t i, char **ret_why)
{
	const struct link_info *l = &links[i].link;

	for (size_t k = 0; k < i; k++)
		if (streq(links[k].link.name, l->name) || links[k].link.ifindex == l->ifindex) {
			*ret_why =
			    strprintf("%s: links[%zu]: %s (ifindex %d) is recorded twice (links[%zu] is "
				      "%s, ifindex %d): not a record cx5prof writes (a damaged or edited "
				      "snapshot): take the snapshot again",
				      SNAPSHOT_MARKER, i, l->name, l->ifindex, k, links[k].link.name,
				      links[k].link.ifindex);
			return *ret_why ? -EINVAL : -ENOMEM;
		}
	return 0;
}

int snapshot_check_links(const struct link_facts *links, size_t n, const struct probe_fact *const *facts,
			 size_t n_facts, char **ret_why)
{
	*ret_why = NULL;
	for (size_t i = 0; i < n; i++) {
		int r = check_link(links, i, ret_why);

		for (size_t j = 0; r == 0 && j < links[i].n_facts; j++)
			r = check_fact(links, i, j, facts, n_facts, ret_why);
		if (r < 0)
			return r;
	}
	return 0;
}

int snapshot_load(const struct probe_fact *const *facts, size_t n_facts, char **ret_why)
{
	_cleanup_free_ char *text = NULL;
	struct json_object *o, *v;
	struct link_facts *links = NULL;
	size_t n = 0;
	char *field = NULL;
	bool of_live_host;
	int r;

	*ret_why = NULL;
	if (sysroot_is_live())
		return 0;
	r = sysroot_read_all("/" SNAPSHOT_MARKER, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		*ret_why = strprintf("%s: %s", SNAPSHOT_MARKER, sysroot_strerror(r));
		return r;
	}
	o = json_tokener_parse(text);
	if (!o || !json_object_object_get_ex(o, "format", &v) || !json_object_is_type(v, json_type_string) ||
	    !streq(json_object_get_string(v), SNAPSHOT_FORMAT)) {
		json_object_put(o);
		*ret_why = strprintf("%s: not a cx5prof snapshot (format)", SNAPSHOT_MARKER);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != SNAPSHOT_VERSION) {
		json_object_put(o);
		*ret_why = strprintf("%s: version: this cx5prof (%s) reads snapshots of version %d: take "
				     "the snapshot again with this cx5prof",
				     SNAPSHOT_MARKER, CX5PROF_VERSION, SNAPSHOT_VERSION);
		return -EINVAL;
	}
	of_live_host = json_object_object_get_ex(o, "of_live_host", &v) &&
		       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
	json_object_object_get_ex(o, "links", &v);
	r = linkfacts_from_json(v, &links, &n, &field);
	json_object_put(o);
	if (r < 0) {
		*ret_why =
		    strprintf("%s: %s: missing or not valid", SNAPSHOT_MARKER, field ? field : "links");
		free(field);
		return r;
	}
	r = snapshot_check_links(links, n, facts, n_facts, ret_why);
	if (r < 0) {
		linkfacts_free(links, n);
		return r;
	}
	linkfacts_use(links, n, of_live_host);
	sysroot_set_read_only(true);
	loaded = true;
	return 1;
}
