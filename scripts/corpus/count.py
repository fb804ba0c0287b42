#!/usr/bin/env python3
"""Count the tool calls in agent run files, independently of tracelint.

    scripts/corpus/count.py FILE_OR_DIR...          # prints `local_name calls format`
    scripts/corpus/count.py --sniff FILE_OR_DIR...  # also prints the agent version it finds

This is a second reading of each format, written from the files themselves and not from
tracelint's adapters, so that `scripts/corpus/measure` can show where the two disagree.
A call is one request by the model to run one tool:

- Claude Code session (`~/.claude/projects/*/*.jsonl`): each distinct `tool_use` id in the
  content of `type: assistant` records, and in the sub-agent messages that newer versions
  stream into the session as `type: progress` records (`data.message.message.content`).
- Claude Code stream-json (`claude -p --output-format stream-json`): the same, in records
  without `parentUuid`.
- Codex CLI rollout (`rollout-*.jsonl`): `response_item` payloads of type `function_call`,
  `custom_tool_call` or `local_shell_call` (each distinct `call_id`), and each
  `web_search_call` or `tool_search_call` (hosted search and tool discovery the model asks for).
- Codex CLI `exec --json`: `item.completed` items of type `command_execution`,
  `mcp_tool_call`, `file_change` or `web_search`.
- Gemini CLI session (`chats/session-*.json`, `{sessionId, messages}`): the entries of
  `toolCalls` of `type: gemini` messages; a checkpoint or `logs.json` style list of
  `{role, parts}`: the `functionCall` parts of `model` turns.
- Gemini CLI session as JSON Lines (newer releases: a `{sessionId, projectHash, startTime,
  kind}` header, then one message a line, a message written again when it changes, and
  `{"$set": {...}}` records that replace fields such as `messages`): each distinct `id` in
  the `toolCalls` of `type: gemini` messages, wherever they appear.
- Gemini CLI stream-json: `tool_use` records.
- pi coding agent session: `toolCall` items in the content of `message` records whose
  message role is `assistant`.
- Qwen Code session (`.qwen/.../chats/*.jsonl`): `functionCall` parts of `type: assistant`.
- Converted sessions of one content block a line (`{timestamp, role, content: {type, ...}}`,
  such as the `transcript.jsonl` that the Engram session recorder commits): each distinct
  `tool_id` (or `id`) of `content.type: tool_use` blocks of `assistant` lines.
- OpenAI-style messages (a list, or `{messages: [...]}`): the `tool_calls` entries of every
  message whatever its role (sub-agent roles such as `assistant-subagent-<id>` included).
- Claude managed-agent session events (`{role, kind, raw}` lines): `kind: tool_use` records.
- OpenCode (`opencode export` JSON or `run --format json` lines): `tool` parts.
- Goose session (`.jsonl` of `{role, content}` messages): `toolRequest` content items.
- GitHub Copilot CLI (`session-state/<id>/events.jsonl`): distinct `toolCallId`s of
  `tool.execution_start` records and of `assistant.message` `toolRequests`.
- Factory droid session (`session_start` then `message` records): `tool_use` items of
  assistant messages.
- Cline task (`api_conversation_history.json`): `tool_use` items of assistant messages,
  or, for XML tool use, none (reported as format `cline-xml`, calls 0). A plain list of
  Anthropic-style messages has the same shape and is reported under the same name.
- Google Antigravity transcript (`brain/<id>/.system_generated/logs/transcript*.jsonl`: one
  step a line, `{step_index, source, type, status, created_at, ...}` with types such as
  `USER_INPUT`, `PLANNER_RESPONSE`, `RUN_COMMAND`): the entries of `tool_calls` (`{name,
  args}`) of `PLANNER_RESPONSE` steps.

A file it cannot place prints format `unknown` and calls 0.
"""
import json
import os
import re
import sys

MAX_BYTES = 256 * 1024 * 1024


def read_lines(raw):
    out = []
    for line in raw.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(None)
    return out


