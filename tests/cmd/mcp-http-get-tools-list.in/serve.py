"""Seed 000's `mcp-http:` server: not MCP, it answers only `GET <url>/tools/list` with the tool
list (everything else is 404). Serves on a loopback port, runs `$TRACELINT_BIN ARGS…` with `{url}`
in ARGS replaced by its URL, and exits with tracelint's code."""
import http.server
import json
import os
import subprocess
import sys
import threading

TOOLS = json.load(open(os.path.join(os.path.dirname(__file__), "tools.json")))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/api/tools/list":
            body = json.dumps(TOOLS).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
        else:
            body = b"not found"
            self.send_response(404)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_port}/api"
args = [a.replace("{url}", url) for a in sys.argv[1:]]
run = subprocess.run([os.environ["TRACELINT_BIN"], *args], capture_output=True, text=True)
sys.stdout.write(run.stdout)
sys.stderr.write(run.stderr)
server.shutdown()
sys.exit(run.returncode)
