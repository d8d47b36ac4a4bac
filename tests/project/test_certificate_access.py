"""Certificates are read through their type and their run directory, read from the source.

* A string-key read of a certificate's field outside kgcert/certify/: none. A `Certificate`
  (and each of its parts) cannot be indexed by key, so the only ways to one are the keys it
  keeps unmodelled (`.unmodelled`, never read outside certify/) and the dict it serialises to
  (`.to_dict()`, `.written()`, `.listing()`), which outside certify/ and the run directory's
  module is only ever handed on whole: to `json.dumps`, spread into a dict, or kept as a
  value (`test_certificates_are_read_by_attribute_only`).
* The broad name rule (a subscript or `.get` of any name a certificate holds, whatever the
  object) also matches DataFrame columns, sample records, comparisons and run files: it may
  only go down.
* A raw JSON read of a certificate (`json.load(s)` in a function that names certificates or
  their earlier looks) outside `kgcert/rundir/run_dir.py` and kgcert/certify/: none. Readers
  ask `RunDir`.

The field names are every key that certificates written by kgcert 5e25278 (a fixed-n run, a
suite run and an `--until ranked` race) hold at the top level or one level down, less the
generic names that also key sample records, run files and CSV rows.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "kgcert"

GENERIC = frozenset({"spec", "setting", "model", "k", "n", "confidence", "seed", "kg", "index",
                     "outcome", "prompt"})
CERTIFICATE_FIELDS = frozenset({
    "answered", "anthropic", "arcadedb-embedded", "bounds", "budget", "cache_hits", "calls",
    "calls_saved", "calls_without_token_counts", "certified", "chance", "choice_prefix",
    "chosen", "comparisons", "completion_tokens", "components", "conditioning", "correct",
    "cost", "created_at", "design", "distractors_in_context", "distractors_required", "draw",
    "drawn", "each_at", "earlier", "error", "errors_excluded", "estimate", "failed_calls",
    "few_shot", "fixed_n_calls", "flags", "generation", "google-genai", "gpu_s", "guarantee",
    "half_width", "httpx", "joint_confidence", "jointly_at_least", "kg_fingerprint", "kgcert",
    "level", "libraries", "looks", "lower", "margin", "max_new_tokens", "method", "mode",
    "model_identity", "money_usd", "multiplicity", "name", "neo4j", "numpy", "options",
    "outcomes", "p", "parsed", "per_spec", "population", "positions",
    "price_per_million_tokens", "prompt_tokens", "provider", "python", "reading", "refused",
    "refused_counted_wrong", "sample_file", "samples_recorded", "samples_requested", "scipy",
    "seed_source", "sequential", "sided", "simultaneous", "skip_causes", "skip_reasons",
    "skipped", "spec_file", "spec_hash", "spec_kind", "stop_at_answer", "stopped_at_index",
    "suite", "suite_counts", "suite_redraws", "temperature", "test", "this_look_confidence",
    "threshold", "top_p", "torch", "transformers", "unconditional", "unparseable",
    "unparseable_counted_wrong", "unparseable_excluded", "unparseable_rate", "until", "upper",
    "validity", "wall_s", "warnings", "weighting", "written_at_n", "wrong",
}) - GENERIC
# where certificates may be decoded from JSON: the run directory's module and the type's own
RAW_ALLOWED = ("rundir/run_dir.py", "certify/")
# a function naming one of these reads that run file, not a certificate
OTHER_RUN_FILES = ("comparison_path", "comparisons", "design_file", "spec_index",
                   "entity_names_file")


def _modules(root: Path) -> list[tuple[str, ast.Module, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        found.append((where, ast.parse(text), text))
    return found


def _key_read(node: ast.AST) -> str | None:
    """The string constant a subscript load or a `.get(...)` call reads, else None."""
    if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def string_key_reads(root: Path = ROOT) -> list[str]:
    """`module:line name` for each string-key read of a certificate field outside certify/."""
    hits = []
    for where, tree, _ in _modules(root):
        if where.startswith("certify/"):
            continue
        for node in ast.walk(tree):
            name = _key_read(node)
            if name in CERTIFICATE_FIELDS:
                hits.append(f"{where}:{node.lineno} {name}")
    return hits


def _is_file_json_load(node: ast.AST) -> bool:
    """json.load(handle), or json.loads(... .read_text(...)): a whole file decoded (a JSON
    line of a sample file is no certificate)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("load", "loads") and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "json" and node.args):
        return False
    if node.func.attr == "load":
        return True
    return any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
               and inner.func.attr in ("read_text", "read_bytes")
               for inner in ast.walk(node.args[0]))


def raw_certificate_reads(root: Path = ROOT) -> list[str]:
    """`module:line` for each whole-file json.load(s) in a module that speaks of
    certificates, outside the run directory's module and kgcert/certify/, unless the
    function doing it names another run file it reads (a comparison, the design, the spec
    index, the entity names)."""
    hits = []
    for where, tree, text in _modules(root):
        if where.startswith(RAW_ALLOWED) or "certificate" not in text.lower():
            continue
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            source = (ast.get_source_segment(text, function) or "").lower()
            if any(word in source for word in OTHER_RUN_FILES):
                continue
            inner = [node for child in function.body for node in ast.walk(child)]
            hits += [f"{where}:{node.lineno}" for node in inner if _is_file_json_load(node)]
    return sorted(set(hits))


