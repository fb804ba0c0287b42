"""Claude Code's part of scripts/capture-tools (dev tooling, never run by CI or the tests).

Runs one `@anthropic-ai/claude-code` release from npm offline against scripts/fake-model-api.py
in each configuration of data/claude-code-tools/bundle.json and merges what it sent into that
bundle. A configuration's tools are the `tools` of its main-model request (the `/v1/messages`
request with a `system` prompt and the most tools; never `count_tokens`):

  interactive                 the TUI in a pseudo-terminal, `claude "hello"`, default settings
  interactive_no_tool_search  the same with ENABLE_TOOL_SEARCH=false (deferred tools inline)
  print                       `claude -p hello`
  print_no_tool_search        `-p` with ENABLE_TOOL_SEARCH=false, only where the default request
                              deferred tools (a tool with `defer_loading`)
  interactive_teams_mcp       interactive, ENABLE_TOOL_SEARCH=false,
                              CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 and one stub stdio MCP
                              server with tools and resources (releases with `--mcp-config`);
                              the stub's own `mcp__…` tools are dropped

A release's entry: its tools in the order first sent (configurations in the order above), each
under the hash of its schema with the `description` annotations removed; a later
configuration's different schema for a tool (compared as sent) is an alternate, in order of
appearance. Schemas are stored once, in order of first use over the versions ascending.
"""

import hashlib
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import agentlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("TRACELINT_DATA_DIR", os.path.join(ROOT, "data"))
BUNDLE = os.path.join(DATA, "claude-code-tools", "bundle.json")
KEY = "sk-ant-offline-0000000000000000000000"

# A stdio MCP server with one tool and one resource (ours), for the MCP resource tools.
MCP_STUB = {"name": "dummy", "tools": [{"name": "echo", "inputSchema": {"type": "object"}}],
            "resources": [{"uri": "dummy://a", "name": "a"}]}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not (k == "description" and isinstance(v, str))}
    if isinstance(x, list):
        return [strip(i) for i in x]
    return x


def digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def vkey(v):
    return tuple(int(p) for p in re.findall(r"\d+", v.split("-")[0])[:3])


def seed_home(home, work, version):
    """A fresh HOME in which the TUI asks nothing: onboarding done, the folder trusted, the
    API key approved."""
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": version,
        "theme": "dark",
        "bypassPermissionsModeAccepted": True,
        "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
        "projects": {work: {"hasTrustDialogAccepted": True,
                            "hasCompletedProjectOnboarding": True,
                            "allowedTools": []}},
    }
    with open(os.path.join(home, ".claude.json"), "w") as f:
        json.dump(config, f)


def requests(fake):
    """The `/v1/messages` requests logged so far (a file still being written is skipped)."""
    out = []
    for name in sorted(os.listdir(fake.log_dir)):
        if name.endswith("-messages.json"):
            try:
                with open(os.path.join(fake.log_dir, name)) as f:
                    out.append(json.load(f))
            except ValueError:
                continue
    return out


def main_request(fake):
    best = None
    for r in requests(fake):
        body, path = r.get("body") or {}, r.get("path") or ""
        if "count_tokens" in path or not body.get("system") or not body.get("tools"):
            continue
        if best is None or len(body["tools"]) > len(best["tools"]):
            best = body
    return best


