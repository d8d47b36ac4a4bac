"""Task spec files: one YAML file per KG-LLM-Bench task in specs/tasks/, read and checked.

A task spec reads::

    kind: task
    name: kgllmbench.triple_retrieval   # the spec's name in `kgcert specs list`
    kg: wikidatasets countries      # the KG it is written for (documentation only)
    task: triple_retrieval          # a registered task name
    description: >                  # the distribution, in words
      ...
    instances: 100                  # how many instances a run asks for
    sampling:                       # how each instance's subgraph is drawn
      seed_entities: 10             # k seeds, uniform without replacement among core entities
      radius: 1                     # ego-graph radius around every seed (edges either way)
      min_degree: 1                 # entities with fewer edges in the composed ego graph go
      max_degree: 20                # per-entity cap on edges (null: none), random removals
      max_edges: 200                # random pruning down to this many edges
      core_label: Country           # the entity type seeds come from
    options: {}                     # task-specific settings (see each task's module)

The header (kind, name, description, kg) is the one every spec of `kgcert.specs` shares.
Reading asks the registry for the task (its canonical name, its options): the spec type
(spec.py) does not, so the task interface can name it without an import circle.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.tasks.registry import TASKS, get_task, names
from kgcert.tasks.spec import KIND, SamplingParams, TaskSpec
from kgcert.util.paths import not_ascii
from kgcert.util.resources import data_folder
from kgcert.util.yamlfile import read_yaml

_TOP_KEYS = {"kind", "name", "kg", "task", "description", "instances", "sampling", "options"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SAMPLING_KEYS = {"seed_entities", "radius", "min_degree", "max_degree", "max_edges",
                  "core_label"}


def parse_task_spec(raw: Any, source: str = "<spec>") -> TaskSpec:
    """The task spec of a file's parsed YAML `raw`; InputError naming `source` when it is not
    one (an unknown task, key or option, a bad value)."""
    if not isinstance(raw, dict):
        raise InputError(f"{source}: a task spec must be a YAML mapping")
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise InputError(f"{source}: unknown keys {', '.join(unknown)} (allowed: "
                         f"{', '.join(sorted(_TOP_KEYS))})")
    if raw.get("kind") != KIND:
        raise InputError(f"{source}: kind must be {KIND!r}, got {raw.get('kind')!r}")
    task = raw.get("task")
    if not isinstance(task, str) or not task:
        raise InputError(f"{source}: 'task' must name a task")
    task = get_task(task).name  # unknown names fail here, listing the valid ones
    description = raw.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InputError(f"{source}: 'description' must state the distribution in words")
    instances = raw.get("instances", 100)
    if not isinstance(instances, int) or isinstance(instances, bool) or instances < 1:
        raise InputError(f"{source}: 'instances' must be a positive integer")
    sampling_raw = raw.get("sampling") or {}
    if not isinstance(sampling_raw, dict):
        raise InputError(f"{source}: 'sampling' must be a mapping")
    unknown = sorted(set(sampling_raw) - _SAMPLING_KEYS)
    if unknown:
        raise InputError(f"{source}: unknown sampling keys {', '.join(unknown)} (allowed: "
                         f"{', '.join(sorted(_SAMPLING_KEYS))})")
    try:
        sampling = SamplingParams(**sampling_raw)
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        raise InputError(f"{source}: 'options' must be a mapping")
    name = raw.get("name", task)
    if not isinstance(name, str) or not _NAME.match(name):
        shown = not_ascii(name) if isinstance(name, str) else ""
        raise InputError(f"{source}: 'name' must be ASCII letters, digits, '_', '.' or '-', "
                         f"got {name!r}{shown}")
    kg = raw.get("kg")
    if kg is not None and not isinstance(kg, str):
        raise InputError(f"{source}: 'kg' must be text")
    spec = TaskSpec(task, " ".join(description.split()), instances, sampling, dict(options),
                    source, name, kg)
    get_task(task).check_options(spec)
    return spec


def spec_path(name: str) -> Path:
    return data_folder("specs") / "tasks" / f"{name}.yaml"


def _read(path: Path) -> TaskSpec:
    return parse_task_spec(read_yaml(path, "task spec file"), source=str(path))


def load_task_spec(name_or_path: str | Path) -> TaskSpec:
    """A shipped task spec by task name (`triple_retrieval`, `TripleRetrieval`) or spec name
    (`kgllmbench.triple_retrieval`), or a spec file by path."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.is_file():
        if not path.is_file():
            raise InputError(f"task spec file {path} not found")
        return _read(path)
    wanted = str(name_or_path)
    try:
        return _read(spec_path(TASKS.key(wanted)))
    except InputError as error:
        if "unknown task" not in str(error):
            raise
    for candidate in shipped_specs():
        spec = _read(candidate)
        if spec.name == wanted:
            return spec
    raise InputError(f"no task spec named {wanted!r}; task names: {', '.join(names())}")


def shipped_specs() -> list[Path]:
    folder = data_folder("specs") / "tasks"
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []
