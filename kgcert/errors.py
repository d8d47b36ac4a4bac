"""Errors that reach the user as one clear line and a non-zero exit code."""

from __future__ import annotations


class KgcertError(Exception):
    """A problem the user can act on; the CLI prints ``str(error)`` on one line."""

    exit_code = 1


class InputError(KgcertError):
    """Bad input: a malformed file, spec, flag or model output."""

    exit_code = 2


class StoreError(KgcertError):
    """The graph server is unreachable, refused credentials, or failed a query."""

    exit_code = 3


class MissingDependencyError(KgcertError):
    """An optional dependency is not installed; the message names the extra."""

    exit_code = 4
