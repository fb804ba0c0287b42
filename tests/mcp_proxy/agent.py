"""A tiny scripted agent on the official MCP Python SDK (`mcp`, pinned by scripts/mcp-peers.sh
and checked by ./scripts/test): it starts a server over stdio (the proxy, or the server itself),
initialises, lists the tools, makes the calls given as JSON, and prints one JSON line per call.
Every raw line the SDK reads from the server is appended to --wire, so a test can compare what
the client saw through the proxy with what it sees on a direct connection.

    python agent.py --wire W --calls '[["echo", {"message": "hi"}]]' [--timeout S]
                    [--pause-after N] [--policy robust|buggy] -- COMMAND ARGS...
"""

import argparse
import json
import sys

import anyio
import mcp.client.stdio as stdio_mod
from mcp import ClientSession, StdioServerParameters


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wire", required=True)
    ap.add_argument("--calls", required=True)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--pause-after", type=int, default=None)
    ap.add_argument("--http", default=None, help="a Streamable HTTP endpoint instead of a command")
    ap.add_argument("--quiet", action="store_true", help="print only the timing of the calls")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    wire = open(a.wire, "a", encoding="utf-8")
    parse = stdio_mod._parse_line

    def logged(line):
        wire.write(line + "\n")
        wire.flush()
        return parse(line)

    stdio_mod._parse_line = logged
    import mcp.client.streamable_http as http_mod

    class Logged:
        # Every JSON body and SSE `data` the HTTP transport parses, as received.
        def __init__(self, inner):
            self.inner = inner

        def validate_json(self, data, **kw):
            text = data.decode() if isinstance(data, (bytes, bytearray)) else data
            wire.write(text + "\n")
            wire.flush()
            return self.inner.validate_json(data, **kw)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    http_mod.jsonrpc_message_adapter = Logged(http_mod.jsonrpc_message_adapter)
    calls = json.loads(a.calls)
    anyio.run(run, cmd, calls, a)


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def transport(cmd, a):
    if a.http:
        import mcp.client.streamable_http as http_mod

        return http_mod.streamable_http_client(a.http)
    return stdio_mod.stdio_client(StdioServerParameters(command=cmd[0], args=cmd[1:]))


async def run(cmd, calls, a) -> None:
    async with transport(cmd, a) as streams:
        r, w = streams[0], streams[1]
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            emit({"initialized": init.protocolVersion if hasattr(init, "protocolVersion") else None})
            tools = await s.list_tools()
            emit({"tools": sorted(t.name for t in tools.tools)})
            import time
            t0 = time.perf_counter()
            for i, (name, args) in enumerate(calls, 1):
                try:
                    res = await s.call_tool(name, args, read_timeout_seconds=a.timeout)
                    if not a.quiet:
                        emit({"call": i, "tool": name, "result": res.model_dump(mode="json", exclude_none=True)})
                except Exception as e:  # the agent sees the failure and goes on
                    emit({"call": i, "tool": name, "exception": type(e).__name__, "message": str(e)})
                if a.pause_after is not None and i == a.pause_after:
                    emit({"paused": i})
                    await anyio.sleep(3600)
            if a.quiet:
                emit({"calls": len(calls), "seconds": time.perf_counter() - t0})


if __name__ == "__main__":
    main()
