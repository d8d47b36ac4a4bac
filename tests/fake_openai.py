"""A local OpenAI-compatible chat-completions server on 127.0.0.1 for the model tests.

It stands in for a remote API (what is tested is kgcert's client): it answers from the prompt,
serves scripted faults, echoes the Authorization header in error bodies like a careless proxy,
sends bodies of its choosing, or trickles its reply one byte at a time.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class InFlight:
    """Calls being answered at once, over every server that shares it, and the most seen."""

    def __init__(self) -> None:
        self.now = self.most = 0
        self.lock = threading.Lock()

    @contextmanager
    def held(self, seconds: float) -> Iterator[None]:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(seconds)  # long enough for the client's other calls to arrive
            yield
        finally:
            with self.lock:
                self.now -= 1


@dataclass
class Script:
    """Faults to serve before succeeding: (status, headers, body) consumed in order."""

    faults: list[tuple[int, dict[str, str], str]] = field(default_factory=list)
    reply: str | None = None  # None: echo an answer built from the prompt
    raw_reply: str | None = None  # a body of our choosing with status 200
    echo_auth: Callable[[int], int | None] = lambda call: None  # call number -> error status
    trickle_s: float | None = None  # seconds between the bytes of a reply
    die_after: int | None = None  # calls answered before the server dies (drops every call)
    chunked: bool = False  # send replies in 64 KiB chunks without a Content-Length
    in_flight: InFlight | None = None  # counts answered calls at once (shared by servers)
    seen: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    model: str | None = None  # the model name replies give (None: they give none)


def completion(text: str, prompt_tokens: int = 1, model: str | None = None) -> str:
    return json.dumps({
        "id": "x", "object": "chat.completion", **({"model": model} if model else {}),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 3},
    })


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        script: Script = self.server.script  # type: ignore[attr-defined]
        auth = self.headers.get("Authorization")
        with script.lock:
            call = len(script.seen)
            script.seen.append(body)
            script.auth.append(auth)
            fault = script.faults.pop(0) if script.faults else None
        echo = script.echo_auth(call)
        if script.die_after is not None and call >= script.die_after:
            self.close_connection = True  # a dead replica: the connection drops unanswered
            return
        if script.in_flight is not None:
            with script.in_flight.held(0.02):
                self._answer(script, body, fault, echo, auth)
        else:
            self._answer(script, body, fault, echo, auth)

    def _answer(self, script: Script, body: Any, fault: Any, echo: int | None,
                auth: str | None) -> None:
        if self.path != "/v1/chat/completions":
            self._send(404, {}, json.dumps({"error": {"message": "no such route"}}))
        elif fault is not None:
            self._send(*fault)
        elif echo is not None:
            message = f"invalid credentials in header Authorization: {auth}"
            self._send(echo, {}, json.dumps({"error": {"message": message}}))
        elif script.raw_reply is not None:
            self._send(200, {}, script.raw_reply)
        else:
            prompt = body["messages"][-1]["content"]
            text = script.reply if script.reply is not None else f"correct answer: {prompt[-1]}."
            self._send(200, {}, completion(text, len(prompt.split()), script.model))

    def _send(self, status: int, headers: dict[str, str], body: str) -> None:
        data = body.encode()
        if self.server.script.chunked:  # type: ignore[attr-defined]
            self._send_chunked(status, data)
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        trickle = self.server.script.trickle_s  # type: ignore[attr-defined]
        try:
            if trickle is None:
                self.wfile.write(data)
                return
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(trickle)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up


    def _send_chunked(self, status: int, data: bytes) -> None:
        self.protocol_version = "HTTP/1.1"
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for start in range(0, len(data), 1 << 16):
                piece = data[start:start + (1 << 16)]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading


@contextmanager
def serve(script: Script | None = None) -> Iterator[tuple[str, Script]]:
    """(base URL ending in /v1, the script) of a server running until the block ends."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.script = script or Script()  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", httpd.script  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()
        httpd.server_close()
