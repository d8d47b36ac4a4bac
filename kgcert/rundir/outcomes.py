"""The outcome a sample record states, and which outcomes count as answers.

The checker grades a reply correct, wrong, unparseable or error
(`kgcert.answer_format.checker.Outcome`); a run adds two of its own: refused (the model
declined, an answer never right) and skipped (the prompt was not built, so no model was
asked).
"""

from __future__ import annotations

from kgcert.answer_format.checker import Outcome

CORRECT = Outcome.CORRECT.value
WRONG = Outcome.WRONG.value
UNPARSEABLE = Outcome.UNPARSEABLE.value
ERROR = Outcome.ERROR.value  # the call failed: no answer arrived
REFUSED = "refused"
SKIPPED = "skipped"
# the outcomes that enter a certificate's bounds (a refusal is an answer, counted wrong)
ANSWERED = (CORRECT, WRONG, UNPARSEABLE, REFUSED)
# answered by choosing (or failing to choose) an option: what position statistics count
GRADED = (CORRECT, WRONG, UNPARSEABLE)
# every outcome a record may state, answered first
OUTCOMES = (*ANSWERED, ERROR, SKIPPED)
