#!/usr/bin/python3
"""validate_json.py SCHEMA DOC...: validate JSON documents against a JSON
Schema (draft 2020-12); prints "N documents valid" or the first error."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft202012Validator(schema)
    for path in sys.argv[2:]:
        errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: e.path)
        if errors:
            print("%s: %s" % (path, errors[0].message), file=sys.stderr)
            return 1
    print("%d documents valid" % (len(sys.argv) - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
