"""The warm graph server's files and its control channel, shared by the server and its clients.

Everything lives in the embedded home (`<data dir>/embedded`), readable by its owner only:
`server.json` (pid, Bolt port, start and last-use times), `server.sock` (the control socket:
one JSON line in, one JSON line out) and `server-start.lock` (held while one command starts the
server, so two commands starting at once end with one server). Locks are flocks: a process that
dies releases them, so a stale lock file never blocks anyone.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.errors import StoreError
from kgcert.util.atomicfile import replacing

REPLY_LIMIT = 1 << 20
_UNIX_PATH_MAX = 107


@dataclass(frozen=True)
class WarmFiles:
    home: Path  # <data dir>/embedded

    @classmethod
    def of(cls, data_dir: Path) -> WarmFiles:
        home = data_dir / "embedded"
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        return cls(home)

    @property
    def state(self) -> Path:
        return self.home / "server.json"

    @property
    def socket(self) -> Path:
        return self.home / "server.sock"

    @property
    def start_lock(self) -> Path:
        return self.home / "server-start.lock"

    @property
    def log(self) -> Path:
        return self.home / "logs" / "server.log"

    @property
    def credentials(self) -> Path:
        return self.home / "credentials.json"

    def check_socket_path(self) -> None:
        if len(os.fsencode(self.socket)) > _UNIX_PATH_MAX:
            raise StoreError(f"the data directory {self.home.parent} is too deep for the warm "
                             "server's control socket; use a shorter --data-dir or --no-server")

    def read_state(self) -> dict[str, Any] | None:
        """The state file's fields, or None when it is missing or damaged (both mean: no server)."""
        try:
            state = json.loads(self.state.read_text())
        except (OSError, ValueError):
            return None
        return state if isinstance(state, dict) and isinstance(state.get("pid"), int) else None

    def write_state(self, state: dict[str, Any]) -> None:
        """Write then rename, mode 0600: a reader never sees half a file."""
        with replacing(self.state) as out:
            json.dump(state, out)


def pid_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process took the pid: alive, but not our server
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def is_warm_server(pid: int) -> bool:
    """Whether `pid` is a kgcert warm server (before signalling a pid read from a file)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"kgcert.store.daemon" in cmdline


def open_channel(files: WarmFiles, timeout: float = 5.0) -> socket.socket:
    """A connection to the control socket; OSError when no server listens there."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.settimeout(timeout)
    try:
        channel.connect(str(files.socket))
    except OSError:
        channel.close()
        raise
    return channel


def ask(channel: socket.socket, op: str, **fields: Any) -> dict[str, Any]:
    """Send one request, return its reply; a refusal becomes a StoreError with its reason."""
    channel.sendall(json.dumps({"op": op, **fields}).encode() + b"\n")
    reply = read_line(channel)
    if reply is None:
        raise OSError("the warm graph server closed the connection")
    answer = json.loads(reply)
    if not answer.get("ok"):
        raise StoreError(str(answer.get("error", f"the warm graph server refused {op!r}")))
    return dict(answer)


def read_line(channel: socket.socket) -> bytes | None:
    data = b""
    while not data.endswith(b"\n"):
        chunk = channel.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > REPLY_LIMIT:
            raise OSError("reply too long")
    return data
