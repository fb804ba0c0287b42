"""A small real agent loop on the official MCP Python SDK client, run N times through
`tracelint mcp proxy` against a real MCP server (@modelcontextprotocol/server-everything): the
task is "add 2 and 3 with `get-sum`, then report the sum with `echo`". Each run is one MCP
session the proxy records; `tracelint scorecard --runs DIR --oracle oracle.toml` scores them.

Two scripted policies, each a seeded stochastic policy (runs are independent samples):
- robust: reads the sum from the tool's text; on an error or an answer without the sum it
  retries (up to 3 calls; it gives up with probability 0.1 after each failure) and never reports
  a value it did not get;
- buggy: calls once and reports the first number it finds in whatever came back (an error's
  "500", a rate limit's "2"); with probability 0.1 it happens to check the answer like robust.

    python agent_loop.py --policy robust --runs 30 --seed 1 --record DIR \
        [--inject error] --tracelint BIN -- SERVER_CMD ARGS...
"""

import argparse
import random
import re
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SUM = re.compile(r"The sum of 2 and 3 is (-?\d+)")
NUMBER = re.compile(r"-?\d+")


def text_of(res) -> str:
    return "\n".join(getattr(c, "text", "") for c in res.content)


async def one_run(a, server, rng: random.Random, run: int) -> None:
    proxy = [a.tracelint, "mcp", "proxy", "--record", a.record]
    if a.inject:
        # A different seed per run: the injection is reproducible run by run.
        proxy += ["--inject", a.inject, "--at", "1", "--seed", str(a.seed * 1000 + run)]
    params = StdioServerParameters(command=proxy[0], args=proxy[1:] + ["--"] + server)
    async with stdio_client(params, errlog=open("/dev/null", "w")) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            await s.list_tools()
            careful = a.policy == "robust" or rng.random() < 0.1
            got = None
            for attempt in range(3 if careful else 1):
                try:
                    res = await s.call_tool("get-sum", {"a": 2, "b": 3}, read_timeout_seconds=5)
                    text = text_of(res)
                    failed = bool(getattr(res, "is_error", None) or getattr(res, "isError", None))
                except Exception as e:  # a timeout or a protocol error is a failed call
                    text, failed = str(e), True
                if careful:
                    m = SUM.search(text)
                    if not failed and m:
                        got = m.group(1)
                        break
                    if rng.random() < 0.1:
                        break
                else:
                    m = NUMBER.search(text.replace("2 and 3", ""))
                    got = m.group(0) if m else "unknown"
            if got is not None:
                await s.call_tool("echo", {"message": f"The sum is {got}"})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", choices=["robust", "buggy"], required=True)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--record", required=True)
    ap.add_argument("--inject", default=None)
    ap.add_argument("--tracelint", default="tracelint")
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    server = a.server[1:] if a.server and a.server[0] == "--" else a.server
    for run in range(a.runs):
        rng = random.Random(f"{a.seed}/{a.policy}/{a.inject}/{run}")
        anyio.run(one_run, a, server, rng, run)
    print(f"{a.policy}: {a.runs} run(s) recorded in {a.record}", file=sys.stderr)


if __name__ == "__main__":
    main()
