"""Model loading in one line: what is loading, instead of transformers' log lines and the GGUF
de-quantization bars (272 lines for SmolLM2 in a log, where tqdm cannot redraw in place)."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_loading(what: str) -> Iterator[None]:
    """Print `loading <what>` to stderr, then hide transformers' logging and progress bars
    until the block ends (a failed load still raises, with its own message)."""
    from transformers.utils import logging as hf_logging

    print(f"loading {what}", file=sys.stderr, flush=True)
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    # The GGUF converter calls tqdm directly, which writes to whatever sys.stderr is then.
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
