"""Progress a person can read: a first line before the first model call, an update after every
answered prompt, a slow model's pace in seconds per prompt, and a rerun answered from the
response cache that never loads the model's weights."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from kgcert.cli.progress import PlainProgress
from kgcert.cli.run_display import RunDisplay, pace_text
from kgcert.models.base import GenerationConfig, ModelRequest
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Progress, Runner
from kgcert.rundir.run_dir import read_certificate
from kgcert.rundir.run_spec import RunSpec

OPTIONS = ("alpha", "beta", "gamma", "delta")
HEAD = "Answer from the context with one line: correct answer: <number>. <option>. " * 3


def _prompt(index: int) -> Prompt:
    provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0, index=index,
                            setting="vanilla")
    return Prompt(f"{HEAD}\nQuestion {index}: which is it?\n1. alpha\n2. beta\n3. gamma\n"
                  "4. delta\n", provenance, options=OPTIONS, option_ids=("a", "b", "c", "d"),
                  correct_option=1 + index % 4)


def test_pace_of_a_slow_model_is_seconds_per_prompt() -> None:
    assert pace_text(2, 62.0) == "31 s/prompt"
    assert pace_text(10, 4.0) == "2.5 prompts/s"
    assert pace_text(3, 0.0) == ""


class _Events:
    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def progress(self) -> Progress:
        return Progress(update=lambda *a: self.seen.append(("update", *a)),
                        begin=lambda *a: self.seen.append(("begin", *a)),
                        answered=lambda *a: self.seen.append(("answered", *a)))


def _hf_slot(tiny_llama_dir: Path, cache: ResponseCache) -> ModelSlot:
    config = GenerationConfig(mode="choice", choice_prefix="correct answer: ")
    model = get_model(f"hf:{tiny_llama_dir}", config, dtype="float32", device="cpu")
    return ModelSlot("hf:tiny", CachedModel(model, cache), config)


def test_first_line_before_the_model_loads_then_one_per_answer(
        tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    run = RunSpec.of(kg="toy", specs=("toy",), models=("hf:tiny",), n=6, batch_size=3,
                     mode="choice")
    events = _Events()
    slot = _hf_slot(tiny_llama_dir, cache)
    assert not slot.model.inner.loaded  # nothing asked yet: the weights are not loaded
    Runner(run, tmp_path / "run", [Job("toy", "toy", "vanilla", _prompt)], [slot],
           events.progress()).run()
    kinds = [e[0] for e in events.seen]
    begin = events.seen[kinds.index("begin")]
    assert kinds.index("begin") < kinds.index("answered")  # before the first model call
    assert begin[1:4] == ("toy / vanilla / hf:tiny", 0, 6)
    assert "weights load on the first prompt" in begin[4]
    answers = [e for e in events.seen if e[0] == "answered" and e[2]]
    assert len(answers) == 6 and all(e[2] == 1 and e[3] is False for e in answers)
    # each answer is told before the batch's update
    first_update = kinds.index("update", kinds.index("answered"))
    assert sum(1 for e in events.seen[:first_update] if e[0] == "answered" and e[2]) == 3

    # a rerun in a new folder: every answer from the cache, the weights never loaded
    rerun = _Events()
    again = _hf_slot(tiny_llama_dir, cache)
    Runner(run, tmp_path / "rerun", [Job("toy", "toy", "vanilla", _prompt)], [again],
           rerun.progress()).run()
    assert not again.model.inner.loaded
    cached = [e for e in rerun.seen if e[0] == "answered"]
    assert sum(e[2] for e in cached) == 6 and all(e[3] for e in cached)


def test_display_shows_the_first_line_and_the_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    now = [0.0]
    monkeypatch.setattr("kgcert.cli.run_display.time.monotonic", lambda: now[0])
    with PlainProgress("{task.description}", "{task.fields[info]}",
                       console=Console(file=out, width=200), interval=0) as bars:
        display = RunDisplay(bars)
        display.begin("s / vanilla / m", 0, 20, "response cache on")
        now[0] = 5.0  # the weights loaded
        display.answered("s / vanilla / m", 0, False)  # starts computing (after its load)
        now[0] = 36.0
        display.answered("s / vanilla / m", 1, False)
        now[0] = 67.0
        display.answered("s / vanilla / m", 1, False)
        display.update("s / vanilla / m", 2, 20, 1, None, 2, 0)
        display.begin("t / vanilla / m", 0, 2, "response cache on")
        display.answered("t / vanilla / m", 2, True)
        display.update("t / vanilla / m", 2, 2, 1, None, 2, 0)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("s / vanilla / m: 0/20, n = 20, 0 recorded, response cache on")
    shown = [line for line in lines if line.startswith("s /")]
    assert "2/20" in shown[-1] and "31 s/prompt" in shown[-1] and "0.0/s" not in out.getvalue()
    # answers from the cache do not end a certificate's line before its checked total
    last = [line for line in lines if line.startswith("t /")][-1]
    assert last.startswith("t / vanilla / m: 2/2, 1/2 correct") and "2 from cache" in last


def test_requests_answered_from_cache_are_reported_as_cached(tmp_path: Path) -> None:
    seen: list[tuple[int, bool]] = []
    model = CachedModel(get_model("oracle"), ResponseCache(tmp_path))
    model.cacheable = True
    model.inner.cacheable = True
    model.on_answer = lambda n, cached: seen.append((n, cached))  # type: ignore[attr-defined]
    request = ModelRequest(prompt="q", options=OPTIONS, correct_option=2)
    model.generate([request])
    model.generate([request])
    assert (1, True) in seen


def test_a_logs_first_line_says_what_is_cached_and_a_finished_one_shows_its_tally(
        tmp_path: Path) -> None:
    """Written to a log (not a terminal) lines come at most every few seconds, so the first
    one is the one that must say what spares model calls; a certificate with every sample
    recorded already gets its tally as its one line."""
    run = RunSpec.of(kg="toy", specs=("toy",), models=("oracle",), n=6, batch_size=3)

    def logged(folder: str) -> list[str]:
        out = io.StringIO()
        slot = ModelSlot("oracle", CachedModel(get_model("oracle"), ResponseCache(
            tmp_path / "cache")), GenerationConfig())
        with PlainProgress("{task.description}", "{task.fields[info]}",
                           console=Console(file=out, width=200)) as bars:
            display = RunDisplay(bars)
            Runner(run, tmp_path / folder, [Job("toy", "toy", "vanilla", _prompt)], [slot],
                   Progress(display.update, display.begin, display.answered)).run()
        return out.getvalue().splitlines()

    first = logged("run")
    assert first[0] == "toy / vanilla / oracle: 0/6, n = 6, 0 recorded, response cache on"
    assert first[-1].startswith("toy / vanilla / oracle: 6/6, 6/6 correct")
    again = logged("run")  # every sample recorded: nothing to ask
    assert len(again) == 1 and again[0].startswith("toy / vanilla / oracle: 6/6, 6/6 correct")


def _last_lines(lines: list[str]) -> dict[str, str]:
    """Each certificate's last progress line, by its model."""
    last = {}
    for line in lines:
        label, _, rest = line.partition(": ")
        last[label.rsplit(" / ", 1)[-1]] = rest
    return last


