#!/usr/bin/env python3
"""A local stand-in for the model APIs coding-agent CLIs call, for capturing what the real CLIs
send and for making real session files offline. Dev tooling only: tests never run it.

It speaks three dialects on 127.0.0.1 (nothing else is reachable through it):
  * OpenAI Responses (Codex CLI):  POST /v1/responses            -> SSE
  * Gemini (Gemini CLI):           POST /v1beta/models/M:streamGenerateContent?alt=sse -> SSE,
                                   POST /v1beta/models/M:generateContent, :countTokens -> JSON
  * Anthropic Messages (Claude Code): POST /v1/messages           -> SSE (or JSON)
  * OpenAI Chat Completions (Cline): POST /v1/chat/completions     -> SSE (or JSON)

Every request body is saved as `<log>/<n>-<dialect>.json`. The model's turns come from a script
(a JSON list); each request that offers tools takes the next turn. A turn is
  {"text": "..."}                                        say something and stop
  {"calls": [{"name": "...", "args": {...}}], "text"?}   call tools (args: object, or a string
                                                         sent verbatim as the arguments text;
                                                         "namespace": a Responses namespace)
  {"custom": [{"name": "...", "input": "..."}]}           Codex freeform (custom) tool calls
  {"web_search": ["query", ...]}                         hosted web searches the provider ran
  {"blocks": [{...}, ...]}                               Anthropic content blocks sent as they are
                                                         (server_tool_use and its result)
  {"delay": seconds, ...}                                wait before answering (Gemini 0.20's
                                                         shell parser loads lazily)
  {"first_available": [[name, args], ...]}               call the first tool of the list that
                                                         the request offers
When the script is used up the model says "done." and stops. Side requests (no tools: titles,
next-speaker checks, summaries) get a short answer that ends the side task.

usage: fake-model-api.py --port-file F --log DIR [--script S.json]
The chosen port is written to F once the server listens. Used as an HTTPS proxy, it refuses
every CONNECT, so a CLI pointed at it sends nothing off the machine.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"n": 0, "turn": 0, "script": [], "log": "."}


def save(dialect, path, body):
    with LOCK:
        STATE["n"] += 1
        n = STATE["n"]
    name = os.path.join(STATE["log"], f"{n:04d}-{dialect}.json")
    with open(name, "w") as f:
        json.dump({"path": path, "body": body}, f)
    return n


def next_turn(offered=()):
    """The script's next turn. A turn {"first_available": [[name, args], ...]} calls the first
    of those tools the request offers (or just says "done." when it offers none of them)."""
    with LOCK:
        i = STATE["turn"]
        STATE["turn"] += 1
    script = STATE["script"]
    turn = script[i] if i < len(script) else {"text": "done."}
    if "first_available" in turn:
        for name, args in turn["first_available"]:
            if name in offered:
                return {"calls": [{"name": name, "args": args}]}
        return {"text": "done."}
    return turn


def args_text(args):
    return args if isinstance(args, str) else json.dumps(args)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def send_json(self, obj, code=200):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        data = "".join(events).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_CONNECT(self):
        # A CLI told to use this server as its HTTPS proxy (to keep what it sends elsewhere,
        # such as feature-flag fetches and telemetry, on the machine) is refused every tunnel.
        self.close_connection = True
        try:
            self.send_json({"error": {"message": "no tunnels"}}, 403)
        except OSError:  # the client gave up first
            pass

    def do_GET(self):
        save("get", self.path, None)
        if self.path.startswith("/v1/models"):
            return self.send_json({"object": "list", "data": [], "models": []})
        self.send_json({}, 404)

    def do_POST(self):
        body = self.body()
        path = self.path
        if path.startswith("/v1/responses"):
            save("responses", path, body)
            return self.openai_responses(body)
        m = re.match(r"^/v1(?:beta|alpha)?/models/([^:/]+):(\w+)", path)
        if m:
            save("gemini-" + m.group(2), path, body)
            return self.gemini(m.group(1), m.group(2), body)
        if "/chat/completions" in path:
            save("chat", path, body)
            return self.chat_completions(body)
        if path.startswith("/v1/messages"):
            save("messages", path, body)
            if "count_tokens" in path:
                return self.send_json({"input_tokens": 10})
            return self.anthropic(body)
        save("other", path, body)
        self.send_json({"error": {"message": "not faked: " + path}}, 404)

    # --- OpenAI Responses (Codex) ---------------------------------------------------------
    def openai_responses(self, body):
        has_tools = bool(body.get("tools")) or any(
            isinstance(i, dict) and i.get("type") == "additional_tools"
            for i in body.get("input") or []
        )
        offered = [t.get("name") for t in body.get("tools") or []]
        turn = next_turn(offered) if has_tools else {"text": "ok"}
        if turn.get("delay"):
            time.sleep(turn["delay"])
        rid = f"resp_{STATE['n']}"
        ev = []

        def emit(obj):
            ev.append(f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n")

        emit({"type": "response.created", "response": {"id": rid, "status": "in_progress"}})
        items = []
        if turn.get("text"):
            items.append({
                "type": "message", "id": f"msg_{STATE['n']}", "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn["text"], "annotations": []}],
            })
        for k, c in enumerate(turn.get("calls") or []):
            items.append({
                "type": "function_call", "id": f"fc_{STATE['n']}_{k}", "status": "completed",
                "name": c["name"], "arguments": args_text(c.get("args", {})),
                "call_id": c.get("id") or f"call_{STATE['n']}_{k}",
                # A namespaced tool (a newer Codex CLI's MCP tools: `mcp__server__`).
                **({"namespace": c["namespace"]} if c.get("namespace") else {}),
            })
        for k, c in enumerate(turn.get("custom") or []):
            items.append({
                "type": "custom_tool_call", "id": f"ctc_{STATE['n']}_{k}", "status": "completed",
                "name": c["name"], "input": c["input"],
                "call_id": c.get("id") or f"call_{STATE['n']}_c{k}",
            })
        for k, q in enumerate(turn.get("web_search") or []):
            items.append({
                "type": "web_search_call", "id": f"ws_{STATE['n']}_{k}", "status": "completed",
                "action": {"type": "search", "query": q},
            })
        for k, c in enumerate(turn.get("shell") or []):
            items.append({
                "type": "local_shell_call", "id": f"lsc_{STATE['n']}_{k}", "status": "completed",
                "call_id": c.get("id") or f"call_{STATE['n']}_s{k}",
                "action": {"type": "exec", "command": c["command"]},
            })
        for i, item in enumerate(items):
            emit({"type": "response.output_item.added", "output_index": i, "item": item})
            if item["type"] == "message":
                emit({"type": "response.output_text.delta", "output_index": i,
                      "content_index": 0, "item_id": item["id"],
                      "delta": item["content"][0]["text"]})
            emit({"type": "response.output_item.done", "output_index": i, "item": item})
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        emit({"type": "response.completed",
              "response": {"id": rid, "status": "completed", "output": items, "usage": usage}})
        self.send_sse(ev)

    # --- Gemini ----------------------------------------------------------------------------
    def gemini(self, model, method, body):
        if method == "countTokens":
            return self.send_json({"totalTokens": 10})
        if method == "embedContent":
            return self.send_json({"embedding": {"values": [0.0]}})
        has_tools = any(t.get("functionDeclarations") for t in body.get("tools") or [])
        gen = body.get("generationConfig") or {}
        if has_tools:
            offered = [d.get("name") for t in body.get("tools") or []
                       for d in t.get("functionDeclarations") or []]
            turn = next_turn(offered)
        elif gen.get("responseJsonSchema") or gen.get("responseSchema") or \
                gen.get("responseMimeType") == "application/json":
            # next-speaker checks, loop detection, routing: hand the turn back to the user.
            turn = {"text": json.dumps({
                "reasoning": "the model finished its turn", "next_speaker": "user",
                "complexity_reasoning": "simple", "complexity_score": 1,
                "model_choice": "flash", "unproductive_state_confidence": 0.0,
                "unproductive_state_analysis": "none"})}
        else:
            turn = {"text": "ok"}
        if turn.get("delay"):
            time.sleep(turn["delay"])
        parts = []
        if turn.get("text"):
            parts.append({"text": turn["text"]})
        for c in turn.get("calls") or []:
            call = {"name": c["name"], "args": c.get("args", {})}
            if c.get("id"):
                call["id"] = c["id"]
            parts.append({"functionCall": call})
        resp = {
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
            "modelVersion": model,
        }
        if method == "streamGenerateContent":
            return self.send_sse([f"data: {json.dumps(resp)}\r\n\r\n"])
        self.send_json(resp)

    # --- OpenAI Chat Completions (Cline) ----------------------------------------------------
    def chat_completions(self, body):
        offered = [(t.get("function") or {}).get("name") for t in body.get("tools") or []]
        turn = next_turn(offered) if body.get("tools") else {"text": "ok"}
        if turn.get("delay"):
            time.sleep(turn["delay"])
        cid = f"chatcmpl-{STATE['n']}"
        calls = [{"index": k, "id": c.get("id") or f"call_{STATE['n']}_{k}", "type": "function",
                  "function": {"name": c["name"], "arguments": args_text(c.get("args", {}))}}
                 for k, c in enumerate(turn.get("calls") or [])]
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            msg = {"role": "assistant", "content": turn.get("text")}
            if calls:
                msg["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
            return self.send_json({"id": cid, "object": "chat.completion", "created": 0,
                                   "model": body.get("model"), "usage": usage,
                                   "choices": [{"index": 0, "message": msg,
                                                "finish_reason": finish}]})
        ev = []

        def emit(delta, finish_reason=None, extra=None):
            chunk = {"id": cid, "object": "chat.completion.chunk", "created": 0,
                     "model": body.get("model"),
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
            if extra:
                chunk.update(extra)
            ev.append(f"data: {json.dumps(chunk)}\n\n")

        emit({"role": "assistant", "content": ""})
        if turn.get("text"):
            emit({"content": turn["text"]})
        if calls:
            emit({"tool_calls": calls})
        emit({}, finish, {"usage": usage})
        ev.append("data: [DONE]\n\n")
        self.send_sse(ev)

    # --- Anthropic Messages (Claude Code) --------------------------------------------------
    def anthropic(self, body):
        offered = [t.get("name") for t in body.get("tools") or []]
        turn = next_turn(offered) if body.get("tools") else {"text": "ok"}
        blocks = []
        if turn.get("text"):
            blocks.append({"type": "text", "text": turn["text"]})
        for k, c in enumerate(turn.get("calls") or []):
            blocks.append({"type": "tool_use", "id": c.get("id") or f"toolu_{STATE['n']}_{k}",
                           "name": c["name"], "input": c.get("args", {})})
        # Raw content blocks, sent as they are (server tools and their results).
        blocks += turn.get("blocks") or []
        msg = {"id": f"msg_{STATE['n']}", "type": "message", "role": "assistant",
               "model": body.get("model", "claude"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
        if not body.get("stream"):
            msg["content"] = blocks
            msg["stop_reason"] = "tool_use" if turn.get("calls") else "end_turn"
            return self.send_json(msg)
        ev = []

        def emit(obj):
            ev.append(f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n")

        emit({"type": "message_start", "message": msg})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                emit({"type": "content_block_start", "index": i,
                      "content_block": {"type": "text", "text": ""}})
                emit({"type": "content_block_delta", "index": i,
                      "delta": {"type": "text_delta", "text": b["text"]}})
            elif b["type"] != "tool_use":
                emit({"type": "content_block_start", "index": i, "content_block": b})
            else:
                emit({"type": "content_block_start", "index": i,
                      "content_block": {**b, "input": {}}})
                emit({"type": "content_block_delta", "index": i,
                      "delta": {"type": "input_json_delta",
                                "partial_json": json.dumps(b["input"])}})
            emit({"type": "content_block_stop", "index": i})
        emit({"type": "message_delta",
              "delta": {"stop_reason": "tool_use" if turn.get("calls") else "end_turn",
                        "stop_sequence": None}, "usage": {"output_tokens": 5}})
        emit({"type": "message_stop"})
        self.send_sse(ev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--script")
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.log, exist_ok=True)
    STATE["log"] = a.log
    if a.script:
        with open(a.script) as f:
            STATE["script"] = json.load(f)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