def load(path):
    with open(path, "rb") as fh:
        raw = fh.read(MAX_BYTES)
    text = raw.decode("utf-8", errors="replace")
    whole = None
    try:
        whole = json.loads(text)
    except ValueError:
        pass
    lines = None
    if whole is None or (isinstance(whole, dict) and text.count("\n{") > 2):
        lines = [x for x in read_lines(text) if isinstance(x, dict)]
        if whole is not None and len(lines) < 2:
            lines = None
    return whole, lines


def content_items(msg):
    c = msg.get("content") if isinstance(msg, dict) else None
    return c if isinstance(c, list) else []


# ---- JSON Lines formats -------------------------------------------------------------------

def claude_code(lines):
    ids, n, version = set(), 0, None
    for r in lines:
        msg = r.get("message")
        if r.get("type") == "progress" and isinstance(r.get("data"), dict):
            inner = r["data"].get("message")
            msg = inner.get("message") if isinstance(inner, dict) and inner.get("type") == "assistant" else None
        elif r.get("type") != "assistant":
            continue
        version = version or r.get("version")
        for it in content_items(msg):
            if isinstance(it, dict) and it.get("type") in ("tool_use", "server_tool_use"):
                key = it.get("id")
                if key is None:
                    n += 1
                elif key not in ids:
                    ids.add(key)
    return len(ids) + n, version


def codex_rollout(lines):
    ids, n, version = set(), 0, None
    for r in lines:
        p = r.get("payload") if isinstance(r.get("payload"), dict) else None
        if r.get("type") == "session_meta" and p:
            version = version or p.get("cli_version")
        if r.get("type") != "response_item" or not p:
            continue
        if p.get("type") in ("web_search_call", "tool_search_call"):
            n += 1
        elif p.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
            key = p.get("call_id") or p.get("id")
            if key is None:
                n += 1
            elif key not in ids:
                ids.add(key)
    return len(ids) + n, version


def codex_exec(lines):
    n = 0
    for r in lines:
        it = r.get("item")
        if r.get("type") == "item.completed" and isinstance(it, dict):
            if it.get("type") in ("command_execution", "mcp_tool_call", "file_change", "web_search"):
                n += 1
    return n, None


def gemini_stream(lines):
    ids = set()
    n = 0
    for r in lines:
        if r.get("type") == "tool_use":
            key = r.get("tool_id")
            if key is None:
                n += 1
            else:
                ids.add(key)
    return len(ids) + n, None


def pi_session(lines):
    n, version = 0, None
    for r in lines:
        if r.get("type") == "session":
            version = version or r.get("version")
        if r.get("type") != "message":
            continue
        m = r.get("message")
        if isinstance(m, dict) and m.get("role") == "assistant":
            n += sum(1 for it in content_items(m) if isinstance(it, dict) and it.get("type") == "toolCall")
    return n, version


def qwen_session(lines):
    n, version = 0, None
    for r in lines:
        if r.get("type") != "assistant":
            continue
        version = version or r.get("version")
        m = r.get("message")
        for part in (m.get("parts") if isinstance(m, dict) and isinstance(m.get("parts"), list) else []):
            if isinstance(part, dict) and "functionCall" in part:
                n += 1
    return n, version


def managed_agent(lines):
    return sum(1 for r in lines if r.get("kind") == "tool_use"), None


def goose(lines):
    n = 0
    for r in lines:
        if r.get("role") == "assistant":
            n += sum(1 for it in content_items(r) if isinstance(it, dict) and it.get("type") == "toolRequest")
    return n, None


def opencode_lines(lines):
    ids = set()
    for r in lines:
        part = r.get("part")
        if isinstance(part, dict) and part.get("type") == "tool":
            ids.add(part.get("callID") or part.get("id"))
    return len(ids), None


