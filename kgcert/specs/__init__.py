"""Specs: YAML files stating a prompt distribution, compiled to exact IID samplers.

The spec files' model and catalog load with the package; the compiler and samplers are
imported on first use (PEP 562), so reading spec files (`kgcert specs list`) does not load the
graph driver, which the samplers need.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

# Eager on purpose: `catalog` is also a submodule's name, and a lazy attribute would be shadowed
# by the module once anything imported kgcert.specs.catalog directly.
from kgcert.lazy import lazy_attributes
from kgcert.specs.catalog import AnySpec, SpecEntry, catalog, find_spec
from kgcert.specs.model import EntitySpec, RelationSpec, TaskSpec, load_spec_file, spec_hash

if TYPE_CHECKING:
    from kgcert.specs.compile import CompiledRelationSpec, compile_relation_spec
    from kgcert.specs.entity_sampler import EntitySampler, PathSample
    from kgcert.specs.relation_sampler import DagSample, RelationSampler
    from kgcert.specs.schema import KGSchema
    from kgcert.store.graph import GraphStore

_HOMES = {
    "kgcert.specs.compile": ("CompiledRelationSpec", "compile_relation_spec"),
    "kgcert.specs.entity_sampler": ("EntitySampler", "PathSample"),
    "kgcert.specs.relation_sampler": ("DagSample", "RelationSampler"),
    "kgcert.specs.schema": ("KGSchema",),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AnySpec", "CompiledRelationSpec", "DagSample", "EntitySampler", "EntitySpec", "KGSchema",
    "PathSample", "RelationSampler", "RelationSpec", "SpecEntry", "TaskSpec", "catalog",
    "compile_relation_spec", "find_spec", "load_spec_file", "prepare_sampler", "spec_hash",
]


__getattr__ = lazy_attributes(globals(), _MODULE_OF)


def prepare_sampler(spec: AnySpec, store: GraphStore,
                    cache_dir: Path | None = None) -> RelationSampler | EntitySampler:
    """Check the spec against the KG and build its sampler (reusing cached edge tables)."""
    from kgcert.errors import InputError
    from kgcert.specs.compile import compile_relation_spec
    from kgcert.specs.entity_sampler import EntitySampler
    from kgcert.specs.relation_sampler import RelationSampler
    from kgcert.specs.schema import KGSchema
    from kgcert.specs.tables import TableCache

    schema = KGSchema.read(store)
    if isinstance(spec, RelationSpec):
        return RelationSampler(compile_relation_spec(spec, schema), TableCache(store, cache_dir))
    if isinstance(spec, EntitySpec):
        return EntitySampler(spec, store, schema)
    raise InputError(f"spec {spec.name} is a {spec.kind} spec; `kgcert.tasks` samples those")
