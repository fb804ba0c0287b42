"""The module's API: every kind of source, the options, errors, OTel spans, streaming, and the
renderings held to the command line's bytes."""

from __future__ import annotations

import datetime
import io
import json
import subprocess
import threading
from pathlib import Path

import pytest

import tracelint_rs

QUICKSTART = "fixtures/quickstart/transcript.json"
TOOLS = "fixtures/quickstart/tools.json"


def run_cli(cli: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [cli, *args], capture_output=True, cwd=cwd, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, timeout=300
    )


def real_fixtures(repo: Path) -> list[Path]:
    files = sorted(p.relative_to(repo) for p in (repo / "fixtures/real").rglob("*") if p.is_file())
    assert len(files) > 100, files
    return files


def test_to_json_is_the_commands_json_on_every_real_fixture(repo, cli, monkeypatch):
    monkeypatch.chdir(repo)
    linter = tracelint_rs.Linter()
    differ = []
    for f in real_fixtures(repo):
        out = run_cli(cli, "check", str(f), "--output-format", "json", cwd=repo)
        report = linter.lint(f)
        if report.to_json().encode() != out.stdout or report.exit_code != out.returncode:
            differ.append((str(f), report.exit_code, out.returncode))
    assert differ == []


@pytest.mark.parametrize(
    ("method", "flag"),
    [("to_json", "json"), ("to_sarif", "sarif"), ("to_html", "html"), ("to_text", "text"), ("to_jsonl", "json-lines"), ("to_github", "github")],
)
def test_every_rendering_is_the_commands(repo, cli, monkeypatch, method, flag):
    monkeypatch.chdir(repo)
    report = tracelint_rs.Linter(tools=TOOLS).lint(Path(QUICKSTART))
    out = run_cli(cli, "check", QUICKSTART, "--tools", TOOLS, "--output-format", flag, cwd=repo)
    assert out.returncode == report.exit_code == 2
    assert getattr(report, method)().encode() == out.stdout


def test_every_kind_of_source_gives_the_same_findings(repo, monkeypatch):
    monkeypatch.chdir(repo)
    linter = tracelint_rs.Linter(tools=TOOLS)
    data = (repo / QUICKSTART).read_bytes()
    by_path = linter.lint(Path(QUICKSTART))
    want = [(f.rule, f.tier, f.line, f.column, f.step) for f in by_path.findings]
    assert {f.rule for f in by_path.findings} >= {"R1", "R6"}
    sources = [
        data,
        bytearray(data),
        data.decode(),
        json.loads(data),
        io.BytesIO(data),
        io.StringIO(data.decode()),
        open(QUICKSTART, "rb"),
    ]
    for source in sources:
        report = linter.lint(source)
        got = [(f.rule, f.tier, f.line, f.column, f.step) for f in report.findings]
        if isinstance(source, dict):
            # Re-serialised JSON: the same findings at other places.
            got, want_here = [g[:2] for g in got], [w[:2] for w in want]
        else:
            want_here = want
        assert got == want_here, type(source)
        assert report.exit_code == 2
    named = linter.lint(data, name="mine.json")
    assert {f.path for f in named.findings} == {"mine.json"}
    assert {f.path for f in linter.lint(open(QUICKSTART, "rb")).findings} == {QUICKSTART}


def test_finding_fields(repo, monkeypatch):
    monkeypatch.chdir(repo)
    report = tracelint_rs.lint(Path(QUICKSTART), tools=TOOLS)
    r1 = next(f for f in report.findings if f.rule == "R1")
    assert r1.tier == "hard_defect"
    assert r1.path == QUICKSTART
    assert r1.run_id == "quickstart"
    line = (repo / QUICKSTART).read_text().splitlines()[r1.line - 1]
    assert '"cancel_order"' in line, line
    assert r1.evidence and r1.evidence[0].step == r1.step and r1.evidence[0].line == r1.line
    assert r1.details, "R1 itemises its schema errors"
    assert str(r1).startswith(f"{QUICKSTART}:{r1.line}:{r1.column}: R1 hard_defect: ")
    assert report.summary["hard_defect"] == sum(f.tier == "hard_defect" for f in report.findings)
    assert report.summary["traces"] == 1


