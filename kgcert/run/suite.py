"""Suites: a stated mixture of specs, certified as one distribution.

Index i of a suite draws spec j with weight w_j from its own stream (seed, suite, i), then
takes spec j's prompt i. The spec draw is independent of the prompts, and each spec's
prompts are IID over indices, so the suite's prompts are IID draws from the mixture and its
outcomes are Bernoulli with mean sum_j w_j p_j: one certificate covers the suite exactly.
Prompt i of a suite is the prompt i of the spec it drew, so a suite run pairs by index with
runs of its specs.

A spec's prompt that cannot be built (over the budget, too few options, no distractor that
fits) is drawn again within the same spec, from indices no other suite index uses, until one
fits. Counting only the prompts that fit would weigh each spec by w_j times its fit rate, a
mixture the certificate does not name; redrawn, index i is spec j with probability w_j and
then a prompt of spec j conditioned on fitting, as spec j's own certificate is, so the
certified mixture is the stated one: sum_j w_j p_j with p_j conditioned on fitting. The
first draw is kept beside (`suite_draw` in the provenance), so the unconditional bound can
still count a first draw that did not fit as wrong. A suite with a spec none of whose
probed prompts fits is refused before the first answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kgcert.errors import InputError
from kgcert.rundir.suite_config import PLAIN_NAME, WEIGHTINGS, MatchCount, SuiteConfig

# the record moved to rundir (the run file's keys); named here for the suite code's callers
__all__ = ["PLAIN_NAME", "WEIGHTINGS", "MatchCount", "SuiteConfig", "drawn_component",
           "find_suite_file", "load_suite_file", "mixture", "parse_weights",
           "refuse_specs_that_fit_nothing", "suite_hash", "suite_of"]


def parse_weights(text: str | None, specs: Sequence[str]) -> tuple[tuple[float, ...], str]:
    """`equal` (the default), `matches` (each spec's share of the specs' matches in the KG,
    counted when the run opens the graph: no weights yet) or `a=0.3,b=0.7` (a spec's full
    name or its last dotted part; every spec named once; normalised to sum 1)."""
    if text is None or text.strip() == "equal":
        return tuple(1 / len(specs) for _ in specs), "equal"
    if text.strip() == "matches":
        return (), "matches"
    given: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        spec = _which_spec(name.strip(), specs)
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not sep or weight <= 0 or weight != weight or weight == float("inf"):
            raise InputError(f"--weights: {part.strip()!r} must be SPEC=WEIGHT with a "
                             "positive weight")
        if spec in given:
            raise InputError(f"--weights names {spec} twice")
        given[spec] = weight
    missing = [s for s in specs if s not in given]
    if missing:
        raise InputError(f"--weights gives no weight for {', '.join(missing)}")
    total = sum(given.values())
    return tuple(given[s] / total for s in specs), "explicit"


def _which_spec(name: str, specs: Sequence[str]) -> str:
    found = [s for s in specs if s == name or s.split(".")[-1] == name]
    if len(found) != 1:
        raise InputError(f"--weights names {name!r}, which is not one of the suite's specs "
                         f"({', '.join(specs)})")
    return found[0]


def suite_of(name: str, specs: Sequence[str], weights: str | None,
             spec_dirs: Iterable[Path]) -> SuiteConfig:
    """The suite a command states: its specs and weights given (`--spec`, `--weights`), or
    else the suite file of that name (or path)."""
    if specs:
        values, weighting = parse_weights(weights, list(specs))
        return _valid(name, tuple(specs), values, weighting)
    if weights is not None:
        raise InputError("--weights goes with --spec: a suite file states its own weights")
    return load_suite_file(find_suite_file(name, spec_dirs))


def _valid(name: str, specs: tuple[str, ...], weights: tuple[float, ...],
           weighting: str) -> SuiteConfig:
    try:
        return SuiteConfig(name=name, specs=specs, weights=weights, weighting=weighting)
    except ValidationError as error:
        raise InputError(str(error.errors()[0]["msg"]).removeprefix("Value error, ")) from None


def find_suite_file(name_or_path: str, spec_dirs: Iterable[Path]) -> Path:
    from kgcert.specs.catalog import declared_name
    from kgcert.specs.folders import spec_folders, suite_files_in

    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.is_file():
        if not path.is_file():
            raise InputError(f"suite file {path} not found")
        return path
    files = suite_files_in(spec_folders(list(spec_dirs)))
    for file in files:
        if declared_name(file) == name_or_path:
            return file
    known = ", ".join(sorted(filter(None, map(declared_name, files)))) or "none"
    raise InputError(f"no suite named {name_or_path!r} (suites: {known}); or give its specs "
                     "with --spec")


def load_suite_file(path: Path) -> SuiteConfig:
    """A suite file: `kind: suite`, `name`, `specs` (a list of names, or of {spec, weight}),
    and `weights: equal`, `weights: matches` or the weights in the list."""
    from kgcert.util.yamlfile import read_yaml

    data = read_yaml(path, "suite file")
    if not isinstance(data, dict) or data.get("kind") != "suite":
        raise InputError(f"{path}: a suite file is a mapping with kind: suite")
    name, listed = data.get("name"), data.get("specs")
    if not isinstance(name, str) or not isinstance(listed, list) or not listed:
        raise InputError(f"{path}: a suite file needs a name and a list of specs")
    specs: list[str] = []
    stated: list[float] = []
    for item in listed:
        if isinstance(item, str):
            specs.append(item)
        elif isinstance(item, dict) and isinstance(item.get("spec"), str):
            specs.append(item["spec"])
            if "weight" in item:
                stated.append(_weight(item["weight"], path))
        else:
            raise InputError(f"{path}: each spec is a name or {{spec: NAME, weight: W}}")
    weighting = data.get("weights", "explicit" if stated else "equal")
    if weighting == "equal" and not stated:
        return _valid(name, tuple(specs), tuple(1 / len(specs) for _ in specs), "equal")
    if weighting == "matches" and not stated:
        return _valid(name, tuple(specs), (), "matches")
    if weighting != "explicit" or len(stated) != len(specs):
        raise InputError(f"{path}: give every spec a weight, or weights: equal (or matches) "
                         "and none")
    total = sum(stated)
    return _valid(name, tuple(specs), tuple(w / total for w in stated), "explicit")


def _weight(value: Any, path: Path) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InputError(f"{path}: weight {value!r} must be a positive number")
    return float(value)


def drawn_component(seed: int, suite: SuiteConfig, index: int) -> int:
    """Which spec index `index` of the suite draws: j with probability w_j."""
    import numpy as np

    assert not suite.pending, "--weights matches: the run counts the matches before drawing"

    from kgcert.util.rng import sample_rng

    cumulative = np.cumsum(suite.weights)
    u = sample_rng(seed, suite.key(), index).random() * cumulative[-1]
    return min(int(np.searchsorted(cumulative, u, side="right")), len(suite.weights) - 1)


#: Redraw r of suite index i asks the spec for its prompt (r << REDRAW_SHIFT) | i: above every
#: index a run draws (--n is at most 10^8 < 2^32), so no two suite indices share a prompt.
REDRAW_SHIFT = 32
#: Draws of one spec in a row that may not fit before the run stops with a one-line error
#: (a spec that fits this rarely was let through by the start's probe by chance).
MAX_REDRAWS = 1000
#: The prompts of each spec probed at the start; a spec none of them fits is refused.
FIT_PROBE = 50


def redraw_index(index: int, redraw: int) -> int:
    """The spec's prompt index that redraw `redraw` (1, 2, ...) of suite index `index` asks."""
    return (redraw << REDRAW_SHIFT) | index


