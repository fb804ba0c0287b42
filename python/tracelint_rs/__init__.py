"""Lint what a tool-calling AI agent actually did, from Python.

``tracelint_rs`` is the tracelint linter (a Rust library) as a Python module: the same rules,
tiers, input formats and reports as the ``tracelint`` command, which this package also installs.
Its import name is ``tracelint_rs`` (the PyPI package ``tracelint-rs``), not ``tracelint``: that
name belongs to a different program, the Python tracelint, and both may be installed side by side.

Lint a trace held in memory (a dict, a list, JSON text or bytes), a file, a directory or a
file-like object, in any input format the command reads:

>>> import tracelint_rs
>>> trace = {
...     "run_id": "demo",
...     "steps": [
...         {"type": "tool_call", "call_id": "c1", "name": "get_weather", "args": {"city": 7}},
...         {"type": "tool_result", "call_id": "c1", "content": "ok", "status": "ok"},
...     ],
... }
>>> tools = {"tools": [{"name": "get_weather", "inputSchema": {
...     "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}
>>> report = tracelint_rs.lint(trace, tools=tools)
>>> report.exit_code
2
>>> [(f.rule, f.tier, f.step) for f in report.findings]
[('R1', 'hard_defect', 0)]
>>> report.summary["hard_defect"]
1

Every rendering is the command line's, byte for byte (``to_json``, ``to_sarif``, ``to_html``,
``to_text``, ``to_jsonl``, ``to_github``):

>>> import json
>>> json.loads(report.to_json())["summary"]["traces"]
1

Setting up a linter (tools sources, a configuration) is the costly part: build a ``Linter``
once and lint many traces with it. Its keyword options are the command's flags.

Traces straight from a running Arize Phoenix server: ``lint_phoenix`` reads a project's spans
through Phoenix's REST API (paged, within an optional time window) and, with ``write_back``,
records each finding as a ``tracelint`` annotation on the span of the step it cites, which a
rerun updates instead of duplicating::

    report = tracelint_rs.lint_phoenix("phoenix:http://127.0.0.1:6006/projects/support-agent",
                                       since="24h", write_back=True, tools="tools.json")
    report.written_back    # {'annotations': 2, 'spans': 2, 'unplaced': 0}

``Linter.lint_paths`` and ``stream`` read ``phoenix:`` sources too (every span, nothing written).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Union

from ._native import (
    ConfigError,
    Evidence,
    ExpectationsError,
    Finding,
    InputIssue,
    PhoenixError,
    Report,
    Suppression,
    ToolsError,
    TraceResult,
    TraceStream,
    TracelintError,
    __version__,
    input_formats,
)
from ._native import Linter as _NativeLinter
from ._jsonable import to_json_bytes

__all__ = [
    "ConfigError",
    "Evidence",
    "ExpectationsError",
    "Finding",
    "InputIssue",
    "Linter",
    "PhoenixError",
    "Report",
    "Suppression",
    "ToolsError",
    "TraceResult",
    "TraceStream",
    "TracelintError",
    "__version__",
    "assert_clean",
    "input_formats",
    "lint",
    "lint_each",
    "lint_otel_spans",
    "lint_phoenix",
    "stream",
]

PathLike = Union[str, "os.PathLike[str]"]
#: What ``lint`` accepts: a dict or list (a trace as JSON), JSON text, bytes, a path
#: (``pathlib.Path`` or any ``os.PathLike``) or a binary or text file-like object.
Source = Union[Mapping[str, Any], list, str, bytes, bytearray, memoryview, "os.PathLike[str]", io.IOBase]


def _tools_sources(tools: Any, keep: list) -> list[str]:
    """Tools given as sources (paths, ``mcp-stdio:…``, ``mcp-http:…``, ``builtin:…``) or as a
    tools document held in memory (a dict or list), which is written to a temporary file."""
    if tools is None:
        return []
    if isinstance(tools, (str, os.PathLike)) or isinstance(tools, Mapping):
        tools = [tools]
    elif isinstance(tools, list) and tools and all(isinstance(t, Mapping) for t in tools) and any(
        "name" in t for t in tools
    ):
        # One OpenAI or Anthropic style tool array, not a list of sources.
        tools = [tools]
    out = []
    for t in tools:
        if isinstance(t, (Mapping, list)):
            import tempfile

            f = tempfile.NamedTemporaryFile(prefix="tracelint-tools-", suffix=".json", delete=False)
            keep.append(f.name)
            with f:
                f.write(to_json_bytes(t))
            out.append(f.name)
        else:
            out.append(os.fspath(t))
    return out


def _instant(when: str | _dt.datetime | _dt.timedelta | None) -> str | None:
    """A time window's edge as the command takes it: text as is, a ``datetime`` (naive: UTC)
    as RFC 3339, a ``timedelta`` as an age (that long ago)."""
    if when is None or isinstance(when, str):
        return when
    if isinstance(when, _dt.timedelta):
        return f"{max(0, int(when.total_seconds()))}s"
    if isinstance(when, _dt.datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    raise TypeError(f"a time window's edge is a str, a datetime or a timedelta, not a {type(when).__name__}")


def _names(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return [os.fspath(x) if isinstance(x, os.PathLike) else str(x) for x in v]


class Linter:
    """Lints traces with one set of options, the command's flags as keywords.

    tools: tools sources, as ``--tools`` takes them (a path, ``mcp-stdio:COMMAND``,
        ``mcp-http:URL``, ``builtin:AGENT``), one or a list; or a tools document held in memory
        (an MCP ``{"tools": [...]}`` dict, an OpenAI or Anthropic tool list).
    select, ignore: rule ids (``"R1"``, ``["R1", "R6"]``, ``"R1,R6"``).
    fail_on: ``"hard_defect"`` (the default), ``"hard_event"``, ``"candidate"`` or ``"never"``.
    closed_toolset: a call to a tool no source declares is a hard defect (R7).
    config: a ``tracelint.toml`` path; config_text: the same as TOML text. No configuration is
        searched for: the command finds one upward from the working directory, the module uses
        only the one it is given.
    expect: expectations files (rule E1); baseline: a baseline file (read, never written).
    input_format: read every input as this format (``input_formats()`` lists them).
    jobs: threads; max_findings: findings listed at most; max_record_size: bytes.

    >>> linter = Linter(select="R1", fail_on="hard_event")
    >>> linter.lint({"run_id": "r", "steps": []}).exit_code
    0
    >>> Linter(fail_on="fatal")
    Traceback (most recent call last):
    ...
    ValueError: fail_on: `fatal` is not a tier: hard_defect, hard_event, candidate or never
    >>> Linter(tools="no/such/tools.json")
    Traceback (most recent call last):
    ...
    tracelint_rs.ToolsError: no/such/tools.json: cannot read the tools file: No such file or directory (os error 2)
    """

    def __init__(
        self,
        *,
        tools: Any = None,
        select: str | Iterable[str] | None = None,
        ignore: str | Iterable[str] | None = None,
        fail_on: str | None = None,
        closed_toolset: bool | None = None,
        config: PathLike | None = None,
        config_text: str | None = None,
        expect: PathLike | Iterable[PathLike] | None = None,
        baseline: PathLike | None = None,
        input_format: str | None = None,
        jobs: int | None = None,
        max_findings: int | None = None,
        max_record_size: int | None = None,
    ) -> None:
        temporary: list[str] = []
        try:
            self._native = _NativeLinter(
                tools=_tools_sources(tools, temporary),
                select=_names(select),
                ignore=_names(ignore),
                fail_on=fail_on,
                closed_toolset=closed_toolset,
                config=None if config is None else os.fspath(config),
                config_text=config_text,
                expect=_names(expect if not isinstance(expect, os.PathLike) else [expect]),
                baseline=None if baseline is None else os.fspath(baseline),
                input_format=input_format,
                jobs=jobs,
                max_findings=max_findings,
                max_record_size=max_record_size,
            )
        finally:
            # The registry is compiled: tools documents written for it are not needed again.
            for name in temporary:
                os.unlink(name)

    @property
    def notes(self) -> list[str]:
        """What loading the tools sources had to say."""
        return self._native.notes

    def lint(self, source: Source, *, name: str | None = None, input_format: str | None = None) -> Report:
        """Lint one source: a dict or list (JSON), JSON text (``str``), ``bytes``, a path
        (``pathlib.Path``; a directory or a glob is walked as the command walks it) or a
        file-like object. ``name`` is the path reports give for what is not a path.

        >>> Linter().lint(b'{"run_id": "r", "steps": []}', name="mine.json").findings
        []
        >>> Linter().lint(42)
        Traceback (most recent call last):
        ...
        TypeError: cannot lint a int: give a dict, list, str, bytes, a path or a file-like object
        """
        if isinstance(source, os.PathLike):
            if input_format is not None:
                raise ValueError("input_format: give it to Linter(...) to read paths as one format")
            return self._native.lint_paths([os.fspath(source)])
        if isinstance(source, (bytes, bytearray, memoryview)):
            data, default = bytes(source), "<bytes>"
        elif isinstance(source, str):
            data, default = source.encode("utf-8", "surrogatepass"), "<string>"
        elif hasattr(source, "read"):
            got = source.read()
            data = got.encode("utf-8") if isinstance(got, str) else bytes(got)
            default = getattr(source, "name", None)
            default = default if isinstance(default, str) else "<stream>"
        elif isinstance(source, (Mapping, list, tuple)):
            data, default = to_json_bytes(source), "<object>"
        else:
            raise TypeError(
                f"cannot lint a {type(source).__name__}: give a dict, list, str, bytes, a path or a file-like object"
            )
        return self._native.lint_bytes(data, name or default, input_format)

    def lint_paths(self, *paths: PathLike) -> Report:
        """Lint files, directories and globs together, as ``tracelint check PATH…`` does; a
        ``phoenix:http://HOST:PORT[/projects/NAME]`` path reads a Phoenix server's spans (for a
        time window or a write-back, see ``lint_phoenix``)."""
        return self._native.lint_paths([os.fspath(p) for p in paths])

    def lint_phoenix(
        self,
        source: str,
        *,
        since: str | _dt.datetime | _dt.timedelta | None = None,
        until: str | _dt.datetime | _dt.timedelta | None = None,
        write_back: bool = False,
        include_candidates: bool = False,
    ) -> Report:
        """Read the spans of a running Arize Phoenix server's project through its REST API,
        lint them as OpenTelemetry traces, and with ``write_back`` record each finding as an
        annotation (named ``tracelint``, labelled with its tier, with its rule and message) on
        the span of the step it cites: what ``tracelint check phoenix:URL`` does.

        source: ``phoenix:http://HOST:PORT/projects/NAME`` (``phoenix:`` may be left out; without
            ``/projects/NAME``, the ``default`` project). An API key is read from
            ``PHOENIX_API_KEY``, as Phoenix's own clients do.
        since, until: the window of span start times: RFC 3339 text, a date, an age (``"24h"``,
            ``"7d"``), a ``datetime`` (naive means UTC) or a ``timedelta`` (that long ago).
        write_back: write the findings back; a rerun updates the annotations it wrote instead of
            adding new ones. ``report.written_back`` then says how many were written.
        include_candidates: write candidates back too (by default only hard defects and events).

        The report names its input as ``source``. A server that cannot be read, or a source
        that is not a Phoenix address, raises ``PhoenixError``:

        >>> Linter().lint_phoenix("phoenix:ftp://127.0.0.1:6006")
        Traceback (most recent call last):
        ...
        tracelint_rs.PhoenixError: `phoenix:ftp://127.0.0.1:6006`: the scheme is `ftp`, Phoenix speaks http or https; expected `phoenix:http://HOST:PORT` or `phoenix:http://HOST:PORT/projects/NAME`
        """
        return self._native.lint_phoenix(
            source,
            since=_instant(since),
            until=_instant(until),
            write_back=write_back,
            include_candidates=include_candidates,
        )

    def lint_otel_spans(self, spans: Any, *, name: str = "<spans>") -> Report:
        """Lint OpenTelemetry spans held in memory: an Arize Phoenix span export (a list of span
        dicts), the records of Phoenix's ``get_spans_dataframe().to_dict("records")`` as they
        come (flattened ``attributes.*`` columns, pandas timestamps, NaN for missing), the
        DataFrame itself, an OTLP JSON document, or any list of span dicts. Spans are grouped
        into traces by trace id.

        >>> spans = [
        ...     {"context.trace_id": "t1", "context.span_id": "s1", "parent_id": float("nan"),
        ...      "name": "get_weather", "span_kind": "TOOL", "status_code": "ERROR",
        ...      "attributes.tool.name": "get_weather", "attributes.input.value": '{"city": "Oslo"}'},
        ... ]
        >>> Linter().lint_otel_spans(spans).summary["traces"]
        1
        """
        if hasattr(spans, "to_dict") and hasattr(spans, "columns"):
            index = getattr(getattr(spans, "index", None), "name", None)
            if index and index not in spans.columns:
                spans = spans.reset_index()
            spans = spans.to_dict("records")
        if isinstance(spans, (bytes, bytearray, str)):
            return self.lint(spans, name=name, input_format="otel")
        return self._native.lint_bytes(to_json_bytes(spans), name, "otel")

    def stream(self, *paths: PathLike) -> TraceStream:
        """Lint files, directories and globs, yielding each trace's ``TraceResult`` as soon as
        it is linted (memory follows the largest trace, not the corpus); once exhausted, the
        stream's ``report`` is the whole run's."""
        return self._native.stream([os.fspath(p) for p in paths])

    def lint_each(self, sources: Iterable[Source]) -> Iterator[Report]:
        """Lint each source of an iterable (dicts, strings, bytes, paths, file-like objects),
        yielding one report per source, as it goes.

        >>> [r.exit_code for r in Linter().lint_each([{"run_id": "a", "steps": []}, b"{"])]
        [0, 3]
        """
        for source in sources:
            yield self.lint(source)


def _split(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    call = {k: options.pop(k) for k in ("name", "input_format") if k in options}
    return options, call


def lint(source: Source, **options: Any) -> Report:
    """Lint one source with a linter made of ``options`` (``Linter``'s keywords, plus ``name``
    and ``input_format``). To lint many, build a ``Linter`` once."""
    options, call = _split(options)
    return Linter(**options).lint(source, **call)


def lint_otel_spans(spans: Any, **options: Any) -> Report:
    """``Linter(**options).lint_otel_spans(spans)``: see ``Linter.lint_otel_spans``."""
    name = options.pop("name", "<spans>")
    return Linter(**options).lint_otel_spans(spans, name=name)


def lint_phoenix(source: str, **options: Any) -> Report:
    """``Linter(**options).lint_phoenix(source, ...)``, ``since``, ``until``, ``write_back`` and
    ``include_candidates`` going to ``lint_phoenix``: see ``Linter.lint_phoenix``."""
    call = {k: options.pop(k) for k in ("since", "until", "write_back", "include_candidates") if k in options}
    return Linter(**options).lint_phoenix(source, **call)


def stream(*paths: PathLike, **options: Any) -> TraceStream:
    """``Linter(**options).stream(*paths)``: per-trace results of a run over paths.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.json").write_text('{"run_id": "first", "steps": []}')
    >>> _ = (folder / "b.json").write_text('{"run_id": "second", "steps": []}')
    >>> results = stream(folder)
    >>> [t.run_id for t in results]
    ['first', 'second']
    >>> results.report.summary["traces"]
    2
    """
    return Linter(**options).stream(*paths)


def lint_each(sources: Iterable[Source], **options: Any) -> Iterator[Report]:
    """``Linter(**options).lint_each(sources)``: one report per source."""
    return Linter(**options).lint_each(sources)


def assert_clean(trace: Source, **options: Any) -> Report:
    """Lint ``trace`` (``lint``'s source and options) and raise ``AssertionError`` with the text
    report as its message unless it is clean at ``fail_on`` (hard defects by default) and holds
    no input error. In a pytest test, the failure shows that report.

    >>> assert_clean({"run_id": "r", "steps": []}).exit_code
    0
    >>> assert_clean(b"not json")
    Traceback (most recent call last):
    ...
    AssertionError: ...
    """
    __tracebackhide__ = True
    report = lint(trace, **options)
    if report.exit_code != 0:
        raise AssertionError("tracelint found problems:\n" + report.to_text())
    return report
