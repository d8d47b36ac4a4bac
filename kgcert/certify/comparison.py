"""A (spec, setting) whose models are compared as they answer (`run --until ranked|best`).

The race of :mod:`kgcert.stats.racing` is fed index by index, in order, as soon as every
model it still asks has a record for that index (a skipped prompt is no answer for anyone, a
failed call none for that model). It is rebuilt from the sample files on every run, so a
resumed run replays the same decisions and asks only where it stopped. A model the race
lets go stops being asked; its certificate counts the indices up to where it was let go,
with the anytime-valid sequence (answers drawn later in the same batch stay in the file,
not in the bounds). The decisions go to comparisons/<spec>__<setting>.json; a new design
with other models (`--new-design`) keeps the earlier design's file in comparisons/earlier/
and states the joint level of both designs' claims. The files are read and written through
`RunDir`; nothing here imports `kgcert.run`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from kgcert.rundir.layout import COMPARISONS_DIR, EARLIER_DIR
from kgcert.rundir.outcomes import ANSWERED, CORRECT, SKIPPED
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.sample_record import SampleRecord
from kgcert.stats.racing import PAIR_STATES, THRESHOLD_STATES, Race, StopRule

Records = Mapping[int, SampleRecord]


def stop_rule(until: Literal["ranked", "best"], margin: float | None,
              threshold: float | None, total: int, confidence: float) -> StopRule:
    """The race's rule: `--until`, `--margin` and the sequential threshold, at `confidence`."""
    return StopRule(n=total, until=until, confidence=confidence, margin=margin,
                    threshold=threshold, threshold_confidence=confidence)


class JobRace:
    def __init__(self, rule: StopRule, models: Sequence[str]) -> None:
        self.rule = rule
        self.models = list(models)
        self.race = Race(rule, len(self.models))
        self.fed = 0  # indices fed so far

    def feed(self, done: Mapping[str, Records]) -> None:
        """Every index, in order, that all models still asked have answered."""
        while not self.race.done[0] and self.fed < self.rule.n:
            active = self.race.active[0]
            records = []
            for model, asked in zip(self.models, active, strict=True):
                record = done[model].get(self.fed)
                if asked and record is None:
                    return
                records.append(record)
            answered = np.array([[r is not None and r.outcome in ANSWERED
                                  for r in records]])
            correct = np.array([[r is not None and r.outcome == CORRECT
                                 for r in records]])
            self.race.step(correct, answered)
            self.fed += 1

    def stopped(self, model: str) -> bool:
        at = self.models.index(model)
        return bool(self.race.done[0] or not self.race.active[0, at])

    def last_index(self, model: str) -> int | None:
        """The last index the model's certificate counts (None while it is still asked)."""
        at = self.models.index(model)
        stop = int(self.race.stopped_at[0, at])
        if stop >= 0:
            return stop - 1
        return self.fed - 1 if self.race.done[0] else None

    def summary(self, done: Mapping[str, Records]) -> dict[str, Any]:
        race, rule = self.race, self.rule
        p_values = race.p_values()
        pairs = []
        for (a, b, state), p in zip(race.pair_states(), p_values, strict=True):
            at = race.pairs.index((a, b))
            first, second = self.models[a], self.models[b]
            claim = {"first better": f"{first} is more accurate than {second}",
                     "second better": f"{second} is more accurate than {first}",
                     "within margin": f"{first} and {second} are within {rule.margin} of "
                                      "each other"}.get(state)
            pairs.append({"first": first, "second": second, "decision": state,
                          "claim": claim, "anytime_p_value": p,
                          "first_right_second_wrong": int(race.wins[0, at]),
                          "first_wrong_second_right": int(race.losses[0, at]),
                          "paired_answers": int(race.paired[0, at])})
        models = []
        for at, model in enumerate(self.models):
            last = self.last_index(model)
            asked = [r for i, r in done[model].items() if r.outcome != SKIPPED]
            models.append({
                "model": model, "stopped_after_index": last,
                "eliminated": bool(race.eliminated()[0, at]),
                "threshold": (THRESHOLD_STATES[int(race.threshold_state[0, at])]
                              if rule.threshold is not None else None),
                "answers_recorded": len(asked)})
        return {"until": rule.until, "margin": rule.margin, "threshold": rule.threshold,
                "confidence": rule.confidence, "n": rule.n, "indices_fed": self.fed,
                "finished": bool(race.done[0]),
                "family": f"Holm over the {len(pairs)} pairs at {rule.alpha_directions:.6g}"
                          + (f"; within-margin claims Bonferroni at {rule.alpha_margin:.6g}"
                             if rule.margin is not None else ""),
                "holds": (f"every claim below holds together with probability at least "
                          f"{rule.confidence:.6g}, at whatever index the run stopped "
                          "(anytime-valid e-processes on the prompts where exactly one model "
                          "was right); an undecided or 'undecidable by n' pair claims nothing"),
                "states": list(PAIR_STATES), "pairs": pairs, "models": models}