@pytest.mark.parametrize("design", ["fixed", "until", "threshold"])
def test_progress_final_table_and_certificate_hold_one_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, design: str) -> None:
    """Issue 47 item 5: the last progress line of each certificate, the table `run` prints and
    the certificate say the same k / n; a run that stops (--until, a threshold) counts only
    the samples up to where it stopped, never those drawn past it in the same batch, and
    shows its running anytime-valid bounds, the certificate's own."""
    from kgcert.cli import run_display

    models = ("bernoulli:0.1", "bernoulli:0.95")
    extra: dict[str, Any] = {"fixed": {"n": 20}, "until": {"n": 400, "until": "ranked"},
                             "threshold": {"n": 400, "sequential": {"threshold": 0.3}}}[design]
    run = RunSpec.of(kg="toy", specs=("toy",), models=models, batch_size=16, seed=5, **extra)
    out = io.StringIO()
    slots = [ModelSlot(name, get_model(name), GenerationConfig()) for name in models]
    with PlainProgress("{task.description}", "{task.fields[info]}",
                       console=Console(file=out, width=300)) as bars:
        display = RunDisplay(bars)
        paths = Runner(run, tmp_path / "run", [Job("toy", "toy", "vanilla", _prompt)], slots,
                       Progress(display.update, display.begin, display.answered)).run()
    table = io.StringIO()
    monkeypatch.setattr(run_display, "console", Console(file=table, width=300))
    run_display.print_certificates([read_certificate(path) for path in paths])
    last = _last_lines(out.getvalue().splitlines())
    for path in paths:
        body = json.loads(path.read_text())
        line = last[body["model"]]
        assert f", {body['k']}/{body['n']} correct, " in line, line
        assert f"│ {body['k']} / {body['n']} " in table.getvalue()
        records = [json.loads(r) for r in (tmp_path / "run" / body["sample_file"]).read_text()
                   .splitlines()]
        if design == "fixed":
            assert body["n"] == 20 and line.startswith("20/20, ")
            assert "bounds in the table below" in line and "anytime" not in line
        else:
            # the stop came inside a batch of 16: more samples were drawn than counted
            assert body["n"] < len(records)
            assert line.startswith(f"{body['n']}/{body['n']}, ")
            assert (f"stopped before n = 400, anytime-valid [{body['lower']:.3f}, "
                    f"{body['upper']:.3f}]") in line


def test_answers_not_yet_checked_are_said_apart_from_the_tally() -> None:
    """Issue 47 item 5: the bar moves as answers arrive, before the batch is checked; the line
    says so instead of "16/20, 0 answered"."""
    out = io.StringIO()
    with PlainProgress("{task.description}", "{task.fields[info]}",
                       console=Console(file=out, width=300), interval=0) as bars:
        display = RunDisplay(bars)
        display.begin("s / vanilla / m", 0, 20, "no response cache")
        display.update("s / vanilla / m", 0, 20, 0, None, 0, 0)
        display.answered("s / vanilla / m", 16, True)
        display.update("s / vanilla / m", 16, 20, 2, None, 16, 0)
    lines = out.getvalue().splitlines()
    assert any(line.startswith("s / vanilla / m: 16/20, 0 answered, bounds once n = 20 is "
                               "reached, 16 more answered, checked when the batch ends")
               for line in lines), lines
    assert lines[-1].startswith("s / vanilla / m: 16/20, 2/16 correct, bounds once n = 20")
