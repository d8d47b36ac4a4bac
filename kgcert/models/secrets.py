"""Keeping the secrets kgcert holds (API keys, credentials in a base URL) out of what it
stores or shows: error texts, responses, model identities.

A server may echo the request's Authorization header in an error body; everything a provider
returns passes through :class:`Redactor` first, so sample files, caches and messages never
hold a key or a password.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit, urlunsplit

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


class Redactor:
    """Replaces every known secret (and its URL-encoded form) by ``***``."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if secret and len(secret) >= MIN_SECRET_CHARS:
                forms |= {secret, quote(secret, safe=""), quote(secret)}
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
