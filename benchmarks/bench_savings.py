"""Calls and decisions of four designs side by side, on the LLMCert-C Table 1 scenario.

    python benchmarks/bench_savings.py [--runs 2000] [--race-runs 1000] [--shared 0] [--seed 7]

Scenario: the 17 PrimeKG model variants of LLMCert-C's Table 1, each setting (vanilla,
distractor) with the midpoints of the paper's average bounds. A model's accuracy on the 9
specs is spread evenly over its interval (spec s at lower + (upper - lower)(s + 1/2)/9), so
its mean over the specs is the midpoint. Outcomes are independent across models given the
prompt unless --shared gives a share of one common draw per prompt (see
kgcert.stats.race_sim).

Designs, per setting, every decision at family-wise error <= 0.05 (alpha):

* per-spec, fixed n: 250 prompts per (spec, model), 9 x 250 = 2,250 calls per model, analysed
  with kgcert's paired tests: exact McNemar per pair on all 2,250 shared prompts, Holm over
  the 136 pairs. It answers "which model is more accurate on the equal mixture of the 9
  specs" (stratified: 250 prompts of each spec). Beside it the paper's own analysis of the
  same prompts (a model better when the mean of its 9 Clopper-Pearson lower bounds at
  1 - 0.05/153 exceeds the other's mean of upper bounds), unpaired;
* per-spec, --until ranked: each spec its own race (n <= 250, kgcert.stats.racing), so nine
  questions, "which model is more accurate on spec s", each a Holm family of 136 pairs at
  alpha; its pairs decided are counted over the 9 x 136 = 1,224 (spec, pair) questions;
* suite, fixed n: 250 prompts of the equal mixture (each draws a spec), exact McNemar and
  Holm over the 136 pairs: the mixture question with 250 prompts;
* suite, --until ranked: the same mixture raced (n <= 250).

Reported: calls per model; what stopping alone saves (a design's fixed n against its --until
race: the same question); pairs decided; the family-wise error (share of runs with any wrong
claim; for the per-spec race per spec family, the mean of the nine, and over all nine
together); and what each certifies. The certificates' own coverage under --until is section
(i) of benchmarks/bench_stats.py (the certificates the runner writes).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numpy.typing import NDArray

from kgcert.stats import clopper_pearson, cp_limits, holm_adjust, typical_count
from kgcert.stats.paired import mcnemar_exact_p
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


def paired_decisions(outcomes: NDArray[np.bool_], race: Race) -> NDArray[np.int8]:
    """(runs x pairs) decisions of exact McNemar per pair and Holm over the pairs, from
    (runs x models x prompts) outcomes: 1 first better, 2 second better, 0 none. The same
    p-values and adjustment as kgcert.stats (checked on the first run)."""
    from scipy.stats import binom

    first, second = outcomes[:, race.first], outcomes[:, race.second]
    b = (first & ~second).sum(axis=2)
    c = (~first & second).sum(axis=2)
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, c), b + c, 0.5))
    p[(b + c) == 0] = 1.0
    order = np.argsort(p, axis=1)
    ranked = np.take_along_axis(p, order, axis=1) * (p.shape[1] - np.arange(p.shape[1]))
    adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(ranked, axis=1))
    adjusted = np.empty_like(p)
    np.put_along_axis(adjusted, order, adjusted_sorted, axis=1)
    expected = holm_adjust([mcnemar_exact_p(int(x), int(y)) for x, y in zip(b[0], c[0],
                                                                            strict=True)])
    assert np.allclose(adjusted[0], expected), "the vectorised test is kgcert's"
    reject = adjusted <= ALPHA
    return np.where(reject & (b > c), 1, np.where(reject & (c > b), 2, 0)).astype(np.int8)


def fixed_paired(rng: np.random.Generator, accuracy: NDArray[np.float64], runs: int,
                 stratified: bool, chunk: int = 100) -> NDArray[np.int8]:
    """Decisions of a fixed-n design: 250 prompts of each spec (stratified) or 250 prompts
    of the equal mixture, every model answering each prompt independently."""
    models = accuracy.shape[0]
    race = Race(StopRule(n=N), models)
    found = []
    for start in range(0, runs, chunk):
        size = min(chunk, runs - start)
        if stratified:
            specs = np.repeat(np.arange(SPECS), N)
            prompts = np.broadcast_to(accuracy[:, specs], (size, models, SPECS * N))
        else:
            drawn = rng.integers(0, SPECS, size=(size, N))
            prompts = np.transpose(accuracy[:, drawn], (1, 0, 2))
        outcomes = rng.random(prompts.shape) < prompts
        found.append(paired_decisions(outcomes, race))
    return np.concatenate(found)


def decided(states: NDArray[np.int8]) -> float:
    return float(((states == 1) | (states == 2)).sum(axis=1).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2_000, help="Runs of each fixed design.")
    parser.add_argument("--race-runs", type=int, default=1_000,
                        help="Runs of each race (per spec for the per-spec race).")
    parser.add_argument("--shared", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.process_time()
    rows = []
    rule = StopRule(n=N, until="ranked", confidence=1 - ALPHA)
    for setting, name in enumerate(("vanilla", "distractor")):
        accuracy = spec_accuracies(setting)
        truth = accuracy.mean(axis=1)
        models = len(truth)
        probe = Race(StopRule(n=N), models)
        pairs = len(probe.first)
        paper = paper_decisions(rng, accuracy, args.runs)
        rows.append((name, "per-spec fixed 9 x 250, paper's mean of bounds", SPECS * N, None,
                     decided(paper), pairs, f"{wrong_rate(paper, truth, probe):.4f}",
                     "mixture ranking (unpaired bounds)"))
        stratified = fixed_paired(rng, accuracy, args.runs, stratified=True)
        rows.append((name, "per-spec fixed 9 x 250, paired (McNemar+Holm)", SPECS * N, None,
                     decided(stratified), pairs,
                     f"{wrong_rate(stratified, truth, probe):.4f}",
                     "mixture ranking, 1 family of 136"))
        per_spec_calls, per_spec_decided, fwer, any_wrong = 0.0, 0.0, [], None
        for spec in range(SPECS):
            summary, races = simulate_race(accuracy[:, spec], rule, args.race_runs,
                                           seed=args.seed + 100 * setting + spec,
                                           shared=args.shared)
            per_spec_calls += summary.mean_calls / models
            per_spec_decided += summary.decided_pairs
            fwer.append(summary.wrong_claims)
            from kgcert.stats.race_sim import wrong_claims

            wrong = np.concatenate([wrong_claims(r, accuracy[:, spec]) for r in races])
            any_wrong = wrong if any_wrong is None else (any_wrong | wrong)
        assert any_wrong is not None
        rows.append((name, "per-spec --until ranked, 9 races n <= 250", per_spec_calls,
                     SPECS * N / per_spec_calls, per_spec_decided, SPECS * pairs,
                     f"{np.mean(fwer):.4f} each, {any_wrong.mean():.4f} any of 9",
                     "9 per-spec rankings, 9 families of 136"))
        suite_fixed = fixed_paired(rng, accuracy, args.runs, stratified=False)
        rows.append((name, "suite fixed n = 250, paired (McNemar+Holm)", N, None,
                     decided(suite_fixed), pairs, f"{wrong_rate(suite_fixed, truth, probe):.4f}",
                     "mixture ranking, 1 family of 136"))

        def mixture(generator: np.random.Generator, size: int,
                    accuracy: NDArray[np.float64] = accuracy) -> NDArray[np.float64]:
            return np.asarray(accuracy[:, generator.integers(0, SPECS, size)].T)

        summary, _ = simulate_race(truth, rule, args.race_runs, seed=args.seed + setting,
                                   shared=args.shared, draw=mixture)
        calls = summary.mean_calls / models
        rows.append((name, "suite --until ranked, n <= 250", calls, N / calls,
                     summary.decided_pairs, pairs, f"{summary.wrong_claims:.4f}",
                     "mixture ranking, 1 family of 136"))
        print(f"{name}: {time.process_time() - started:.0f} CPU s so far", flush=True)
    print(f"\n{args.runs:,} runs per fixed design, {args.race_runs:,} per race (per spec); "
          f"alpha = {ALPHA}; shared draw share {args.shared}\n")
    print(f"{'setting':<11}{'design':<48}{'calls/model':>12}{'stopping saves':>15}"
          f"{'decided':>14}  {'FWER':<32} certifies")
    for setting_name, design, calls, saving, count, of, fwer, what in rows:
        saves = "" if saving is None else f"{saving:.2f}x"
        print(f"{setting_name:<11}{design:<48}{calls:>12.1f}{saves:>15}"
              f"{count:>8.1f}/{of:<5d}  {fwer:<32} {what}")
    print("\nsuite certificate (n = 250) vs Bonferroni mean of 9 per-spec bounds (9 x 250):")
    for setting, name in enumerate(("vanilla", "distractor")):
        suite, mean_of_bounds, narrower = suite_widths(spec_accuracies(setting))
        print(f"  {name:<11} mean width {suite:.4f} vs {mean_of_bounds:.4f}; narrower for "
              f"{narrower} of {len(TABLE_1)} models")


if __name__ == "__main__":
    main()
