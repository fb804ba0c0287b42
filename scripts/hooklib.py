"""Helpers of the hook's benchmark and tests (dev tooling).

`python3 scripts/hooklib.py session OUT CALLS BYTES [SEED]`: a Claude Code session that grows one
tool call at a time, for scripts/bench-hook and tests/hooks_incremental.rs.
`python3 scripts/hooklib.py agent AGENT SCENARIO TRACELINT OUT.json`: a real coding-agent CLI
(Claude Code, Gemini CLI or Codex, the release pinned in PINNED) run offline against
scripts/fake-model-api.py with `tracelint hook install`'s hook, for tests/hooks_agents.rs.
`python3 scripts/hooklib.py install`: install those releases into the cache (scripts/test).

The session:

The records have the shape Claude Code 2.1.332 writes (`type: assistant` with a `tool_use`
block, `type: user` with its `tool_result` and the `toolUseResult` copy, the envelope fields),
the tools are its built-in ones (Read, Bash, Grep, Glob, Edit, Write, TodoWrite) and the
results are a few hundred bytes to a few KB of file text and command output, sized so the
session reaches BYTES after CALLS calls. About 4% of the results are errors; some are retried,
some are followed by a call that uses a value only the error supplied (an R2b), some by an
unrelated call (an R2a hard event not handled); a failed MCP lookup's error carries a token that
a call 20 to 60 calls later uses (an R2b across a long stretch of the session); a few calls break
the tool's schema (R1) or name a tool that does not exist (R7). Deterministic from SEED.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

VERSION = "2.1.332"
WORDS = ("alpha beta gamma delta config parser render module value index cache token stream "
         "buffer layout handler request response session worker queue batch schema record "
         "field width height offset length count limit error result status build test").split()


class Session:
    """Writes one session file; `call()` appends one assistant tool call and its result."""

    def __init__(self, out, seed=1, cwd="/home/dev/project"):
        self.out = out
        self.rng = random.Random(seed)
        self.sid = str(uuid.UUID(int=self.rng.getrandbits(128)))
        self.cwd = cwd
        self.parent = None
        self.n = 0
        self.clock = 0
        self.pending_error = None
        # (call number, value): a later call that uses a value only a failed lookup supplied.
        self.scheduled = []

    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def stamp(self):
        self.clock += 1
        s = self.clock
        return f"2026-12-01T{8 + s // 3600 % 12:02d}:{s // 60 % 60:02d}:{s % 60:02d}.000Z"

    def envelope(self, kind):
        u = self.uid()
        rec = {"parentUuid": self.parent, "isSidechain": False, "type": kind, "uuid": u,
               "timestamp": self.stamp(), "userType": "external", "entrypoint": "cli",
               "cwd": self.cwd, "sessionId": self.sid, "version": VERSION, "gitBranch": "main"}
        self.parent = u
        return rec

    def write(self, rec):
        self.out.write(json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n")

    def prompt(self, text):
        rec = self.envelope("user")
        rec["message"] = {"role": "user", "content": text}
        self.write(rec)

    def text(self, size):
        rng = self.rng
        lines = []
        total = 0
        while total < size:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            line = f"    let {rng.choice(WORDS)}_{rng.randint(0, 99)} = {line};"
            lines.append(line)
            total += len(line) + 1
        return "\n".join(lines)

    def emit(self, name, args, content, is_error=False, result_copy=None):
        self.n += 1
        tid = f"toolu_{self.n:05d}_{self.rng.getrandbits(32):08x}"
        rec = self.envelope("assistant")
        rec["message"] = {"model": "claude-opus-5-5", "id": f"msg_{self.n:05d}",
                          "type": "message", "role": "assistant",
                          "content": [{"type": "tool_use", "id": tid, "name": name,
                                       "input": args}],
                          "stop_reason": "tool_use", "stop_sequence": None,
                          "usage": {"input_tokens": 10, "output_tokens": 5}}
        rec["requestId"] = f"req_{self.n:05d}"
        self.write(rec)
        res = self.envelope("user")
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        res["message"] = {"role": "user", "content": [block]}
        res["toolUseResult"] = result_copy if result_copy is not None else (
            f"Error: {content}" if is_error else {"stdout": content, "stderr": "",
                                                  "interrupted": False, "isImage": False})
        res["sourceToolAssistantUUID"] = rec["uuid"]
        self.write(res)
        return tid

    def call(self, size):
        """One tool call of about `size` bytes of result, its kind drawn at random."""
        rng = self.rng
        if self.scheduled and self.scheduled[0][0] <= self.n:
            _, token = self.scheduled.pop(0)
            # Long after the failed lookup: the value only its error supplied, used (R2b).
            return self.emit("mcp__orders__refund", {"retry_token": token},
                             '{"status": "queued"}')
        if self.pending_error is not None:
            kind, value = self.pending_error
            self.pending_error = None
            if kind == "reuse":
                # The value only the error supplied, written into a file: R2b.
                return self.emit("Write", {"file_path": f"{self.cwd}/NOTES.md",
                                           "content": f"use branch {value} today\n"},
                                 f"File created successfully at: {self.cwd}/NOTES.md")
            if kind == "lookup":
                # The same lookup again (a retry: handled).
                return self.emit("mcp__orders__lookup", value,
                                 '{"status": "paid"}')
            if kind == "retry":
                return self.emit("Bash", {"command": value, "description": "Retry"},
                                 self.text(size // 4))
            return self.emit("Glob", {"pattern": "**/*.toml"}, "Cargo.toml\nrustfmt.toml")
        r = rng.random()
        path = f"{self.cwd}/src/{rng.choice(WORDS)}_{rng.randint(0, 400)}.rs"
        if r < 0.01:
            token = f"tok-{rng.getrandbits(40):010x}"
            self.scheduled.append((self.n + rng.randint(20, 60), token))
            # A failed MCP lookup whose error carries a value; the next call retries it.
            order = {"order": f"A-{rng.randint(100, 999)}"}
            self.pending_error = ("lookup", order)
            return self.emit("mcp__orders__lookup", order,
                             json.dumps({"error": "payment declined", "retry_token": token}),
                             is_error=True)
        r = rng.random()
        if r < 0.015:
            branch = f"release-{rng.randint(1000, 9999)}-{rng.choice(WORDS)}"
            self.pending_error = ("reuse", branch)
            return self.emit("Bash", {"command": "git checkout release", "description": "Switch"},
                             f"Exit code 1\nerror: pathspec 'release' did not match; did you "
                             f"mean '{branch}'?", is_error=True)
        if r < 0.03:
            command = f"cargo test --test {rng.choice(WORDS)}"
            self.pending_error = ("retry", command)
            return self.emit("Bash", {"command": command, "description": "Run the tests"},
                             "Exit code 101\nerror: test failed, to rerun pass `--test`",
                             is_error=True)
        if r < 0.04:
            self.pending_error = ("ignore", None)
            return self.emit("Read", {"file_path": path},
                             "<tool_use_error>File does not exist.</tool_use_error>",
                             is_error=True)
        if r < 0.045:
            # A schema violation Claude Code refused.
            return self.emit("Read", {"path": path},
                             "<tool_use_error>InputValidationError: Read failed due to the "
                             "following issue:\nThe required parameter `file_path` is missing"
                             "</tool_use_error>", is_error=True)
        if r < 0.05:
            return self.emit("Serch", {"query": rng.choice(WORDS)},
                             "<tool_use_error>Error: No such tool available: Serch"
                             "</tool_use_error>", is_error=True)
        if r < 0.45:
            body = self.text(size)
            return self.emit("Read", {"file_path": path}, body,
                             result_copy={"type": "text", "file": {
                                 "filePath": path, "content": body,
                                 "numLines": body.count("\n") + 1, "startLine": 1,
                                 "totalLines": body.count("\n") + 1}})
        if r < 0.7:
            word = rng.choice(WORDS)
            return self.emit("Bash", {"command": f"grep -rn {word} src | head -50",
                                      "description": f"Find {word}"}, self.text(size))
        if r < 0.8:
            return self.emit("Grep", {"pattern": rng.choice(WORDS), "path": "src",
                                      "output_mode": "content"}, self.text(size))
        if r < 0.88:
            old = rng.choice(WORDS)
            return self.emit("Edit", {"file_path": path, "old_string": old,
                                      "new_string": old + "_v2"},
                             f"The file {path} has been updated successfully.")
        if r < 0.95:
            return self.emit("Glob", {"pattern": f"src/**/{rng.choice(WORDS)}*.rs"},
                             "\n".join(f"{self.cwd}/src/{w}.rs" for w in rng.sample(WORDS, 8)))
        return self.emit("TodoWrite", {"todos": [
            {"content": f"Check {rng.choice(WORDS)}", "status": "pending",
             "activeForm": f"Checking {rng.choice(WORDS)}"}]},
            "Todos have been modified successfully.")


def write_session(path, calls, total_bytes, seed=1, on_call=None):
    """Write a session of `calls` calls growing to about `total_bytes`; `on_call(i, tid)` runs
    after each call's result is flushed to disk (the file as a hook would see it)."""
    with open(path, "w") as f:
        s = Session(f, seed)
        s.prompt("Tidy the parser module and keep the tests passing.")
        for i in range(calls):
            # Results are sized so the file keeps to its share of `total_bytes` (a result's text
            # is written twice, in the message and in `toolUseResult`).
            behind = total_bytes * (i + 1) // calls - f.tell()
            tid = s.call(max(200, (behind - 1800) // 2))
            if on_call:
                f.flush()
                on_call(i, tid)
    return path


# --- real agents, offline (tests/hooks_agents.rs) ---------------------------------------------

# The MCP server of the failing scenarios: `lookup` fails, and its error carries a retry
# token; `refund` succeeds.
ORDERS = {
    "name": "orders",
    "tools": [{"name": "lookup", "description": "Look an order up.",
               "inputSchema": {"type": "object", "properties": {"order": {"type": "string"}}}},
              {"name": "refund", "description": "Refund an order.",
               "inputSchema": {"type": "object",
                               "properties": {"retry_token": {"type": "string"}}}}],
    "calls": {
        "lookup": {"isError": True, "content": [{"type": "text", "text": json.dumps(
            {"error": "payment declined", "retry_token": "tok-5a1b2c3d"})}]},
        "refund": {"content": [{"type": "text", "text": json.dumps({"status": "queued"})}]},
    },
}

# What the scripted model does, per agent and scenario. `failing`: a call fails and the next
# one reuses the value its error carried (then, for Gemini CLI, which records a call only once it
# is done, one more call so the hook sees the reuse); `clean`: calls that all succeed.
SCENARIOS = {
    ("claude-code", "failing"): [
        {"calls": [{"name": "mcp__orders__lookup", "args": {"order": "A-17"}}]},
        {"calls": [{"name": "mcp__orders__refund", "args": {"retry_token": "tok-5a1b2c3d"}}]},
        {"text": "Refunded."},
    ],
    ("claude-code", "clean"): [
        {"calls": [{"name": "Bash", "args": {"command": "cat notes.txt",
                                             "description": "Show the notes"}}]},
        {"calls": [{"name": "Glob", "args": {"pattern": "*.txt"}}]},
        {"text": "The notes say the build passes."},
    ],
    ("gemini-cli", "failing"): [
        {"first_available": [["mcp_orders_lookup", {"order": "A-17"}],
                             ["orders__lookup", {"order": "A-17"}],
                             ["lookup", {"order": "A-17"}]]},
        {"first_available": [["mcp_orders_refund", {"retry_token": "tok-5a1b2c3d"}],
                             ["orders__refund", {"retry_token": "tok-5a1b2c3d"}],
                             ["refund", {"retry_token": "tok-5a1b2c3d"}]]},
        {"calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}}]},
        {"text": "Refunded."},
    ],
    ("gemini-cli", "clean"): [
        {"calls": [{"name": "read_file", "args": {"file_path": "notes.txt"}}]},
        {"calls": [{"name": "run_shell_command", "args": {"command": "echo checked",
                                                          "description": "Say so"}}]},
        {"text": "The notes say the build passes."},
    ],
    ("codex", "failing"): [
        {"calls": [{"name": "exec_command", "args": {"cmd": "cat missing-branch.txt"}}]},
        {"calls": [{"name": "exec_command", "args": {"cmd": "echo shipping"}}]},
        {"text": "Shipped."},
    ],
    ("codex", "clean"): [
        {"calls": [{"name": "exec_command", "args": {"cmd": "cat notes.txt"}}]},
        {"text": "The notes say the build passes."},
    ],
}

PINNED = {"claude-code": "2.1.332", "gemini-cli": "0.61.0", "codex": "0.171.0"}


def run_agent(agent, scenario, tracelint, out_path):
    """Run `agent` (its pinned release, installed into the cache once) offline on `scenario`
    with tracelint's hook installed by `tracelint hook install`, and write what happened to
    `out_path` (JSON): the exit code and output, the model requests, the findings told."""
    import agentlib
    binary = agentlib.install(agent, PINNED[agent])
    root = tempfile.mkdtemp(prefix=f"hook-{agent}-")
    home, work = os.path.join(root, "home"), os.path.join(root, "work")
    os.makedirs(work)
    os.makedirs(home)
    with open(os.path.join(work, "notes.txt"), "w") as f:
        f.write("notes: the build passes\n")
    stub = agentlib.mcp_stub(root, ORDERS)
    script = os.path.join(root, "script.json")
    with open(script, "w") as f:
        json.dump(SCENARIOS[(agent, scenario)], f)
    state, told = os.path.join(root, "state"), os.path.join(root, "told.jsonl")
    hook_flags = ["--", "--no-config", "--state-dir", state, "--log", told]

    def install(settings):
        subprocess.run([tracelint, "hook", "install", agent, "--settings", settings,
                        "--program", tracelint, *hook_flags], check=True,
                       stdout=subprocess.DEVNULL)

    fake = agentlib.Fake(os.path.join(root, "requests"), script)
    report = None
    try:
        if agent == "claude-code":
            install(os.path.join(work, ".claude", "settings.json"))
            mcp = os.path.join(root, "mcp.json")
            with open(mcp, "w") as f:
                json.dump({"mcpServers": {"orders": {"command": stub[0], "args": stub[1:]}}}, f)
            # Tool search off: the MCP tools' schemas are in the prompt, so Claude Code adds no
            # note about them to their results (the result is the server's JSON as it is).
            code, output = agentlib.claude_run(binary, home, work, fake, "Refund order A-17",
                                               flags=("--mcp-config", mcp), timeout=240,
                                               env_extra={"ENABLE_TOOL_SEARCH": "false"})
        elif agent == "gemini-cli":
            settings = os.path.join(home, ".gemini", "settings.json")
            os.makedirs(os.path.dirname(settings))
            conf = dict(agentlib.GEMINI_SETTINGS)
            conf["mcpServers"] = {"orders": {"command": stub[0], "args": stub[1:],
                                             "trust": True}}
            with open(settings, "w") as f:
                json.dump(conf, f, indent=2)
            install(settings)
            env = agentlib.base_env(home)
            env["GOOGLE_GEMINI_BASE_URL"] = f"http://127.0.0.1:{fake.port}"
            env["GEMINI_API_KEY"] = "offline"
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
            code, output = agentlib.run([binary, "-p", "Refund order A-17", "-m",
                                         "gemini-2.5-pro", "--yolo"], work, env, 240)
        else:
            config = os.path.join(home, ".codex", "config.toml")
            os.makedirs(os.path.dirname(config))
            with open(config, "w") as f:
                f.write(agentlib.CODEX_CONFIG.format(model="gpt-5-codex", port=fake.port,
                                                     extra=""))
            install(config)
            env = agentlib.base_env(home)
            env["TRACELINT_FAKE_KEY"] = "offline"
            code, output = agentlib.run([binary, "exec", "--skip-git-repo-check",
                                         "--dangerously-bypass-approvals-and-sandbox",
                                         "Ship it"], work, env, 240)
            # Codex runs `notify` after the turn, without waiting for it.
            reports = os.path.join(state, "reports")
            for _ in range(100):
                found = [os.path.join(reports, f) for f in os.listdir(reports)] \
                    if os.path.isdir(reports) else []
                if found or scenario == "clean" and os.path.isdir(state) and \
                        any(f.endswith(".json") for f in os.listdir(state)):
                    break
                time.sleep(0.1)
            time.sleep(0.5)
            report = [open(f).read() for f in found] if found else []
    finally:
        fake.close()
    result = {
        "exit": code,
        "output": output[-4000:] if isinstance(output, str) else str(output),
        "requests": [r["body"] for r in fake.requests()],
        "told": open(told).read().splitlines() if os.path.exists(told) else [],
        "report": report,
        "state_files": sorted(os.listdir(state)) if os.path.isdir(state) else [],
    }
    with open(out_path, "w") as f:
        json.dump(result, f)
    if os.environ.get("TRACELINT_KEEP_AGENT_RUN"):
        print(f"kept {root}", file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def main(argv):
    if len(argv) >= 4 and argv[0] == "session":
        write_session(argv[1], int(argv[2]), int(argv[3]), int(argv[4]) if len(argv) > 4 else 1)
    elif len(argv) == 5 and argv[0] == "agent":
        run_agent(argv[1], argv[2], argv[3], argv[4])
    elif argv == ["install"]:
        import agentlib
        for agent, version in PINNED.items():
            print(agentlib.install(agent, version))
    else:
        return ("usage: hooklib.py session OUT CALLS BYTES [SEED]\n"
                "       hooklib.py agent AGENT SCENARIO TRACELINT OUT.json\n"
                "       hooklib.py install")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