def test_options_select_ignore_fail_on_config(repo, monkeypatch):
    monkeypatch.chdir(repo)
    src = Path(QUICKSTART)
    only_r1 = tracelint_rs.lint(src, tools=TOOLS, select=["R1"])
    assert {f.rule for f in only_r1.findings} == {"R1"}
    no_r1 = tracelint_rs.lint(src, tools=TOOLS, ignore="R1,R6")
    assert not {f.rule for f in no_r1.findings} & {"R1", "R6"}
    assert tracelint_rs.lint(src, tools=TOOLS, fail_on="never").exit_code == 0
    from_config = tracelint_rs.lint(src, config_text=f'tools = ["{TOOLS}"]\nselect = ["R6"]\n')
    assert {f.rule for f in from_config.findings} == {"R6"}
    with pytest.raises(tracelint_rs.ConfigError) as e:
        tracelint_rs.Linter(config_text="select = 3\n")
    assert "tracelint.toml" in str(e.value)
    with pytest.raises(ValueError, match="unknown rule `R99`"):
        tracelint_rs.Linter(select="R99")
    with pytest.raises(ValueError, match="unknown format"):
        tracelint_rs.Linter(input_format="nope")
    with pytest.raises(tracelint_rs.TracelintError, match="tool-definition rule"):
        tracelint_rs.Linter(select="T1")


def test_tools_in_memory_and_tools_errors(repo):
    tools = json.loads((repo / TOOLS).read_text())
    report = tracelint_rs.lint((repo / QUICKSTART).read_bytes(), tools=tools)
    assert "R1" in {f.rule for f in report.findings}
    # A bare tool array (OpenAI/Anthropic style) is one source, not a list of sources.
    array = [{"name": t["name"], "input_schema": t["inputSchema"]} for t in tools["tools"]]
    assert "R1" in {f.rule for f in tracelint_rs.lint((repo / QUICKSTART).read_bytes(), tools=array).findings}
    with pytest.raises(tracelint_rs.ToolsError, match="no/such/tools.json"):
        tracelint_rs.Linter(tools="no/such/tools.json")
    assert issubclass(tracelint_rs.ToolsError, tracelint_rs.TracelintError)


def test_mcp_stdio_tools_source_is_passed_through(repo):
    # A server that exits at once: the error is the linter's, about that source.
    with pytest.raises(tracelint_rs.ToolsError, match="mcp-stdio"):
        tracelint_rs.Linter(tools="mcp-stdio:false")


def test_bad_input_is_an_input_error_not_an_exception():
    report = tracelint_rs.lint(b'{"run_id": "r", "steps": [\n{oops}\n]}', name="broken.json")
    assert report.exit_code == 3
    assert report.issues and report.issues[0].path == "broken.json"
    assert report.summary["input_errors"] >= 1
    with pytest.raises(TypeError):
        tracelint_rs.lint(3.5)


