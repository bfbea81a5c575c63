/* kinds/want.c: what a loaded profile wants of the kinds (kind_want,
 * kinds_key_at: kinds.h). Kept out of kinds.c, which profile.c's loader
 * uses through the table: this file reads struct profile, so the two do
 * not include each other. */
#include <errno.h>
#include <string.h>

#include "kinds.h"
#include "profile.h"

const void *kind_want(const struct profile *p, const struct change_kind *k)
{
	return p->kind_wants[change_kind_index(k)];
}

int kinds_key_at(const struct profile *p, const char *path, const struct profile_key **ret_key,
		 const void **ret_field)
{
	for (size_t i = 0; i < n_change_kinds; i++) {
		const struct change_kind *k = change_kinds[i];
		size_t n = k->profile_section ? strlen(k->profile_section) : 0;
		const char *rest = path;
		int r;

		if (!k->keys)
			continue;
		if (k->profile_section) {
			if (strncmp(path, k->profile_section, n) != 0 || path[n] != '.')
				continue;
			rest = path + n + 1;
		}
		r = keys_row_at(k->keys, rest, p->kind_wants[i], ret_key, ret_field);
		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

const void *kinds_key_value(const struct profile *p, const char *path, const struct profile_key **ret_key)
{
	const struct profile_key *k;
	const void *field;

	if (kinds_key_at(p, path, &k, &field) < 0)
		return NULL;
	if (ret_key)
		*ret_key = k;
	return field;
}

const struct profile_uint *kinds_key_uint(const struct profile *p, const char *path)
{
	const struct profile_key *k;
	const struct profile_uint *u = kinds_key_value(p, path, &k);

	return u && (k->type == KT_UINT || k->type == KT_SIZE) && u->set ? u : NULL;
}

const char *kinds_key_enum_name(const struct profile *p, const char *path)
{
	const struct profile_key *k;
	const struct profile_enum *e = kinds_key_value(p, path, &k);

	return e && k->type == KT_ENUM && e->set ? k->names[e->value] : NULL;
}