def write_comparison(run: RunDir, spec: str, setting: str, body: dict[str, Any]) -> None:
    """Write a race's decisions. A file of another design (models added with --new-design)
    is kept in comparisons/earlier/ rather than replaced: its claims were made and may have
    been read, so the new file states the joint level of every design's claims (Bonferroni
    over the designs: 1 - the sum of their deltas), and the kept file says so too."""
    earlier: list[dict[str, Any]] = []
    old = run.read_comparison(spec, setting)
    if isinstance(old, dict):
        earlier = list(old.get("earlier") or [])
        if old.get("design") != body.get("design"):
            name = f"{run.comparison_file(spec, setting).stem}__design-{old.get('design')}.json"
            earlier.append({"design": old.get("design"), "confidence": old.get("confidence"),
                            "models": [m.get("model") for m in old.get("models") or []],
                            "file": str(Path(EARLIER_DIR) / name)})
            old["later"] = {"design": body.get("design"),
                            "joint_confidence": _joint(body, earlier)}
            run.write_earlier_comparison(name, old)
    body["earlier"] = earlier
    body["joint_confidence"] = _joint(body, earlier)
    if earlier:
        body["holds"] += (f"; with the claims of the {len(earlier)} earlier design"
                          f"{'s' if len(earlier) != 1 else ''} of these samples (kept in "
                          f"{COMPARISONS_DIR}/{EARLIER_DIR}/) every claim holds together with "
                          f"probability at least {body['joint_confidence']:.6g}")
    run.write_comparison(spec, setting, body)


def _joint(body: Mapping[str, Any], earlier: Sequence[Mapping[str, Any]]) -> float:
    spent = sum(1 - float(e.get("confidence") or 0.0) for e in earlier)
    return max(0.0, 1 - (1 - float(body["confidence"])) - spent)


def calls_saved(cost: dict[str, Any], records: Records, total: int) -> dict[str, Any]:
    """The cost block's comparison with the fixed-n design of the same n and confidence:
    it would have asked every prompt below n that is not skipped (the skip share of the
    prompts drawn stands in for those never drawn)."""
    drawn = len(records)
    skipped = sum(1 for r in records.values() if r.outcome == SKIPPED)
    fixed = round(total * (1 - skipped / drawn)) if drawn else total
    asked = int(cost["calls"]) + int(cost.get("cache_hits") or 0)
    return {**cost, "fixed_n_calls": fixed, "calls_saved": max(0, fixed - asked)}


def decision_lines(run: RunDir) -> list[str]:
    """One line per compared (spec, setting): its claims, and what stayed undecided."""
    lines = []
    for path, body in run.comparisons():
        try:
            if body is None:
                raise ValueError("unreadable")
            claims = [pair["claim"] for pair in body["pairs"] if pair.get("claim")]
            open_ = sum(1 for pair in body["pairs"] if not pair.get("claim"))
            where = (f"stopped after {body['indices_fed']} of n = {body['n']} indices"
                     if body["finished"] else f"{body['indices_fed']} indices so far")
            joint = body.get("joint_confidence", body["confidence"])
            level = (f"claims hold together at {body['confidence']:.6g}" if joint >= body[
                "confidence"] else f"claims hold together at {body['confidence']:.6g}, and "
                f"with the earlier designs' claims ({COMPARISONS_DIR}/{EARLIER_DIR}/) at "
                f"{joint:.6g}")
            lines.append(
                f"{body['spec']} / {body['setting']} (--until {body['until']}, {where}; "
                f"{level}): "
                + ("; ".join(claims) if claims else "no claim")
                + (f"; {open_} pair{'s' if open_ != 1 else ''} undecided" if open_ else ""))
        except (ValueError, KeyError, TypeError):
            lines.append(f"{path}: not a comparison record")
    return lines
