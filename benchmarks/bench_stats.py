"""Sample cost of kgcert's statistics (run on demand, not in the tests).

    python benchmarks/bench_stats.py [--streams 300] [--seed 2024] [--looks-sims 1000]
    python benchmarks/bench_stats.py --only-looks --looks-sims 1000   # (f)-(i) alone

(a) Sequential mode. For each true accuracy p, Bernoulli(p) streams are fed to the
    beta-binomial mixture confidence sequence (running intersection, delta = 0.05) and stopped
    at the first t whose half-width is <= 0.05. The mean stopping time is compared with the
    fixed-n Clopper-Pearson plan for the worst case p = 0.5 (what one plans without a guess)
    and with the plan for the true p (an oracle guess). The CS pays for being valid at any
    stopping time; it wins when the true p is far from 0.5 and no good guess was available.

(b) Paired comparison. Models A and B answer the same prompts; accuracy 0.70 and 0.80.
    Joint models per prompt, with U, V independent uniforms:
      nested:      A = U < 0.70;  B = A or (V < 1/3)   (B right whenever A is; P(B) = 0.80;
                   discordant pairs are all "A wrong, B right", rate 0.10)
      independent: A = U < 0.70;  B = V < 0.80        (no correlation, for contrast)
    Per stream, "first n" is the first prefix length at which (i) exact McNemar at alpha 0.05
    says B > A, (ii) the two separate 95% CP intervals stop overlapping (upper A < lower B).
    Looking after every prompt like this is not a valid sequential test for either method
    (use the confidence sequence for that); it measures how much information each method
    extracts. "n for 80% power" is the sound fixed-n version: the smallest n at which the
    method, run once at that n, decides B > A on >= 80% of streams.

(c) Extensions (--extension-sims, default 20,000 each): read-then-extend with a declared
    extension and with a new design, and interrupt-then-shrink, each simulated through the
    looks the runner plans (kgcert.simulate.extension): miss rate against the stated level.

(d) Refusals that depend on the prompt, counted wrong and left out (as many simulations).

(e) Multi-model pairing through the real pipeline (--pairing-sims, default 300): three
    models of equal accuracy answer the same prompts of one run (kgcert's Runner writes their
    sample files), `compare`'s loader and Holm hierarchy pair them by index; the share of runs
    in which any pair is called different is the family-wise error against alpha = 0.05.

(f)-(i) Issue 45, each through the runner and the certificates it writes (--looks-sims,
    default 1000 runs each; the tests run the same code at CI size), as one table of
    scenario, stated level, measured miss and runs:
    (f) a suite of three specs fitting the budget at 100%, 50% and 5% (kgcert.simulate.suite),
        with skipped draws redrawn within their spec, and as suites were before (reweighted);
    (g) a finished --until race of two equal models, then a third added with --new-design
        (kgcert.simulate.race_growth): any wrong claim of either design;
    (h) publish-or-extend across folders: n = 100 read, then the same seed at n = 400 in a new
        folder (kgcert.simulate.rerun), with the data dir's record of looks, and without it;
    (i) --until ranked, three close models (0.70, 0.72, 0.75), n <= 250: the certificates the
        runner writes (the running-intersection sequence at each model's stop), per
        certificate, and the share of runs with any certificate missing.
"""

from __future__ import annotations

import argparse
import time
from functools import cache

import numpy as np
from numpy.typing import NDArray

from kgcert.stats import (
    cp_limits,
    mcnemar_counts,
    mixture_cs_limits,
    plan_sample_size,
    running_intersection,
)

P_GRID = (0.05, 0.2, 0.5, 0.8, 0.95, 0.99)
TARGET = 0.05
DELTA = 0.05
ALPHA = 0.05


def cs_stopping_times(rng: np.random.Generator, p: float, streams: int, length: int):
    """First t at which the CS half-width is <= TARGET, per stream: with the running
    intersection (what SequentialMonitor reports) and with C_t alone."""
    outcomes = rng.random((streams, length)) < p
    successes = np.cumsum(outcomes, axis=1)
    trials = np.arange(1, length + 1)
    lower, upper = mixture_cs_limits(successes, trials, DELTA)
    run_lower, run_upper = running_intersection(lower, upper)
    done_alone = (upper - lower) / 2 <= TARGET
    done = (run_upper - run_lower) / 2 <= TARGET
    if not np.all(done_alone.any(axis=1)):
        return None  # some stream never got there: caller retries with longer streams
    return done.argmax(axis=1) + 1, done_alone.argmax(axis=1) + 1


