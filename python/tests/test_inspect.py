"""The Inspect AI scorer with the real inspect-ai: a sample whose agent sent arguments that break
the tool's schema scores INCORRECT with the finding in its explanation; a clean one CORRECT."""

from __future__ import annotations

# inspect-ai is installed by scripts/test (scripts/dist-tools.txt): missing, this file fails.
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolCall

from tracelint_rs.inspect_scorer import tracelint_scorer

TOOLS = {
    "tools": [
        {
            "name": "get_weather",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ]
}


@solver
def scripted_agent():
    """An agent run without a model: the call its sample's metadata names, and its result."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        city = state.metadata["city"]
        state.messages.append(
            ChatMessageAssistant(
                content="", tool_calls=[ToolCall(id="c1", function="get_weather", arguments={"city": city})]
            )
        )
        state.messages.append(ChatMessageTool(content="sunny", tool_call_id="c1", function="get_weather"))
        state.messages.append(ChatMessageAssistant(content="It is sunny."))
        return state

    return solve


def test_the_scorer_fails_a_hard_defect_and_passes_a_clean_sample(tmp_path):
    task = Task(
        dataset=[
            Sample(id="bad", input="weather?", target="", metadata={"city": 7}),
            Sample(id="good", input="weather?", target="", metadata={"city": "Oslo"}),
        ],
        solver=scripted_agent(),
        scorer=tracelint_scorer(tools=TOOLS),
    )
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    scores = {s.id: next(iter(s.scores.values())) for s in log.samples}
    assert scores["bad"].value == "I"
    assert "R1" in scores["bad"].explanation
    assert [f["rule"] for f in scores["bad"].metadata["findings"]] == ["R1"]
    assert scores["good"].value == "C", scores["good"].explanation
    assert log.results.scores[0].metrics["accuracy"].value == 0.5
