#!/usr/bin/python3
"""validate_json.py SCHEMA DOC...: validate JSON documents against a JSON
Schema (draft 2020-12); prints "N documents valid" or the first error.

A schema may refer to another of its folder by name ("ledger.schema.json"):
validator(SCHEMA) resolves those from the folder, never from the network.
Tests written in Python import it (sys.path: tests/helpers)."""
import glob
import json
import os
import sys

import jsonschema


def validator(schema_path):
    """A Draft 2020-12 validator of schema_path, the schemas of its folder
    known by their $id."""
    schema = json.load(open(schema_path))
    store = {}
    for path in glob.glob(os.path.join(os.path.dirname(os.path.abspath(schema_path)), "*.json")):
        other = json.load(open(path))
        if "$id" in other:
            store[other["$id"]] = other
    try:
        from referencing import Registry, Resource
    except ImportError:  # jsonschema before 4.18 (Debian 12): its RefResolver
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)
    registry = Registry().with_resources((k, Resource.from_contents(v)) for k, v in store.items())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def main():
    v = validator(sys.argv[1])
    for path in sys.argv[2:]:
        errors = sorted(v.iter_errors(json.load(open(path))), key=lambda e: e.path)
        if errors:
            print("%s: %s" % (path, errors[0].message), file=sys.stderr)
            return 1
    print("%d documents valid" % (len(sys.argv) - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