def sequential_table(streams: int, seed: int) -> None:
    worst = plan_sample_size(TARGET, 1 - DELTA, 0.5).n
    print(
        f"(a) sequential: mean samples to half-width <= {TARGET} at 95% "
        f"({streams} streams per p, seed {seed})"
    )
    print(f"    fixed-n Clopper-Pearson plan for worst case p=0.5: n = {worst}")
    print("    CS = running intersection (as SequentialMonitor reports); C_t = without it")
    header = (
        f"{'p':>5} {'CS mean':>8} {'(se)':>6} {'CS p90':>7} {'C_t mean':>9} "
        f"{'plan(p)':>8} {'CS/plan(0.5)':>13} {'CS/plan(p)':>11}"
    )
    print(header)
    rng = np.random.default_rng(seed)
    for p in P_GRID:
        oracle = plan_sample_size(TARGET, 1 - DELTA, p).n
        length = max(500, 4 * oracle)
        while (result := cs_stopping_times(rng, p, streams, length)) is None:
            length *= 2
        times, times_alone = result
        mean = times.mean()
        se = times.std(ddof=1) / np.sqrt(times.size)
        p90 = np.quantile(times, 0.9)
        print(
            f"{p:>5} {mean:>8.1f} {se:>6.1f} {p90:>7.0f} {times_alone.mean():>9.1f} {oracle:>8d} "
            f"{mean / worst:>13.2f} {mean / oracle:>11.2f}"
        )


def mcnemar_critical(max_pairs: int) -> NDArray[np.int64]:
    """crit[m]: the smallest c with McNemar deciding "B better" at c of m discordant pairs.

    For c > m/2 the two-sided p-value 2 P(X <= m - c) falls as c grows, so a binary search
    over c with the library's test finds the threshold (m + 1 where none decides).
    """

    @cache
    def decides_b(b: int, c: int) -> bool:
        return mcnemar_counts(b, c, alpha=ALPHA, names=("A", "B")).better == "B"

    crit = np.empty(max_pairs + 1, dtype=np.int64)
    for m in range(max_pairs + 1):
        if m == 0 or not decides_b(0, m):  # not even c = m decides: no c does
            crit[m] = m + 1
            continue
        lo, hi = m // 2 + 1, m  # decides_b(m - hi, hi) holds; find the smallest such c
        while lo < hi:
            mid = (lo + hi) // 2
            if decides_b(m - mid, mid):
                hi = mid
            else:
                lo = mid + 1
        crit[m] = lo
    return crit


def paired_table(streams: int, seed: int) -> None:
    length = 2000
    crit = mcnemar_critical(length)
    print()
    print(
        f"(b) paired: A = 0.70, B = 0.80 on shared prompts, alpha = {ALPHA} "
        f"({streams} streams, seed {seed})"
    )
    print(
        f"{'joint model':>12} {'method':>18} {'mean first n':>13} {'(se)':>6} "
        f"{'n for 80% power':>16} {'never':>6}"
    )
    rng = np.random.default_rng(seed)
    for joint in ("nested", "independent"):
        u = rng.random((streams, length))
        v = rng.random((streams, length))
        a = u < 0.70
        b = a | (v < 1 / 3) if joint == "nested" else v < 0.80
        n = np.arange(1, length + 1)
        b_wins = np.cumsum(a & ~b, axis=1)  # McNemar b: A right, B wrong
        c_wins = np.cumsum(~a & b, axis=1)  # McNemar c: A wrong, B right
        mcnemar_says = c_wins >= crit[b_wins + c_wins]
        ns = np.broadcast_to(n, a.shape)
        _, upper_a = cp_limits(np.cumsum(a, axis=1), ns, 0.95)
        lower_b, _ = cp_limits(np.cumsum(b, axis=1), ns, 0.95)
        cp_says = upper_a < lower_b
        means = {}
        for name, says in (("exact McNemar", mcnemar_says), ("CP non-overlap", cp_says)):
            hit = says.any(axis=1)
            first = says.argmax(axis=1)[hit] + 1
            power = says.mean(axis=0)
            powered = np.flatnonzero(power >= 0.8)
            n80 = f"{powered[0] + 1:d}" if powered.size else f">{length}"
            means[name] = first.mean()
            se = first.std(ddof=1) / np.sqrt(first.size)
            print(
                f"{joint:>12} {name:>18} {first.mean():>13.1f} {se:>6.1f} {n80:>16} "
                f"{int((~hit).sum()):>6d}"
            )
        ratio = means["CP non-overlap"] / means["exact McNemar"]
        print(f"{joint:>12} {'ratio CP/McNemar':>18} {ratio:>13.2f}")


