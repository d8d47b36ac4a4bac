"""What a relation spec's questions are like, from a few draws: how many answers a typical
question accepts (a question that accepts 21 drugs is easy to answer by chance) and the share
of questions with Definition 2.3 distractor candidates (the distractor setting needs them).

Each draw runs the compiled spec's answers and distractors Cypher on the KG with the drawn
DAG's ids as parameters, as the prompt builder does.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from kgcert.specs.relation_sampler import RelationSampler
from kgcert.store.graph import GraphStore

DRAWS = 100


@dataclass(frozen=True)
class AnswerStats:
    draws: int
    answers_median: float
    answers_max: int
    with_distractors: float  # share of drawn questions with a distractor candidate

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def answer_stats(sampler: RelationSampler, store: GraphStore, draws: int = DRAWS,
                 seed: int = 0) -> AnswerStats:
    compiled = sampler.compiled
    answers_cypher = compiled.answers_cypher()
    distractors_cypher = compiled.distractors_cypher()
    counts: list[int] = []
    with_distractors = 0
    for index in range(draws):
        sample = sampler.sample(seed=seed, index=index)
        given = {name: sample.nodes[name] for name in compiled.given}
        counts.append(len(store.query(answers_cypher, **given)))
        if distractors_cypher and store.query(distractors_cypher, **sample.nodes,
                                              dag=list(sample.nodes.values())):
            with_distractors += 1
    return AnswerStats(draws, float(statistics.median(counts)) if counts else 0.0,
                       max(counts, default=0), with_distractors / draws if draws else 0.0)
