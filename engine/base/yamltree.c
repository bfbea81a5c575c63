/* yamltree.c: YAML bytes -> node tree, through libyaml's event API.
 *
 * Owns: the libyaml parser and the conversion of its errors (reader,
 * scanner, parser, memory) into 1-based positions and messages; the YAML 1.1
 * resolution of plain scalars. Must never: give keys a meaning (profile.c
 * does), read files, or expand aliases (they are rejected, which also stops
 * "billion laughs" documents at their first anchor). */
#include "yamltree.h"

#include <regex.h>
#include <stdarg.h>
#include <yaml.h>

static void yaml_parser_deletep(yaml_parser_t *p)
{
	yaml_parser_delete(p);
}
static void yaml_event_deletep(yaml_event_t *e)
{
	yaml_event_delete(e);
}

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_items; i++)
		ynode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

static int set_error(struct ytree_error *err, unsigned line, unsigned column, const char *fmt, ...)
    _printf_(4, 5);
static int set_error(struct ytree_error *err, unsigned line, unsigned column, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		err->column = column;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* libyaml's reader reports a byte offset, not a mark: count lines and
 * characters (UTF-8 lead bytes) up to it. */
static void offset_to_position(const char *data, size_t size, size_t offset, unsigned *line, unsigned *column)
{
	unsigned l = 1, c = 1;

	if (offset > size)
		offset = size;
	for (size_t i = 0; i < offset; i++) {
		unsigned char b = (unsigned char)data[i];
		if (b == '\n') {
			l++;
			c = 1;
		} else if ((b & 0xc0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*column = c;
}

/* The one place libyaml's error space is converted. */
static int parser_error(const yaml_parser_t *p, const char *data, size_t size, struct ytree_error *err)
{
	unsigned line, column;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return -ENOMEM;
	case YAML_READER_ERROR:
		offset_to_position(data, size, p->problem_offset, &line, &column);
		/* libyaml's value is a code point for "invalid Unicode character",
		 * a byte for the other reader errors. */
		if (p->problem_value >= 0 && p->problem && streq(p->problem, "invalid Unicode character"))
			return set_error(err, line, column, "invalid YAML: %s (U+%04X)", p->problem,
					 (unsigned)p->problem_value);
		if (p->problem_value >= 0)
			return set_error(err, line, column, "invalid YAML: %s (byte 0x%02x)",
					 strna(p->problem), (unsigned)p->problem_value & 0xff);
		return set_error(err, line, column, "invalid YAML: %s", strna(p->problem));
	default:
		if (p->context)
			return set_error(err, (unsigned)p->problem_mark.line + 1,
					 (unsigned)p->problem_mark.column + 1, "invalid YAML: %s %s",
					 p->context, strna(p->problem));
		return set_error(err, (unsigned)p->problem_mark.line + 1,
				 (unsigned)p->problem_mark.column + 1, "invalid YAML: %s", strna(p->problem));
	}
}

static int push_item(struct ynode *parent, struct ynode *child)
{
	struct ynode **items;

	/* Grow by doubling; n_items is bounded by YTREE_MAX_NODES. */
	if ((parent->n_items & (parent->n_items - 1)) == 0) {
		items = realloc(parent->items, (parent->n_items ? parent->n_items * 2 : 1) * sizeof(*items));
		if (!items)
			return -ENOMEM;
		parent->items = items;
	}
	parent->items[parent->n_items++] = child;
	return 0;
}

int ytree_parse(const char *data, size_t size, struct ynode **ret, struct ytree_error *err)
{
	_cleanup_(yaml_parser_deletep) yaml_parser_t parser;
	_cleanup_ynode_ struct ynode *root = NULL;
	struct ynode *stack[YTREE_MAX_DEPTH + 1];
	unsigned depth = 0, nodes = 0, documents = 0;
	bool done = false;
	int r;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, size);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

	while (!done) {
		_cleanup_(yaml_event_deletep) yaml_event_t ev = {.type = YAML_NO_EVENT};
		_cleanup_ynode_ struct ynode *node = NULL;
		unsigned line, column;
		const yaml_char_t *anchor = NULL, *tag = NULL;

		if (!yaml_parser_parse(&parser, &ev))
			return parser_error(&parser, data, size, err);
		line = (unsigned)ev.start_mark.line + 1;
		column = (unsigned)ev.start_mark.column + 1;

		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			continue;
		case YAML_DOCUMENT_START_EVENT:
			if (++documents > 1)
				return set_error(err, line, column,
						 "only one YAML document per file is supported");
			continue;
		case YAML_ALIAS_EVENT:
			return set_error(err, line, column, "anchors and aliases are not supported");
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			continue;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			tag = ev.data.scalar.tag;
			break;
		case YAML_SEQUENCE_START_EVENT:
			anchor = ev.data.sequence_start.anchor;
			tag = ev.data.sequence_start.tag;
			break;
		case YAML_MAPPING_START_EVENT:
			anchor = ev.data.mapping_start.anchor;
			tag = ev.data.mapping_start.tag;
			break;
		default:
			continue;
		}
		if (anchor)
			return set_error(err, line, column, "anchors and aliases are not supported");
		if (tag)
			return set_error(err, line, column, "YAML tags (\"%s\") are not supported",
					 (const char *)tag);
		if (++nodes > YTREE_MAX_NODES)
			return set_error(err, line, column, "too many YAML nodes (more than %d)",
					 YTREE_MAX_NODES);

		node = calloc(1, sizeof(*node));
		if (!node)
			return -ENOMEM;
		node->line = line;
		node->column = column;
		if (ev.type == YAML_SCALAR_EVENT && memchr(ev.data.scalar.value, 0, ev.data.scalar.length)) {
			/* A "\0" escape: C strings would silently cut the value. */
			return set_error(err, line, column,
					 "a NUL character (\\0) is not allowed in a value");
		}
		if (ev.type == YAML_SCALAR_EVENT) {
			node->kind = YNODE_SCALAR;
			node->len = ev.data.scalar.length;
			node->value = malloc(node->len + 1);
			if (!node->value)
				return -ENOMEM;
			memcpy(node->value, ev.data.scalar.value, node->len);
			node->value[node->len] = '\0';
			node->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		} else {
			node->kind = ev.type == YAML_MAPPING_START_EVENT ? YNODE_MAPPING : YNODE_SEQUENCE;
		}

		struct ynode *n = node;
		if (depth == 0) {
			root = TAKE_PTR(node);
		} else {
			r = push_item(stack[depth - 1], n);
			if (r < 0)
				return r;
			node = NULL;
		}
		if (n->kind != YNODE_SCALAR) {
			if (depth >= YTREE_MAX_DEPTH)
				return set_error(err, line, column, "nesting deeper than %d levels",
						 YTREE_MAX_DEPTH);
			stack[depth++] = n;
		}
	}
	*ret = TAKE_PTR(root);
	return 0;
}

/* PyYAML's implicit resolvers (yaml/resolver.py), so that the C loader and
 * the JSON Schema test (which loads YAML with PyYAML) see the same types. */
static const struct {
	enum yscalar_type type;
	const char *pattern;
} resolvers[] = {
    {YSCALAR_NULL, "^(~|null|Null|NULL|)$"},
    {YSCALAR_BOOL, "^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"},
    {YSCALAR_INT, "^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
		  "|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$"},
    {YSCALAR_FLOAT, "^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9_]+([eE][-+][0-9]+)?"
		    "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$"},
    {YSCALAR_TIMESTAMP, "^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)"
			"[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$"},
};

enum yscalar_type ynode_scalar_type(const struct ynode *n)
{
	static regex_t compiled[ARRAY_SIZE(resolvers)];
	static bool ready[ARRAY_SIZE(resolvers)];

	if (!n || n->kind != YNODE_SCALAR || !n->plain)
		return YSCALAR_STRING;
	if (n->len > 256) /* no number, boolean or date is that long */
		return YSCALAR_STRING;
	for (size_t i = 0; i < ARRAY_SIZE(resolvers); i++) {
		if (!ready[i]) {
			if (regcomp(&compiled[i], resolvers[i].pattern, REG_EXTENDED | REG_NOSUB) != 0)
				continue;
			ready[i] = true;
		}
		if (regexec(&compiled[i], n->value, 0, NULL, 0) == 0)
			return resolvers[i].type;
	}
	return YSCALAR_STRING;
}

static const char *scalar_text(const struct ynode *n, bool quote, char *buf, size_t size)
{
	size_t o = 0, i;

	if (size < 8)
		return "a value";
	if (quote)
		buf[o++] = '"';
	for (i = 0; i < n->len && o + 5 < size && i < 40; i++) {
		unsigned char c = (unsigned char)n->value[i];
		buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (i < n->len) {
		/* Do not cut a UTF-8 sequence in half. */
		while (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
			o--;
		if (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0xc0)
			o--;
		buf[o++] = '.';
		buf[o++] = '.';
		buf[o++] = '.';
	}
	if (quote)
		buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

const char *ynode_quote(const struct ynode *n, char *buf, size_t size)
{
	if (n->kind == YNODE_MAPPING)
		return "a mapping";
	if (n->kind == YNODE_SEQUENCE)
		return "a list";
	return scalar_text(n, true, buf, size);
}

const char *ynode_describe(const struct ynode *n, char *buf, size_t size)
{
	if (n->kind != YNODE_SCALAR)
		return ynode_quote(n, buf, size);
	switch (ynode_scalar_type(n)) {
	case YSCALAR_NULL:
		return "null";
	case YSCALAR_STRING:
		return scalar_text(n, true, buf, size);
	default:
		return scalar_text(n, false, buf, size);
	}
}
