"""Find specs: the shipped ones (specs/ in the package), the user's folders, or a file path."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path

from kgcert.errors import InputError
from kgcert.specs.folders import spec_files_in, spec_folders
from kgcert.specs.model import EntitySpec, RelationSpec, TaskSpec, load_spec_file
from kgcert.util.resources import data_folder

AnySpec = RelationSpec | EntitySpec | TaskSpec


@dataclass(frozen=True)
class SpecEntry:
    spec: AnySpec
    path: Path


def spec_files(extra_dirs: Iterable[Path] = ()) -> list[Path]:
    """The files `catalog` reads, shipped first, without reading them."""
    return spec_files_in(spec_folders(extra_dirs))


@dataclass(frozen=True)
class SpecProblem:
    """A spec file that could not be used, and why (the name it declares, when readable)."""

    path: Path
    error: str
    declared: str | None = None


_DECLARED = re.compile(r"^name:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)


def declared_name(path: Path) -> str | None:
    """The `name:` a spec file declares, read as text (so a file that fails to load can still
    be found by the name the user gives)."""
    try:
        match = _DECLARED.search(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return match.group(1) if match else None


# path -> (its bytes, the spec or why it is unusable): a run of 50 specs looks each up in a
# catalog of a hundred files several times; reading a file is cheap, parsing and validating
# it is not, so a file is parsed again only when its bytes changed. Specs are frozen, so
# sharing one is safe.
_PARSED: dict[Path, tuple[bytes, AnySpec | SpecProblem]] = {}


def _parsed(path: Path) -> AnySpec | SpecProblem:
    try:
        content: bytes | None = path.read_bytes()
    except OSError:
        content = None  # load_spec_file says what is wrong
    kept = _PARSED.get(path)
    if content is not None and kept is not None and kept[0] == content:
        return kept[1]
    try:
        found: AnySpec | SpecProblem = load_spec_file(path)
    except InputError as error:
        found = SpecProblem(path, str(error), declared_name(path))
    if content is not None:
        _PARSED[path] = (content, found)
    return found


def catalog_with_problems(extra_dirs: Iterable[Path] = ()
                          ) -> tuple[list[SpecEntry], list[SpecProblem]]:
    """Every spec kgcert can see, shipped first, and the files it could not use: one bad
    file of yours is reported, and every other spec still works. A user spec may not reuse a
    shipped name (the later file is the problem)."""
    entries: list[SpecEntry] = []
    problems: list[SpecProblem] = []
    seen: dict[str, Path] = {}
    for path in spec_files_in(spec_folders(extra_dirs)):
        parsed = _parsed(path)
        if isinstance(parsed, SpecProblem):
            problems.append(parsed)
            continue
        spec = parsed
        if spec.name in seen:
            problems.append(SpecProblem(path, f"spec name {spec.name!r} is used twice: "
                                              f"{seen[spec.name]} and {path}", spec.name))
            continue
        seen[spec.name] = path
        entries.append(SpecEntry(spec, path))
    return entries, problems


def catalog(extra_dirs: Iterable[Path] = ()) -> list[SpecEntry]:
    """Every usable spec kgcert can see, shipped first (see catalog_with_problems)."""
    return catalog_with_problems(extra_dirs)[0]


def _shipped_by_name(name: str) -> SpecEntry | None:
    """The shipped spec `name` read from the file its name points to (`primekg.x` is
    primekg/x.yaml), so a command naming one spec does not parse all of them; None when that
    file is absent or holds another name, and the whole catalog is searched instead."""
    family, _, rest = name.partition(".")
    if not rest or "/" in name or "\\" in name:
        return None
    folder = data_folder("specs") / family
    for path in (folder / f"{rest}.yaml", folder / f"{name}.yaml"):
        if path.is_file():
            spec = load_spec_file(path)
            if spec.name == name:
                return SpecEntry(spec, path)
    return None


# Spec files a run copied into its folder, by the name or path the run gave (see
# kgcert.rundir.spec_copies): used when that name or path no longer finds a spec, so a run
# folder reproduces elsewhere.
_run_copies: dict[str, Path] = {}
_run_copy_digests: dict[Path, str] = {}  # the sha256 each copy had when its run saved it


def use_run_copies(copies: dict[str, Path], digests: dict[Path, str] | None = None) -> None:
    """Fall back to these copied spec files for names and paths found nowhere else; a copy
    whose bytes no longer have the sha256 in `digests` is refused when it would be used."""
    _run_copies.update(copies)
    _run_copy_digests.update(digests or {})


def find_spec(name_or_path: str, extra_dirs: Iterable[Path] = ()) -> SpecEntry:
    """A spec by name, or a YAML file by path (else the run's copy of it)."""
    try:
        return _find_spec(name_or_path, extra_dirs)
    except InputError:
        copy = _run_copies.get(name_or_path)
        if copy is None or not copy.is_file():
            raise
        _check_unedited(copy)
        return SpecEntry(load_spec_file(copy), copy)


def _check_unedited(copy: Path) -> None:
    import hashlib

    recorded = _run_copy_digests.get(copy)
    if recorded is not None and hashlib.sha256(copy.read_bytes()).hexdigest() != recorded:
        raise InputError(f"{copy} was edited since its run copied it (its sha256 differs from "
                         "the one in specs/index.json), so it is not the spec the run used; "
                         "restore it, or give the spec file itself")


def _find_spec(name_or_path: str, extra_dirs: Iterable[Path] = ()) -> SpecEntry:
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.is_file():
        return SpecEntry(load_spec_file(path), path)
    extra_dirs = list(extra_dirs)
    if not extra_dirs and (shipped := _shipped_by_name(name_or_path)):
        return shipped
    entries, problems = catalog_with_problems(extra_dirs)
    for entry in entries:
        if entry.spec.name == name_or_path:
            return entry
    for problem in problems:  # the spec is there but broken: say what is wrong with it
        if problem.declared == name_or_path:
            raise InputError(problem.error)
    names = [entry.spec.name for entry in entries]
    close = get_close_matches(name_or_path, names, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `kgcert specs list` shows them"
    raise InputError(f"no spec named {name_or_path!r}{hint}")
