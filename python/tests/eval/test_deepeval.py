"""The DeepEval metric with the real deepeval, offline and without a model: a test case whose
agent sent arguments that break the tool's schema fails (score 0, the finding in the reason,
and deepeval's own `assert_test` raises); a clean one passes, whether the trace is in
`additional_metadata["trace"]` or is the test case's `tools_called`."""

from __future__ import annotations

import json
import os
import tempfile

# No telemetry, no update check, nothing written beside the repository (deepeval makes its
# folder in the working directory when imported: eval_peers.rs names one for its pytest plugin).
os.environ.setdefault("DEEPEVAL_CACHE_FOLDER", tempfile.mkdtemp(prefix="deepeval-"))
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "1"
os.environ["DEEPEVAL_UPDATE_WARNING_OPT_IN"] = "0"

import pytest

# deepeval is installed by scripts/test (scripts/eval-peers.txt): missing, this file fails.
from deepeval import assert_test
from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase, ToolCall

from tracelint_rs.deepeval_metric import TracelintMetric

TOOLS = {
    "tools": [
        {
            "name": "get_weather",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ]
}


def case(city, **fields) -> LLMTestCase:
    return LLMTestCase(
        input="weather?",
        actual_output="It is sunny.",
        tools_called=[ToolCall(name="get_weather", input_parameters={"city": city}, output="sunny")],
        **fields,
    )


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """deepeval keeps its files in the working directory: a scratch one."""
    monkeypatch.chdir(tmp_path)


def test_the_metric_is_a_deepeval_metric():
    assert isinstance(TracelintMetric(), BaseMetric)


def test_tools_called_with_a_hard_defect_fail_and_clean_ones_pass():
    metric = TracelintMetric(tools=TOOLS)
    assert metric.measure(case(7)) == 0.0
    assert metric.success is False and metric.is_successful() is False
    assert "R1" in metric.reason and "get_weather" in metric.reason, metric.reason
    assert [f.rule for f in metric.report.findings] == ["R1"]

    assert metric.measure(case("Oslo")) == 1.0
    assert metric.success is True, metric.reason


def test_a_whole_trace_in_the_metadata_is_linted(tmp_path):
    bad = {
        "run_id": "r",
        "steps": [
            {"type": "tool_call", "call_id": "c1", "name": "get_weather", "args": {"city": 7}},
            {"type": "tool_result", "call_id": "c1", "content": "sunny", "status": "ok"},
        ],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    metric = TracelintMetric(tools=TOOLS)
    for trace in (bad, json.dumps(bad), path):
        # The clean tools_called are not read: the metadata's trace is.
        assert metric.measure(case("Oslo", metadata={"trace": trace})) == 0.0
        assert "R1" in metric.reason, metric.reason
    assert str(path) in metric.reason


def test_assert_test_raises_on_a_hard_defect_and_passes_a_clean_case():
    assert_test(case("Oslo"), [TracelintMetric(tools=TOOLS)], run_async=False)
    with pytest.raises(AssertionError) as failed:
        assert_test(case(7), [TracelintMetric(tools=TOOLS)], run_async=False)
    assert "Tracelint" in str(failed.value) and "R1" in str(failed.value), failed.value
