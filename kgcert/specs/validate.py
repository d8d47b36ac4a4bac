"""Check specs one by one, so one broken spec does not hide the state of the others.

Each spec is read, and with a KG also compiled against its schema and given a sampler; the
result says ok (with how many DAGs or pivots the spec ranges over) or why not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from difflib import get_close_matches
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcert.errors import KgcertError
from kgcert.specs.catalog import SpecEntry, declared_name, find_spec, spec_files
from kgcert.specs.kind import recorded_kind, spec_kind
from kgcert.specs.model import load_spec_file

if TYPE_CHECKING:
    from kgcert.specs.relation_sampler import RelationSampler, SpecCount
    from kgcert.store.graph import GraphStore


@dataclass(frozen=True)
class SpecCheck:
    name: str  # the spec's name, or what was asked for when the spec could not be read
    file: str | None
    kind: str | None
    ok: bool
    error: str | None = None
    matches: int | None = None  # exact match count of a relation spec (when enumerated)
    estimated_matches: float | None = None
    pivots: int | None = None  # entity specs
    # The distractor setting probed at a budget (kgcert/run/probe.py's Probe.as_dict)
    distractor_setting: dict[str, Any] | None = None

    @property
    def detail(self) -> str:
        return "; ".join(part for part in (self._size(), self._distractors()) if part)

    def _size(self) -> str:
        if self.matches is not None:
            return f"{self.matches:,} matches"
        if self.estimated_matches is not None:
            return f"about {self.estimated_matches:,.0f} matches (estimated)"
        if self.pivots is not None:
            return f"{self.pivots:,} pivots"
        kind = recorded_kind(self.kind)
        return ("checked against the KG when its prompts are built"
                if kind is not None and kind.task else "")

    def _distractors(self) -> str:
        found = self.distractor_setting
        if found is None:
            return ""
        return (f"{found['with_distractor_candidates']:.0%} of {found['probe']} drawn questions "
                "have distractor candidates, "
                f"{found['keeping_a_distractor']:.0%} of their distractor-setting prompts keep "
                f"one at {found['budget']}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _entries(names: Sequence[str], spec_dirs: Iterable[Path]
             ) -> list[tuple[str, SpecEntry | KgcertError]]:
    """Each named spec (or every visible spec file) read on its own: a broken file stands
    for itself and does not hide the others."""
    if not names:
        return _every_file(spec_dirs)
    every = _every_file(spec_dirs)
    by_name = {entry.spec.name: entry for _, entry in every if isinstance(entry, SpecEntry)}
    broken = {declared: entry for path, entry in every if isinstance(entry, KgcertError)
              and (declared := declared_name(Path(path))) and declared not in by_name}
    found: list[tuple[str, SpecEntry | KgcertError]] = []
    for name in names:
        if name in by_name:
            found.append((name, by_name[name]))
            continue
        if any(c in name for c in "*?[") and not Path(name).exists():  # a family of specs
            matched = sorted(n for n in by_name if fnmatchcase(n, name))
            found += [(n, by_name[n]) for n in matched] or [
                (name, KgcertError(f"no spec name matches {name!r}; `kgcert specs list` "
                                   "shows them"))]
            continue
        if name in broken:  # the file of that name is there but broken: say why
            found.append((name, broken[name]))
            continue
        try:
            found.append((name, find_spec(name, spec_dirs)))  # a file path, or why not
        except KgcertError as error:
            close = get_close_matches(name, list(by_name), n=3, cutoff=0.4)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            found.append((name, error if Path(name).suffix in (".yaml", ".yml") else
                          KgcertError(f"no spec named {name!r}{hint}")))
    return found


def _every_file(spec_dirs: Iterable[Path]) -> list[tuple[str, SpecEntry | KgcertError]]:
    found: list[tuple[str, SpecEntry | KgcertError]] = []
    seen: dict[str, Path] = {}
    for path in spec_files(spec_dirs):
        try:
            spec = load_spec_file(path)
        except KgcertError as error:
            found.append((str(path), error))
            continue
        if spec.name in seen:
            found.append((spec.name, KgcertError(
                f"spec name {spec.name!r} is used twice: {seen[spec.name]} and {path}")))
            continue
        seen[spec.name] = path
        found.append((spec.name, SpecEntry(spec, path)))
    return found


def check_specs(names: Sequence[str], spec_dirs: Iterable[Path], store: GraphStore | None,
                cache_dir: Path | None) -> list[SpecCheck]:
    from kgcert.specs import RelationSampler, prepare_sampler

    spec_dirs = list(spec_dirs)
    results = []
    for asked, entry in _entries(names, spec_dirs):
        if isinstance(entry, KgcertError):
            results.append(SpecCheck(asked, None, None, ok=False, error=str(entry)))
            continue
        spec, file = entry.spec, str(entry.path)
        if store is None or spec_kind(spec).task:
            results.append(SpecCheck(spec.name, file, spec.kind, ok=True))
            continue
        try:
            sampler = prepare_sampler(spec, store, cache_dir)
            if isinstance(sampler, RelationSampler):
                count = sampler.count()
                _check_drawable(sampler, count)
                results.append(SpecCheck(spec.name, file, spec.kind, ok=True,
                                         matches=count.matches,
                                         estimated_matches=count.estimated_matches))
            else:
                results.append(SpecCheck(spec.name, file, spec.kind, ok=True,
                                         pivots=len(sampler.pivots)))
        except KgcertError as error:
            results.append(SpecCheck(spec.name, file, spec.kind, ok=False, error=str(error)))
    return results


def _check_drawable(sampler: RelationSampler, count: SpecCount) -> None:
    """A spec whose matches are too rare to draw fails here rather than in a run. Exact
    counts of zero fail while the sampler is built; an estimate of zero (no match among the
    probe draws) is settled by drawing one sample, as a run would."""
    from kgcert.errors import InputError
    from kgcert.specs.relation_sampler import MAX_ATTEMPTS

    if count.matches is not None or count.estimated_matches > 0:
        return
    try:
        sampler.sample(seed=0, index=0)
    except InputError:
        raise InputError(f"spec {sampler.compiled.spec.name}: 0 matches found in "
                         f"{MAX_ATTEMPTS:,} draws among {count.tree_homomorphisms:,} "
                         "tree-shaped candidates; a run could not sample it (matches are "
                         "absent or too rare: loosen the pattern)") from None
