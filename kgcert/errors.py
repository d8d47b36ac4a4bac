"""Errors that reach the user as one clear line and a non-zero exit code.

Exit codes (README, "Exit codes"): 0 done; 1 a problem the user can act on (a path, a
permission, a run or KG in another state than asked); 2 bad input (a flag, a file, a spec, a
key); 3 the graph server; 4 a missing optional dependency; 5 a run that wrote its
certificates but left one with no answered prompt because every call failed; 70 an internal
error; 130 interrupted.
"""

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


class NothingAnsweredError(KgcertError):
    """A run wrote its certificates, but at least one has no answered prompt: every model
    call behind it failed (an outage, a rate limit, a broken endpoint). Rerunning the same
    command asks those samples again."""

    exit_code = 5
