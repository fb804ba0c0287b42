"""The promptfoo assertion with the real promptfoo CLI (npm, pinned in scripts/test), offline:
the `echo` provider makes a trace's JSON the "model output", a `type: python` assertion with
`value: file://…/tracelint_rs/promptfoo_assert.py` lints it; `promptfoo eval` fails (exit 100)
on a trace with a hard defect, with our finding as the assertion's reason in its JSON output,
and passes (exit 0) on a clean one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import tracelint_rs.promptfoo_assert

TOOLS = {
    "tools": [
        {
            "name": "get_weather",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ]
}


def trace(city) -> str:
    return json.dumps(
        {
            "run_id": f"weather-{city}",
            "steps": [
                {"type": "tool_call", "call_id": "c1", "name": "get_weather", "args": {"city": city}},
                {"type": "tool_result", "call_id": "c1", "content": "sunny", "status": "ok"},
            ],
            "final": "It is sunny.",
        }
    )


def promptfoo() -> str:
    """The promptfoo command scripts/test installed (TRACELINT_PROMPTFOO): missing, this fails."""
    found = os.environ.get("TRACELINT_PROMPTFOO")
    assert found and os.path.exists(found), "no promptfoo: set TRACELINT_PROMPTFOO (./scripts/test installs it)"
    return found


def evaluate(tmp_path, name, city):
    config = {
        "description": f"tracelint {name}",
        "prompts": ["{{trace}}"],
        "providers": ["echo"],
        "tests": [
            {
                "description": name,
                "vars": {"trace": trace(city)},
                "assert": [
                    {
                        "type": "python",
                        "value": "file://" + tracelint_rs.promptfoo_assert.__file__,
                        "config": {"tools": TOOLS, "fail_on": "hard_defect"},
                    }
                ],
            }
        ],
    }
    folder = tmp_path / name
    folder.mkdir()
    (folder / "promptfooconfig.json").write_text(json.dumps(config))
    env = dict(
        os.environ,
        PROMPTFOO_PYTHON=sys.executable,
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_DISABLE_SHARING="1",
        PROMPTFOO_DISABLE_REMOTE_GENERATION="1",
        PROMPTFOO_CONFIG_DIR=str(folder / "home"),
        PROMPTFOO_CACHE_ENABLED="false",
        HOME=str(folder / "home"),
        NO_COLOR="1",
    )
    done = subprocess.run(
        [promptfoo(), "eval", "-c", "promptfooconfig.json", "-o", "out.json", "--no-cache", "--no-table",
         "--no-progress-bar", "--no-write"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )
    out = json.loads((folder / "out.json").read_text())
    [result] = out["results"]["results"]
    return done, result


def test_promptfoo_eval_fails_a_hard_defect_and_passes_a_clean_trace(tmp_path):
    done, result = evaluate(tmp_path, "bad", 7)
    assert done.returncode == 100, done.stdout + done.stderr
    assert result["success"] is False
    grading = result["gradingResult"]
    assert grading["pass"] is False and grading["score"] == 0
    assert "R1" in grading["reason"] and "get_weather" in grading["reason"], grading

    done, result = evaluate(tmp_path, "good", "Oslo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["success"] is True, result["gradingResult"]
    assert result["gradingResult"]["score"] == 1


def test_get_assert_takes_an_object_and_the_configs_options():
    bad = json.loads(trace(7))
    result = tracelint_rs.promptfoo_assert.get_assert(bad, {"config": {"tools": TOOLS}, "test": {"description": "d"}})
    assert (result["pass"], result["score"]) == (False, 0.0)
    assert "promptfoo output (d)" in result["reason"]
    result = tracelint_rs.promptfoo_assert.get_assert(bad, {"config": {"tools": TOOLS, "fail_on": "never"}})
    assert result["pass"] is True