def run_pty(argv, cwd, env, fake, timeout):
    """Run the TUI in a pseudo-terminal until the fake has its main request (answering any
    dialog with Enter), then stop it."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    deadline = time.time() + timeout
    last_enter = time.time()
    try:
        while time.time() < deadline:
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    if not os.read(fd, 65536):
                        break
                except OSError:
                    break
            if main_request(fake) is not None:
                time.sleep(1.5)  # requests sent at the same moment (sub-agents, side calls)
                break
            if time.time() - last_enter > 4:
                os.write(fd, b"\r")
                last_enter = time.time()
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
                time.sleep(0.5)
            except ProcessLookupError:
                break
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)


def capture(version):
    """{configuration: [tool definitions as sent]} for one release."""
    binary = agentlib.install("claude-code", version)
    root = tempfile.mkdtemp(prefix="capture-claude-")
    try:
        help_text = subprocess.run([binary, "--help"], capture_output=True, text=True,
                                   timeout=60, env=agentlib.base_env(root)).stdout
        stub = agentlib.mcp_stub(root, MCP_STUB)
        mcp_config = os.path.join(root, "mcp.json")
        with open(mcp_config, "w") as f:
            json.dump({"mcpServers": {"dummy": {"command": stub[0], "args": stub[1:]}}}, f)
        out = {}

        def one(name, interactive, env_extra, flags=()):
            home, work = os.path.join(root, name, "home"), os.path.join(root, name, "work")
            os.makedirs(work)
            seed_home(home, work, version)
            fake = agentlib.Fake(os.path.join(root, name, "req"))
            try:
                env = agentlib.claude_env(home, fake)
                env["ANTHROPIC_API_KEY"] = KEY
                env["TERM"] = "xterm-256color"
                env.update(env_extra)
                if interactive:
                    run_pty([binary, "hello", *flags], work, env, fake, timeout=120)
                else:
                    agentlib.run([binary, "-p", "hello", *flags], work, env, timeout=180)
                body = main_request(fake)
            finally:
                fake.close()
            if body is None:
                agentlib.log(f"  claude-code {version} {name}: no main request")
                return None
            tools = [t for t in body["tools"] if not t.get("name", "").startswith("mcp__")]
            out[name] = tools
            agentlib.log(f"  claude-code {version} {name}: {len(tools)} tools")
            return tools

        no_search = {"ENABLE_TOOL_SEARCH": "false"}
        first = one("interactive", True, {})
        one("interactive_no_tool_search", True, no_search)
        printed = one("print", False, {})
        deferred = any("defer_loading" in t for t in (first or []) + (printed or []))
        if deferred:
            one("print_no_tool_search", False, no_search)
        if "--mcp-config" in help_text:
            one("interactive_teams_mcp", True,
                dict(no_search, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS="1"),
                flags=("--mcp-config", mcp_config))
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def entry_of(variants):
    """The bundle entry and the schemas it uses, from each configuration's tools."""
    first, alternates = {}, {}
    for tools in variants.values():
        for t in tools:
            name, sch = t["name"], t.get("input_schema") or {}
            if name not in first:
                first[name] = sch
            elif sch != first[name]:
                alts = alternates.setdefault(name, [])
                if sch not in alts:
                    alts.append(sch)
    schemas = {}

    def put(sch):
        s = strip(sch)
        h = digest(s)
        schemas.setdefault(h, s)
        return h

    entry = {"tools": {name: put(sch) for name, sch in first.items()}}
    if alternates:
        entry["alternates"] = {n: [put(s) for s in alts] for n, alts in alternates.items()}
    return entry, schemas


def merge(version, entry, new_schemas):
    with open(BUNDLE) as f:
        bundle = json.load(f)
    versions = dict(bundle["versions"])
    versions[version] = entry
    versions = dict(sorted(versions.items(), key=lambda kv: vkey(kv[0])))
    known = dict(bundle["schemas"])
    for h, s in new_schemas.items():
        known.setdefault(h, s)
    used = []
    for e in versions.values():
        for h in list(e["tools"].values()) + [x for hs in e.get("alternates", {}).values() for x in hs]:
            if h not in used:
                used.append(h)
    meta = dict(bundle["_meta"])
    meta["versions"] = len(versions)
    meta["distinct_schemas"] = len(used)
    out = {"_meta": meta, "versions": versions, "schemas": {h: known[h] for h in used}}
    with open(BUNDLE + ".tmp", "w") as f:
        f.write(json.dumps(out, separators=(",", ":"), ensure_ascii=False))
    os.replace(BUNDLE + ".tmp", BUNDLE)


def main(versions, keep=False):
    if not versions:
        agentlib.log("name the Claude Code releases to capture")
        return 2
    failed = []
    for v in versions:
        agentlib.log(f"claude-code {v}")
        try:
            variants = capture(v)
            if "print" not in variants and "interactive" not in variants:
                raise RuntimeError("no configuration sent a request with tools")
            entry, schemas = entry_of(variants)
            merge(v, entry, schemas)
        except Exception as e:  # a release that does not run offline is reported, not fatal
            agentlib.log(f"  claude-code {v}: not captured: {e}")
            failed.append(v)
        finally:
            if not keep:
                agentlib.uninstall("claude-code", v)
    return 1 if failed and len(failed) == len(versions) else 0
