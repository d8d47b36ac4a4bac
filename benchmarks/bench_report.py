"""The report's sample explorer at 50,000 samples: build time, file size, and how the page
behaves in headless Chromium (run on demand; needs chromium, chromedriver and selenium).

    python benchmarks/bench_report.py                 # 50,000 samples
    python benchmarks/bench_report.py --samples 5000 --keep /tmp/big

A real run first: a synthetic PrimeKG-shaped KG loaded into the embedded server and `kgcert
run` of primekg.dual_indication with two bernoulli models (--source-n prompts per setting).
Its records are then copied into a run of --samples samples over --models models: each copy
gets fresh indices and its context lines reshuffled (so every prompt's text is distinct and
compresses like a real one), and every prompt is answered by each model. Timed: the report's
build (tables and page without the explorer; the explorer's own share), and in the browser:
page ready (rows shown), the 'wrong' filter, opening a row, the models-disagree view; each as
a ratio to the same step on the source run's small report (the baseline, same session).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from kgcert.report import write_report  # noqa: E402
from kgcert.report.explorer import explorer_section  # noqa: E402
from kgcert.report.run_frames import load_runs  # noqa: E402
from kgcert.rundir.layout import slug  # noqa: E402
from kgcert.synth.primekg import SyntheticPrimeKG  # noqa: E402

SPEC = "primekg.dual_indication"


def kgcert(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], env=env, capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(done.stderr)


def source_run(folder: Path, n: int) -> Path:
    env = {**os.environ, "KGCERT_DATA_DIR": str(folder / "data"), "KGCERT_NO_SERVER": "1",
           "PYTHONPATH": str(REPO_ROOT)}
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "kg.csv")
    kgcert(env, "load", "primekg", str(folder / "kg.csv"), "--kg", "bench_report")
    run = folder / "source"
    kgcert(env, "run", "--kg", "bench_report", "--spec", SPEC, "--model", "bernoulli:0.7",
           "--model", "bernoulli:0.4", "--setting", "vanilla", "--setting", "distractor",
           "--n", str(n), "--out", str(run))
    return run


def _reshuffled(text: str, rng: random.Random) -> str:
    """The prompt with the lines of its last context block in another order."""
    head, marker, tail = text.rpartition("Your question:\nContext:\n")
    if not marker:
        return text
    lines, _, rest = tail.partition("\nQuestion:")
    shuffled = lines.split("\n")
    rng.shuffle(shuffled)
    return head + marker + "\n".join(shuffled) + "\nQuestion:" + rest


def scaled_run(source: Path, out: Path, samples: int, models: int) -> Path:
    by_setting: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((source / "samples").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            by_setting.setdefault(record["setting"], []).append(record)
    settings = sorted(by_setting)
    per_setting = samples // (models * len(settings))
    rng = random.Random(0)
    for setting in settings:
        originals = by_setting[setting]
        files = {m: (out / "samples" / slug(SPEC) / setting / f"model-{m}.jsonl")
                 for m in range(models)}
        for path in files.values():
            path.parent.mkdir(parents=True, exist_ok=True)
        handles = {m: path.open("w", encoding="utf-8") for m, path in files.items()}
        for index in range(per_setting):
            base = originals[index % len(originals)]
            prompt = {**base["prompt"], "text": _reshuffled(base["prompt"]["text"], rng)}
            for m, handle in handles.items():
                outcome = "correct" if rng.random() < 0.4 + 0.1 * m else "wrong"
                record = {**base, "index": index, "model": f"model-{m}", "prompt": prompt,
                          "outcome": outcome}
                handle.write(json.dumps(record) + "\n")
        for handle in handles.values():
            handle.close()
    return out


def timed(step: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = step()
    return time.perf_counter() - started, value


def browser_steps(page: Path) -> dict[str, float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,1600"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 300, poll_frequency=0.01)
    try:
        results: dict[str, float] = {}
        results["page ready (rows shown)"], _ = timed(lambda: (
            driver.get(page.resolve().as_uri()),
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#kgx-count[data-count]"))))
        results["'wrong' filter (ms in page)"] = driver.execute_script(
            "const s = document.getElementById('kgx-filter-outcome');"
            "const t = performance.now(); s.value = 'wrong';"
            "s.dispatchEvent(new Event('change')); return performance.now() - t;") / 1000
        row = driver.find_element(By.CSS_SELECTOR, "#kgx-rows tr.kgx-row")
        results["open a row (inflate + draw)"], _ = timed(lambda: (
            row.click(),
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "pre.kgx-prompt"))))
        results["models disagree view (ms in page)"] = driver.execute_script(
            "const t = performance.now(); document.getElementById('kgx-view-disagree').click();"
            "return performance.now() - t;") / 1000
        return results
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=50_000)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--source-n", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="write the runs and reports here")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    source = source_run(folder, args.source_n)
    big = scaled_run(source, folder / "big", args.samples, args.models)

    rows = []
    for label, run in (("baseline (source run)", source), ("scaled", big)):
        runs = load_runs([run], samples=False)
        explorer_s, section = timed(lambda runs=runs: explorer_section(runs))
        report_s, _ = timed(lambda run=run: write_report([run], run / "report", figures=False))
        page = run / "report" / "report.html"
        samples = sum(1 for _ in (run / "samples").rglob("*.jsonl")
                      for _ in _.open(encoding="utf-8"))
        jsonl_mb = sum(p.stat().st_size for p in (run / "samples").rglob("*.jsonl")) / 1e6
        rows.append((label, samples, jsonl_mb, report_s, explorer_s, len(section) / 1e6,
                     page.stat().st_size / 1e6, browser_steps(page)))
    print(f"{'run':<22}{'samples':>9}{'jsonl MB':>10}{'report s':>10}{'explorer s':>12}"
          f"{'explorer MB':>13}{'html MB':>9}")
    for label, samples, jsonl_mb, report_s, explorer_s, section_mb, page_mb, _ in rows:
        print(f"{label:<22}{samples:>9,}{jsonl_mb:>10.1f}{report_s:>10.1f}{explorer_s:>12.1f}"
              f"{section_mb:>13.1f}{page_mb:>9.1f}")
    print(f"\n{'browser step':<36}{'baseline s':>12}{'scaled s':>10}{'ratio':>8}")
    small, large = rows[0][-1], rows[1][-1]
    for step, seconds in large.items():
        print(f"{step:<36}{small[step]:>12.3f}{seconds:>10.3f}"
              f"{seconds / max(small[step], 1e-6):>8.1f}")


if __name__ == "__main__":
    main()
