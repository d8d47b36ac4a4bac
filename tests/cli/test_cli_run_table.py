"""`kgcert run`'s table of certificates (issue 47 item 6): it fits 100 columns (spec, setting
and seed said once above it when every row shares them), a bound just above chance keeps the
digits that show it, and `--wide` gives every column."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from kgcert.cli import run_display
from kgcert.rundir.run_dir import read_certificate

SPEC = "primekg.dual_indication_with_a_name_as_long_as_researchers_give_them"


def _body(model: str, k: int, n: int, lower: float, upper: float, **more: Any
          ) -> dict[str, Any]:
    return {"spec": SPEC, "setting": "vanilla", "model": model, "seed": 1, "k": k, "n": n,
            "lower": lower, "upper": upper, "warnings": [],
            "chance": {"level": 0.25, "options": 4, "reading": "above chance"},
            "outcomes": {"unparseable": 0, "error": 0, "skipped": 0, **more}}


def _printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bodies: list[dict[str, Any]],
             wide: bool = False) -> str:
    paths = []
    for number, body in enumerate(bodies):
        path = tmp_path / f"c{number}.json"
        path.write_text(json.dumps(body))
        paths.append(path)
    out = io.StringIO()
    monkeypatch.setattr(run_display, "console", Console(file=out, width=100))
    run_display.print_certificates([read_certificate(path) for path in paths], wide=wide)
    return out.getvalue()


def test_the_table_fits_100_columns_and_a_bound_above_chance_shows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bodies = [_body("hf:HuggingFaceTB/SmolLM2-135M-Instruct", 240, 400, 0.25021, 0.64813),
              _body("openai:gpt-4o-mini-2024-07-18", 20, 400, 0.031, 0.0761, unparseable=3,
                    error=2, skipped=1),
              _body("bernoulli:0.3", 6, 20, 0.119, 0.543)]
    text = _printed(tmp_path, monkeypatch, bodies)
    assert max(map(len, text.splitlines())) <= 100, text
    assert f"spec {SPEC}, setting vanilla, seed 1" in text  # once, above the rows
    row = next(line for line in text.splitlines() if "SmolLM2" in line)
    assert "[0.2502, 0.648]" in row and "above" in row
    lines = text.splitlines()
    assert "below" in next(line for line in lines if "gpt-4o" in line)
    assert (f"{SPEC} / vanilla / openai:gpt-4o-mini-2024-07-18: 3 unparseable (counted "
            "wrong), 2 failed (not in n), 1 skipped (not in n)") in " ".join(text.split())
    assert "cannot tell" in text and "(0.25)" in text


def test_wide_gives_every_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    text = _printed(tmp_path, monkeypatch, [_body("m", 6, 20, 0.25021, 0.5)], wide=True)
    for column in ("seed", "lower", "upper", "chance", "unparseable", "errors", "skipped"):
        assert column in text
    assert "0.2502" in text