def _chunked(run, reps: int, chunk: int = 2000):
    """Simulated results over `reps` streams, `chunk` at a time (bounded memory)."""
    done, missed, stated = 0, 0.0, 1.0
    while done < reps:
        size = min(chunk, reps - done)
        result = run(size)
        missed += result.miss * size
        stated = min(stated, result.stated)
        done += size
    return missed / reps, stated


def extension_table(sims: int, seed: int) -> None:
    """(c) Extensions: publish at n1 if the interval excludes p0 = p, else go on to n2;
    and a run for n_big interrupted, then restarted for the n (up to where it stopped) at
    which a fixed-n interval would miss. The miss rate against the level each certificate
    states, with kgcert's looks (kgcert.run.looks) and with the old rule."""
    from kgcert.simulate.extension import interrupt_then_shrink, read_then_extend

    rng = np.random.default_rng(seed)
    print()
    print(f"(c) Extensions, {sims} simulations each, true p = p0 = 0.5")
    print(f"{'scenario':<52} {'delta':>6} {'miss':>8} {'stated miss':>12}")
    for delta in (0.05, 0.10):
        for declared in (True, False):
            miss, stated = _chunked(lambda size, d=delta, x=declared: read_then_extend(
                rng, p=0.5, p0=0.5, n1=100, n2=400, delta=d, declared=x, reps=size), sims)
            name = ("read-then-extend 100 -> 400, declared --extendable" if declared
                    else "read-then-extend 100 -> 400, --new-design")
            print(f"{name:<52} {delta:>6.2f} {miss:>8.4f} {1 - stated:>12.4f}")
    miss, stated = _chunked(lambda size: interrupt_then_shrink(
        rng, p=0.5, n_big=1000, n_min=50, delta=0.05, reps=size), sims)
    print(f"{'interrupt-then-shrink 1000 -> n, --new-design':<52} {0.05:>6.2f} {miss:>8.4f} "
          f"{1 - stated:>12.4f}")
    hits = rng.random((min(sims, 5000), 1000)) < 0.5
    t = np.arange(1, 1001)
    lo, hi = cp_limits(np.cumsum(hits, axis=1), t, 0.95)
    stopped = rng.integers(50, 1000, size=len(hits))
    wrong = ((lo > 0.5) | (hi < 0.5)) & (t >= 50) & (t <= stopped[:, None])
    print(f"{'same, old rule (stated fixed n, Clopper-Pearson)':<52} {0.05:>6.2f} "
          f"{wrong.any(axis=1).mean():>8.4f} {0.05:>12.4f}")


def refusal_table(sims: int, seed: int, n: int = 200) -> None:
    """(d) Refusals that depend on the prompt: the model declines hard prompts (30%) and is
    right on 90% of the others, so P(correct) = 0.63. The headline counts refusals as wrong
    (k correct of n answered, refusals in n); leaving them out, as failed calls are, certifies
    the accuracy on the prompts it chose to answer."""
    rng = np.random.default_rng(seed)
    hard = rng.random((sims, n)) < 0.3
    right = (rng.random((sims, n)) < 0.9) & ~hard
    truth = 0.7 * 0.9
    k = right.sum(axis=1)
    lo, hi = cp_limits(k, n, 0.95)
    answered = (~hard).sum(axis=1)
    lo_x, hi_x = cp_limits(k, answered, 0.95)
    print()
    print(f"(d) Refusals that depend on the prompt, {sims} simulations of n = {n}, "
          f"P(correct) = {truth:.2f}")
    print(f"    refusals counted wrong (kgcert): miss {np.mean((lo > truth) | (hi < truth)):.4f}"
          f"; refusals left out: miss {np.mean((lo_x > truth) | (hi_x < truth)):.4f}")


