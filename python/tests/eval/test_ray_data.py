"""The Ray Data recipe (tracelint_rs.ray_data) with the real Ray, a local cluster of 2 CPUs: over a
corpus of Claude Code sessions that `examples/gen_corpus` writes (one trace a file), its per-rule
counts equal those of `tracelint check` on the same files, and its shards, merged by `tracelint
report`, are the SARIF and the HTML report that `check` writes, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter

# No usage report, no token written to ~/.ray for a cluster that lives for one test.
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_AUTH_MODE"] = "disabled"

# ray[data] is installed by scripts/test (scripts/eval-peers.txt): missing, this file fails.
import ray
import ray.data

from tracelint_rs.ray_data import lint_corpus

#: Tool calls in the generated corpus (about 108 calls a session): 20,000 make 185 sessions.
CALLS = int(os.environ.get("TRACELINT_RAY_CALLS", "20000"))


def generator() -> str:
    """The corpus generator the Rust test names (TRACELINT_GEN_CORPUS): missing, this fails."""
    found = os.environ.get("TRACELINT_GEN_CORPUS")
    assert found and os.path.exists(found), "no corpus generator: set TRACELINT_GEN_CORPUS"
    return found


def test_ray_data_counts_equal_check_and_the_shards_merge_into_checks_sarif(tmp_path, cli):
    corpus = tmp_path / "corpus"
    subprocess.run([generator(), "corpus", str(corpus), str(CALLS), "10"], check=True, stdout=subprocess.DEVNULL)
    files = sorted(str(p) for p in (corpus / "claude").glob("*.jsonl"))
    tools = str(corpus / "tools.json")
    assert len(files) > 100

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 << 20)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        started = time.perf_counter()
        result = lint_corpus(files, shard_dir=tmp_path / "shards", tools=tools, batch_size=32, concurrency=2)
        on_ray = time.perf_counter() - started
    finally:
        ray.shutdown()

    started = time.perf_counter()
    check = subprocess.run(
        [cli, "check", *files, "--tools", tools, "--output-format", "json", "--max-findings", "0"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    on_cli = time.perf_counter() - started
    assert check.returncode in (0, 1, 2), check.stderr
    report = json.loads(check.stdout)
    counts = Counter(f["rule"] for f in report["findings"])
    assert result.traces == report["summary"]["traces"] == len(files)
    assert result.rule_counts == counts, (result.rule_counts, counts)
    assert sum(counts.values()) > 0 and {"R1", "R7"} <= set(counts), counts
    assert result.exit_code == check.returncode

    assert len(result.shards) > 2
    for output in ("sarif", "html"):
        merged = subprocess.run(
            [cli, "report", *map(str, result.shards), "--output-format", output],
            capture_output=True, text=True, cwd=tmp_path,
        )
        single = subprocess.run(
            [cli, "check", *files, "--tools", tools, "--output-format", output],
            capture_output=True, text=True, cwd=tmp_path,
        )
        assert merged.returncode == single.returncode == check.returncode, merged.stderr
        assert merged.stdout == single.stdout, output
    sys.stderr.write(
        f"ray data: {len(files)} traces in {on_ray:.1f} s on 2 CPUs ({len(files) / on_ray / 2:.0f} traces/s per core);"
        f" tracelint check: {on_cli:.1f} s\n"
    )
