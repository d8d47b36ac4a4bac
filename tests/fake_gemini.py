"""A local endpoint speaking the Gemini REST API on 127.0.0.1 for the gemini provider's tests.

It stands in for the remote API (what is tested is kgcert's client over google-genai): it
serves scripted (status, body) replies in order, a "{key}" in a body becoming the
x-goog-api-key the request carried (a careless proxy echoing the key), or trickles a reply
one byte at a time; without a script it answers "ok".
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class GeminiServer:
    """A local endpoint speaking the Gemini REST API (127.0.0.1), serving scripted bodies."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, str]] = []  # (status, body); "{key}" becomes the key
        self.keys: list[str | None] = []
        self.paths: list[str] = []
        self.trickle_s: float | None = None
        self.reply = "ok"
        # call number -> an error status whose body echoes the key (None: no echo)
        self.echo_auth: Callable[[int], int | None] = lambda call: None
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                key = self.headers.get("x-goog-api-key")
                with outer.lock:
                    call = len(outer.keys)
                    outer.keys.append(key)
                    outer.paths.append(self.path)
                    scripted = outer.replies.pop(0) if outer.replies else None
                echo = outer.echo_auth(call)
                if scripted is not None:
                    status, body = scripted
                elif echo is not None:
                    status, body = echo, json.dumps({"error": {
                        "code": echo, "message": "API key not valid: {key}"}})
                else:
                    status, body = 200, json.dumps({"candidates": [
                        {"content": {"role": "model", "parts": [{"text": outer.reply}]}}]})
                data = body.replace("{key}", str(key)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if outer.trickle_s is None:
                        self.wfile.write(data)
                    for i in range(len(data) if outer.trickle_s is not None else 0):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(outer.trickle_s or 0)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
