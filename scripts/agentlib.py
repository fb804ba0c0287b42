"""Shared by scripts/capture-tools and scripts/make-session (dev tooling, never run by CI or the
tests): install a coding-agent CLI release from npm into a cache folder, run it offline against
scripts/fake-model-api.py in a fresh HOME, and hand back the request bodies it sent and the
session files it wrote.

Agents: codex (@openai/codex), gemini-cli (@google/gemini-cli), claude-code
(@anthropic-ai/claude-code). Nothing leaves the machine except the npm downloads.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake-model-api.py")
CACHE = os.environ.get(
    "TRACELINT_CLI_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "tracelint-cli")
)

PACKAGES = {
    "codex": "@openai/codex",
    "gemini-cli": "@google/gemini-cli",
    "claude-code": "@anthropic-ai/claude-code",
    "cline": "cline",
    "copilot-cli": "@github/copilot",
    "pi": "@mariozechner/pi-coding-agent",
    "opencode": "opencode-ai",
}
BINARIES = {"codex": "codex", "gemini-cli": "gemini", "claude-code": "claude", "cline": "cline",
            "copilot-cli": "copilot", "pi": "pi", "opencode": "opencode"}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def npm_json(*args):
    out = subprocess.run(["npm", *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def release_dates(agent):
    """version -> ISO publish time, from the registry's `time` field (one request)."""
    times = npm_json("view", PACKAGES[agent], "time")
    return {v: t for v, t in times.items() if v[0].isdigit()}


def install(agent, version):
    """Install `agent@version` into the cache (once); returns the path of its executable."""
    pkg = PACKAGES[agent]
    dest = os.path.join(CACHE, f"{agent}-{version}")
    binary = os.path.join(dest, "node_modules", ".bin", BINARIES[agent])
    if os.path.exists(binary):
        return binary
    os.makedirs(dest, exist_ok=True)
    log(f"npm install {pkg}@{version}")
    # A cache of its own, deleted once installed: a sweep over a hundred releases would leave
    # tens of GB of tarballs in ~/.npm (a Claude Code release is a 100 MB native binary).
    npm_cache = os.path.join(dest, ".npm-cache")
    argv = ["npm", "install", "--prefix", dest, "--cache", npm_cache, "--no-audit", "--no-fund",
            "--loglevel=error", f"{pkg}@{version}"]
    try:
        if subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            # Some releases' dependencies download a binary from the network when installed (a
            # ripgrep build): without it the CLI falls back to its own code.
            log(f"npm install {pkg}@{version}: retrying with --ignore-scripts")
            subprocess.run(argv + ["--ignore-scripts"], check=True, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(npm_cache, ignore_errors=True)
    if not os.path.exists(binary):
        raise RuntimeError(f"{pkg}@{version} installed no `{BINARIES[agent]}` executable")
    return binary


def uninstall(agent, version):
    shutil.rmtree(os.path.join(CACHE, f"{agent}-{version}"), ignore_errors=True)


def uninstall_later(agent, version):
    """Move the install aside and delete it on a thread while the next release installs
    (deleting a node_modules tree takes a minute on a busy disk); join the returned thread."""
    dest = os.path.join(CACHE, f"{agent}-{version}")
    if not os.path.exists(dest):
        return None
    trash = f"{dest}.removing-{os.getpid()}"
    shutil.rmtree(trash, ignore_errors=True)
    os.rename(dest, trash)
    t = threading.Thread(target=shutil.rmtree, args=(trash,), kwargs={"ignore_errors": True})
    t.start()
    return t


class Fake:
    """scripts/fake-model-api.py on a free loopback port, logging into `log_dir`."""

    def __init__(self, log_dir, script=None):
        self.log_dir = log_dir
        os.makedirs(log_dir, exist_ok=True)
        self.port_file = os.path.join(log_dir, ".port")
        args = [sys.executable, FAKE, "--port-file", self.port_file, "--log", log_dir]
        if script:
            args += ["--script", script]
        self.proc = subprocess.Popen(args)
        for _ in range(100):
            if os.path.exists(self.port_file) or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(self.port_file):
            raise RuntimeError(f"the fake model API did not start (exit {self.proc.poll()})")
        with open(self.port_file) as f:
            self.port = int(f.read())

    def requests(self, dialect=None):
        """The request bodies, in order (`dialect`: responses, gemini-…, messages)."""
        out = []
        for name in sorted(os.listdir(self.log_dir)):
            if not name.endswith(".json") or (dialect and dialect not in name):
                continue
            with open(os.path.join(self.log_dir, name)) as f:
                out.append(json.load(f))
        return out

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def run(argv, cwd, env, timeout, stdout_only=False):
    """Run a CLI: (exit code, its stdout and stderr), or only its stdout (`stdout_only`: a
    transcript the CLI prints, such as `--output-format stream-json`)."""
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=timeout)
        if stdout_only:
            log(p.stderr[-2000:])
            return p.returncode, p.stdout
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode("utf-8", "replace") if isinstance(
            e.stdout, bytes) else str(e.stdout or "")