def copilot_cli(lines):
    ids, version = set(), None
    for r in lines:
        d = r.get("data") if isinstance(r.get("data"), dict) else {}
        if r.get("type") == "session.start":
            version = version or d.get("copilotVersion")
        if r.get("type") == "tool.execution_start" and d.get("toolCallId"):
            ids.add(d["toolCallId"])
        if r.get("type") == "assistant.message":
            for req in d.get("toolRequests") or []:
                if isinstance(req, dict) and req.get("toolCallId"):
                    ids.add(req["toolCallId"])
    return len(ids), version


def droid(lines):
    ids = set()
    for r in lines:
        m = r.get("message")
        if r.get("type") == "message" and isinstance(m, dict) and m.get("role") == "assistant":
            for it in content_items(m):
                if isinstance(it, dict) and it.get("type") == "tool_use":
                    ids.add(it.get("id") or len(ids))
    return len(ids), None


def gemini_session_lines(lines):
    ids, n = set(), 0
    for r in lines:
        msgs = [r]
        upd = r.get("$set")
        if isinstance(upd, dict) and isinstance(upd.get("messages"), list):
            msgs = upd["messages"]
        for m in msgs:
            if not (isinstance(m, dict) and m.get("type") == "gemini" and isinstance(m.get("toolCalls"), list)):
                continue
            for tc in m["toolCalls"]:
                key = tc.get("id") if isinstance(tc, dict) else None
                if key is None:
                    n += 1
                else:
                    ids.add(key)
    return len(ids) + n, None


def block_lines(lines):
    ids, n = set(), 0
    for r in lines:
        c = r.get("content")
        if r.get("role") == "assistant" and isinstance(c, dict) and c.get("type") == "tool_use":
            key = c.get("tool_id") or c.get("id")
            if key is None:
                n += 1
            else:
                ids.add(key)
    return len(ids) + n, None


def antigravity_transcript(lines):
    n = 0
    for r in lines:
        if r.get("type") == "PLANNER_RESPONSE" and isinstance(r.get("tool_calls"), list):
            n += len(r["tool_calls"])
    return n, None


def sniff_lines(lines):
    types = {r.get("type") for r in lines}
    if any("sessionId" in r and "projectHash" in r for r in lines[:1]) or (
            "gemini" in types and any("$set" in r for r in lines)):
        return "gemini-session-lines", gemini_session_lines
    if "PLANNER_RESPONSE" in types and any("step_index" in r for r in lines):
        return "antigravity-transcript", antigravity_transcript
    if "session.start" in types or "tool.execution_start" in types:
        return "copilot-cli", copilot_cli
    if "session_start" in types and "message" in types:
        return "factory-droid", droid
    if any(r.get("type") in ("user", "assistant") and "sessionId" in r and "message" in r for r in lines):
        m = next((r.get("message") for r in lines if r.get("type") == "assistant"), None)
        if isinstance(m, dict) and isinstance(m.get("parts"), list):
            return "qwen-code", qwen_session
        return "claude-code", claude_code
    if "session_meta" in types or any(r.get("type") == "response_item" and "payload" in r for r in lines):
        return "codex-rollout", codex_rollout
    if "thread.started" in types or "item.completed" in types:
        return "codex-exec-json", codex_exec
    if "tool_use" in types and any("tool_name" in r for r in lines):
        return "gemini-stream-json", gemini_stream
    if "init" in types and "result" in types:
        return "gemini-stream-json", gemini_stream
    if "session" in types and "message" in types:
        return "pi", pi_session
    if any("session_id" in r and r.get("type") in ("assistant", "user", "system") for r in lines):
        return "claude-stream-json", claude_code
    if any("kind" in r and "raw" in r for r in lines):
        return "claude-managed-agent", managed_agent
    if any(isinstance(r.get("part"), dict) for r in lines):
        return "opencode-run-json", opencode_lines
    if any(r.get("role") in ("user", "assistant") and isinstance(r.get("content"), list) for r in lines):
        if any(isinstance(it, dict) and it.get("type") == "toolRequest" for r in lines for it in content_items(r)):
            return "goose", goose
    if any(r.get("role") in ("user", "assistant", "tool") and isinstance(r.get("content"), dict)
           and "type" in r["content"] for r in lines):
        return "block-lines", block_lines
    if any("role" in r and ("tool_calls" in r or "content" in r) for r in lines):
        return "openai-messages-lines", lambda ls: openai_messages(ls)
    return "unknown", lambda ls: (0, None)


