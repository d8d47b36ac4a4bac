"""Which bound a certificate may state, given every look at its samples.

A certificate is valid at its stated level only if its n was fixed before its first answer,
or it is anytime-valid. Three paths keep it so:

* sequential from the first answer: the mixture confidence sequence at delta;
* a design that declared `extendable` before its first answer: the first fixed-n look
  (at the design's first n) is Clopper-Pearson at delta/2, every later look the sequence at
  delta/2, so all looks hold together at 1 - delta;
* anything else that changed n after samples existed (up or down, interrupted or not, seen
  from the samples themselves: indices at or past n, or samples drawn under another design):
  the sequence at delta for this look, and the stated joint level 1 - (delta + the delta each
  earlier look spent), since the earlier look may already have been read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgcert.run.design import DesignEntry
from kgcert.rundir.sample_record import SampleRecord


@dataclass(frozen=True)
class Look:
    anytime: bool  # bounds from the mixture confidence sequence
    confidence: float  # the level of each bound of this look
    joint_confidence: float  # every look at this certificate holds together at least this
    earlier: tuple[str, ...]  # the earlier looks, said in words
    validity: str

    def as_dict(self) -> dict[str, Any]:
        return {"joint_confidence": self.joint_confidence, "earlier": list(self.earlier),
                "this_look_confidence": self.confidence}


def plan_look(records: Mapping[int, SampleRecord], *, total: int, confidence: float,
              design: str, sequential: bool, extendable: bool,
              designs: Sequence[DesignEntry] = (), written_at: Sequence[int] = (),
              elsewhere: Sequence[tuple[str, float]] = ()) -> Look:
    """The look a certificate over `records` (indices below `total` counted) may state.
    `elsewhere`: other runs' looks at the same prompts (words, level), from the data dir's
    record of looks (kgcert.run.look_record); each spends its delta."""
    delta = 1 - confidence
    drawn_under = {r.design for r in records.values()}
    earlier = [d for d in designs if d.hash != design and d.hash in drawn_under]
    beyond = any(index >= total for index in records)
    rewritten = len(set(written_at)) > 1
    unrecorded = (None in drawn_under and bool(records)) and (beyond or rewritten)
    if (extendable and not sequential and not earlier and not elsewhere
            and drawn_under <= {design, None}):
        first = next((d.n for d in designs if d.hash == design), total)
        half = delta / 2
        if total == first and not beyond:
            return Look(False, 1 - half, confidence, (), (
                f"fixed n, extension declared before the first answer: this first look at "
                f"n = {first} spends half of delta, any later look the sequence the rest"))
        return Look(True, 1 - half, confidence, (f"Clopper-Pearson at n = {first} "
                                                 f"(level {1 - half:.6g})",), (
            f"anytime-valid: extension declared before the first answer; the first look at "
            f"n = {first} spent half of delta, this confidence sequence the rest"))
    looks = [f"design {d.hash} (n = {d.n}, level {d.confidence:.6g})" for d in earlier]
    spent = sum(1 - d.confidence for d in earlier)
    known = {d.hash for d in designs} | {design, None}
    for other in sorted(str(h) for h in drawn_under - known):  # a design not in design.json
        looks.append(f"design {other} (level taken as {confidence:.6g})")
        spent += delta
    if unrecorded and not earlier:
        looks.append(f"an earlier look at n = {', '.join(str(n) for n in written_at) or '?'} "
                     f"(level {confidence:.6g})")
        spent += delta
    for words, level in elsewhere:  # the same prompts, looked at in another run's folder
        looks.append(f"another run's look at these prompts: {words}")
        spent += 1 - level
    if sequential and not looks:
        return Look(True, confidence, confidence, (), "anytime-valid: sequential stopping rule")
    if not looks and not beyond and not rewritten:
        return Look(False, confidence, confidence, (), "fixed n")
    if not looks:  # n moved within this design (an older run without design records)
        looks.append(f"an earlier look (level {confidence:.6g})")
        spent += delta
    joint = max(0.0, 1 - delta - spent)
    why = ("n or the design changed after samples existed (detected from the samples)"
           if len(looks) > len(elsewhere) else "another run looked at the same prompts "
           "(the data dir's record of looks)")
    return Look(True, confidence, joint, tuple(looks), (
        f"anytime-valid: {why}; with the {len(looks)} earlier look"
        f"{'s' if len(looks) != 1 else ''} the looks hold together at {joint:.6g}"))
