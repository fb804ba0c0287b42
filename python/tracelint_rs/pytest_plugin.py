"""The pytest plugin (entry point ``pytest11``), on when ``tracelint-rs`` is installed.

* ``pytest --tracelint traces/`` collects every trace file under the paths given (``.json``,
  ``.jsonl``, ``.ndjson``, ``.eval``, ``.traj``) as test items, one per trace, named by the
  trace's run id (``traces/refund.json::run-17``). An item fails when its trace has a finding at
  or above ``--tracelint-fail-on`` (hard defects by default), with those findings as the
  message; a file that cannot be read is one failing item. Tools sources come from
  ``--tracelint-tools`` (repeatable), a configuration from ``--tracelint-config``.
* The ``tracelint`` fixture is the ``tracelint_rs`` module: ``tracelint.assert_clean(trace,
  tools=..., fail_on=...)`` fails a test with the text report as its message.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import tracelint_rs

TRACE_SUFFIXES = {".json", ".jsonl", ".ndjson", ".eval", ".traj"}
TIER_RANK = {"candidate": 0, "hard_event": 1, "hard_defect": 2}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tracelint", "lint agent traces with tracelint")
    group.addoption(
        "--tracelint",
        action="store_true",
        default=False,
        help="collect trace files (.json, .jsonl, .ndjson, .eval, .traj) as test items, one per trace",
    )
    group.addoption(
        "--tracelint-tools",
        action="append",
        default=[],
        metavar="SOURCE",
        help="a tools source for --tracelint: a tools file, mcp-stdio:COMMAND, mcp-http:URL, builtin:AGENT (repeatable)",
    )
    group.addoption(
        "--tracelint-fail-on",
        default="hard_defect",
        choices=["hard_defect", "hard_event", "candidate"],
        help="the lowest tier that fails a trace's item (default: hard_defect)",
    )
    group.addoption(
        "--tracelint-config", default=None, metavar="FILE", help="a tracelint.toml for --tracelint"
    )


@pytest.fixture
def tracelint() -> Any:
    """The ``tracelint_rs`` module: ``tracelint.assert_clean(trace, tools=..., fail_on=...)``."""
    return tracelint_rs


def _linter(config: pytest.Config) -> tracelint_rs.Linter:
    linter = config.stash.get(_LINTER, None)
    if linter is None:
        linter = tracelint_rs.Linter(
            tools=config.getoption("tracelint_tools"),
            config=config.getoption("tracelint_config"),
        )
        config.stash[_LINTER] = linter
    return linter


_LINTER = pytest.StashKey["tracelint_rs.Linter"]()


def _is_tools_file(config: pytest.Config, path: Path) -> bool:
    for source in config.getoption("tracelint_tools"):
        try:
            if os.path.exists(source) and os.path.samefile(source, path):
                return True
        except OSError:
            continue
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not config.getoption("tracelint") or file_path.suffix not in TRACE_SUFFIXES:
        return None
    if _is_tools_file(config, file_path) or file_path.name == "tracelint.toml":
        return None
    return TraceFile.from_parent(parent, path=file_path)


class TracelintFailure(Exception):
    """A trace's findings (or a file's input errors), shown as the item's failure."""


class TraceFile(pytest.File):
    """A trace file: linted once when collected, one item per trace it holds."""

    def collect(self):  # type: ignore[override]
        results = tracelint_rs.Linter.stream(_linter(self.config), self.path)
        seen: dict[str, int] = {}
        for result in results:
            n = seen.get(result.run_id, 0)
            seen[result.run_id] = n + 1
            name = result.run_id if n == 0 else f"{result.run_id}[{n + 1}]"
            yield TraceItem.from_parent(self, name=name, result=result)
        report = results.report
        if report is not None and report.issues:
            yield InputItem.from_parent(self, name="input", issues=report.issues)


class TraceItem(pytest.Item):
    """One trace: fails when it has a finding at or above the failing tier."""

    def __init__(self, *, result: tracelint_rs.TraceResult, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result = result
        self.add_marker("tracelint")

    def runtest(self) -> None:
        gate = TIER_RANK[self.config.getoption("tracelint_fail_on")]
        failing = [
            f for f in self.result.findings if f.ignored is None and TIER_RANK.get(f.tier, 0) >= gate
        ]
        if failing:
            lines = []
            for f in failing:
                lines.append(str(f))
                if f.help:
                    lines.append(f"  help: {f.help}")
            raise TracelintFailure("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, TracelintFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"tracelint: {self.name}"


class InputItem(pytest.Item):
    """A trace file that could not be read (wholly or in part)."""

    def __init__(self, *, issues: list[tracelint_rs.InputIssue], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.issues = issues

    def runtest(self) -> None:
        if self.issues:
            raise TracelintFailure(
                "\n".join(f"{i.path}:{i.line}:{i.column}: input error: {i.message}" for i in self.issues)
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, TracelintFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"tracelint: {self.path.name}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tracelint: a trace linted by tracelint")
