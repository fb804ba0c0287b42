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
  interactive_flags           interactive, ENABLE_TOOL_SEARCH=false, with the remote feature
                              flags on: the telemetry switches of claude_env are left out (with
                              them the CLI never reads a flag and every gate takes its built-in
                              default), every connection but the fake's goes through the fake as
                              an HTTPS proxy that refuses it, and the flag cache in ~/.claude.json
                              holds FLAGS. This is what users with telemetry on get: tools and
                              fields a flag gates within one version (Monitor, Monitor.persistent)

A release's entry: its tools in the order first sent (configurations in the order above), each
under the hash of its schema with the `description` annotations removed; a later
configuration's different schema for a tool (compared as sent) is an alternate, in order of
appearance. Schemas are stored once, in order of first use over the versions ascending.

`--config NAME` runs only that configuration and adds what it sent to the release's entry (a
tool the entry lacks joins its tools; a schema that differs from the tool's, descriptions
removed, is appended to its alternates): a configuration added later reaches the releases
captured before it without running the others again.
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

# Remote feature flags (GrowthBook, cached in ~/.claude.json) set in the interactive_flags
# configuration, each with the tools it changes and the releases it is read in. Offline, and
# with telemetry off, every flag takes its built-in default; these are the gates seen to differ
# for users (real sessions ran the tool or field, or were offered the tool).
FLAGS = {
    # Monitor is offered only when on (default off; 2.1.98–2.1.309, ungated from 2.1.310).
    # A 2.1.112 session ran `Monitor {"persistent": true}`.
    "tengu_amber_sentinel": True,
    # Monitor's `persistent` is left out when on (default on; read by 2.1.309 and later).
    "tengu_breezy_crescent": False,
    # PushNotification is offered only when on (default off; from about 2.1.106).
    "tengu_kairos_push_notifications": True,
    # RemoteTrigger is offered only when on (default off; from about 2.1.80; later releases
    # offer it only to accounts signed in to claude.ai, which an offline run cannot be).
    "tengu_surreal_dali": True,
}
# The releases the interactive_flags configuration was run on (the first that reads a flag of
# FLAGS, onwards); earlier entries hold the other five.
FLAGS_FROM = "2.1.76"
HOW = {
    "interactive": "claude \"hello\" in a pseudo-terminal (the TUI), default settings",
    "interactive_no_tool_search": "the same with ENABLE_TOOL_SEARCH=false (deferred tools inline)",
    "print": "claude -p hello",
    "print_no_tool_search": "-p with ENABLE_TOOL_SEARCH=false, where the default deferred tools",
    "interactive_teams_mcp": "interactive, ENABLE_TOOL_SEARCH=false, "
                             "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1, a stub stdio MCP server "
                             "(its own tools dropped)",
    "interactive_flags": "interactive, ENABLE_TOOL_SEARCH=false, telemetry on (so remote feature "
                         "flags are read; every connection but the stand-in API's refused) and "
                         "the flag cache set to " + json.dumps(FLAGS, sort_keys=True)
                         + f"; run on {FLAGS_FROM} and later",
    "alternates": "a later configuration's different schema for a tool",
}
CONFIGS = ["interactive", "interactive_no_tool_search", "print", "print_no_tool_search",
           "interactive_teams_mcp", "interactive_flags"]

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


def seed_home(home, work, version, flags=None):
    """A fresh HOME in which the TUI asks nothing: onboarding done, the folder trusted, the
    API key approved; `flags`: the cached remote feature flags."""
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
    if flags:
        config["cachedGrowthBookFeatures"] = flags
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


def capture(version, only=None):
    """{configuration: [tool definitions as sent]} for one release (`only`: that
    configuration alone)."""
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

        def one(name, interactive, env_extra, flags=(), remote_flags=None):
            if only and name != only:
                return None
            home, work = os.path.join(root, name, "home"), os.path.join(root, name, "work")
            os.makedirs(work)
            seed_home(home, work, version, remote_flags)
            fake = agentlib.Fake(os.path.join(root, name, "req"))
            try:
                env = agentlib.claude_env(home, fake)
                env["ANTHROPIC_API_KEY"] = KEY
                env["TERM"] = "xterm-256color"
                if remote_flags is not None:
                    for k in ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY",
                              "DISABLE_ERROR_REPORTING"):
                        env.pop(k, None)
                    proxy = f"http://127.0.0.1:{fake.port}"
                    env.update({"HTTPS_PROXY": proxy, "HTTP_PROXY": proxy,
                                "https_proxy": proxy, "http_proxy": proxy,
                                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
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
        deferred = only == "print_no_tool_search" or any(
            "defer_loading" in t for t in (first or []) + (printed or []))
        if deferred:
            one("print_no_tool_search", False, no_search)
        if "--mcp-config" in help_text:
            one("interactive_teams_mcp", True,
                dict(no_search, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS="1"),
                flags=("--mcp-config", mcp_config))
        one("interactive_flags", True, no_search, remote_flags=FLAGS)
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


def added(entry, tools):
    """`entry` with one more configuration's tools, and the schemas it adds."""
    entry = json.loads(json.dumps(entry))
    schemas = {}
    for t in tools:
        s = strip(t.get("input_schema") or {})
        h = digest(s)
        name = t["name"]
        if name not in entry["tools"]:
            entry["tools"][name] = h
        elif h != entry["tools"][name] and h not in entry.get("alternates", {}).get(name, []):
            entry.setdefault("alternates", {}).setdefault(name, []).append(h)
        else:
            continue
        schemas[h] = s
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
    if version in meta.get("not_capturable", {}):
        meta["not_capturable"] = {k: v for k, v in meta["not_capturable"].items() if k != version}
        if not meta["not_capturable"]:
            del meta["not_capturable"]
    meta["how"] = HOW
    meta["versions"] = len(versions)
    meta["distinct_schemas"] = len(used)
    out = {"_meta": meta, "versions": versions, "schemas": {h: known[h] for h in used}}
    with open(BUNDLE + ".tmp", "w") as f:
        f.write(json.dumps(out, separators=(",", ":"), ensure_ascii=False))
    os.replace(BUNDLE + ".tmp", BUNDLE)


def main(versions, keep=False, config=None):
    if not versions:
        agentlib.log("name the Claude Code releases to capture")
        return 2
    if config is not None and config not in CONFIGS:
        agentlib.log(f"--config: one of {', '.join(CONFIGS)}")
        return 2
    failed = []
    for v in versions:
        agentlib.log(f"claude-code {v}" + (f" ({config})" if config else ""))
        try:
            if config is not None:
                with open(BUNDLE) as f:
                    old = json.load(f)["versions"].get(v)
                if old is None:
                    raise RuntimeError("--config adds to a captured release; capture it first")
                variants = capture(v, only=config)
                if config not in variants:
                    raise RuntimeError(f"{config} sent no request with tools")
                entry, schemas = added(old, variants[config])
                merge(v, entry, schemas)
                continue
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
