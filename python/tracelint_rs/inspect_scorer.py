"""An Inspect AI scorer: lint each sample's conversation (its messages, tool calls and tool
results, as Inspect holds them) and score it CORRECT when clean, INCORRECT when a finding reaches
``fail_on`` (hard defects by default) or the conversation cannot be read.

    from tracelint_rs.inspect_scorer import tracelint_scorer
    Task(dataset=..., solver=..., scorer=tracelint_scorer(tools="tools.json"))

The score's explanation is the text report; its metadata lists the findings (rule, tier,
message, step). Needs ``inspect-ai`` (not a dependency of this package).
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState

import tracelint_rs


def sample_document(state: TaskState, target: Target) -> bytes:
    """The sample as an Inspect log's ``samples/<id>_epoch_<n>.json`` member holds it."""
    messages = [m.model_dump(mode="json", exclude_none=True) for m in state.messages]
    document = {
        "id": state.sample_id,
        "epoch": state.epoch,
        "input": state.input if isinstance(state.input, str) else [m.model_dump(mode="json") for m in state.input],
        "target": target.text,
        "messages": messages,
    }
    return json.dumps(document).encode()


@scorer(metrics=[accuracy()])
def tracelint_scorer(tools: Any = None, fail_on: str = "hard_defect", **options: Any):
    """Score a sample by linting what its agent did; ``tools`` and ``options`` are
    ``tracelint_rs.Linter``'s."""
    linter = tracelint_rs.Linter(tools=tools, fail_on=fail_on, **options)

    async def score(state: TaskState, target: Target) -> Score:
        report = linter.lint(sample_document(state, target), name=f"sample {state.sample_id}", input_format="inspect")
        return Score(
            value=CORRECT if report.exit_code == 0 else INCORRECT,
            explanation=report.to_text(),
            metadata={
                "exit_code": report.exit_code,
                "findings": [
                    {"rule": f.rule, "tier": f.tier, "message": f.message, "step": f.step} for f in report.findings
                ],
            },
        )

    return score
