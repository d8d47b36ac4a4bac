"""Sample-size planning with exact Clopper-Pearson widths."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgcert.stats import clopper_pearson, plan_sample_size, planned_half_width, typical_count


def test_worst_case_plan_for_five_points() -> None:
    plan = plan_sample_size(0.05, confidence=0.95)
    # The normal approximation says 1.96^2 * 0.25 / 0.05^2 = 385; exact CP needs more.
    assert plan.n == 402
    assert plan.expected == clopper_pearson(201, 402, 0.95)
    assert plan.expected.half_width <= 0.05
    assert planned_half_width(401) > 0.05
    assert (plan.p, plan.confidence, plan.target_half_width) == (0.5, 0.95, 0.05)
    normal = math.ceil(1.959964**2 * 0.25 / 0.05**2)
    assert normal == 385 < plan.n


def test_plan_holds_from_n_on() -> None:
    for p in (0.5, 0.2, 0.01):
        plan = plan_sample_size(0.05, p=p)
        assert planned_half_width(plan.n - 1, p) > 0.05
        n_cap = math.ceil(math.log(2 / 0.05) / (2 * 0.05**2))
        assert all(planned_half_width(n, p) <= 0.05 for n in range(plan.n, n_cap + 1))


def test_small_p_dip_is_not_taken_as_the_plan() -> None:
    """At p = 0.01 the plug-in k is 0 up to n = 49 and the width dips under the target there;
    at n = 50 k becomes 1 and the width is too large again, so the plan is past that."""
    plan = plan_sample_size(0.05, p=0.01)
    assert planned_half_width(45, 0.01) <= 0.05
    assert typical_count(50, 0.01) == 1 and planned_half_width(50, 0.01) > 0.05
    assert plan.n == 54


def test_symmetry_and_tighter_targets() -> None:
    assert plan_sample_size(0.05, p=0.2).n == plan_sample_size(0.05, p=0.8).n
    assert plan_sample_size(0.05, p=0.2).n < plan_sample_size(0.05).n
    fine = plan_sample_size(0.01)
    assert planned_half_width(fine.n) <= 0.01 < planned_half_width(fine.n - 1)
    assert 9500 < fine.n < 9800
    assert plan_sample_size(0.05, confidence=0.99).n > plan_sample_size(0.05).n


def test_typical_count_rounds_half_up() -> None:
    assert typical_count(401, 0.5) == 201
    assert typical_count(10, 0.25) == 3
    assert typical_count(10, 0.0) == 0 and typical_count(10, 1.0) == 10


def test_bad_inputs() -> None:
    for width in (0.0, 0.5, -0.1):
        with pytest.raises(ValueError):
            plan_sample_size(width)
    with pytest.raises(ValueError):
        plan_sample_size(0.05, p=1.5)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=5000),
    frac=st.floats(min_value=0, max_value=1),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_hoeffding_cap_the_search_relies_on(n: int, frac: float, confidence: float) -> None:
    """Every CP limit is within sqrt(log(2/alpha) / (2n)) of k/n."""
    k = math.floor(frac * n)
    bounds = clopper_pearson(k, n, confidence)
    cap = math.sqrt(math.log(2 / (1 - confidence)) / (2 * n))
    assert k / n - bounds.lower <= cap + 1e-12
    assert bounds.upper - k / n <= cap + 1e-12
