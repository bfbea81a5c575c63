/* html.c: escaping and the frames of pages and SVG pictures (see html.h).
 *
 * Owns: the one escaping loop and the shared style. Must never: write a
 * byte of a caller's string outside html_text(). */
#define _GNU_SOURCE
#include "html.h"

#include <stdarg.h>

/* The length of the UTF-8 sequence at s (1..4), or 0 when it is not a
 * valid one (a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF, cut short). */
static size_t utf8_length(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void html_text(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (s && *s) {
		size_t n = 1;

		if (*s >= 0x80) {
			n = utf8_length(s);
			/* C1 controls (U+0080..U+009F) act like escapes on some terminals */
			if (n == 0 || (s[0] == 0xc2 && s[1] <= 0x9f)) {
				fputc('?', f);
				s += n ? n : 1;
				continue;
			}
			fwrite(s, 1, n, f);
		} else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if (*s == '\'')
			fputs("&#39;", f);
		else if ((*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			fputc('?', f);
		else
			fputc(*s, f);
		s += n;
	}
}

void html_textf(FILE *f, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	s = vstrprintf(fmt, ap);
	va_end(ap);
	html_text(f, s ? s : "?");
}

size_t utf8_width(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

char *utf8_prefix(const char *s, size_t n)
{
	size_t len = 0;

	for (; s[len]; len++)
		if (((unsigned char)s[len] & 0xc0) != 0x80 && n-- == 0)
			break;
	return strndup(s, len);
}

void html_elem(FILE *f, const char *tag, const char *cls, const char *s)
{
	fprintf(f, "<%s", tag);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputc('>', f);
	html_text(f, s);
	fprintf(f, "</%s>", tag);
}

/* The SVG text classes, for a page and for a picture of its own. */
#define SVG_STYLE                                                                                            \
	"svg text{font-family:sans-serif;fill:#222}\n"                                                       \
	"svg .lbl{font-size:13px}\nsvg .val{font-size:12px}\nsvg .axis{font-size:11px;fill:#555}\n"          \
	"svg .note{font-size:12px;fill:#666}\nsvg .title{font-size:14px;font-weight:bold}\n"

/* Reads at 800 px and wider: a cell breaks between words, and a cell of
 * free text (td.long, td.grp, th.key, code) anywhere rather than push the
 * page wider; numbers stay on one line (td.num); a group's name and a
 * setting keep a readable width. An A4 print keeps charts and table rows
 * whole. */
static const char page_style[] =
    "body{font-family:sans-serif;color:#222;max-width:62em;margin:1em auto;padding:0 1em;"
    "line-height:1.35}\n"
    "h1{font-size:1.45em;margin:.4em 0}\nh2{font-size:1.15em;margin:1.6em 0 .4em}\n"
    "h3{font-size:1em;margin:1em 0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em}\n"
    "td,th{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top;font-size:90%;"
    "overflow-wrap:break-word}\n"
    "th{background:#f0f0f0}\ntd.num,th.num{text-align:right}\ntd.num{white-space:nowrap}\n"
    "td.num .range{white-space:normal}\n"
    "td.long,td.grp,th.key,code{overflow-wrap:anywhere}\ntd.grp{min-width:6em}\nth.key{min-width:9em}\n"
    "tr.differs th{color:#000;background:#e4ecf7}\ncode{font-size:90%}\n"
    "svg{display:block;max-width:100%;height:auto;margin:.2em 0 .8em}\n"
    ".note{color:#666;font-size:90%}\n.fail{color:#b00020;font-weight:bold}\n"
    ".pass{color:#1b6e20}\n" SVG_STYLE "@page{size:A4;margin:12mm}\n"
    "@media print{body{max-width:none;margin:0;padding:0;font-size:10pt}"
    "h2,h3{break-after:avoid}svg,tr{break-inside:avoid}a{color:inherit;text-decoration:none}}\n";

void html_page_open(FILE *f, const char *title, const char *css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	html_text(f, title);
	fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", page_style, css ? css : "");
}

void html_page_close(FILE *f)
{
	fputs("</body>\n</html>\n", f);
}

void html_svg_open(FILE *f, int width, int height, const char *label, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" aria-label=\"",
		width, height, width, height);
	html_text(f, label);
	fputs("\">\n", f);
	if (standalone)
		fprintf(f, "<style>\n%s</style>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
			SVG_STYLE, width, height);
}

void html_svg_close(FILE *f)
{
	fputs("</svg>\n", f);
}
