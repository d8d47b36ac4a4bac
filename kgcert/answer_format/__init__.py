"""The answer format of kgcert's multiple-choice prompts, in one place: what a reply looks like
and when it is complete (:mod:`~kgcert.answer_format.reply`), the prompting strategies that ask
for it another way (:mod:`~kgcert.answer_format.strategies`), and the checker that reads the
committed option back out of a reply (:mod:`~kgcert.answer_format.checker`).

Model providers know nothing of it: a run hands them the stop rule and the choice prefix.
"""
