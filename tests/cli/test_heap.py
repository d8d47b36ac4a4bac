"""The collector's pace for prompt-building commands."""

from __future__ import annotations

import gc

import pytest

from kgcert.cli.heap import YOUNG_THRESHOLD, built_graphs_frozen, pace_for_prompts


@pytest.fixture
def restored_thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_young_objects_are_collected_less_often(restored_thresholds):
    gc.set_threshold(700, 11, 12)
    pace_for_prompts()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 11, 12)


def test_a_switched_off_or_slower_pace_is_left_alone(restored_thresholds):
    for thresholds in [(0, 10, 10), (50_000, 10, 10)]:
        gc.set_threshold(*thresholds)
        pace_for_prompts()
        assert gc.get_threshold() == thresholds


def test_what_was_built_is_left_out_of_collections_until_the_block_ends():
    built = [[] for _ in range(1000)]  # stands in for a snapshot's containers
    with built_graphs_frozen():
        assert gc.get_freeze_count() > len(built)  # the permanent generation: never walked
        gc.collect()
        assert gc.get_freeze_count() > len(built)
    assert gc.get_freeze_count() == 0
