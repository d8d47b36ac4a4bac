"""A local Anthropic Messages API server on 127.0.0.1 for the anthropic provider's tests.

It stands in for the remote API (what is tested is kgcert's client over the official SDK): it
answers from the prompt, serves scripted faults, echoes the x-api-key header in error bodies
like a careless proxy, sends bodies of its choosing, or trickles its reply one byte at a time.
The server machinery and the script are fake_openai's; only the route and the bodies differ.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from typing import Any

from fake_openai import Handler, Script


def message(text: str, input_tokens: int = 1, stop_reason: str = "end_turn") -> str:
    return json.dumps({
        "id": "msg_x", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}], "stop_reason": stop_reason,
        "stop_sequence": None, "usage": {"input_tokens": input_tokens, "output_tokens": 3},
    })


def error(kind: str, text: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": text}})


class MessagesHandler(Handler):
    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        script: Script = self.server.script  # type: ignore[attr-defined]
        # the key comes as x-api-key (older SDKs) or as a bearer token (recent ones)
        bearer = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        key = self.headers.get("x-api-key") or bearer or None
        with script.lock:
            call = len(script.seen)
            script.seen.append(body)
            script.auth.append(key)
            fault = script.faults.pop(0) if script.faults else None
        echo = script.echo_auth(call)
        if self.path != "/v1/messages":
            self._send(404, {}, error("not_found_error", "no such route"))
        elif fault is not None:
            self._send(*fault)
        elif echo is not None:
            self._send(echo, {}, error("invalid_request_error", f"invalid x-api-key: {key}"))
        elif script.raw_reply is not None:
            self._send(200, {}, script.raw_reply)
        else:
            prompt = body["messages"][-1]["content"]
            text = script.reply if script.reply is not None else f"correct answer: {prompt[-1]}."
            self._send(200, {}, message(text, len(prompt.split())))


@contextmanager
def serve(script: Script | None = None) -> Iterator[tuple[str, Script]]:
    """(base URL, the script) of a server running until the block ends."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), MessagesHandler)
    httpd.daemon_threads = True
    httpd.script = script or Script()  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.script  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()
        httpd.server_close()


def content(blocks: list[dict[str, Any]], stop_reason: str | None = "end_turn") -> str:
    """A reply whose content blocks are given (tool use, thinking, none at all)."""
    return json.dumps({"id": "msg_x", "type": "message", "role": "assistant",
                       "model": "claude-test", "content": blocks, "stop_reason": stop_reason,
                       "usage": {"input_tokens": 1, "output_tokens": 0}})
