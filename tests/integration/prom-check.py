#!/usr/bin/python3
"""prom-check.py FILE: check Prometheus text exposition format (0.0.4).

Two checks: Debian's python3-prometheus-client parser
(prometheus_client.parser.text_string_to_metric_families) must accept the
file, and every line must match the format's grammar strictly (that parser
is lenient about some things). Prints "NAME TYPE NSAMPLES" per family and
"sample NAME LABELS VALUE" per sample; exit 1 with the reason otherwise.
"""
import json
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
VALUE = r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?Inf|NaN)"
SAMPLE = re.compile(rf"^({NAME})(?:\{{(?:{LABEL}(?:,{LABEL})*,?)?\}})? {VALUE}(?: -?[0-9]+)?$")
HELP = re.compile(rf"^# HELP ({NAME}) (?:[^\\\n]|\\\\|\\n)*$")
TYPE = re.compile(rf"^# TYPE ({NAME}) (counter|gauge|histogram|summary|untyped)$")


def grammar(text):
    if text and not text.endswith("\n"):
        return "the last line does not end with a newline"
    typed, seen_samples = {}, set()
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP "):
            if not HELP.match(line):
                return f"line {n}: bad HELP line: {line!r}"
        elif line.startswith("# TYPE "):
            m = TYPE.match(line)
            if not m:
                return f"line {n}: bad TYPE line: {line!r}"
            if m.group(1) in typed or m.group(1) in seen_samples:
                return f"line {n}: TYPE for {m.group(1)} repeated or after its samples"
            typed[m.group(1)] = m.group(2)
        elif line.startswith("#") or line == "":
            continue
        else:
            m = SAMPLE.match(line)
            if not m:
                return f"line {n}: bad sample line: {line!r}"
            seen_samples.add(m.group(1))
    return None


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    why = grammar(text)
    if why:
        print(why, file=sys.stderr)
        return 1
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        print("python3-prometheus-client is not installed (contrib/install-deps.sh installs it)", file=sys.stderr)
        return 1
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser raises ValueError and friends
        print(f"parser: {e}", file=sys.stderr)
        return 1
    for f in families:
        print(f"{f.name} {f.type} {len(f.samples)}")
    for f in families:
        for s in f.samples:
            print(f"sample {s.name} {json.dumps(s.labels, sort_keys=True)} {float(s.value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
