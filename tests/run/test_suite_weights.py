"""`--weights matches`: each spec of a suite weighted by its share of the specs' matches in the
KG, counted once before the first answer and recorded in the design; a resume keeps them and
the run's folder is named as the command states it. (The run through the real pipeline, its
spec draws' fit to the counted weights and its certificate's recomputation are in
tests/run/test_run_suite.py, beside the other suite runs on the Alzheimer extract.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.run.suite import MatchCount, SuiteConfig, drawn_component, load_suite_file, suite_of
from kgcert.run.suite_weights import count_match_weights, keep_counted_weights
from kgcert.rundir.run_spec import RunSpec

KG = "alz_weights"
EXPOSURE, DUAL = "primekg.exposure_drug", "primekg.dual_indication"


def _pending(*specs: str) -> SuiteConfig:
    return suite_of("by_matches", specs, "matches", [])


def test_weights_by_matches_wait_for_the_counts_then_follow_them():
    pending = _pending(EXPOSURE, DUAL)
    assert pending.pending and pending.weights == () and pending.weighting == "matches"
    counted = pending.weighted_by([MatchCount(count=30, exact=True),
                                   MatchCount(count=90, exact=True)])
    assert counted.weights == (0.25, 0.75) and not counted.pending
    assert counted.stated() == pending  # the same command names the same run folder
    assert "matches" not in pending.model_dump() and "matches" in counted.model_dump()
    assert "matches" not in suite_of("eq", (EXPOSURE, DUAL), None, []).model_dump()
    with pytest.raises(ValueError, match="in proportion"):  # a hand-edited run.yaml
        SuiteConfig(name="s", specs=(EXPOSURE, DUAL), weights=(0.5, 0.5), weighting="matches",
                    matches=(MatchCount(count=30, exact=True), MatchCount(count=90, exact=True)))
    with pytest.raises(ValueError, match="go with weights: matches"):
        SuiteConfig(name="s", specs=(EXPOSURE,), weights=(1.0,),
                    matches=(MatchCount(count=3, exact=True),))
    with pytest.raises(AssertionError):  # nothing is drawn before the count
        drawn_component(1, pending, 0)


def test_a_suite_file_may_weight_by_matches(tmp_path: Path):
    path = tmp_path / "m.yaml"
    path.write_text(f"kind: suite\nname: m\nweights: matches\nspecs: [{EXPOSURE}, {DUAL}]\n")
    assert load_suite_file(path) == _pending(EXPOSURE, DUAL).model_copy(update={"name": "m"})


def test_a_resume_keeps_the_weights_counted_at_the_start():
    counted = _pending(EXPOSURE, DUAL).weighted_by([MatchCount(count=1, exact=True),
                                                    MatchCount(count=3, exact=False)])
    fields = {"kg": KG, "specs": (EXPOSURE, DUAL), "models": ("oracle",), "seed": 1}
    saved = RunSpec.parse(None, {**fields, "suite": counted.model_dump()})
    again = RunSpec.parse(None, {**fields, "suite": _pending(EXPOSURE, DUAL).model_dump()})
    assert keep_counted_weights(again, saved).specs.suite == counted
    assert keep_counted_weights(again, None) == again
    assert again.fingerprint() == saved.fingerprint()  # one run folder before and after


def test_weights_by_matches_refuse_specs_without_subgraph_matches():
    config = RunSpec.parse(None, {"kg": KG, "specs": (EXPOSURE, "kgllmbench.shortest_path"),
                                  "models": ("oracle",), "suite": _pending(
                                          EXPOSURE, "kgllmbench.shortest_path").model_dump()})
    with pytest.raises(InputError) as refused:  # refused before the graph is read
        count_match_weights(config, None, [], None)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "\n" not in message and "kgllmbench.shortest_path" in message
    assert message.startswith("suite by_matches: --weights matches")
