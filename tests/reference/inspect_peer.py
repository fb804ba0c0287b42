"""Lint an Inspect AI `.json` log with the Python tracelint 0.14 (a black box, through its
documented library API: `from_inspect_messages`, `lint_trace`), one report per sample and
epoch, printed as the CLI's `--json` shape: {"reports": [{run_id, findings, coverage}]}.
The reference's own CLI has no Inspect format; this is the reader its Scout scanners use."""
import json
import sys

from tracelint import default_rules, lint_trace
from tracelint.adapters.inspect import from_inspect_messages

log = json.load(open(sys.argv[1]))
reports = []
for s in log["samples"]:
    run_id = f"{s['id']}/epoch-{s['epoch']}"
    trace = from_inspect_messages(s["messages"], events=s.get("events"), run_id=run_id)
    d = lint_trace(trace, default_rules(), None).to_dict()
    reports.append({"run_id": run_id, "findings": d["findings"], "coverage": d.get("coverage", [])})
print(json.dumps({"reports": reports}))