def base_env(home):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI", "CODEX", "GEMINI", "GOOGLE", "ANTHROPIC", "CLAUDE"))}
    env["HOME"] = home
    env["NO_COLOR"] = "1"
    return env


# --- Codex CLI -----------------------------------------------------------------------------

CODEX_CONFIG = """model = "{model}"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "TRACELINT_FAKE_KEY"
request_max_retries = 0
stream_max_retries = 0
{extra}
"""


_HELP = {}


def codex_run(binary, home, work, fake, model, prompt, flags=(), extra_config="", timeout=120,
              stdout_only=False):
    os.makedirs(os.path.join(home, ".codex"), exist_ok=True)
    with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
        f.write(CODEX_CONFIG.format(model=model, port=fake.port, extra=extra_config))
    env = base_env(home)
    env["TRACELINT_FAKE_KEY"] = "offline"
    if binary not in _HELP:
        _HELP[binary] = codex_help(binary)
    # The first Rust releases have no bypass flag; their `--full-auto` asks no approval.
    bypass = ("--dangerously-bypass-approvals-and-sandbox"
              if "--dangerously-bypass-approvals-and-sandbox" in _HELP[binary] else "--full-auto")
    argv = [binary, "exec", "--skip-git-repo-check", bypass, *flags, prompt]
    return run(argv, work, env, timeout, stdout_only=stdout_only)


def codex_help(binary):
    code, out = run([binary, "exec", "--help"], tempfile.gettempdir(), base_env(
        tempfile.mkdtemp(prefix="codex-help-")), 60)
    return out


def codex_models(binary, home):
    """The slugs of the model catalog built into the binary (`codex debug models`), when the
    release has the command."""
    try:
        p = subprocess.run([binary, "debug", "models"], cwd=tempfile.gettempdir(),
                           env=base_env(home), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return []
    if p.returncode != 0 or "{" not in p.stdout:
        return []
    try:
        data, _ = json.JSONDecoder().raw_decode(p.stdout[p.stdout.index("{"):])
    except ValueError:
        return []
    return [m["slug"] for m in data.get("models", []) if m.get("slug")]


def codex_tools(body):
    """The tools of a Responses request: `tools`, plus what code-mode models get in an
    `additional_tools` input item."""
    tools = list(body.get("tools") or [])
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            tools += item.get("tools") or []
    return tools


# --- Gemini CLI ----------------------------------------------------------------------------

GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "ui": {"hideBanner": True},
    # Settings of releases before the nested layout.
    "selectedAuthType": "gemini-api-key",
    "folderTrust": False,
    "disableAutoUpdate": True,
    "usageStatisticsEnabled": False,
}


def gemini_run(binary, home, work, fake, model, prompt, approval="yolo", mcp=None, timeout=180,
               flags=(), stdout_only=False):
    os.makedirs(os.path.join(home, ".gemini"), exist_ok=True)
    settings = dict(GEMINI_SETTINGS)
    if mcp:
        settings["mcpServers"] = mcp
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump(settings, f)
    env = base_env(home)
    env["GOOGLE_GEMINI_BASE_URL"] = f"http://127.0.0.1:{fake.port}"
    env["GEMINI_API_KEY"] = "offline"
    env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    argv = [binary, "-p", prompt, "-m", model]
    if approval == "yolo":
        argv.append("--yolo")
    else:
        argv += ["--approval-mode", approval]
    return run([*argv, *flags], work, env, timeout, stdout_only=stdout_only)


def gemini_tools(body):
    return [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]


# --- Claude Code ---------------------------------------------------------------------------

def claude_env(home, fake):
    env = base_env(home)
    env.update({
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{fake.port}",
        "ANTHROPIC_API_KEY": "sk-offline",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # Lets `--dangerously-skip-permissions` run as root (this machine's user).
        "IS_SANDBOX": "1",
    })
    return env


def claude_run(binary, home, work, fake, prompt, flags=(), timeout=180, env_extra=None):
    env = claude_env(home, fake)
    env.update(env_extra or {})
    return run([binary, "-p", prompt, "--dangerously-skip-permissions", *flags], work, env,
               timeout)


# --- pi coding agent ------------------------------------------------------------------------