def mixture(seed: int, suite: SuiteConfig, components: Sequence[Callable[[int], Any]]
            ) -> Callable[[int], Any]:
    """Prompt i of the suite: spec j's own prompt i, for the spec j that index i draws, or,
    when that one is skipped, spec j's next redraw that fits (see the module's docstring)."""
    def prompt(index: int) -> Any:
        spec = drawn_component(seed, suite, index)
        first = components[spec](index)
        if getattr(first, "skipped", None) is None:
            return first
        for redraw in range(1, MAX_REDRAWS + 1):
            found = components[spec](redraw_index(index, redraw))
            if found.skipped is None:
                return _redrawn(found, first, redraw)
        from kgcert.errors import InputError

        raise InputError(f"suite {suite.name}: {MAX_REDRAWS} prompts of {suite.specs[spec]} "
                         f"in a row did not fit (first: {first.skipped}), so the suite cannot "
                         "keep that spec at its weight; raise --budget or leave the spec out")
    return prompt


def _redrawn(prompt: Any, first: Any, redraws: int) -> Any:
    """`prompt` with the suite's first draw of its index recorded in its provenance."""
    import dataclasses

    extra = {**prompt.provenance.extra, "suite_draw": {
        "redraws": redraws, "first_index": first.provenance.index,
        "first_skipped": first.skipped}}
    return dataclasses.replace(prompt, provenance=dataclasses.replace(prompt.provenance,
                                                                      extra=extra))


def refuse_specs_that_fit_nothing(suite: SuiteConfig, names: Sequence[str],
                                  components: Sequence[Callable[[int], Any]], setting: str,
                                  budget: object) -> None:
    """Refuses (InputError, one line) a suite in which a spec's first FIT_PROBE prompts are
    all skipped: it holds no prompt at the run's budget that the probe could find, so no
    redraw would give it its weight."""
    for name, build in zip(names, components, strict=True):
        reasons = []
        for index in range(FIT_PROBE):
            found = build(redraw_index(index, MAX_REDRAWS + 1))  # a stream no run index uses
            if found.skipped is None:
                break
            reasons.append(found.skipped)
        else:
            raise InputError(
                f"suite {suite.name}: spec {name} holds no prompt at the run's budget "
                f"({budget}) in setting {setting}: all {FIT_PROBE} probed prompts were "
                f"skipped (first: {reasons[0]}); the suite certifies every spec at its weight, "
                "so raise --budget or leave the spec out")


def suite_hash(suite: SuiteConfig, hashes: Sequence[str]) -> str:
    """Identifies the mixture: the suite's specs (by their hashes) and weights."""
    body = [suite.name, list(zip(suite.specs, hashes, suite.weights, strict=True))]
    return hashlib.sha256(json.dumps(body).encode()).hexdigest()[:16]
