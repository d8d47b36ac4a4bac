"""An earlier look kept: when a certificate of a later look (another n or design) replaces
one, the one it replaces is kept, stating the joint level of both looks (the later one states
it too), so what was read at the earlier look stays true as written."""

from __future__ import annotations

import dataclasses

from kgcert.certify.record import Certificate, Looks
from kgcert.certify.sentences import guarantee_sentence


def superseded_look(old: Certificate, new: Certificate) -> Certificate | None:
    """`old` restated as an earlier look of `new`, or None when `new` is no later look at
    other samples (the same design and n, or a look that spends no level of its own)."""
    if new.joint_confidence >= new.confidence:
        return None
    if old.design == new.design and old.n == new.n:
        return None
    before = old.looks.to_dict() if old.looks is not None else {}
    held = before.get("joint_confidence", 1.0)
    looks = Looks.from_dict({
        **before, "joint_confidence": min(new.joint_confidence,
                                          1.0 if held is None else held),
        "later": f"design {new.design} at n = {new.samples_requested}"})
    kept = dataclasses.replace(old, looks=looks, absent=old.absent - {"looks"})
    return dataclasses.replace(kept, guarantee=guarantee_sentence(kept),
                               absent=kept.absent - {"guarantee"})