def pairing_table(sims: int, seed: int, n: int = 200, p: float = 0.7) -> None:
    """(e) Three models right with probability `p` each, independently per prompt (their
    provider seeds differ), answer the same n prompts of one run: the share of runs whose
    Holm family calls any pair different, against alpha."""
    import tempfile
    from pathlib import Path

    from kgcert.models.base import GenerationConfig
    from kgcert.models.registry import get_model
    from kgcert.prompts.record import Prompt, Provenance
    from kgcert.report.compare import compare
    from kgcert.report.run_frames import load_runs
    from kgcert.run.runner import Job, ModelSlot, Runner
    from kgcert.rundir.run_spec import RunSpec

    def build(index: int, sim: int = 0) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=sim,
                                index=index, setting="vanilla")
        return Prompt(text=f"prompt {sim}/{index}", provenance=provenance,
                      options=("w", "x", "y", "z"), option_ids=("w", "x", "y", "z"),
                      correct_option=1 + index % 4)

    names = (f"bernoulli:{p}", f"bernoulli:{p}0", f"bernoulli:{p}00")  # one p, three names
    config = GenerationConfig()
    called, shared, discordant = 0, [], []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        for sim in range(sims):
            slots = []
            for number, name in enumerate(names):  # independent: each its own seed
                model = get_model(name, config, seed=seed * 1_000_003 + sim * 3 + number)
                slots.append(ModelSlot(name, model, config))
            run_dir = Path(work) / f"run{sim}"
            job = Job("toy", "toy", "vanilla", lambda i, s=sim: build(i, s))
            Runner(RunSpec.of(kg="toy", specs=("toy",), models=names, n=n, batch_size=n),
                   run_dir, [job], slots).run()
            [comparison] = compare(load_runs([run_dir]).samples, alpha=ALPHA)
            assert comparison.hierarchy is not None
            shared.append(comparison.alignment.n)
            tests = comparison.hierarchy.comparisons
            discordant.append(np.mean([c.test.b + c.test.c for c in tests]))
            called += any(c.reject for c in tests)
    print()
    print(f"(e) Multi-model pairing through the runner, {sims} runs of 3 models at p = {p} "
          f"on n = {n} shared prompts ({time.perf_counter() - started:.0f} s)")
    print(f"    prompts paired per run: {min(shared)} to {max(shared)}, discordant pairs per "
          f"test {np.mean(discordant):.1f} (independent models: {2 * n * p * (1 - p):.1f}); "
          f"runs with any pair called different (Holm, alpha {ALPHA}): {called / sims:.4f}")


def until_coverage(runs: int, seed: int, n: int = 250) -> tuple[float, float, int]:
    """(i) The certificates an --until ranked run writes, scored against the models' true
    accuracies: the share of certificates that miss, of runs with any miss, and how many
    certificates."""
    import json
    import tempfile
    from pathlib import Path

    from kgcert.models.base import GenerationConfig
    from kgcert.models.registry import get_model
    from kgcert.prompts.record import Prompt, Provenance
    from kgcert.run.runner import Job, ModelSlot, Runner
    from kgcert.rundir.run_spec import RunSpec

    accuracy = {"bernoulli:0.70": 0.70, "bernoulli:0.72": 0.72, "bernoulli:0.75": 0.75}

    def build(index: int, sim: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=sim,
                                index=index, setting="vanilla")
        return Prompt(text=f"prompt {sim}/{index}", provenance=provenance,
                      options=("w", "x", "y", "z"), option_ids=("w", "x", "y", "z"),
                      correct_option=1 + index % 4)

    missed = any_missed = certificates = 0
    generation = GenerationConfig()
    with tempfile.TemporaryDirectory() as work:
        for sim in range(runs):
            slots = [ModelSlot(name, get_model(name, generation, seed=seed + sim), generation)
                     for name in accuracy]
            config = RunSpec.of(kg="toy", specs=("toy",), models=tuple(accuracy), n=n,
                                batch_size=25, until="ranked", seed=seed + sim)
            job = Job("toy", "toy", "vanilla", lambda i, s=sim: build(i, s))
            paths = Runner(config, Path(work) / f"run{sim}", [job], slots).run()
            wrong = 0
            for path in paths:
                body = json.loads(path.read_text())
                wrong += not body["lower"] <= accuracy[body["model"]] <= body["upper"]
            missed += wrong
            any_missed += wrong > 0
            certificates += len(paths)
    return missed / certificates, any_missed / runs, certificates


