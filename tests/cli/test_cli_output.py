"""Output when stdout is not a terminal: whole names and numbers, plain progress lines, and
one line for model loading instead of progress-bar noise."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_process import kgcert_process
from rich.console import Console

from kgcert.cli.console import PipeFriendlyConsole
from kgcert.cli.progress import PlainProgress, progress_display

REPO_ROOT = Path(__file__).resolve().parents[2]
LONG_NAME = "primekg.a_spec_whose_name_is_far_longer_than_eighty_columns_" + "x" * 60
BAR_CONTROL = ("\x1b", "\r", "━", "█")


def run_piped(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])
    return kgcert_process(*args, data_dir=tmp_path / "data", env={"PYTHONPATH": path},
                          drop=("KGCERT_NEO4J_URI", "COLUMNS"))


def test_piped_specs_list_prints_a_long_name_whole(tmp_path: Path) -> None:
    shipped = (REPO_ROOT / "specs" / "primekg" / "dual_indication.yaml").read_text("utf-8")
    original = next(line for line in shipped.splitlines() if line.startswith("name:"))
    specs_dir = tmp_path / "mine"
    specs_dir.mkdir()
    (specs_dir / "long.yaml").write_text(shipped.replace(original, f"name: {LONG_NAME}"),
                                         encoding="utf-8")
    done = run_piped(["specs", "list", "--specs-dir", str(specs_dir)], tmp_path)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "long.yaml" in line)
    assert LONG_NAME in row
    assert not any(mark in done.stdout for mark in ("…", "\x1b"))


def test_piped_export_prints_plain_progress_lines(tmp_path: Path) -> None:
    from kgcert.synth.primekg import SyntheticPrimeKG

    source = tmp_path / "kg.csv"
    SyntheticPrimeKG(scale=0.002, seed=3).write_kg_csv(source)
    done = run_piped(["export", "neo4j-admin", "primekg", str(source), "--out",
                      str(tmp_path / "out"), "--kg", "piped"], tmp_path)
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("writing piped: ")]
    assert progress, done.stderr
    total = progress[-1].removeprefix("writing piped: ").split("/")
    assert total[0] == total[1]  # the last line reports the finished step
    assert not any(mark in done.stderr + done.stdout for mark in BAR_CONTROL)


def test_pipe_console_is_unlimited_but_terminal_and_columns_are_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    piped = PipeFriendlyConsole(file=io.StringIO())
    piped.print("x" * 300)
    assert piped.file.getvalue() == "x" * 300 + "\n"  # type: ignore[attr-defined]
    assert PipeFriendlyConsole(file=io.StringIO(), force_terminal=True).width < 1000
    monkeypatch.setenv("COLUMNS", "50")
    assert PipeFriendlyConsole(file=io.StringIO()).width == 50


def test_plain_progress_prints_at_most_every_interval_and_at_the_end() -> None:
    out = io.StringIO()
    console = Console(file=out)
    with PlainProgress("{task.description}", console=console, interval=3600) as progress:
        task = progress.add_task("loading kg", total=None)
        progress.update(task, completed=10, total=1000)
        progress.update(task, completed=500, total=1000)  # within the interval: no line
        progress.update(task, completed=1000, total=1000)
    assert out.getvalue().splitlines() == ["loading kg: 10/1,000", "loading kg: 1,000/1,000"]


def test_progress_display_is_live_only_on_a_terminal() -> None:
    assert isinstance(progress_display(console=Console(file=io.StringIO())), PlainProgress)
    live = progress_display(console=Console(file=io.StringIO(), force_terminal=True))
    assert not isinstance(live, PlainProgress)


def test_model_loading_prints_one_line(tiny_llama_dir: Path,
                                       capfd: pytest.CaptureFixture[str]) -> None:
    from tqdm.auto import tqdm
    from transformers.utils import logging as hf_logging

    from kgcert.models import GenerationConfig, get_model
    from kgcert.models.quiet import quiet_loading

    with quiet_loading("something"):  # the noise the GGUF converter and transformers make
        for _ in tqdm(range(50), desc="de-quantizing"):
            pass
        hf_logging.get_logger("transformers").warning("a loading warning")
    model: Any = get_model(f"hf:{tiny_llama_dir}", GenerationConfig(max_new_tokens=4),
                           dtype="float32", device="cpu")
    lines = capfd.readouterr().err.splitlines()
    assert lines == ["loading something", f"loading tokenizer of model {tiny_llama_dir}"]
    assert model.model is not None  # the weights load on first use, saying so with their size
    model.close()
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"loading model {tiny_llama_dir}, ")
    assert lines[0].endswith(" MB on disk")
    assert lines[1].startswith(f"loaded model {tiny_llama_dir}")
