/* html.h: HTML pages with inline SVG that no string can break out of.
 *
 * Owns: escaping text and attribute values (& < > " '), with every control
 * character (C0 but tab and newline, DEL, the C1 range U+0080..U+009F) and
 * every byte of invalid UTF-8 written as '?', as `history` prints stored
 * text; the frame of a page (doctype, head with the shared screen and A4
 * print style, body) and of an SVG picture (a viewBox that scales down to
 * its column, never clipped). Pages are self-contained: they open on a lab
 * host without network. Must never: emit a script, a URL (but the SVG
 * namespace and relative links a caller writes), or one byte of a
 * caller's string unescaped. */
#ifndef CX5_HTML_H
#define CX5_HTML_H

#include <stdio.h>

#include "util.h"

/* s escaped for text and for a quoted attribute value; NULL writes
 * nothing. */
void html_text(FILE *f, const char *s);
/* printf, then escaped as html_text. */
void html_textf(FILE *f, const char *fmt, ...) _printf_(2, 3);
/* The characters (code points) of s, 0 for NULL: a width estimate. */
size_t utf8_width(const char *s);
/* The first n characters of s (NULL on out of memory). */
char *utf8_prefix(const char *s, size_t n);
/* <tag class="cls">s escaped</tag>; cls NULL: no class. */
void html_elem(FILE *f, const char *tag, const char *cls, const char *s);

/* The page up to <body>: title escaped, the shared style and then css (a
 * constant of the caller's, NULL for none). */
void html_page_open(FILE *f, const char *title, const char *css);
void html_page_close(FILE *f);

/* An SVG picture width x height user units, drawn at that size in pixels
 * and scaled down (text too) when its column is narrower; label is its
 * accessible name. Written as XML (every element closed, attributes
 * quoted) so XML tools read it. standalone: a file of its own (an XML
 * declaration, its own style for the classes below). */
void html_svg_open(FILE *f, int width, int height, const char *label, bool standalone);
void html_svg_close(FILE *f);

/* The SVG's text classes, in the shared style: .lbl (labels), .val
 * (values), .axis (axis ticks), .note (grey notes), .title (a chart's
 * heading inside a standalone picture). */

#endif
