"""Whether an `hf:` hub id can load here: its files already in the local Hugging Face cache,
or the Hub reachable. Without either, transformers retries for about a minute before its
error; this check fails at once, saying what to do."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

from kgcert.errors import InputError

DEFAULT_ENDPOINT = "https://huggingface.co"
CONNECT_TIMEOUT_S = 3.0


def cached(repo_id: str, revision: str | None = None) -> bool:
    """Whether the repository's config.json is in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except (ValueError, OSError):  # not a valid repository id: let transformers say so
        return True
    return isinstance(found, str)


def hub_reachable(endpoint: str | None = None) -> bool:
    """Whether a TCP connection to the Hub's endpoint opens within CONNECT_TIMEOUT_S."""
    url = urlparse(endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT)
    host = url.hostname or "huggingface.co"
    port = url.port or (80 if url.scheme == "http" else 443)
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:  # no DNS, refused, unreachable or timed out
        return False


def check_loadable(repo_id: str, revision: str | None = None) -> None:
    """InputError at once when the model is neither cached nor downloadable from here."""
    if cached(repo_id, revision):
        return
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
    if not offline and hub_reachable():
        return
    why = ("HF_HUB_OFFLINE is set" if offline else
           f"the Hub ({os.environ.get('HF_ENDPOINT') or DEFAULT_ENDPOINT}) cannot be reached")
    raise InputError(f"model {repo_id!r} is not in the local Hugging Face cache and {why}: "
                     f"download it where there is a network (huggingface-cli download "
                     f"{repo_id}), or give a local folder with hf:./path")
