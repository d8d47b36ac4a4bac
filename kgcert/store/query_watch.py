"""Ending a user's query on time: its connection killed, not closed politely.

A polite close (what the driver does when a session ends) first drains the rest of the result,
so the server computes the whole query. Killing the socket instead ends the query at once:
Neo4j terminates the transaction of a connection that went away, and a timeout that the
server ignores (the embedded one does not honour Bolt's transaction timeout) still ends the
command.
"""

from __future__ import annotations

import threading
from typing import Any

from kgcert.errors import InputError, StoreError

READ_ONLY = "kgcert query is read-only"


class QueryTimeout(StoreError):
    """The query ran past its --timeout and was stopped."""


class WriteRefused(InputError):
    """The query would write (or read files): refused, nothing changed."""


def refusal(error: BaseException, where: str) -> WriteRefused | None:
    """The server's refusal of a write (Neo4j: a write in a read transaction) or of a file
    read (the embedded server: LOAD CSV, which kgcert turns off), as kgcert's own refusal."""
    code = getattr(error, "code", None) or ""
    message = str(getattr(error, "message", None) or "")
    if "AccessMode" in code:
        return WriteRefused(f"{READ_ONLY}: {where} refused the query's write (nothing was "
                            "changed)")
    if message.startswith("LOAD CSV"):
        return WriteRefused(f"{READ_ONLY}: LOAD CSV reads files and URLs, and {where} reads "
                            "none for a query (nothing was read)")
    return None


class Watchdog:
    """Kills `session`'s connection `timeout_s` after entering (never, if None)."""

    def __init__(self, session: Any, timeout_s: float | None) -> None:
        self.session = session
        self.timeout_s = timeout_s
        self.expired = threading.Event()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Watchdog:
        if self.timeout_s is not None:
            self._timer = threading.Timer(self.timeout_s, self._expire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _expire(self) -> None:
        self.expired.set()
        self.kill()

    def kill(self) -> None:
        """Close the session's connection now, whatever it is doing."""
        cancel = getattr(self.session, "_handle_cancellation", None)
        if cancel is not None:  # the driver's own clean-up for a cancelled session
            cancel(message="kgcert query stopped")
        else:  # pragma: no cover - a driver without it: the polite close
            self.session.close()

    def raise_if_expired(self) -> None:
        if self.expired.is_set():
            raise QueryTimeout(f"the query ran past --timeout {self.timeout_s:g} s and was "
                               "stopped")
