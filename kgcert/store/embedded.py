"""The embedded default: an ArcadeDB server in this process, with its Bolt plugin on 127.0.0.1.

The JVM lives as long as the process, so one embedded server serves the whole process.
It is stopped on exit and on SIGTERM/SIGINT: the JVM runs with -Xrs (it leaves those
signals to Python), a SIGTERM becomes SystemExit, and the atexit hook closes drivers
before stopping the server, which otherwise keeps non-daemon threads alive.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn

from kgcert.errors import StoreError
from kgcert.store.arcade_bulk import ArcadeBulkWriter
from kgcert.store.bulk import BulkWriter
from kgcert.store.driver import neo4j
from kgcert.store.graph import GraphStore
from kgcert.store.jvm_heap import HEAP_ENV, choose_heap
from kgcert.store.seal import Seal
from kgcert.store.server import GraphServer, check_kg_name

_USER = "root"
_LOGGING = """handlers = java.util.logging.FileHandler
.level = WARNING
java.util.logging.FileHandler.pattern = {pattern}
java.util.logging.FileHandler.limit = 5000000
java.util.logging.FileHandler.count = 2
java.util.logging.FileHandler.formatter = java.util.logging.SimpleFormatter
"""

_FULL_BELOW = 2 << 20  # bytes free: less than the few pages a write extends a file by
_lock = threading.Lock()
_running: EmbeddedServer | None = None


def _free_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _password(home: Path) -> str:
    """A password generated once per data directory, readable by its owner only. A new one
    also resets the server's stored root user, whose old password is then lost (the KGs
    are kept)."""
    path = home / "credentials.json"
    if path.exists():
        return _stored_password(path)
    (home / "databases" / "config" / "server-users.jsonl").unlink(missing_ok=True)
    password = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"user": _USER, "password": password}, handle)
    return password


def _stored_password(path: Path) -> str:
    try:
        password = json.loads(path.read_text(encoding="utf-8"))["password"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        password = None
    if not isinstance(password, str) or not password:
        raise StoreError(f"{path} is damaged (no password in it); delete it and kgcert makes a "
                         "new one on the next start (the KGs are kept)")
    return password


def _owner_only(folder: Path) -> None:
    """Folders 0700 and files 0600 under `folder`: the KGs must not be readable by other
    local users. The JVM creates files with the process umask (usually 0644), so this runs
    when the server starts and stops; in between the 0700 folder keeps them private."""
    for root, _dirs, files in os.walk(folder):
        with contextlib.suppress(FileNotFoundError):  # the server may delete files meanwhile
            os.chmod(root, 0o700)
        for name in files:
            file = os.path.join(root, name)
            with contextlib.suppress(FileNotFoundError):
                if not os.path.islink(file):
                    os.chmod(file, 0o600)


def _start_jvm(home: Path) -> None:
    from arcadedb_embedded.jvm import start_jvm

    logs = home / "logs"
    logs.mkdir(exist_ok=True)
    properties = home / "logging.properties"
    properties.write_text(_LOGGING.format(pattern=str(logs / "arcadedb.%g.log")))
    heap = choose_heap().size
    # The JVM prints a warning about its incubator vector module straight to fd 2 at start;
    # silence that one moment only (failures still surface as Python exceptions).
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            start_jvm(
                heap_size=heap,
                jvm_args=["-Xrs", f"-Djava.util.logging.config.file={properties}"],
                interrupt=False,
            )
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    _java_stderr_to(logs / "jvm-stderr.log")
    _no_load_csv()


def _no_load_csv() -> None:
    """LOAD CSV off: kgcert never loads through it, and a query must not read the data
    directory's files (credentials.json) or fetch URLs through the server."""
    import jpype

    settings = jpype.JClass("com.arcadedb.GlobalConfiguration")
    settings.OPENCYPHER_LOAD_CSV_ALLOW_FILE_URLS.setValue(False)
    settings.OPENCYPHER_LOAD_CSV_ALLOW_REMOTE_URLS.setValue(False)


def _java_stderr_to(path: Path) -> None:
    """Java's System.err into a log file: the server's logging prints its own failures (a
    full disk) there as stack traces, which are no output for a command line. A PrintStream
    never throws, so a log that cannot be written costs nothing."""
    import jpype

    stream = jpype.JClass("java.io.PrintStream")(
        jpype.JClass("java.io.FileOutputStream")(str(path), True), True)
    jpype.JClass("java.lang.System").setErr(stream)


