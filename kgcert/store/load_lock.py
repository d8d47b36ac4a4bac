"""One load of a KG at a time on Neo4j, where several processes can reach one database.

The load holds a lease (a node of its own label, under a uniqueness constraint) that a thread
renews while the load runs and that is deleted when it ends; a second load of the same KG
finds it held and stops with one line, before touching anything. A load that was killed
stops renewing its lease, which then runs out, so the next load is never locked out for long.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from kgcert.errors import StoreError
from kgcert.store.cypher import statement
from kgcert.store.graph import GraphStore

LEASE_S = 30.0  # a killed load locks its KG out for at most this long
RENEW_S = 10.0


def _ensure_constraint(database: GraphStore) -> None:
    try:
        database.execute(statement("load_lock", "load_lock_unique"))
    except StoreError as error:  # two first loads at once: the other one made it
        if "AlreadyExists" not in (getattr(error.__cause__, "code", None) or ""):
            raise


@contextmanager
def load_lease(database: GraphStore, kg: str, where: str) -> Iterator[None]:
    """Held while KG `kg` loads; `database` is the whole (unconfined) database."""
    _ensure_constraint(database)
    owner = uuid.uuid4().hex
    params = {"kg": kg, "owner": owner, "lease_ms": int(LEASE_S * 1000)}
    if not database.value(statement("load_lock", "take"), **params):
        raise StoreError(f"another load of KG {kg!r} is running on {where}; wait for it to "
                         f"finish (a load that was killed holds it for at most {LEASE_S:g} s)")
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(RENEW_S):
            with suppress(StoreError):  # a missed renewal is retried; the lease has room
                database.value(statement("load_lock", "renew"), **params)

    renewer = threading.Thread(target=renew, name=f"kgcert-lease-{kg}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        with suppress(StoreError):  # unreachable now: the lease runs out by itself
            database.execute(statement("load_lock", "release"), kg=kg, owner=owner)
