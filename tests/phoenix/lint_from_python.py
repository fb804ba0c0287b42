"""Lint a Phoenix project from Python with the tracelint_rs module (the wheel under test, on
PYTHONPATH), for tests/distribution/phoenix_python.rs. One JSON line on standard output.

    python lint_from_python.py SOURCE read          lint_phoenix, lint_paths and a window
    python lint_from_python.py SOURCE write-back    lint_phoenix(write_back=True)
"""

import datetime
import json
import sys

import tracelint_rs


def findings(report):
    return [
        {"rule": f.rule, "tier": f.tier, "tool": f.tool, "path": f.path, "step": f.step}
        for f in report.findings
    ]


def main():
    source, mode = sys.argv[1], sys.argv[2]
    linter = tracelint_rs.Linter()
    out = {}
    if mode == "read":
        report = linter.lint_phoenix(source)
        out["json"] = report.to_json()
        out["paths_json"] = linter.lint_paths(source).to_json()
        try:
            linter.lint_phoenix(source, since=datetime.datetime(2999, 1, 1))
            out["future"] = None
        except tracelint_rs.PhoenixError as e:
            out["future"] = str(e)
    elif mode == "write-back":
        report = tracelint_rs.lint_phoenix(source, write_back=True)
    else:
        sys.exit(f"unknown mode {mode}")
    out["exit_code"] = report.exit_code
    out["findings"] = findings(report)
    out["written_back"] = report.written_back
    print(json.dumps(out))


main()
