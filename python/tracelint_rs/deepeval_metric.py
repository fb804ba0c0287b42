"""A DeepEval metric: lint what the agent of a test case did, no model needed.

    from deepeval import assert_test
    from deepeval.test_case import LLMTestCase, ToolCall
    from tracelint_rs.deepeval_metric import TracelintMetric

    case = LLMTestCase(input="weather in Oslo?", actual_output="sunny",
                       tools_called=[ToolCall(name="get_weather", input_parameters={"city": "Oslo"},
                                              output="sunny")])
    assert_test(case, [TracelintMetric(tools="tools.json")])

The trace is ``test_case.metadata["trace"]`` (``additional_metadata`` before deepeval 4) when
there is one (a dict or list, JSON
text, bytes, or a path as ``pathlib.Path``, in any input format ``tracelint check`` reads),
else the test case's ``tools_called``, in order, each call followed by its ``output`` as the
tool's result. The score is 1.0 when the trace is clean at ``fail_on`` (hard defects by
default), 0.0 when a finding reaches it or the trace cannot be read; the reason is the text
report. Needs ``deepeval`` (not a dependency of this package).
"""

from __future__ import annotations

import os
from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

import tracelint_rs

#: The key of the test case's ``metadata`` that holds a whole trace.
TRACE_KEY = "trace"


def trace_of(test_case: LLMTestCase, key: str = TRACE_KEY) -> Any:
    """The trace a test case holds: its ``metadata[key]``, else a native trace made
    of its ``tools_called`` (a ``tool_call`` step and, when the call has an ``output``, a
    ``tool_result`` step each) with its ``input`` first and its ``actual_output`` as the final
    answer."""
    # `metadata` since deepeval 4; `additional_metadata` before (a deprecated alias since).
    fields = getattr(type(test_case), "model_fields", {})
    metadata = (test_case.metadata if "metadata" in fields else test_case.additional_metadata) or {}
    if key in metadata:
        return metadata[key]
    steps: list[dict[str, Any]] = []
    if isinstance(test_case.input, str) and test_case.input:
        steps.append({"type": "message", "role": "user", "content": test_case.input})
    for i, call in enumerate(test_case.tools_called or [], start=1):
        call_id = f"call-{i}"
        steps.append(
            {"type": "tool_call", "call_id": call_id, "name": call.name, "args": call.input_parameters or {}}
        )
        if call.output is not None:
            steps.append({"type": "tool_result", "call_id": call_id, "content": call.output})
    trace: dict[str, Any] = {"run_id": test_case.name or "deepeval", "steps": steps}
    if isinstance(test_case.actual_output, str):
        trace["final"] = test_case.actual_output
    return trace


class TracelintMetric(BaseMetric):
    """Scores a test case 1.0 when its agent's trace is clean, 0.0 otherwise.

    tools, fail_on and ``options``: ``tracelint_rs.Linter``'s keywords (``fail_on`` is
    ``"hard_defect"`` by default: ``"hard_event"``, ``"candidate"``, ``"never"``).
    trace_key: the ``metadata`` key that holds a whole trace.
    """

    def __init__(
        self,
        tools: Any = None,
        fail_on: str = "hard_defect",
        trace_key: str = TRACE_KEY,
        **options: Any,
    ) -> None:
        self.threshold = 1.0
        self.strict_mode = True
        self.async_mode = False
        self.include_reason = True
        self.evaluation_model = None
        self.trace_key = trace_key
        self.linter = tracelint_rs.Linter(tools=tools, fail_on=fail_on, **options)
        self.report: tracelint_rs.Report | None = None

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        trace = trace_of(test_case, self.trace_key)
        name = test_case.name or "deepeval test case"
        if isinstance(trace, os.PathLike):
            report = self.linter.lint(trace)
        else:
            report = self.linter.lint(trace, name=name)
        self.report = report
        self.success = report.exit_code == 0
        self.score = 1.0 if self.success else 0.0
        self.reason = report.to_text()
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case, *args, **kwargs)

    def is_successful(self) -> bool:
        return bool(self.success)

    @property
    def __name__(self) -> str:  # DeepEval names a metric by this property
        return "Tracelint"