# The rule counts every `x["name"]` whose name is a certificate field, and names such as
# "name", "options", "error" and "lower" also key sample records, Neo4j rows, run files and
# the report's DataFrame columns: 356 on 5e25278, 98 now, none of them on a certificate
# (test_certificates_are_read_by_attribute_only). It may only go down, never raise it.
STRING_KEY_CEILING = 98


def test_certificate_fields_read_by_string_key_outside_certify_only_go_down():
    hits = string_key_reads()
    assert len(hits) <= STRING_KEY_CEILING, (
        f"{len(hits)} string-key reads of certificate fields (at most {STRING_KEY_CEILING}): "
        f"{hits[:20]}")


def test_no_certificate_is_read_as_raw_json_outside_the_run_directory():
    hits = raw_certificate_reads()
    assert not hits, f"raw JSON reads of certificates: {hits}"


SERIALISERS = ("to_dict", "written", "listing")
# where a certificate's dict may be read: its own package and the one reader and writer
SERIALISE_ALLOWED = ("certify/", "rundir/run_dir.py")


def _certificate_receiver(node: ast.expr) -> bool:
    """`cert`, `certificate`, `x.cert...` or `run.certificate(...)`: a Certificate by the
    names the package gives one (a sample record's `record.to_dict()` is none)."""
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Attribute) and node.attr.startswith(("cert", "certificate")):
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id.startswith(("cert", "certificate"))


def certificate_dict_reads(root: Path = ROOT) -> list[str]:
    """`module:line` where a certificate's fields are reached by key outside certify/: an
    `.unmodelled` read, or a certificate's serialised dict indexed, `.get`-ed or iterated
    rather than handed on whole."""
    hits = []
    for where, tree, _ in _modules(root):
        if where.startswith("certify/"):
            continue
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "unmodelled":
                hits.append(f"{where}:{node.lineno} unmodelled")
            if (where.startswith(SERIALISE_ALLOWED) or not isinstance(node, ast.Call)
                    or not isinstance(node.func, ast.Attribute)
                    or node.func.attr not in SERIALISERS
                    or not _certificate_receiver(node.func.value)):
                continue
            parent = parents.get(node)
            whole = (isinstance(parent, ast.Dict) and node in parent.values
                     and parent.keys[parent.values.index(node)] is None)  # {**cert.to_dict()}
            whole |= isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) \
                and parent.func.attr == "dumps"
            if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0], ast.Name):
                name = parent.targets[0].id
                whole = not any(isinstance(use, ast.Subscript | ast.Attribute)
                                and isinstance(getattr(use, "value", None), ast.Name)
                                and use.value.id == name for use in ast.walk(tree))
            if not whole:
                hits.append(f"{where}:{node.lineno} {node.func.attr}()")
    return sorted(hits)


def test_certificates_are_read_by_attribute_only():
    from kgcert.certify.record import Certificate

    cert = Certificate.from_dict({"spec": "s", "setting": "v", "model": "m", "k": 1, "n": 2,
                                  "outcomes": {"correct": 1, "wrong": 1}})
    for part in (cert, cert.outcomes):
        assert not hasattr(part, "get") and not hasattr(part, "__getitem__")
    assert certificate_dict_reads() == []


def test_the_checks_find_what_they_forbid(tmp_path):
    package = tmp_path / "kgcert"
    (package / "report").mkdir(parents=True)
    (package / "certify").mkdir()
    (package / "report" / "table.py").write_text(
        "import json\n"
        "def read_certificate(path):\n"
        "    body = json.loads(path.read_text())\n"
        "    return body['lower'], body.get('outcomes'), body['spec'], body.get('other')\n")
    (package / "certify" / "record.py").write_text(
        "import json\n"
        "def certificate(path):\n"
        "    return json.loads(path.read_text())['lower']\n")
    assert string_key_reads(package) == ["report/table.py:4 lower", "report/table.py:4 outcomes"]
    assert raw_certificate_reads(package) == ["report/table.py:3"]
    (package / "report" / "reads.py").write_text(
        "import json\n"
        "def show(cert, record):\n"
        "    print(json.dumps(cert.to_dict()), {**cert.listing(), 'file': 1})\n"
        "    kept, shown = cert.to_dict(), record.to_dict()['x']\n"
        "    body = cert.to_dict()\n"
        "    return body['lower'], cert.unmodelled.get('x'), cert.outcomes.to_dict(), kept\n")
    assert certificate_dict_reads(package) == [
        "report/reads.py:4 to_dict()", "report/reads.py:5 to_dict()",
        "report/reads.py:6 to_dict()", "report/reads.py:6 unmodelled"]
