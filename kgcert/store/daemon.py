"""`python -m kgcert.store.daemon --data-dir DIR --idle SECONDS`: the warm embedded graph server.

It runs the usual EmbeddedServer (Bolt on 127.0.0.1, the data directory's generated password and
its lock) in a background process of its own, so that later commands connect over Bolt instead
of starting a JVM. A control socket (kgcert.store.warm_files) answers what needs the Java server
itself: list, create and drop databases, status and stop. A command using the server sends
`attach` and holds that connection for as long as it runs, so the idle timer runs only while no
attached connection is open, and a command that dies closes its connection with it. Connections
that only ask for the status (`kgcert server status`) do not count as use.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgcert.errors import KgcertError
from kgcert.store.warm_files import REPLY_LIMIT, WarmFiles

DEFAULT_IDLE_S = 900.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _peer_uid(conn: socket.socket) -> int | None:
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", raw)[1])


class WarmDaemon:
    def __init__(self, data_dir: Path, idle_s: float) -> None:
        from kgcert.store.embedded import EmbeddedServer

        self.files = WarmFiles.of(data_dir)
        self.files.check_socket_path()
        self.idle_s = idle_s
        self.server = EmbeddedServer(data_dir)  # takes the data directory's lock, or refuses
        self.started = _now()
        self.started_clock = time.monotonic()
        self.idle_since = time.monotonic()
        self.last_used = self.started
        self.stopping = False
        self.buffers: dict[socket.socket, bytearray] = {}
        self.attached: set[socket.socket] = set()  # connections of commands using the server
        self.selector = selectors.DefaultSelector()
        # Holding the data directory's lock makes this the only server: a socket file left
        # by a killed one is stale.
        with contextlib.suppress(FileNotFoundError):
            self.files.socket.unlink()
        old_umask = os.umask(0o177)
        try:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(str(self.files.socket))
        finally:
            os.umask(old_umask)
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ)
        self._save_state()


    def _save_state(self) -> None:
        self.files.write_state({
            "pid": os.getpid(), "bolt_port": self.server.bolt_port,
            "data_dir": str(self.files.home.parent), "started": self.started,
            "last_used": self.last_used, "idle_s": self.idle_s,
        })

    def _touch(self) -> None:
        self.last_used = _now()
        if not self.attached:
            self.idle_since = time.monotonic()
        self._save_state()

    def status(self, asking: socket.socket) -> dict[str, Any]:
        """As the asking connection sees it: the other commands using the server."""
        others = len(self.attached - {asking})
        idle_for = 0.0 if others else time.monotonic() - self.idle_since
        return {"pid": os.getpid(), "bolt_port": self.server.bolt_port,
                "data_dir": str(self.files.home.parent), "started": self.started,
                "uptime_s": round(time.monotonic() - self.started_clock, 1),
                "last_used": self.last_used, "idle_s": self.idle_s,
                "idle_for_s": round(idle_for, 1), "clients": others}

    def serve(self) -> None:
        while not self.stopping:
            for key, _ in self.selector.select(timeout=0.5):
                if key.fileobj is self.listener:
                    self._accept()
                else:
                    assert isinstance(key.fileobj, socket.socket)
                    self._readable(key.fileobj)
            if not self.attached and time.monotonic() - self.idle_since >= self.idle_s:
                print(f"{_now()} idle for {self.idle_s:g} s: stopping", file=sys.stderr)
                self.stopping = True

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return
        uid = _peer_uid(conn)
        if uid is not None and uid != os.getuid():
            conn.close()  # the socket is 0600; this is a second guard
            return
        conn.setblocking(False)
        self.selector.register(conn, selectors.EVENT_READ)
        self.buffers[conn] = bytearray()

    def _drop_client(self, conn: socket.socket) -> None:
        self.selector.unregister(conn)
        del self.buffers[conn]
        conn.close()
        if conn in self.attached:
            self.attached.discard(conn)
            self._touch()  # the idle timer starts when the last command leaves

    def _readable(self, conn: socket.socket) -> None:
        try:
            chunk = conn.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk or len(self.buffers[conn]) > REPLY_LIMIT:
            self._drop_client(conn)
            return
        buffer = self.buffers[conn]
        buffer += chunk
        while b"\n" in buffer:
            line, _, rest = bytes(buffer).partition(b"\n")
            buffer[:] = rest
            reply = self._answer(conn, line)
            try:
                conn.setblocking(True)
                conn.sendall(json.dumps(reply).encode() + b"\n")
                conn.setblocking(False)
            except OSError:
                self._drop_client(conn)
                return

    def _answer(self, conn: socket.socket, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
            op = request.get("op")
            result = self._perform(conn, op, request)
        except KgcertError as error:
            return {"ok": False, "error": str(error)}
        except Exception as error:  # one bad request must not take the server down
            return {"ok": False, "error": f"{type(error).__name__}: {error}"}
        return {"ok": True, **result}

    def _perform(self, conn: socket.socket, op: Any, request: dict[str, Any]
                 ) -> dict[str, Any]:
        server = self.server
        if op == "status":
            return self.status(conn)
        if op == "attach":
            self.attached.add(conn)
            self._touch()
            return self.status(conn)
        if op == "list":
            return {"kgs": server.list_kgs()}
        if op == "damage":
            return {"reason": server.damage(str(request["kg"]))}
        if op == "write_refusal":
            return {"reason": server.write_refusal(str(request["kg"]), str(request["cypher"]))}
        if op == "create":
            server.create(str(request["kg"]))
            return {}
        if op == "drop":
            server.drop(str(request["kg"]))
            return {}
        if op == "stop":
            others = len(self.attached - {conn})
            if request.get("if_idle") and others > 0:
                return {"stopped": False, "clients": others}
            self.stopping = True
            return {"stopped": True, "pid": os.getpid()}
        raise KgcertError(f"unknown request {op!r}")

    def close(self) -> None:
        """Stop serving, remove the files that announce this server, stop the database."""
        for conn in list(self.buffers):
            conn.close()
        self.selector.close()
        self.listener.close()
        state = self.files.read_state()
        if state is not None and state["pid"] == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                self.files.state.unlink()
            with contextlib.suppress(FileNotFoundError):
                self.files.socket.unlink()
        self.server.close()


def _stop_on(daemon: WarmDaemon | None) -> None:
    def handler(signum: int, frame: Any) -> None:
        if daemon is None:
            raise SystemExit(128 + signum)
        daemon.stopping = True

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, handler)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kgcert.store.daemon",
                                     description="The warm embedded graph server of kgcert.")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE_S,
                        help="Stop after this many seconds with no command connected.")
    options = parser.parse_args(argv)
    # The server makes the KG's files while it runs: owner-only from the start, as the
    # data directory is (the JVM creates files with this process's umask).
    os.umask(0o077)
    code = 0
    _stop_on(None)
    try:
        daemon = WarmDaemon(options.data_dir.resolve(), options.idle)
        _stop_on(daemon)
        print(f"{_now()} pid {os.getpid()} serving {options.data_dir} on bolt port "
              f"{daemon.server.bolt_port}", file=sys.stderr, flush=True)
        try:
            daemon.serve()
        finally:
            daemon.close()
    except KgcertError as error:
        print(f"error: {error}", file=sys.stderr)
        code = 1
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    finally:
        sys.stderr.flush()
    # The database is flushed and closed by now; leave without the JVM teardown, which can
    # crash at interpreter exit (see kgcert.store.embedded.exit_now).
    os._exit(code)


if __name__ == "__main__":
    main()
