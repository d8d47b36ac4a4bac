"""Specs: YAML files stating a prompt distribution, compiled to exact IID samplers.

Every name below is imported on first use (PEP 562), so importing a submodule such as
kgcert.specs.listing (`kgcert specs list`) loads neither the pydantic models nor the graph
driver the samplers need. The spec catalog function is `kgcert.specs.catalog.catalog`: a
package attribute `catalog` would be shadowed by the submodule of that name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kgcert.util.lazy import lazy_attributes

if TYPE_CHECKING:
    from kgcert.specs.catalog import AnySpec, SpecEntry, find_spec
    from kgcert.specs.compile import CompiledRelationSpec, compile_relation_spec
    from kgcert.specs.entity_sampler import EntitySampler, PathSample
    from kgcert.specs.model import EntitySpec, RelationSpec, TaskSpec, load_spec_file, spec_hash
    from kgcert.specs.relation_sampler import DagSample, RelationSampler
    from kgcert.specs.schema import KGSchema
    from kgcert.store.graph import GraphStore

_HOMES = {
    "kgcert.specs.catalog": ("AnySpec", "SpecEntry", "find_spec"),
    "kgcert.specs.model": ("EntitySpec", "RelationSpec", "TaskSpec", "load_spec_file",
                           "spec_hash"),
    "kgcert.specs.compile": ("CompiledRelationSpec", "compile_relation_spec"),
    "kgcert.specs.entity_sampler": ("EntitySampler", "PathSample"),
    "kgcert.specs.relation_sampler": ("DagSample", "RelationSampler"),
    "kgcert.specs.schema": ("KGSchema",),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AnySpec", "CompiledRelationSpec", "DagSample", "EntitySampler", "EntitySpec", "KGSchema",
    "PathSample", "RelationSampler", "RelationSpec", "SpecEntry", "TaskSpec",
    "compile_relation_spec", "find_spec", "load_spec_file", "prepare_sampler", "spec_hash",
]


__getattr__ = lazy_attributes(globals(), _MODULE_OF)


def prepare_sampler(spec: AnySpec, store: GraphStore,
                    cache_dir: Path | None = None) -> RelationSampler | EntitySampler:
    """Check the spec against the KG and build its sampler (reusing cached edge tables)."""
    from kgcert.errors import InputError
    from kgcert.specs.compile import compile_relation_spec
    from kgcert.specs.edge_tables import TableCache
    from kgcert.specs.entity_sampler import EntitySampler
    from kgcert.specs.kind import entity_spec, relation_spec
    from kgcert.specs.relation_sampler import RelationSampler
    from kgcert.specs.schema import KGSchema

    schema = KGSchema.read(store)
    relation, entity = relation_spec(spec), entity_spec(spec)
    if relation is not None:
        return RelationSampler(compile_relation_spec(relation, schema),
                               TableCache(store, cache_dir))
    if entity is not None:
        return EntitySampler(entity, store, schema)
    raise InputError(f"spec {spec.name} is a {spec.kind} spec; `kgcert.tasks` samples those")
