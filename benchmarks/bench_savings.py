"""Calls saved by comparisons that stop when decided, on the LLMCert-C Table 1 scenario.

    python benchmarks/bench_savings.py [--runs 10000] [--cell-runs 2000] [--shared 0] [--seed 7]

Scenario: the 17 PrimeKG model variants of LLMCert-C's Table 1, each setting (vanilla,
distractor) with the midpoints of the paper's average bounds. A model's accuracy on the 9
specs is spread evenly over its interval (spec s at lower + (upper - lower)(s + 1/2)/9), so
its mean over the specs is the midpoint. Outcomes are independent across models given the
prompt unless --shared gives a share of one common draw per prompt (see
kgcert.stats.race_sim).

Designs compared, per setting (all decisions at family-wise error <= 0.05):

* paper, fixed n: 250 prompts per (spec, model), 9 x 250 = 2,250 calls per model. A model is
  certified better than another when the mean of its 9 lower bounds exceeds the other's mean
  of upper bounds, with Clopper-Pearson at 1 - 0.05/153 (Bonferroni over the 17 x 9
  certificates, so every decision holds together);
* suite, --until ranked: one stream of prompts from the equal mixture of the 9 specs (the
  quantity the paper's mean is about), every pair tested after every index by the real
  stopping code (kgcert.stats.racing: anytime-valid e-processes, Holm over the 136 pairs),
  at most n = 250 indices, models leaving once all their pairs are resolved;
* one (spec, setting) cell, --until ranked with and without the futility stop: the
  per-cell saving, which is small when many pairs sit near the edge of what n decides.

Reported: calls per model, pairs decided, the share of runs with any wrong claim (FWER), and
how often a decision the paper's design makes is missing from an adaptive run (miss rate).
Last, the suite certificate of the 9 specs at n = 250 against the Bonferroni mean of the 9
per-spec bounds at 9 x 250.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numpy.typing import NDArray

from kgcert.stats import clopper_pearson, cp_limits, typical_count
from kgcert.stats.discordant import mixture_limit_table
from kgcert.stats.race_sim import simulate_race
from kgcert.stats.racing import Race, StopRule

# LLMCert-C Table 1, PrimeKG: (model, vanilla [lower, upper], distractor [lower, upper])
TABLE_1 = [
    ("Gemini-1.5-Pro", (0.97, 1.00), (0.92, 0.98)),
    ("GPT-4o", (0.97, 1.00), (0.85, 0.95)),
    ("Gemini-1.5-Flash", (0.96, 0.99), (0.89, 0.96)),
    ("Phi-3 14B fp16", (0.93, 0.98), (0.75, 0.85)),
    ("Phi-3 14B 4bit", (0.92, 0.97), (0.71, 0.81)),
    ("Llama 11B fp16", (0.91, 0.97), (0.84, 0.92)),
    ("Llama 11B 4bit", (0.88, 0.95), (0.79, 0.88)),
    ("Phi-3 3B fp16", (0.85, 0.92), (0.70, 0.81)),
    ("Phi-3 3B 4bit", (0.83, 0.91), (0.74, 0.83)),
    ("Qwen3 4B fp16", (0.93, 0.98), (0.80, 0.89)),
    ("Qwen3 4B 4bit", (0.88, 0.95), (0.74, 0.84)),
    ("Gemma3 4B fp16", (0.86, 0.93), (0.68, 0.79)),
    ("Gemma3 4B 4bit", (0.80, 0.89), (0.62, 0.73)),
    ("Llama 3B fp16", (0.80, 0.89), (0.70, 0.80)),
    ("Llama 3B 4bit", (0.73, 0.83), (0.63, 0.73)),
    ("Llama 1B fp16", (0.43, 0.56), (0.39, 0.52)),
    ("Llama 1B 4bit", (0.33, 0.45), (0.28, 0.40)),
]
SPECS, N, ALPHA = 9, 250, 0.05


def spec_accuracies(setting: int) -> NDArray[np.float64]:
    """(models x specs): each model's interval spread evenly over the 9 specs."""
    bounds = np.array([row[1 + setting] for row in TABLE_1])
    steps = (np.arange(SPECS) + 0.5) / SPECS
    return np.asarray(bounds[:, :1] + (bounds[:, 1:] - bounds[:, :1]) * steps, dtype=np.float64)


def paper_decisions(rng: np.random.Generator, accuracy: NDArray[np.float64], runs: int
                    ) -> NDArray[np.int8]:
    """(runs x pairs): 1 first better, 2 second better, 0 none, by mean-of-bounds separation."""
    models = accuracy.shape[0]
    correct = rng.binomial(N, accuracy, size=(runs, *accuracy.shape))
    level = 1 - ALPHA / (models * SPECS)
    lower, upper = cp_limits(correct, np.full_like(correct, N), level)
    low, high = lower.mean(axis=2), upper.mean(axis=2)
    race = Race(StopRule(n=N), models)
    first, second = race.first, race.second
    return np.where(low[:, first] > high[:, second], 1,
                    np.where(low[:, second] > high[:, first], 2, 0)).astype(np.int8)


def wrong_rate(states: NDArray[np.int8], truth: NDArray[np.float64], race: Race) -> float:
    first, second = truth[race.first], truth[race.second]
    wrong = ((states == 1) & (first <= second)) | ((states == 2) & (second <= first))
    return float(wrong.any(axis=1).mean())


