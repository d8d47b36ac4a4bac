"""`kgcert specs ...`: list, show, validate, count, sample and generate specs."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from kgcert.cli.common import Context, console, errors
from kgcert.errors import InputError
from kgcert.util.locations import data_dir

# Samplers, the compiler and the graph driver are imported in the commands that use them.
if TYPE_CHECKING:
    from kgcert.run.probe import Probe
    from kgcert.specs import EntitySampler, SpecEntry
    from kgcert.specs.validate import SpecCheck
    from kgcert.store.graph import GraphStore

dirs_option = click.option("--specs-dir", "specs_dirs", multiple=True,
                           type=click.Path(path_type=Path),
                           help="Also read specs from this folder (repeatable).")
kg_option = click.option("--kg", "kg_name", required=True, help="The loaded KG to use.")
json_option = click.option("--json", "as_json", is_flag=True,
                           help="One JSON object per line instead of text.")
budget_option = click.option(
    "--budget", default=None,
    help="The prompt budget at which the distractor setting is probed: N characters or "
         "N:TOKENIZER tokens, as for `run` (default: the run's default budget).")


def _cache_dir(ctx: Context) -> Path:
    return data_dir(ctx.data_dir) / "cache" / "specs"


def _names(store: GraphStore, ids: list[str], cache_dir: Path) -> dict[str, str]:
    """The names prompts give `ids`: from the graph `kgcert prompts` and `kgcert run` read
    (the KG's snapshot), so a sample shows what its prompt will say."""
    from kgcert.graphview import prompt_graph

    graph = prompt_graph(store, cache_dir)
    return {entity: info.name for entity, info in graph.entities(ids).items()}


@click.group("specs")
def specs_group() -> None:
    """Prompt distributions: relation-centric DAGs, entity-centric paths, KG-LLM-Bench tasks."""


@specs_group.command("list")
@dirs_option
@click.option("--kg", "kg_name", default=None,
              help="Only the specs written for this loaded KG's family (its format).")
@json_option
@click.pass_obj
def list_command(ctx: Context, specs_dirs: tuple[Path, ...], kg_name: str | None,
                 as_json: bool) -> None:
    """Every spec kgcert can see, shipped and yours."""
    from kgcert.specs.listing import applies, family_of, kg_format, listing

    specs, unusable = listing(specs_dirs)
    left_out = 0
    if kg_name:
        fmt = kg_format(ctx.server().open(kg_name))
        families = {f for f in (family_of(spec.kg) for spec in specs) if f}
        kept = [spec for spec in specs if applies(spec.kg, fmt, families)]
        left_out, specs = len(specs) - len(kept), kept
    for problem in unusable:  # reported, and every other spec still listed
        errors.print(Text(f"error: {problem.error}"), soft_wrap=True)
    rows: list[dict[str, Any]] = [{"name": spec.name, "kind": spec.kind, "kg": spec.kg,
             "description": " ".join(spec.description.split()), "file": spec.path}
            for spec in specs]
    rows += _suites(specs_dirs, {spec.name for spec in specs} if kg_name else None)
    if as_json:
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
        return
    import textwrap

    from kgcert.cli.console import PIPE_WIDTH

    # One block per spec: its name, kind, KG family and file on a line, then its whole
    # description wrapped below (a table column left it 17 characters at 100 columns);
    # off a terminal the description is one line, whole.
    width = console.width - 4 if console.width < PIPE_WIDTH else None
    for row in rows:
        console.print(Text.assemble((str(row["name"]), "bold"), "  ", f"{row['kind']} · "
                                    f"{row['kg'] or '-'} · {Path(row['file']).name}"),
                      soft_wrap=True)
        if row["description"]:
            text = (textwrap.fill(row["description"], width) if width
                    else row["description"])
            console.print(Text(textwrap.indent(text, "    ")), soft_wrap=True)
    if left_out:
        console.print(Text(f"{left_out} specs for other KG families left out (--kg {kg_name} "
                           f"was loaded from {fmt})"))


def _suites(specs_dirs: tuple[Path, ...], kept: set[str] | None) -> list[dict[str, Any]]:
    """The suites beside the specs (shipped and yours): a suite certifies a weighted mixture
    of specs with one certificate; `kept` (with --kg) keeps those whose specs all apply."""
    from kgcert.specs.folders import spec_folders, suite_files_in
    from kgcert.util.yamlfile import read_yaml

    found: list[dict[str, Any]] = []
    for path in suite_files_in(spec_folders(list(specs_dirs))):
        try:
            data = read_yaml(path, "suite file")
        except InputError as error:
            errors.print(Text(f"error: {error}"), soft_wrap=True)
            continue
        names = [item if isinstance(item, str) else item.get("spec")
                 for item in data.get("specs") or [] if isinstance(item, (str, dict))]
        if kept is not None and not set(names) <= kept:
            continue
        family = {str(name).split(".")[0] for name in names}
        described = " ".join(str(data.get("description") or "").split())
        found.append({"name": str(data.get("name")), "kind": "suite",
                      "kg": family.pop() if len(family) == 1 else None,
                      "description": described or f"a mixture of {len(names)} specs",
                      "file": str(path), "specs": names})
    return found


@specs_group.command("show")
@click.argument("spec")
@dirs_option
@click.option("--kg", "kg_name", default=None,
              help="Also compile against this KG and print the generated Cypher.")
@click.pass_obj
def show_command(ctx: Context, spec: str, specs_dirs: tuple[Path, ...],
                 kg_name: str | None) -> None:
    """A spec's file, its hash and (with --kg) the Cypher it compiles to."""
    from kgcert.specs import KGSchema, compile_relation_spec, find_spec, spec_hash
    from kgcert.specs.kind import relation_spec

    entry = find_spec(spec, specs_dirs)
    console.print(Text(f"{entry.spec.name} ({entry.spec.kind}, hash {spec_hash(entry.spec)}) "
                       f"from {entry.path}", style="bold"))
    console.print(Text(entry.path.read_text(encoding="utf-8")))
    relation = relation_spec(entry.spec)
    if kg_name and relation is not None:
        store = ctx.server().open(kg_name)
        compiled = compile_relation_spec(relation, KGSchema.read(store))
        # As they run on this server (the KG's scope label filled in), so each can be pasted
        # into `kgcert query` or Neo4j Browser.
        for title, cypher in (("matches", compiled.matches_cypher()),
                              ("count", compiled.count_cypher()),
                              ("correct answers", compiled.answers_cypher()),
                              ("distractors", compiled.distractors_cypher())):
            console.print(f"[bold]{title}[/]", highlight=False)
            console.print(Text(store.scoped(cypher) if cypher else "(none)"))


@specs_group.command("validate")
@click.argument("specs", nargs=-1)
@dirs_option
@click.option("--kg", "kg_name", default=None,
              help="Also check labels, relation types, pivots and matches against this KG.")
@click.option("--probe", type=click.IntRange(min=0), default=20, show_default=True,
              help="With --kg: distractor-setting prompts drawn per spec to tell how many "
                   "questions have distractors and how many prompts keep one (0: none).")
@budget_option
@json_option
@click.pass_obj
def validate_command(ctx: Context, specs: tuple[str, ...], specs_dirs: tuple[Path, ...],
                     kg_name: str | None, probe: int, budget: str | None,
                     as_json: bool) -> None:
    """Check spec files (all visible specs when none is named), each on its own: one line per
    spec, ok with its match count or why not, and with --kg the share of questions with
    distractors and of distractor-setting prompts that keep one; exits non-zero if any
    failed."""
    from kgcert.specs.validate import check_specs

    store = ctx.server().open(kg_name) if kg_name else None
    left_out = ""
    if store is not None and not specs:  # every spec: those written for this KG's family
        from kgcert.specs.listing import applies, family_of, kg_format, listing

        listed, unusable = listing(specs_dirs)
        fmt = kg_format(store)
        families = {f for f in (family_of(spec.kg) for spec in listed) if f}
        kept = [spec.name for spec in listed if applies(spec.kg, fmt, families)]
        if len(kept) < len(listed):
            left_out = (f"{len(listed) - len(kept)} specs for other KG families left out "
                        f"(KG {kg_name} was loaded from {fmt}; name a spec to check it anyway)")
        specs = (*kept, *(problem.path for problem in unusable))
    results = check_specs(specs, specs_dirs, store, _cache_dir(ctx))
    if store is not None and kg_name and probe:
        results = [_with_distractor_probe(ctx, store, kg_name, result, specs_dirs, budget, probe)
                   for result in results]
    for result in results:
        if as_json:
            click.echo(json.dumps(result.as_dict(), ensure_ascii=False))
        elif result.ok:
            console.print(Text(f"ok  {result.name}" + (f": {result.detail}"
                                                       if result.detail else "")))
        else:
            errors.print(Text(f"error: {result.error}"), soft_wrap=True)
    if left_out and not as_json:
        console.print(Text(left_out))
    failed = sum(not result.ok for result in results)
    if failed:
        if len(results) > 1 and not as_json:
            errors.print(Text(f"error: {failed} of {len(results)} specs failed"))
        sys.exit(InputError.exit_code)


def _with_distractor_probe(ctx: Context, store: GraphStore, kg_name: str, result: SpecCheck,
                           specs_dirs: tuple[Path, ...], budget: str | None,
                           probe: int) -> SpecCheck:
    """The check with the distractor setting's shares from a probe of drawn prompts (relation
    and entity specs that passed)."""
    import dataclasses

    from kgcert.specs.kind import recorded_kind

    kind = recorded_kind(result.kind)
    if not result.ok or kind is None or not kind.composed or result.file is None:
        return result
    found = _distractor_probe(ctx, store, kg_name, result.file, specs_dirs, budget, probe)
    return dataclasses.replace(result, distractor_setting=found.as_dict())


def _distractor_probe(ctx: Context, store: GraphStore, kg_name: str, spec: str,
                      specs_dirs: tuple[Path, ...], budget: str | None, probe: int) -> Probe:
    from kgcert.run.probe import probe_skips
    from kgcert.util import defaults

    return probe_skips(store, kg=kg_name, spec=spec, budget=budget, setting="distractor",
                       few_shot=defaults.FEW_SHOT, probe=probe, spec_dirs=list(specs_dirs),
                       cache_dir=_cache_dir(ctx))


@specs_group.command("count")
@click.argument("spec")
@dirs_option
@kg_option
@click.option("--cypher", "with_cypher", is_flag=True,
              help="Also count on the server with the compiled Cypher (slow on big KGs).")
@click.option("--draws", type=click.IntRange(min=1), default=100, show_default=True,
              help="Questions drawn to tell how many answers each accepts, how many have "
                   "distractors and how many distractor-setting prompts keep one.")
@budget_option
@json_option
@click.pass_obj
def count_command(ctx: Context, spec: str, specs_dirs: tuple[Path, ...], kg_name: str,
                  with_cypher: bool, draws: int, budget: str | None, as_json: bool) -> None:
    """How many DAGs (or paths) the spec's distribution ranges over in a KG, and how many
    drawn questions have distractors and keep one in the distractor setting at a budget."""
    from kgcert.specs import RelationSampler, find_spec, prepare_sampler

    entry = find_spec(spec, specs_dirs)
    store = ctx.server().open(kg_name)
    started = time.monotonic()
    sampler = prepare_sampler(entry.spec, store, _cache_dir(ctx))
    prepared = time.monotonic() - started
    if isinstance(sampler, RelationSampler):
        count = sampler.count()
        server_count = None
        if with_cypher:
            from kgcert.specs.server_count import count_on_server

            # Paged by answer ids: one DISTINCT over millions of matches exceeds the embedded
            # server's in-heap limit.
            server_count = count_on_server(store, sampler)
        from kgcert.specs.answer_stats import answer_stats

        stats = answer_stats(sampler, store, draws)
        probed = _distractor_probe(ctx, store, kg_name, str(entry.path), specs_dirs, budget,
                                   draws)
        if as_json:
            click.echo(json.dumps({
                "spec": entry.spec.name, "kind": entry.spec.kind, "matches": count.matches,
                "estimated_matches": count.estimated_matches, "method": count.method,
                "tree_candidates": count.tree_homomorphisms, "acceptance": count.acceptance,
                "cypher_count": server_count, "prepared_s": round(prepared, 3),
                **stats.as_dict(), "distractor_setting": probed.as_dict()}))
            return
        exact = f"{count.matches:,}" if count.matches is not None else (
            f"about {count.estimated_matches:,.0f}")
        console.print(f"{entry.spec.name}: {exact} matches ({count.method}); "
                      f"{count.tree_homomorphisms:,} tree-shaped candidates, acceptance "
                      f"{count.acceptance:.3f}; prepared in {prepared:.1f} s", highlight=False)
        if server_count is not None:
            console.print(f"server-side Cypher count: {server_count:,}", highlight=False)
        console.print(f"over {stats.draws} drawn questions: each accepts a median of "
                      f"{stats.answers_median:g} answer{'' if stats.answers_median == 1 else 's'} "
                      f"(max {stats.answers_max:,})",
                      highlight=False)
    else:
        _count_paths(sampler, entry, as_json)
        probed = _distractor_probe(ctx, store, kg_name, str(entry.path), specs_dirs, budget,
                                   draws)
        if as_json:
            click.echo(json.dumps({"spec": entry.spec.name, "kind": entry.spec.kind,
                                   "distractor_setting": probed.as_dict()}))
            return
    console.print(f"distractor setting: {probed.distractor_shares()} (`run` refuses a "
                  "distractor setting whose prompts hold none)", highlight=False)


def _count_paths(sampler: EntitySampler, entry: SpecEntry, as_json: bool) -> None:
    for pivot in sampler.pivots:
        counts = {hops: len(sampler.valid_paths(pivot, hops, limit=1_000_000))
                  for hops in sampler.lengths}
        if as_json:
            click.echo(json.dumps({"spec": entry.spec.name, "kind": entry.spec.kind,
                                   "pivot": pivot, "valid_paths": counts}))
            continue
        shown = "; ".join(f"{hops} hops: {n:,}" for hops, n in counts.items())
        console.print(f"{entry.spec.name} pivot {pivot}: {shown} valid paths", highlight=False)


@specs_group.command("sample")
@click.argument("spec")
@dirs_option
@kg_option
@click.option("--n", "count", default=5, show_default=True, help="How many samples.")
@click.option("--seed", default=0, show_default=True, help="Run seed.")
@click.option("--start", default=0, show_default=True, help="Index of the first sample.")
@json_option
@click.pass_obj
def sample_command(ctx: Context, spec: str, specs_dirs: tuple[Path, ...], kg_name: str,
                   count: int, seed: int, start: int, as_json: bool) -> None:
    """Draw samples i = start .. start+n-1 and print them with entity names."""
    from kgcert.specs import DagSample, RelationSampler, find_spec, prepare_sampler

    if count < 1 or seed < 0 or start < 0:
        raise InputError("--n must be positive, --seed and --start non-negative")
    entry = find_spec(spec, specs_dirs)
    store = ctx.server().open(kg_name)
    sampler = prepare_sampler(entry.spec, store, _cache_dir(ctx))
    samples = [sampler.sample(seed, index) for index in range(start, start + count)]
    # One names query for all samples: a round trip per sample cost more than the sampling.
    ids = {node for sample in samples
           for node in (sample.nodes.values() if isinstance(sample, DagSample) else sample.nodes)}
    names = _names(store, sorted(ids), _cache_dir(ctx))
    for index, sample in enumerate(samples, start):
        if isinstance(sample, DagSample):
            assert isinstance(sampler, RelationSampler)
            compiled = sampler.compiled
            edges = "; ".join(
                f"{names.get(sample.nodes[e.source], '?')} -[{e.rel_type}]-> "
                f"{names.get(sample.nodes[e.target], '?')}" for e in compiled.edges)
            answer_id = sample.nodes[compiled.answer]
            if as_json:
                click.echo(json.dumps({
                    "spec": entry.spec.name, "index": index, "seed": seed,
                    "answer": {"variable": compiled.answer, "id": answer_id,
                               "name": names.get(answer_id)},
                    "nodes": {var: {"id": node, "name": names.get(node)}
                              for var, node in sample.nodes.items()},
                    "edges": [{"source": e.source, "type": e.rel_type, "target": e.target}
                              for e in compiled.edges]}, ensure_ascii=False))
                continue
            console.print(Text(f"#{index} answer {compiled.answer} = {names.get(answer_id)} "
                               f"({answer_id})"))
            console.print(Text(f"    {edges}"))
        else:
            if as_json:
                click.echo(json.dumps({
                    "spec": entry.spec.name, "index": index, "seed": seed, "hops": sample.hops,
                    "nodes": [{"id": node, "name": names.get(node)} for node in sample.nodes],
                    "relations": list(sample.relations)}, ensure_ascii=False))
                continue
            hops = "".join(f" -[{rel}]-> {names.get(node, node)}"
                           for rel, node in zip(sample.relations, sample.nodes[1:], strict=True))
            console.print(Text(f"#{index} {sample.hops} hops"))
            console.print(Text(f"    {names.get(sample.pivot, sample.pivot)}{hops}"))


@specs_group.command("generate")
@kg_option
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Folder for the spec files.")
@click.option("--count", default=50, show_default=True, help="How many pivots (one spec each).")
@click.option("--rho", default=5, show_default=True, help="Most nodes on a path.")
@click.option("--rule", type=click.Choice(["degree", "density"]), default="degree",
              show_default=True, help="Pivots by out-degree, or by entities within rho-1 hops.")
@click.option("--threshold", default=2000, show_default=True,
              help="density: least entities within rho-1 hops; degree: pool of top entities.")
@click.option("--exclude", multiple=True, default=("P31", "P279", "P361", "P2184", "P2633"),
              show_default=True, help="Relation types paths may not use.")
@click.option("--seed", default=0, show_default=True, help="Seed for choosing among candidates.")
@click.pass_obj
def generate_command(ctx: Context, kg_name: str, out_dir: Path, count: int, rho: int, rule: str,
                     threshold: int, exclude: tuple[str, ...], seed: int) -> None:
    """Write entity-centric specs, one per pivot, picked by the paper's rule.

    With --rho above 2, a pivot is kept only if at least 14% of its first 200 paths (drawn
    with --seed) offer a distractor, so `kgcert run --setting distractor` does not refuse
    its spec for prompts without one."""
    from kgcert.specs.generate import generate_entity_specs

    store = ctx.server().open(kg_name)
    written = generate_entity_specs(store, kg_name, out_dir, count=count, rho=rho, rule=rule,
                                    threshold=threshold, exclude=list(exclude), seed=seed)
    console.print(f"wrote {len(written)} specs to {out_dir}", highlight=False)


COMMANDS = [specs_group]
