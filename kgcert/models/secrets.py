"""Keeping the secrets kgcert holds (API keys, credentials in a base URL) out of what it
stores or shows: error texts, responses, model identities.

A server may echo the request's Authorization header in an error body; everything a provider
returns passes through :class:`Redactor` first, so sample files, caches and messages never
hold a key or a password.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from kgcert.errors import InputError
from kgcert.models.base import ModelResponse

MASK = "***"
#: Shorter values cannot be told apart from ordinary text; masking them would garble messages.
MIN_SECRET_CHARS = 4


@dataclass(frozen=True)
class UrlCredentials:
    """A URL split into the part safe to record and the ``user:password`` it carried."""

    public_url: str
    username: str | None = None
    password: str | None = None

    def basic_token(self) -> str | None:
        """What HTTP Basic auth sends for these credentials (a secret as well)."""
        if self.username is None and self.password is None:
            return None
        pair = f"{self.username or ''}:{self.password or ''}"
        return base64.b64encode(pair.encode()).decode()


def split_credentials(url: str) -> UrlCredentials:
    """``http://user:pw@host/v1`` -> ``http://host/v1`` plus the decoded user and password."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return UrlCredentials(url)
    userinfo, _, host = parts.netloc.rpartition("@")
    user, sep, password = userinfo.partition(":")
    public = urlunsplit(parts._replace(netloc=host))
    return UrlCredentials(public, unquote(user) or None, unquote(password) if sep else None)


def key_from_env(name: str) -> str | None:
    """The API key in environment variable `name`, surrounding whitespace stripped (an env
    file with CRLF line ends leaves a trailing ``\\r``); None when unset or blank. A key that
    an HTTP header cannot carry (a space, a control character or a non-ASCII letter inside)
    is refused in one line naming the variable and never showing the key."""
    raw = os.environ.get(name)
    key = raw.strip() if raw is not None else ""
    if not key:
        return None
    for position, char in enumerate(key, start=1):
        if not " " < char < "\x7f":
            kind = ("a space" if char == " " else
                    "a control character" if unicodedata.category(char).startswith("C") else
                    "a non-ASCII character")
            raise InputError(f"the API key in {name} has {kind} at position {position}, which "
                             f"an HTTP header cannot carry; check the variable")
    return key


def refused_header(error: BaseException | None) -> bool:
    """Whether `error`, or an error that caused it, is an HTTP client refusing a header value
    before sending anything (a key holding a character a header cannot carry): a request that
    can never succeed, so it is neither "cannot reach" nor worth a retry."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        # h11's and httpx's LocalProtocolError; an encoding error from header normalisation
        if isinstance(error, UnicodeEncodeError) or type(error).__name__ == "LocalProtocolError":
            return True
        error = error.__cause__ or error.__context__
    return False


def header_refusal(key_env: str | None) -> str:
    """The one-line error of a request whose header the HTTP client refused (no secret)."""
    where = f"the API key in {key_env}" if key_env else "the API key"
    return (f"request refused before sending: the HTTP client cannot put {where} in a header "
            "(not retried)")


def secret_forms(secret: str) -> set[str]:
    """Every form in which `secret` can reach a stored text: raw, surrounding whitespace
    stripped, URL-encoded, escaped as JSON or by Python's repr (of the text or of its UTF-8
    bytes, as HTTP clients show a refused header)."""
    forms: set[str] = set()
    for value in {secret, secret.strip()}:
        forms |= {value, quote(value, safe=""), quote(value), json.dumps(value)[1:-1],
                  json.dumps(value, ensure_ascii=False)[1:-1], repr(value)[1:-1],
                  repr(value.encode("utf-8", "surrogatepass"))[2:-1],
                  value.encode("unicode_escape").decode("ascii")}
    return {form for form in forms if len(form) >= MIN_SECRET_CHARS}


class Redactor:
    """Replaces every known secret, in each of its forms (`secret_forms`), by ``***``."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if secret and len(secret.strip()) >= MIN_SECRET_CHARS:
                forms |= secret_forms(secret)
        # longest first, so a secret containing another is masked whole
        self._forms = sorted(forms, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __call__(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, MASK)
        return text

    def response(self, response: ModelResponse) -> ModelResponse:
        """The response with secrets masked in its text and error."""
        if not self._forms:
            return response
        error = self(response.error) if response.error is not None else None
        text = self(response.text)
        if error == response.error and text == response.text:
            return response
        return dataclasses.replace(response, text=text, error=error)
