"""schema_validate.py SCHEMA FILE... - validate ecnwatch JSON against the schema.

Each FILE ending in .ndjson is checked line by line (every line one event);
any other FILE is one JSON document (a report). Prints "ok FILE" or
"FAIL FILE: where: why" per file, and exits 1 when any failed. Needs the
jsonschema module (Debian: python3-jsonschema); the schema itself is checked
against its meta-schema first.
"""
import json
import sys

import jsonschema


def where(err):
    return "/" + "/".join(str(p) for p in err.absolute_path)


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"FAIL {argv[1]}: not a valid {cls.__name__} schema: {e.message}")
        return 1
    validator = cls(schema, format_checker=jsonschema.FormatChecker())
    failed = 0
    for name in argv[2:]:
        problem = None
        try:
            with open(name, encoding="utf-8") as f:
                if name.endswith(".ndjson"):
                    docs = [(f"line {i}", json.loads(line)) for i, line in enumerate(f, 1)]
                    if not docs:
                        problem = "no lines"
                else:
                    docs = [("", json.load(f))]
        except (OSError, ValueError) as e:
            problem = f"cannot read: {e}"
            docs = []
        for label, doc in docs:
            if problem:
                break
            err = jsonschema.exceptions.best_match(validator.iter_errors(doc))
            if err is not None:
                problem = f"{label + ' ' if label else ''}{where(err)}: {err.message[:300]}"
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
        else:
            print(f"ok   {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
