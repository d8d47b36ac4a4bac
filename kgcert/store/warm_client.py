"""The embedded graph reached through the warm server: Bolt for queries, the control socket for
what needs the Java server (list, create, drop). Loads write in-process (see `connect`)."""

from __future__ import annotations

import atexit
import json
import socket
import threading
from pathlib import Path
from typing import Any

from kgcert.errors import StoreError
from kgcert.store.bulk import BulkWriter
from kgcert.store.driver import neo4j
from kgcert.store.graph import GraphStore
from kgcert.store.server import GraphServer, check_kg_name
from kgcert.store.warm import ensure_running
from kgcert.store.warm_files import WarmFiles, ask

_lock = threading.Lock()
_connected: dict[Path, WarmServer] = {}


class WarmServer(GraphServer):
    def __init__(self, data_dir: Path, channel: socket.socket, status: dict[str, Any]) -> None:
        self.data_dir = data_dir
        self.pid = int(status["pid"])
        self.bolt_port = int(status["bolt_port"])
        self._channel = channel  # held open: the server does not stop idle while we run
        self._channel.settimeout(None)  # a drop takes as long as it takes
        self._requests = threading.Lock()
        self._ask("attach")  # counts as use until this connection closes
        credentials = json.loads(WarmFiles.of(data_dir).credentials.read_text())
        self.name = f"embedded server (bolt://127.0.0.1:{self.bolt_port}, warm, pid {self.pid})"
        self.driver = neo4j.GraphDatabase.driver(
            f"bolt://127.0.0.1:{self.bolt_port}",
            auth=(credentials["user"], credentials["password"]))
        self.closed = False

    def _ask(self, op: str, **fields: Any) -> dict[str, Any]:
        with self._requests:
            try:
                return ask(self._channel, op, **fields)
            except OSError as error:
                raise StoreError(f"lost the warm graph server (pid {self.pid}): {error}; "
                                 "run the command again") from error

    def list_kgs(self) -> list[str]:
        return [str(name) for name in self._ask("list")["kgs"]]

    def damage(self, kg: str) -> str | None:
        reason = self._ask("damage", kg=check_kg_name(kg)).get("reason")
        return str(reason) if reason else None

    def write_refusal(self, kg: str, cypher: str) -> str | None:
        reason = self._ask("write_refusal", kg=check_kg_name(kg), cypher=cypher).get("reason")
        return str(reason) if reason else None

    def store(self, kg: str) -> GraphStore:
        return GraphStore(self.driver, check_kg_name(kg), self.name)

    def create(self, kg: str) -> GraphStore:
        self._ask("create", kg=check_kg_name(kg))
        return self.store(kg)

    def drop(self, kg: str) -> None:
        self._ask("drop", kg=check_kg_name(kg))

    def bulk_writer(self, store: GraphStore) -> BulkWriter:
        raise StoreError("bulk loads need the graph server in-process: connect with "
                         "in_process=True (`kgcert load` does)")

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.driver.close()
        finally:
            self._channel.close()


def connect_warm(data_dir: Path) -> WarmServer:
    """This process's connection to the warm server of `data_dir`, starting the server if needed."""
    with _lock:
        known = _connected.get(data_dir)
        if known is not None and not known.closed:
            return known
        channel, status = ensure_running(data_dir)
        server = WarmServer(data_dir, channel, status)
        _connected[data_dir] = server
        atexit.register(server.close)
        return server