def miss_rate(fixed: NDArray[np.int8], adaptive: NDArray[np.int8]) -> float:
    """Chance that a decision of the fixed design is missing from an adaptive run (the two
    are independent runs, so per pair: P(fixed decides) * P(adaptive does not), pooled)."""
    fixed_rate = np.stack([(fixed == 1).mean(axis=0), (fixed == 2).mean(axis=0)])
    adaptive_rate = np.stack([(adaptive == 1).mean(axis=0), (adaptive == 2).mean(axis=0)])
    return float((fixed_rate * (1 - adaptive_rate)).sum() / max(fixed_rate.sum(), 1e-12))


def certificate_misses(races: list[Race], truth: NDArray[np.float64]) -> float:
    """Share of (run, model) whose 95% sequence, at the index the model stopped, misses its
    accuracy (the certificate a run with --until writes)."""
    lower, upper = mixture_limit_table(N, ALPHA)
    missed = total = 0
    for race in races:
        lo = lower[race.correct, race.answered]
        hi = upper[race.correct, race.answered]
        missed += int(((truth < lo) | (truth > hi)).sum())
        total += lo.size
    return missed / total


def suite_widths(accuracy: NDArray[np.float64]) -> tuple[float, float, int]:
    """Mean width of the suite certificate (n = 250, Clopper-Pearson, 95%) and of the
    Bonferroni mean of the 9 per-spec bounds (250 each, 1 - 0.05/9), at typical counts."""
    suite, mean_of_bounds = [], []
    for row in accuracy:
        overall = float(row.mean())
        suite.append(clopper_pearson(typical_count(N, overall), N, 1 - ALPHA).half_width * 2)
        per_spec = [clopper_pearson(typical_count(N, float(p)), N, 1 - ALPHA / SPECS)
                    for p in row]
        mean_of_bounds.append(float(np.mean([b.upper for b in per_spec])
                                    - np.mean([b.lower for b in per_spec])))
    narrower = sum(s < m for s, m in zip(suite, mean_of_bounds, strict=True))
    return float(np.mean(suite)), float(np.mean(mean_of_bounds)), narrower


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--cell-runs", type=int, default=2_000)
    parser.add_argument("--shared", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    coverage: list[tuple[str, float]] = []
    for setting, name in enumerate(("vanilla", "distractor")):
        accuracy = spec_accuracies(setting)
        truth = accuracy.mean(axis=1)
        models = len(truth)
        started = time.perf_counter()
        fixed = paper_decisions(rng, accuracy, args.runs)
        probe = Race(StopRule(n=N), models)
        rows.append((name, "paper: 9 specs x 250, fixed", SPECS * N, float(
            (fixed > 0).sum(axis=1).mean()), wrong_rate(fixed, truth, probe), None))

        def mixture(generator: np.random.Generator, size: int,
                    accuracy: NDArray[np.float64] = accuracy) -> NDArray[np.float64]:
            return np.asarray(accuracy[:, generator.integers(0, SPECS, size)].T)

        rule = StopRule(n=N, until="ranked", confidence=1 - ALPHA)
        summary, races = simulate_race(truth, rule, args.runs, seed=args.seed + setting,
                                       shared=args.shared, draw=mixture)
        adaptive = np.concatenate([r.state for r in races]).astype(np.int8)
        adaptive[adaptive > 2] = 0
        rows.append((name, "suite n <= 250, --until ranked", summary.mean_calls / models,
                     summary.decided_pairs, summary.wrong_claims, miss_rate(fixed, adaptive)))
        coverage.append((name, certificate_misses(races, truth)))
        # one cell: the middle spec, fixed n = 250 against --until ranked on the same data
        cell = accuracy[:, SPECS // 2]
        cell_summary, cell_races = simulate_race(cell, rule, args.cell_runs,
                                                 seed=args.seed + 10 + setting,
                                                 shared=args.shared)
        full, _ = simulate_race(cell, StopRule(n=N, until="ranked", confidence=1 - ALPHA,
                                               futility_z=None), args.cell_runs,
                                seed=args.seed + 10 + setting, shared=args.shared)
        rows.append((name, "one spec, ranked, no futility stop", full.mean_calls / models,
                     full.decided_pairs, full.wrong_claims, None))
        rows.append((name, "one spec, n <= 250, --until ranked", cell_summary.mean_calls
                     / models, cell_summary.decided_pairs, cell_summary.wrong_claims, None))
        print(f"{name}: simulated in {time.perf_counter() - started:.0f} s", flush=True)
    print(f"\n{args.runs:,} runs per design ({args.cell_runs:,} for one spec); alpha = {ALPHA}; "
          f"shared draw share {args.shared}\n")
    print(f"{'setting':<11}{'design':<40}{'calls/model':>12}{'saving':>8}{'decided':>9}"
          f"{'FWER':>8}{'miss':>8}")
    for setting_name, design, calls, decided, fwer, miss in rows:
        saving = SPECS * N / calls if design.startswith(("paper", "suite")) else N / calls
        print(f"{setting_name:<11}{design:<40}{calls:>12.1f}{saving:>7.2f}x{decided:>9.1f}"
              f"{fwer:>8.4f}{'' if miss is None else f'{miss:.4f}':>8}")
    for name, missed in coverage:
        print(f"{name}: suite certificates (the anytime-valid sequence at each model's stop) "
              f"missing the model's accuracy: {missed:.4f} of {args.runs * len(TABLE_1):,} "
              f"(delta {ALPHA})")
    print("\nsuite certificate (n = 250) vs Bonferroni mean of 9 per-spec bounds (9 x 250):")
    for setting, name in enumerate(("vanilla", "distractor")):
        suite, mean_of_bounds, narrower = suite_widths(spec_accuracies(setting))
        print(f"  {name:<11} mean width {suite:.4f} vs {mean_of_bounds:.4f}; narrower for "
              f"{narrower} of {len(TABLE_1)} models")


if __name__ == "__main__":
    main()
