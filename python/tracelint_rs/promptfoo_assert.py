"""A promptfoo Python assertion: lint the output when the output is an agent's trace.

In ``promptfooconfig.yaml``, with this file's path (``python -m tracelint_rs.promptfoo_assert`` prints
it)::

    defaultTest:
      assert:
        - type: python
          value: file:///path/to/site-packages/tracelint_rs/promptfoo_assert.py
          config:
            tools: tools.json        # Linter's keywords: tools, fail_on, select, ignore, ...
            fail_on: hard_defect

promptfoo calls ``get_assert(output, context)``: the output (the provider's response: a trace as
JSON text or as an object, in any input format ``tracelint check`` reads) is linted with the
assertion's ``config`` as ``tracelint_rs.Linter``'s keywords; it passes (score 1) when clean at
``fail_on`` (hard defects by default) and fails (score 0) when a finding reaches it or the trace
cannot be read, with the text report as the reason. promptfoo runs it with ``python3`` from
PATH, or the interpreter ``PROMPTFOO_PYTHON`` names: that one must have ``tracelint-rs``.
"""

from __future__ import annotations

from typing import Any

import tracelint_rs


def get_assert(output: Any, context: Any = None) -> dict[str, Any]:
    """promptfoo's ``GradingResult`` (``pass``, ``score``, ``reason``) for one output.

    >>> trace = '{"run_id": "r", "steps": [{"type": "tool_call", "call_id": "c", "name": "t", "args": "{"}]}'
    >>> result = get_assert(trace, {"config": {}})
    >>> result["pass"], result["score"]
    (False, 0.0)
    >>> "R6" in result["reason"]
    True
    """
    config = dict((context or {}).get("config") or {})
    name = config.pop("name", None) or _name(context)
    input_format = config.pop("input_format", None)
    config.setdefault("fail_on", "hard_defect")
    report = tracelint_rs.Linter(**config).lint(output, name=name, input_format=input_format)
    passed = report.exit_code == 0
    return {"pass": passed, "score": 1.0 if passed else 0.0, "reason": report.to_text()}


def _name(context: Any) -> str:
    """The name reports give the output: the test's description, when it has one."""
    test = (context or {}).get("test") or {}
    description = test.get("description") if isinstance(test, dict) else None
    return f"promptfoo output ({description})" if description else "promptfoo output"


if __name__ == "__main__":
    print(__file__)