def _sigterm_to_exit(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


class EmbeddedServer(GraphServer):
    """ArcadeDB started in-process; databases persist under `<data dir>/embedded`."""

    def __init__(self, data_dir: Path) -> None:
        self.home = data_dir / "embedded"
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.home, 0o700)
        self._lock_handle = self._take_lock()
        try:
            self._password = _password(self.home)  # a damaged file fails before the JVM starts
        except BaseException:
            self._release_lock()
            raise
        # Before the server opens the databases: it would answer from cut files unawares.
        self._seal = Seal(self.home, self.home / "databases" / "databases")
        self._damaged = self._seal.open()
        _start_jvm(self.home)
        import arcadedb_embedded

        self.bolt_port = _free_loopback_port()
        self._server = arcadedb_embedded.create_server(
            str(self.home / "databases"),
            root_password=self._password,
            config={
                "host": "127.0.0.1",
                "http_port": _free_loopback_port(),
                "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
                "bolt_port": self.bolt_port,
            },
        )
        try:
            self._server.start()
        except Exception as error:
            self._release_lock()
            raise StoreError(f"embedded graph server failed to start: {error}") from error
        _owner_only(self.home)
        self.name = f"embedded server (bolt://127.0.0.1:{self.bolt_port})"
        self.driver = neo4j.GraphDatabase.driver(
            f"bolt://127.0.0.1:{self.bolt_port}", auth=(_USER, self._password)
        )
        self._closed = False

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    def _take_lock(self) -> Any:
        handle = open(self.home / ".lock", "a+")  # noqa: SIM115 - held for the server's life
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreError(
                f"the embedded database in {self.home} is in use by another kgcert process; "
                "wait for it, or pass another --data-dir"
            ) from None
        return handle

    def _release_lock(self) -> None:
        if self._lock_handle is not None:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            self._lock_handle.close()
            self._lock_handle = None

    def list_kgs(self) -> list[str]:
        return sorted(str(name) for name in self._server._java_server.getDatabaseNames())

    def write_refusal(self, kg: str, cypher: str) -> str | None:
        from kgcert.store.read_only import arcade_write_refusal

        return arcade_write_refusal(self._server._java_server.getDatabase(check_kg_name(kg)),
                                    cypher)

    def damage(self, kg: str) -> str | None:
        found = self._damaged.get(kg)
        return found[0] if found else None

    def full_disk(self, error: BaseException) -> str | None:
        """The server's own errors hide the cause (a failed `CREATE INDEX`, a Java stack), so
        the disk is asked too: a failed write with less than a few pages free was that."""
        if _mentions(error, "No space left on device"):
            return str(self.home.parent)
        try:
            disk = os.statvfs(self.home)
        except OSError:
            return None
        return str(self.home.parent) if disk.f_bavail * disk.f_frsize < _FULL_BELOW else None

    def out_of_memory(self, error: BaseException) -> str | None:
        if not _mentions(error, "OutOfMemoryError"):
            return None
        heap = choose_heap().size
        return (f"the embedded server ran out of its Java heap ({HEAP_ENV}={heap}); "
                f"set {HEAP_ENV} higher (e.g. {HEAP_ENV}=8g) and load again")

    def release_memory(self) -> None:
        from kgcert.store.jvm_memory import give_back_heap

        give_back_heap()

    def _database(self, kg: str) -> Any:
        return self._server.get_database(kg)

    def store(self, kg: str) -> GraphStore:
        return GraphStore(self.driver, check_kg_name(kg), self.name)

    def create(self, kg: str) -> GraphStore:
        check_kg_name(kg)
        if kg not in self.list_kgs():
            self._server.create_database(kg)
        return self.store(kg)

    def drop(self, kg: str) -> None:
        check_kg_name(kg)
        if kg in self.list_kgs():
            # The server shares its databases and refuses to drop them: unregister, then drop
            # the underlying local database.
            java = self._server._java_server
            local = java.getDatabase(kg).getEmbedded()
            if local.isTransactionActive():  # left open by a failed write (a batch's close)
                local.rollback()
            java.removeDatabase(kg)
            local.drop()
        shutil.rmtree(self.home / "databases" / "databases" / kg, ignore_errors=True)
        self._damaged.pop(kg, None)

    def bulk_writer(self, store: GraphStore) -> BulkWriter:
        return ArcadeBulkWriter(store, self._database(store.database))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.driver.close()
        finally:
            try:
                self._server.stop()
                self._seal.close(self._damaged)  # only after a clean stop
            finally:
                with contextlib.suppress(OSError):
                    _owner_only(self.home)
                self._release_lock()


def start_embedded(data_dir: Path) -> EmbeddedServer:
    """The process's embedded server for `data_dir`, started on first use."""
    global _running
    with _lock:
        if _running is not None and not _running._closed:
            if _running.home == (data_dir / "embedded"):
                return _running
            _running.close()
        _running = EmbeddedServer(data_dir)
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)
        ):
            signal.signal(signal.SIGTERM, _sigterm_to_exit)
        atexit.register(_running.close)
        return _running


def exit_now(code: int) -> NoReturn:
    """End the process once the embedded server is stopped, without tearing the JVM down.

    JPype's JVM teardown at interpreter exit crashed now and then after all work was done
    (exit 139 with torch loaded beside it; an abort when a Java thread was still attached).
    Stopping the server flushes and closes every database, so nothing is lost by leaving the
    JVM to die with the process.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    with _lock:
        running = _running
    if running is None and not _jvm_started():
        sys.exit(code)
    try:
        if running is not None:
            running.close()
        logging.shutdown()
    finally:
        os._exit(code)


def _mentions(error: BaseException, text: str) -> bool:
    """Whether `text` is in `error` or in any error it was raised from (the server's Java
    exceptions arrive wrapped)."""
    chain: BaseException | None = error
    while chain is not None:
        if text in str(chain):
            return True
        chain = chain.__cause__ or chain.__context__
    return False


def _jvm_started() -> bool:
    if "jpype" not in sys.modules:
        return False
    import jpype

    return bool(jpype.isJVMStarted())
