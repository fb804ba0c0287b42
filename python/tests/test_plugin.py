"""The pytest plugin, run by pytest itself (pytester): `--tracelint` collects one item per
trace, named by the trace, failing on hard defects; `assert_clean` fails with the text report."""

from __future__ import annotations

import re
import shutil

pytest_plugins = ["pytester"]


def test_collects_one_item_per_trace_named_by_trace(pytester, repo):
    pytester.makeini("[pytest]\n")
    traces = pytester.mkdir("traces")
    shutil.copy(repo / "fixtures/quickstart/transcript.json", traces / "failing.json")
    (traces / "clean.json").write_text('{"run_id": "all-good", "steps": [{"type": "message", "role": "user", "content": "hi"}]}')
    shutil.copy(repo / "fixtures/otel/two-traces.otlp.json", traces / "spans.json")
    tools = repo / "fixtures/quickstart/tools.json"
    result = pytester.runpytest("--tracelint", "--tracelint-tools", str(tools), "traces", "-v", "-p", "no:cacheprovider")
    out = result.stdout.str()
    items = dict(re.findall(r"^(traces/\S+::\S+) (PASSED|FAILED)", out, re.M))
    spans = {k: v for k, v in items.items() if k.startswith("traces/spans.json::")}
    assert items["traces/failing.json::quickstart"] == "FAILED", out
    assert items["traces/clean.json::all-good"] == "PASSED", out
    # One item per trace, named by its trace id.
    assert len(spans) == 2 and all(len(k.split("::")[1]) == 32 for k in spans), out
    assert set(items) == {"traces/failing.json::quickstart", "traces/clean.json::all-good", *spans}
    # The failure names the rule at its place.
    assert re.search(r"failing\.json:\d+:\d+: R1 hard_defect: ", out), out
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == sum(v == "FAILED" for v in items.values())
    assert outcomes["passed"] == sum(v == "PASSED" for v in items.values())
    assert result.ret == 1


def test_without_the_option_no_trace_is_collected(pytester, repo):
    pytester.makeini("[pytest]\n")
    traces = pytester.mkdir("traces")
    shutil.copy(repo / "fixtures/quickstart/transcript.json", traces / "failing.json")
    result = pytester.runpytest("traces", "-p", "no:cacheprovider")
    assert result.ret == 5  # no tests collected


def test_a_broken_file_is_a_failing_item(pytester):
    pytester.makeini("[pytest]\n")
    traces = pytester.mkdir("traces")
    (traces / "broken.jsonl").write_text('{"run_id": "x", "steps": [\n')
    result = pytester.runpytest("--tracelint", "traces", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert "input error" in result.stdout.str()


def test_assert_clean_fails_with_the_text_report(pytester, repo):
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_traces=f"""
        def test_failing(tracelint):
            tracelint.assert_clean({str(repo / "fixtures/quickstart/transcript.json")!r}.encode() and open({str(repo / "fixtures/quickstart/transcript.json")!r}, "rb"),
                                   tools={str(repo / "fixtures/quickstart/tools.json")!r}, fail_on="hard_defect")

        def test_passing(tracelint):
            tracelint.assert_clean({{"run_id": "ok", "steps": []}})
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "tracelint found problems" in out
    assert "R1" in out and "hard defect" in out.lower().replace("_", " ")
