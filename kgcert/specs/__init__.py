"""Specs: YAML files stating a prompt distribution, compiled to exact IID samplers."""

from __future__ import annotations

from pathlib import Path

from kgcert.errors import InputError
from kgcert.specs.catalog import AnySpec, SpecEntry, catalog, find_spec
from kgcert.specs.compile import CompiledRelationSpec, compile_relation_spec
from kgcert.specs.entity_sampler import EntitySampler, PathSample
from kgcert.specs.model import EntitySpec, RelationSpec, TaskSpec, load_spec_file, spec_hash
from kgcert.specs.relation_sampler import DagSample, RelationSampler
from kgcert.specs.schema import KGSchema
from kgcert.specs.tables import TableCache
from kgcert.store.graph import GraphStore

__all__ = [
    "AnySpec", "CompiledRelationSpec", "DagSample", "EntitySampler", "EntitySpec", "KGSchema",
    "PathSample", "RelationSampler", "RelationSpec", "SpecEntry", "TaskSpec", "catalog",
    "compile_relation_spec", "find_spec", "load_spec_file", "prepare_sampler", "spec_hash",
]


def prepare_sampler(spec: AnySpec, store: GraphStore,
                    cache_dir: Path | None = None) -> RelationSampler | EntitySampler:
    """Check the spec against the KG and build its sampler (reusing cached edge tables)."""
    schema = KGSchema.read(store)
    if isinstance(spec, RelationSpec):
        return RelationSampler(compile_relation_spec(spec, schema), TableCache(store, cache_dir))
    if isinstance(spec, EntitySpec):
        return EntitySampler(spec, store, schema)
    raise InputError(f"spec {spec.name} is a {spec.kind} spec; `kgcert.tasks` samples those")
