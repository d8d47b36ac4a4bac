"""The catalog parses a spec file once and again only when its bytes change: a run of many
specs looks each up several times, and an edited file is never seen as it was."""

from __future__ import annotations

from kgcert.specs.catalog import catalog_with_problems, find_spec

SPEC = """kind: entity
name: mine.entity.{pivot}
description: Paths from {pivot}.
kg: mine
pivots:
- {pivot}
rho: {rho}
"""


def test_an_unchanged_file_is_parsed_once_and_an_edited_one_again(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(SPEC.format(pivot="Q1", rho=3), encoding="utf-8")
    first = find_spec("mine.entity.Q1", [tmp_path]).spec
    assert find_spec("mine.entity.Q1", [tmp_path]).spec is first  # kept, not parsed again
    path.write_text(SPEC.format(pivot="Q1", rho=4), encoding="utf-8")  # same size, same name
    edited = find_spec("mine.entity.Q1", [tmp_path]).spec
    assert edited is not first and edited.rho == 4


def test_a_file_broken_after_use_is_reported_and_one_mended_is_used(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(SPEC.format(pivot="Q2", rho=3), encoding="utf-8")
    assert find_spec("mine.entity.Q2", [tmp_path]).spec.rho == 3
    path.write_text(SPEC.format(pivot="Q2", rho=1), encoding="utf-8")  # rho below two
    entries, problems = catalog_with_problems([tmp_path])
    assert [p.path for p in problems] == [path] and "rho" in problems[0].error
    assert all(e.path != path for e in entries)
    path.write_text(SPEC.format(pivot="Q2", rho=5), encoding="utf-8")
    assert find_spec("mine.entity.Q2", [tmp_path]).spec.rho == 5