def pi_run(binary, home, work, fake, model, prompt, timeout=180):
    """pi with a custom OpenAI-compatible provider (`~/.pi/agent/models.json`) pointed at the
    fake, in print mode; the session is saved under `~/.pi/agent/sessions/`."""
    agent_dir = os.path.join(home, ".pi", "agent")
    os.makedirs(agent_dir, exist_ok=True)
    models = {"providers": {"fake": {
        "baseUrl": f"http://127.0.0.1:{fake.port}/v1", "api": "openai-completions",
        "apiKey": "offline",
        "models": [{"id": model, "name": model, "reasoning": False, "input": ["text"],
                    "contextWindow": 128000, "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}}
    with open(os.path.join(agent_dir, "models.json"), "w") as f:
        json.dump(models, f)
    env = base_env(home)
    env["PI_SKIP_VERSION_CHECK"] = "1"
    return run([binary, "-p", prompt, "--provider", "fake", "--model", model], work, env,
               timeout)


# --- OpenCode -------------------------------------------------------------------------------

def opencode_run(binary, home, work, fake, model, prompt, timeout=240):
    """`opencode run --format json` with an OpenAI-compatible provider pointed at the fake
    (`opencode.json` in the working directory), then `opencode export` of its session: returns
    (exit code, the run's events, the export)."""
    cfg = {"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                 "options": {"baseURL": f"http://127.0.0.1:{fake.port}/v1",
                                             "apiKey": "offline"},
                                 "models": {model: {"name": model}}}},
           "model": f"fake/{model}", "autoupdate": False, "share": "disabled"}
    with open(os.path.join(work, "opencode.json"), "w") as f:
        json.dump(cfg, f)
    env = base_env(home)
    env["OPENCODE_DISABLE_AUTOUPDATE"] = "1"
    # OpenCode takes its directory from PWD.
    env["PWD"] = work
    code, events = run([binary, "run", "--format", "json", "-m", f"fake/{model}", prompt], work,
                       env, timeout, stdout_only=True)
    session = None
    for line in events.splitlines():
        try:
            session = json.loads(line).get("sessionID") or session
        except ValueError:
            pass
    export = ""
    if session:
        _, export = run([binary, "export", session], work, env, 120, stdout_only=True)
    return code, events, export


# --- Cline CLI -----------------------------------------------------------------------------

def cline_run(binary, home, work, fake, model, prompt, timeout=180):
    """The Cline CLI with an OpenAI-compatible provider pointed at the fake (the only kind of
    provider it lets a base URL be set for)."""
    env = base_env(home)
    base = f"http://127.0.0.1:{fake.port}/v1"
    # 3.x names the provider `openai-compatible`; 2.x calls it `openai`.
    for provider in ("openai-compatible", "openai"):
        code, out = run([binary, "auth", "-p", provider, "-k", "offline", "-m", model, "-b",
                         base], work, env, 60)
        if code == 0 and "Invalid provider" not in out:
            break
    else:
        return code, out
    # 2.x asks before acting unless `-y`; 3.x approves by default and has no such flag.
    help_out = run([binary, "--help"], work, env, 60)[1]
    flags = ["-y"] if "--yolo" in help_out else []
    return run([binary, *flags, prompt], work, env, timeout)


# --- GitHub Copilot CLI --------------------------------------------------------------------

def copilot_run(binary, home, work, fake, model, prompt, timeout=180):
    """Copilot CLI offline (`COPILOT_OFFLINE`) with a BYOK OpenAI-compatible provider: the fake."""
    env = base_env(home)
    env.update({
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{fake.port}/v1",
        "COPILOT_PROVIDER_API_KEY": "offline",
        "COPILOT_MODEL": model,
        "COPILOT_AUTO_UPDATE": "false",
    })
    return run([binary, "-p", prompt, "--allow-all-tools"], work, env, timeout)


# --- a stdio MCP server stub ----------------------------------------------------------------

# A stdio MCP server (JSON-RPC over lines) whose tools, resources and call results come from a
# JSON file named by its one argument: {"name", "tools", "resources", "calls": {tool: result}}.
MCP_STUB = r"""
import json, sys
spec = json.load(open(sys.argv[1]))
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    m, result = msg.get("method"), {}
    if m == "initialize":
        caps = {"tools": {}}
        if spec.get("resources"):
            caps["resources"] = {}
        result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2024-11-05"),
                  "capabilities": caps,
                  "serverInfo": {"name": spec.get("name", "stub"), "version": "1.0.0"}}
    elif m == "tools/list":
        result = {"tools": spec.get("tools", [])}
    elif m == "tools/call":
        result = spec.get("calls", {}).get(msg.get("params", {}).get("name"), {"content": []})
    elif m == "resources/list":
        result = {"resources": spec.get("resources", [])}
    elif m == "resources/templates/list":
        result = {"resourceTemplates": []}
    elif m == "prompts/list":
        result = {"prompts": []}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""


def mcp_stub(folder, spec):
    """Write the stub and its spec into `folder`; the argv that starts it."""
    code, data = os.path.join(folder, "mcp_stub.py"), os.path.join(folder, "mcp_stub.json")
    with open(code, "w") as f:
        f.write(MCP_STUB)
    with open(data, "w") as f:
        json.dump(spec, f)
    return [sys.executable, code, data]


# --- shared --------------------------------------------------------------------------------

SESSION_ROOTS = {"codex": ".codex/sessions", "gemini-cli": ".gemini/tmp",
                 "claude-code": ".claude/projects", "cline": ".cline/data",
                 "copilot-cli": ".copilot/session-state", "pi": ".pi/agent/sessions"}


def session_files(home, agent):
    root = SESSION_ROOTS[agent]
    found = []
    for d, _, files in os.walk(os.path.join(home, root)):
        for f in files:
            # Claude Code keeps large results beside the session (`tool-results/*.txt`).
            if agent == "claude-code" or agent == "copilot-cli" and f == "events.jsonl" or \
                    agent != "copilot-cli" and f.endswith((".jsonl", ".json")) and (
                    agent != "cline" or "/sessions/" in d or "/tasks/" in d):
                found.append(os.path.join(d, f))
    return sorted(found)