def test_expectations_and_baseline(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    with pytest.raises(tracelint_rs.ExpectationsError):
        (tmp_path / "bad.toml").write_text("[[expect]]\nnonsense = 1\n")
        tracelint_rs.Linter(expect=tmp_path / "bad.toml")
    out = subprocess.run(
        ["tracelint", "check", QUICKSTART, "--tools", TOOLS, "--baseline", str(tmp_path / "b.json"), "--update-baseline"],
        capture_output=True,
        cwd=repo,
    )
    assert out.returncode == 0, out.stderr
    report = tracelint_rs.lint(Path(QUICKSTART), tools=TOOLS, baseline=tmp_path / "b.json")
    # Every failing finding is in the baseline: baselined, not counted, the run passes.
    before = tracelint_rs.lint(Path(QUICKSTART), tools=TOOLS)
    assert before.exit_code == 2
    assert report.exit_code == 0
    assert report.summary["hard_defect"] == 0
    assert report.summary["baselined"] == before.summary["hard_defect"] > 0


def phoenix_records(repo: Path) -> list[dict]:
    """Phoenix's span export turned into `get_spans_dataframe().to_dict("records")` rows:
    flattened `attributes.*` and `context.*` columns, timestamps as datetime objects, NaN for
    what a span lacks."""
    spans = json.loads((repo / "fixtures/otel/phoenix-spans.json").read_text())
    columns: set[str] = set()
    rows = []
    for s in spans:
        row = {
            "name": s["name"],
            "span_kind": s["span_kind"],
            "parent_id": s["parent_id"] if s["parent_id"] is not None else float("nan"),
            "start_time": datetime.datetime.fromisoformat(s["start_time"]),
            "end_time": datetime.datetime.fromisoformat(s["end_time"]),
            "status_code": s["status_code"],
            "status_message": s["status_message"],
            "events": s["events"],
            "context.span_id": s["context"]["span_id"],
            "context.trace_id": s["context"]["trace_id"],
        }
        row.update({f"attributes.{k}": v for k, v in s["attributes"].items()})
        columns.update(row)
        rows.append(row)
    return [{c: r.get(c, float("nan")) for c in sorted(columns)} for r in rows]


def test_lint_otel_spans_reads_phoenix_exports_and_dataframe_records(repo):
    export = json.loads((repo / "fixtures/otel/phoenix-spans.json").read_text())
    from_export = tracelint_rs.lint_otel_spans(export)
    from_records = tracelint_rs.lint_otel_spans(phoenix_records(repo))
    assert from_export.summary["traces"] >= 1
    assert from_export.summary["tool_calls"] >= 1
    key = lambda r: sorted((f.rule, f.tier, f.run_id, f.tool) for f in r.findings)
    assert key(from_records) == key(from_export)
    assert from_records.summary["traces"] == from_export.summary["traces"]
    assert from_records.summary["tool_calls"] == from_export.summary["tool_calls"]
    assert from_export.findings, "the failing refund is reported"


def test_stream_yields_each_trace_then_the_report(repo):
    results = tracelint_rs.stream(repo / "fixtures/otel/two-traces.otlp.json")
    seen = [(t.path, t.run_id, len(t.findings)) for t in results]
    assert len(seen) == 2
    assert len({run for _, run, _ in seen}) == 2
    assert results.report is not None
    assert results.report.summary["traces"] == 2
    assert sum(n for _, _, n in seen) == len(results.report.findings)
    assert list(results) == []


def test_lint_each_over_an_iterator(repo):
    data = (repo / QUICKSTART).read_bytes()
    reports = tracelint_rs.lint_each(iter([data, b"{}", {"run_id": "x", "steps": []}]), tools=str(repo / TOOLS))
    assert [r.exit_code for r in reports] == [2, 3, 0]


def test_threads_share_a_linter(repo):
    linter = tracelint_rs.Linter(tools=str(repo / TOOLS))
    data = (repo / QUICKSTART).read_bytes()
    want = linter.lint(data).to_json()
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(linter.lint(data).to_json())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 4


def test_version_is_the_commands(cli):
    out = subprocess.run([cli, "--version"], capture_output=True, text=True)
    assert out.stdout == f"tracelint {tracelint_rs.__version__}\n"


def test_stubs_name_what_the_module_has():
    import ast

    stub = Path(tracelint_rs._native.__file__).with_name("_native.pyi")
    assert (stub.parent / "py.typed").is_file()
    tree = ast.parse(stub.read_text())
    missing = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            runtime = getattr(tracelint_rs._native, node.name, None)
            if runtime is None:
                missing.append(node.name)
                continue
            for member in node.body:
                if isinstance(member, ast.FunctionDef) and not hasattr(runtime, member.name):
                    missing.append(f"{node.name}.{member.name}")
        elif isinstance(node, ast.FunctionDef) and not hasattr(tracelint_rs._native, node.name):
            missing.append(node.name)
    assert missing == []


def test_the_gil_is_released_while_linting():
    """Another Python thread runs while a large trace is linted: it could not if the linter held
    the GIL (it would get a turn or two, before and after)."""
    steps = []
    for i in range(10000):
        steps.append({"type": "tool_call", "call_id": f"c{i}", "name": "get", "args": {"k": i}})
        steps.append({"type": "tool_result", "call_id": f"c{i}", "content": {"v": i}, "status": "ok"})
    data = json.dumps({"run_id": "big", "steps": steps}).encode()
    linter = tracelint_rs.Linter()
    done = threading.Event()
    reports = []

    def work():
        reports.append(linter.lint(data))
        done.set()

    ticks = 0
    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    worker.join()
    assert reports[0].summary["tool_calls"] == 10000
    assert ticks >= 10