# ---- whole-JSON formats -------------------------------------------------------------------

def openai_messages(msgs):
    n = 0
    for m in msgs:
        if isinstance(m, dict) and isinstance(m.get("tool_calls"), list):
            n += len(m["tool_calls"])
    return n, None


def gemini_session(doc):
    n = 0
    for m in doc.get("messages", []):
        if isinstance(m, dict) and m.get("type") == "gemini" and isinstance(m.get("toolCalls"), list):
            n += len(m["toolCalls"])
    return n, None


def gemini_turns(turns):
    n = 0
    for t in turns:
        if isinstance(t, dict) and t.get("role") == "model":
            n += sum(1 for p in t.get("parts", []) if isinstance(p, dict) and "functionCall" in p)
    return n, None


def opencode_export(doc):
    n = 0
    for m in doc.get("messages", []):
        for p in (m.get("parts") or []) if isinstance(m, dict) else []:
            if isinstance(p, dict) and p.get("type") == "tool":
                n += 1
    return n, None


def cline(msgs):
    n = 0
    for m in msgs:
        if isinstance(m, dict) and m.get("role") == "assistant":
            n += sum(1 for it in content_items(m) if isinstance(it, dict) and it.get("type") == "tool_use")
    return n, None


def sniff_whole(doc):
    if isinstance(doc, dict):
        msgs = doc.get("messages")
        if isinstance(msgs, list) and any(isinstance(m, dict) and m.get("type") == "gemini" for m in msgs):
            return "gemini-session", gemini_session
        if isinstance(msgs, list) and any(isinstance(m, dict) and isinstance(m.get("parts"), list) and isinstance(m.get("info"), dict) for m in msgs):
            return "opencode-export", opencode_export
        if isinstance(msgs, list) and any(isinstance(m, dict) and "role" in m for m in msgs):
            return "openai-messages", lambda d: openai_messages(d["messages"])
        for key in ("history", "clientHistory", "contents"):
            if isinstance(doc.get(key), list) and any(isinstance(t, dict) and "parts" in t for t in doc[key]):
                return "gemini-checkpoint", lambda d, k=key: gemini_turns(d[k])
    if isinstance(doc, list) and doc:
        if any(isinstance(t, dict) and isinstance(t.get("parts"), list) for t in doc):
            return "gemini-checkpoint", gemini_turns
        if any(isinstance(m, dict) and m.get("role") == "assistant" and any(isinstance(i, dict) and i.get("type") == "tool_use" for i in content_items(m)) for m in doc):
            return "cline-task", cline
        if any(isinstance(m, dict) and "role" in m for m in doc):
            return "openai-messages", openai_messages
    return "unknown", lambda d: (0, None)


def count(path):
    try:
        whole, lines = load(path)
    except OSError as e:
        return "unreadable", 0, str(e)
    if lines is not None:
        fmt, fn = sniff_lines(lines)
        calls, version = fn(lines)
    else:
        fmt, fn = sniff_whole(whole)
        calls, version = fn(whole)
    return fmt, calls, version


def files(args):
    for a in args:
        if os.path.isdir(a):
            for d, _, fs in sorted(os.walk(a)):
                for f in sorted(fs):
                    if re.search(r"\.(jsonl?|ndjson)$", f):
                        yield os.path.join(d, f)
        else:
            yield a


def main(argv):
    sniff = False
    if argv[:1] == ["--sniff"]:
        sniff, argv = True, argv[1:]
    if not argv:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    for f in files(argv):
        fmt, calls, version = count(f)
        name = os.path.basename(f)
        if sniff:
            print(f"{name}\t{calls}\t{fmt}\t{version or ''}")
        else:
            print(f"{name} {calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
