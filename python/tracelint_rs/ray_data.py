"""Lint a corpus of trace files on Ray Data: one report shard per batch, merged by
``tracelint report`` into the report one ``tracelint check`` over every file would have written.

    import ray
    from tracelint_rs.ray_data import lint_corpus

    ray.init(num_cpus=8)
    result = lint_corpus(sorted(glob.glob("traces/**/*.jsonl", recursive=True)),
                         shard_dir="shards/", tools="tools.json")
    result.rule_counts           # Counter({'R1': 312, 'R5': 40, ...})
    # then: tracelint report shards/*.jsonl --sarif all.sarif --html all.html

Each Ray task lints a shard: ``batch_size`` files, a contiguous run of the sorted paths, with one
``tracelint_rs.Linter`` per worker, on one thread (``jobs=1``: Ray gives the parallelism), and
returns the batch's report as JSON Lines (``check --output-format json-lines``), its per-rule
counts and its exit code. The driver writes the shards in path order, so the merged report lists
the files as ``check`` does. The workers read the files by path: on a cluster, a shared file
system or a mounted bucket. A file may hold many traces (JSON Lines, one trace a line, as a
data lake's partitions hold them): the unit Ray hands out is the file, so give it a few times more
files than workers. Needs ``ray[data]`` (not a dependency of this package).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import ray
import ray.data

import tracelint_rs


class LintBatch:
    """``map_batches`` callable: each row's ``paths`` (a JSON list of paths) is one shard,
    linted as one run; gives a row per shard: ``first`` (its first path), ``traces``, ``rules``
    (``"R1=3,R5=1"``), ``exit_code`` and ``shard`` (its report as JSON Lines)."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("jobs", 1)
        self.linter = tracelint_rs.Linter(**options)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"first": [], "traces": [], "rules": [], "exit_code": [], "shard": []}
        for listed in batch["paths"]:
            paths = json.loads(str(listed))
            report = self.linter.lint_paths(*paths)
            counts = Counter(f.rule for f in report.findings)
            out["first"].append(paths[0])
            out["traces"].append(report.summary["traces"])
            out["rules"].append(",".join(f"{rule}={n}" for rule, n in sorted(counts.items())))
            out["exit_code"].append(report.exit_code)
            out["shard"].append(report.to_jsonl())
        return out


@dataclass
class CorpusResult:
    """What ``lint_corpus`` found: per-rule finding counts, traces, the shards written (in path
    order, to merge with ``tracelint report``) and the exit code ``check`` would have given."""

    rule_counts: Counter = field(default_factory=Counter)
    traces: int = 0
    shards: list[Path] = field(default_factory=list)
    #: The traces each shard holds (a file may hold many), in the order of ``shards``.
    shard_traces: list[int] = field(default_factory=list)
    #: The files each shard linted, in the order of ``shards``.
    shard_files: list[list[str]] = field(default_factory=list)
    exit_code: int = 0


def lint_corpus(
    paths: Iterable[str | os.PathLike[str]],
    *,
    shard_dir: str | os.PathLike[str],
    batch_size: int = 64,
    concurrency: int | None = None,
    **options: Any,
) -> CorpusResult:
    """Lint trace files on Ray Data (``ray.init`` first, or Ray starts a local cluster): shards
    of ``batch_size`` files, ``concurrency`` workers (by default as many as Ray has CPUs), each
    with a ``tracelint_rs.Linter(**options)``. Writes ``shard-NNNNN.jsonl`` to ``shard_dir``."""
    files = sorted(os.fspath(p) for p in paths)
    if not files:
        raise ValueError("lint_corpus: no trace files")
    if len(set(files)) != len(files):
        raise ValueError("lint_corpus: a path is given twice")
    if concurrency is None:
        concurrency = max(1, int(ray.available_resources().get("CPU", 1)))
    # One row per shard, so a shard is always a contiguous run of the sorted paths, however Ray
    # groups rows into blocks.
    rows = [{"paths": json.dumps(files[i : i + batch_size])} for i in range(0, len(files), batch_size)]
    dataset = ray.data.from_items(rows, override_num_blocks=len(rows))
    linted = dataset.map_batches(
        LintBatch,
        fn_constructor_kwargs=options,
        batch_size=1,
        compute=ray.data.ActorPoolStrategy(size=concurrency),
        num_cpus=1,
        batch_format="numpy",
    )
    result = CorpusResult()
    out = Path(shard_dir)
    out.mkdir(parents=True, exist_ok=True)
    by_first = {json.loads(row["paths"])[0]: json.loads(row["paths"]) for row in rows}
    for i, row in enumerate(sorted(linted.take_all(), key=lambda r: r["first"])):
        result.traces += int(row["traces"])
        result.shard_traces.append(int(row["traces"]))
        result.shard_files.append(by_first[str(row["first"])])
        result.exit_code = max(result.exit_code, int(row["exit_code"]))
        for part in filter(None, str(row["rules"]).split(",")):
            rule, n = part.split("=")
            result.rule_counts[rule] += int(n)
        shard = out / f"shard-{i:05}.jsonl"
        shard.write_text(str(row["shard"]), encoding="utf-8")
        result.shards.append(shard)
    return result