def looks_table(runs: int, seed: int) -> None:
    """(f)-(i): issue 45's scenarios through the runner, as one table. Run folders go to
    memory (/dev/shm) where there is one: the runner's files are many and small."""
    import tempfile
    from pathlib import Path

    if Path("/dev/shm").is_dir():
        tempfile.tempdir = "/dev/shm"
    from kgcert.simulate.race_growth import simulate_growth
    from kgcert.simulate.rerun import simulate_rerun
    from kgcert.simulate.suite import simulate_suite

    started = time.process_time()
    rows: list[tuple[str, float, float, int]] = []
    shape = {"weights": (1 / 3, 1 / 3, 1 / 3), "fits": (1.0, 0.5, 0.05),
             "accuracies": (0.9, 0.5, 0.2), "n": 250}
    kept = simulate_suite(runs, **shape, seed=seed)  # type: ignore[arg-type]
    rows.append(("(f) suite, fits 1/0.5/0.05, skipped draws redrawn", kept.confidence,
                 kept.miss, kept.runs))
    rows.append(("(f) the same, unconditional lower bound", kept.confidence,
                 kept.unconditional_miss, kept.runs))
    before = simulate_suite(max(runs // 10, 50), **shape, seed=seed,  # type: ignore[arg-type]
                            redraw=False)
    rows.append(("(f) the same as before: skips reweight the specs", before.confidence,
                 before.miss, before.runs))
    grown = simulate_growth(runs, first={"bernoulli:0.7": 0.7, "bernoulli:0.70": 0.7},
                            added={"bernoulli:0.700": 0.7}, n=250, seed=seed)
    rows.append(("(g) --until race of 2 equal models, a 3rd added", grown.stated,
                 grown.joint_error, grown.runs))
    rerun = simulate_rerun(runs, p=0.5, p0=0.5, n1=100, n2=400, seed=seed)
    rows.append(("(h) publish at 100 or rerun seed at 400, new folder", rerun.stated,
                 rerun.miss, rerun.runs))
    per_certificate, per_run, certificates = until_coverage(runs, seed)
    rows.append(("(i) --until ranked certificates, per certificate", 0.95, per_certificate,
                 certificates))
    rows.append(("(i) --until ranked, runs with any of 3 missing", 0.85, per_run, runs))
    print()
    print(f"(f)-(i) Issue 45 through the runner ({time.process_time() - started:.0f} CPU s); "
          f"{grown.earlier_kept:.0%} of grown races kept every earlier claim; "
          f"{rerun.extended:.0%} of (h) runs went on into a new folder")
    print(f"{'scenario':<56} {'stated level':>12} {'miss':>8} {'runs':>6}")
    for name, level, miss, count in rows:
        print(f"{name:<56} {level:>12.4f} {miss:>8.4f} {count:>6d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--extension-sims", type=int, default=20_000,
                        help="Simulations per extension scenario (0 skips them).")
    parser.add_argument("--pairing-sims", type=int, default=300,
                        help="Runs of the multi-model pairing simulation (0 skips it).")
    parser.add_argument("--looks-sims", type=int, default=1000,
                        help="Runs of each issue 45 scenario, (f)-(i) (0 skips them).")
    parser.add_argument("--only-looks", action="store_true",
                        help="Only (f)-(i).")
    args = parser.parse_args()
    if args.only_looks:
        looks_table(args.looks_sims, args.seed + 5)
        return
    start = time.perf_counter()
    sequential_table(args.streams, args.seed)
    paired_table(args.streams, args.seed + 1)
    if args.extension_sims:
        extension_table(args.extension_sims, args.seed + 2)
        refusal_table(args.extension_sims, args.seed + 3)
    if args.pairing_sims:
        pairing_table(args.pairing_sims, args.seed + 4)
    if args.looks_sims:
        looks_table(args.looks_sims, args.seed + 5)
    print(f"\n({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
