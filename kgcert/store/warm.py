"""The warm graph server's life as its clients see it: find it, start it, stop it.

`attach` returns a live server's control connection, which the caller keeps open for as long as
it uses the server (that keeps the server from stopping idle). A server that is gone (pid dead),
that no longer answers, or whose Bolt port is dead is not used: the next start clears it, killing
a hung one first. Starting holds `server-start.lock`, so commands starting together end with one
server; the lock is an flock, released by the kernel when its holder dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgcert.errors import InputError, StoreError
from kgcert.store.warm_files import WarmFiles, ask, is_warm_server, open_channel, pid_alive

IDLE_ENV = "KGCERT_SERVER_IDLE"
DEFAULT_IDLE_S = 900.0
START_TIMEOUT_S = 300.0  # a JVM start took 15-35 s on a busy 2-core machine
STOP_TIMEOUT_S = 120.0


def idle_seconds(override: float | None = None) -> float:
    """How long a server with no client waits before stopping: flag, then $KGCERT_SERVER_IDLE."""
    if override is not None:
        value: float = override
    else:
        raw = os.environ.get(IDLE_ENV)
        if not raw:
            return DEFAULT_IDLE_S
        try:
            value = float(raw)
        except ValueError:
            raise InputError(f"{IDLE_ENV} must be a number of seconds, got {raw!r}") from None
    if not value > 0:
        raise InputError(f"the server idle time must be positive, got {value:g}")
    return value


def _bolt_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            return True
    except OSError:
        return False


def attach(files: WarmFiles) -> tuple[socket.socket, dict[str, Any]] | None:
    """An open control connection to the live server and its status, or None if none is up.

    A missing or damaged state file does not hide a server that answers on its socket (it
    rewrites the file when a command attaches); a state file naming a dead pid means none.
    """
    state = files.read_state()
    if state is not None and not pid_alive(state["pid"]):
        return None
    try:
        channel = open_channel(files)
    except OSError:
        return None
    try:
        status = ask(channel, "status")
    except (OSError, ValueError, StoreError):
        channel.close()
        return None
    if not pid_alive(int(status["pid"])) or not _bolt_answers(int(status["bolt_port"])):
        channel.close()
        return None
    return channel, status


def status(data_dir: Path) -> dict[str, Any] | None:
    """The live server's status for `data_dir`, or None."""
    attached = attach(WarmFiles.of(data_dir))
    if attached is None:
        return None
    attached[0].close()
    return attached[1]


@contextlib.contextmanager
def _start_lock(files: WarmFiles) -> Iterator[None]:
    with open(files.start_lock, "a+") as handle:
        os.chmod(files.start_lock, 0o600)
        fcntl.flock(handle, fcntl.LOCK_EX)  # waits for a command that is starting one
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_running(data_dir: Path, idle: float | None = None
                   ) -> tuple[socket.socket, dict[str, Any]]:
    """Attach to the server of `data_dir`, starting it first when none answers."""
    files = WarmFiles.of(data_dir)
    files.check_socket_path()
    attached = attach(files)
    if attached is not None:
        return attached
    with _start_lock(files):
        attached = attach(files)  # another command may have started it while we waited
        if attached is not None:
            return attached
        _clear_stale(files)
        return _spawn(files, idle_seconds(idle))


def _clear_stale(files: WarmFiles) -> None:
    """Remove what a dead server left; kill one that runs but does not answer."""
    state = files.read_state()
    if state is not None and pid_alive(state["pid"]) and is_warm_server(state["pid"]):
        _terminate(state["pid"])
    with contextlib.suppress(FileNotFoundError):
        files.state.unlink()


def _terminate(pid: int) -> None:
    for sig, wait in ((signal.SIGTERM, 30.0), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
            os.kill(pid, signal.SIGCONT)  # a stopped process handles SIGTERM only once resumed
        deadline = time.monotonic() + wait
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not pid_alive(pid):
            return
    raise StoreError(f"the warm graph server (pid {pid}) does not answer and would not stop")


def _spawn(files: WarmFiles, idle: float) -> tuple[socket.socket, dict[str, Any]]:
    files.log.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    offset = files.log.stat().st_size if files.log.exists() else 0
    # A Neo4j named in the environment is no business of the embedded server.
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGCERT_NEO4J_")}
    log_fd = os.open(files.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with open(log_fd, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "kgcert.store.daemon", "--data-dir", str(files.home.parent),
             "--idle", repr(idle)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env,
            start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        attached = attach(files)
        if attached is not None and attached[1]["pid"] == process.pid:
            return attached
        if attached is not None:
            attached[0].close()
        if process.poll() is not None:
            raise StoreError(f"the warm graph server did not start: {_error_in(files, offset)} "
                             "(--no-server runs the graph server in-process)")
        if time.monotonic() > deadline:
            process.kill()
            raise StoreError(f"the warm graph server did not answer within {START_TIMEOUT_S:g} s "
                             f"(log: {files.log}; --no-server runs it in-process)")
        time.sleep(0.2)


def _error_in(files: WarmFiles, offset: int) -> str:
    try:
        with open(files.log, "rb") as log:
            log.seek(offset)
            lines = log.read().decode(errors="replace").splitlines()
    except OSError:
        lines = []
    errors = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
    return errors[-1] if errors else (lines[-1] if lines else f"see {files.log}")


def stop(data_dir: Path, *, if_idle: bool = False) -> int | None:
    """Stop the server of `data_dir` and wait until it is gone; its pid, or None if none ran.

    `if_idle`: refuse (StoreError) while other commands use it, instead of cutting them off.
    """
    files = WarmFiles.of(data_dir)
    attached = attach(files)
    if attached is None:
        _clear_stale(files)
        return None
    channel, current = attached
    with channel:
        reply = ask(channel, "stop", if_idle=if_idle)
    pid = int(current["pid"])
    if not reply.get("stopped"):
        raise StoreError(f"the warm graph server (pid {pid}) is serving {reply.get('clients')} "
                         "other kgcert command(s); wait for them, or run `kgcert server stop`")
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while pid_alive(pid):
        if time.monotonic() > deadline:
            raise StoreError(f"the warm graph server (pid {pid}) did not stop within "
                             f"{STOP_TIMEOUT_S:g} s")
        time.sleep(0.1)
    return pid
