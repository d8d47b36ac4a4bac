"""WikiDataSets facts as integer codes and the KG built from them as columns (wikidatasets.py).

Entities are numbered by entityID as read; nodes by Wikidata id (several entity rows may
share one); facts are (head node, relation, tail node) codes, de-duplicated with numpy.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgcert.loaders.columnar import (
    ColumnEdges,
    first_appearances,
    group_by,
    in_first_order,
    node_tables,
)
from kgcert.loaders.triples_columns import first_of_each
from kgcert.loaders.wikidata_common import generic_template
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

OTHER_LABEL = "WikidataEntity"


@dataclass
class Facts:
    """Distinct facts in order of first appearance, as node and relation codes."""

    heads: np.ndarray
    relations: np.ndarray
    tails: np.ndarray
    core_tails: np.ndarray  # first met in edges.tsv: the tail is a core entity
    duplicates: int


class Entities:
    """Entity rows (by code) and the nodes they make: one per distinct Wikidata id, named as
    the first entity row with that id names it."""

    def __init__(self, node_ids: pa.Array, names: pa.Array) -> None:
        import pyarrow as pa

        self.ids, self.node_of, first = first_appearances(node_ids)
        self.names = names.take(pa.array(first))

    def facts(self, heads: array[int], relations: array[int], tails: array[int],
              in_edges: array[int]) -> Facts:
        import numpy as np

        h = self.node_of[np.frombuffer(heads, dtype=np.int64)]
        r = np.frombuffer(relations, dtype=np.int64)
        t = self.node_of[np.frombuffer(tails, dtype=np.int64)]
        kept = first_of_each(h, r, t)
        core_tails = np.frombuffer(in_edges, dtype=np.int8)[kept].astype(bool)
        return Facts(h[kept], r[kept], t[kept], core_tails, len(h) - len(kept))

    def nodes_of(self, entities: array[int]) -> np.ndarray:
        """Which nodes the given entity codes make (a mask over the nodes)."""
        import numpy as np

        mask = np.zeros(len(self.ids), dtype=bool)
        mask[self.node_of[np.frombuffer(entities, dtype=np.int64)]] = True
        return mask


def build(data: KGData, entities: Entities, facts: Facts, core: np.ndarray | None,
          core_label: str, relation_label: dict[int, str], relation_names: list[str]) -> None:
    """Nodes: the entities the facts reference, in order of first use, core ones labelled
    `core_label`; edges grouped by relation in the order of the relations' ids."""
    import numpy as np
    import pyarrow as pa

    if core is None:  # the heads of every fact and the tails of those of edges.tsv
        core = np.zeros(len(entities.ids), dtype=bool)
        core[facts.heads] = True
        core[facts.tails[facts.core_tails]] = True
    met = np.empty(2 * len(facts.heads), dtype=np.int64)
    met[0::2], met[1::2] = facts.heads, facts.tails
    found, first = np.unique(met, return_index=True)
    used = found[np.argsort(first)]  # node codes in order of first use
    at = np.full(len(entities.ids), -1, dtype=np.int64)
    at[used] = np.arange(len(used))
    label_names = [core_label, OTHER_LABEL]
    label = np.where(core[used], 0, 1)
    names = entities.names.take(pa.array(used))
    columns = {"id": entities.ids.take(pa.array(used)), "name": names,
               "aliases": pa.ListArray.from_arrays(
                   pa.array(np.arange(len(used) + 1, dtype=np.int32)), names),
               "type": pa.array(label_names, pa.string()).take(pa.array(label))}
    data.nodes.update(node_tables(  # type: ignore[arg-type]
        ((label_names[g], members) for g, members in in_first_order(label, 2)), columns))
    ids = columns["id"]
    heads, tails = at[facts.heads], at[facts.tails]
    rel_types = distinct_identifiers(
        {relation_names[r] for r in np.unique(facts.relations).tolist()},
        taken=RESERVED_LABELS | {core_label, OTHER_LABEL})
    by_name = sorted(range(len(relation_names)), key=lambda code: relation_names[code])
    groups = group_by(facts.relations, len(relation_names))
    keys = []
    for code in by_name:
        group = groups[code]
        if not len(group):
            continue
        rel_type = rel_types[relation_names[code]]
        data.edges[rel_type] = ColumnEdges(  # type: ignore[assignment]
            rel_type, heads[group], tails[group], ids)
        pairs = label[heads[group]] * 2 + label[tails[group]]
        seen, first_pair = np.unique(pairs, return_index=True)
        keys += [(code, int(p)) for p in seen[np.argsort(first_pair)].tolist()]
    for code, pair in keys:
        rel, text = relation_names[code], relation_label[code]
        data.relations.append(RelationInfo(
            type=rel_types[rel], source_type=label_names[pair // 2],
            target_type=label_names[pair % 2], display=text, name=text, aliases=(text,),
            template=generic_template(text), original=rel,
        ))
