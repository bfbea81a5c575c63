/* fuzz_profile.c: the profile loader (engine/profile.h), YAML bytes ->
 * profile or error.
 *
 * The input is loaded as "<parents>/fuzz.yaml", so a relative `extends`
 * resolves inside tests/fuzz/parents/ (a valid parent, a parent that is
 * itself invalid, a self-cycle, a two-file cycle): the chain code is
 * fuzzed without touching anything else. To keep the harness off the host,
 * inputs whose top-level `extends` is absolute or climbs out with ".." are
 * skipped (the loader would read any file, or block on a FIFO or a tty).
 * Contract checked: 0 with name and version set, a JSON form and a hash;
 * or -EINVAL/-ENOENT/-ENOMEM with an error whose message is non-empty and
 * whose position is inside the input. */
#define _GNU_SOURCE
#include <errno.h>

#include "base/yamltree.h"
#include "fuzz.h"
#include "profile.h"

#ifndef FUZZ_PARENTS_DIR
#error "build with -DFUZZ_PARENTS_DIR=\"/abs/path/tests/fuzz/parents\""
#endif
#define FUZZ_NAME FUZZ_PARENTS_DIR "/fuzz.yaml"

/* Would loading this input read a file outside FUZZ_PARENTS_DIR? */
static int reaches_outside(const char *data, size_t size)
{
	_cleanup_ynode_ struct ynode *root = NULL;
	struct ytree_error e;

	if (!memmem(data, size, "extends", 7))
		return 0;
	if (ytree_parse(data, size, &root, &e) < 0 || !root || root->kind != YNODE_MAPPING)
		return 0;
	for (size_t i = 0; i + 1 < root->n_items; i += 2) {
		const struct ynode *k = root->items[i], *v = root->items[i + 1];
		if (k->kind != YNODE_SCALAR || !streq(k->value, "extends") || v->kind != YNODE_SCALAR)
			continue;
		if (v->value[0] == '/' || strstr(v->value, ".."))
			return 1;
	}
	return 0;
}

/* Lines as YAML (and libyaml's marks) count them: "\r\n", "\r", "\n", and
 * the UTF-8 NEL, LS and PS characters each end one. */
static unsigned count_lines(const char *data, size_t size)
{
	const unsigned char *s = (const unsigned char *)data;
	unsigned n = 1;

	for (size_t i = 0; i < size; i++) {
		if (s[i] == '\r' && i + 1 < size && s[i + 1] == '\n')
			i++;
		if (s[i] == '\n' || s[i] == '\r')
			n++;
		else if (s[i] == 0xc2 && i + 1 < size && s[i + 1] == 0x85)
			n++;
		else if (s[i] == 0xe2 && i + 2 < size && s[i + 1] == 0x80 &&
			 (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
			n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_profile_ struct profile *p = NULL;
	_cleanup_free_ char *line = NULL, *hash = NULL;
	struct profile_error err;
	struct json_object *j = NULL;
	int r;

	if (reaches_outside((const char *)data, size))
		return 0;
	memset(&err, 0xa5, sizeof(err));
	r = profile_load_string((const char *)data, size, FUZZ_NAME, &p, &err);
	if (r < 0) {
		fuzz_check(r == -EINVAL || r == -ENOENT || r == -ENOMEM);
		fuzz_check(p == NULL);
		fuzz_check(memchr(err.file, '\0', sizeof(err.file)) &&
			   memchr(err.message, '\0', sizeof(err.message)));
		fuzz_check(err.message[0] != '\0');
		/* A position in the input itself is inside it, or just past
		 * its end (libyaml's "unexpected end" marks); parents have their
		 * own file name. */
		if (streq(err.file, FUZZ_NAME) && err.line > 0)
			fuzz_check(err.line <= count_lines((const char *)data, size) + 1 && err.column > 0);
		line = profile_error_format(&err);
		fuzz_check(line != NULL);
		fuzz_check(profile_load_exit_code(r) != 0);
		return 0;
	}
	fuzz_check(r == 0 && p);
	fuzz_check(p->name.set && p->name.value && p->version.set &&
		   p->version.value == PROFILE_FORMAT_VERSION);
	fuzz_check(p->files && p->files[0] && streq(p->files[0], FUZZ_NAME));
	fuzz_check(profile_to_json(p, &j) == 0);
	json_object_put(j);
	fuzz_check(profile_hash(p, &hash) == 0 && strlen(hash) == 64);
	(void)profile_match(p, "eth0", 0x15b3, 0x1017);
	(void)profile_match(p, NULL, 0, 0);
	return 0;
}
