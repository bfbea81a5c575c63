/* yamltree.h: a YAML document as a small tree of nodes with positions.
 *
 * Owns: turning YAML bytes into nodes through libyaml's event parser, and
 * converting libyaml's errors (the one place they are converted) into a
 * message with a 1-based line and column. Rejected here, before any
 * meaning is given to the document: anchors and aliases, tags, more than one
 * document, nesting deeper than YTREE_MAX_DEPTH, more than YTREE_MAX_NODES
 * nodes, NUL bytes and invalid UTF-8 (libyaml's reader). Must never: read
 * files, know profile keys, or log above debug. */
#ifndef CX5_YAMLTREE_H
#define CX5_YAMLTREE_H

#include "util.h"

#define YTREE_MAX_DEPTH 32
#define YTREE_MAX_NODES 10000

enum ynode_kind {
	YNODE_SCALAR,
	YNODE_MAPPING,
	YNODE_SEQUENCE,
};

struct ynode {
	enum ynode_kind kind;
	unsigned line, column; /* 1-based start of the node */
	/* Scalars: the text (NUL-terminated; len excludes the NUL, and the
	 * text may contain no NUL since the reader rejects them). plain is
	 * true for an unquoted, non-block scalar: only those are resolved to
	 * null, booleans and numbers (YAML 1.1 rules, as PyYAML). */
	char *value;
	size_t len;
	bool plain;
	/* Mappings: items[2k] is a key, items[2k+1] its value. Sequences: the
	 * elements. */
	struct ynode **items;
	size_t n_items;
};

struct ytree_error {
	unsigned line, column; /* 1-based */
	char message[256];
};

/* Parse one document. *ret is NULL for an empty stream (no document, or
 * only comments). Returns 0, -EINVAL (err filled) or -ENOMEM. */
int ytree_parse(const char *data, size_t size, struct ynode **ret, struct ytree_error *err);

void ynode_free(struct ynode *n);
static inline void ynode_freep(struct ynode **n)
{
	if (*n)
		ynode_free(*n);
}
#define _cleanup_ynode_ _cleanup_(ynode_freep)

/* How YAML 1.1 (PyYAML's resolver) reads a plain scalar. */
enum yscalar_type {
	YSCALAR_STRING,
	YSCALAR_NULL,
	YSCALAR_BOOL,
	YSCALAR_INT,
	YSCALAR_FLOAT,
	YSCALAR_TIMESTAMP,
};
enum yscalar_type ynode_scalar_type(const struct ynode *n);

/* For messages: "a mapping", "a list", "null", a plain number, boolean or
 * date as written (6.8), any other scalar quoted ("\"abc\""); scalars are
 * shortened to 40 characters and control characters shown as '?'. */
const char *ynode_describe(const struct ynode *n, char *buf, size_t size);
/* A scalar always quoted as above ("a mapping"/"a list" otherwise). */
const char *ynode_quote(const struct ynode *n, char *buf, size_t size);

#endif
