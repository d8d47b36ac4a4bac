"""The sha256 of `kgcert prompts --json` over a fixed matrix of specs and settings, for a
change that must leave every prompt as it was (run it before and after, or on two checkouts).

    python benchmarks/prompt_digest.py --load                  # load the three KGs once
    python benchmarks/prompt_digest.py [--checkout ../main]    # one digest per case and a total
    python benchmarks/prompt_digest.py --compare ../main       # both checkouts, case by case

The matrix: relation specs (both settings, few-shot 1 and 3) on PrimeKG's Alzheimer extract
(`alz`), entity specs (both settings) on the countries KG in the Wikidata5m layout (`w5c`), and
task specs (three formats, real and fictional names) on the countries KG (`countries`). The
KGs live in KGCERT_DATA_DIR (loaded with `--load` from ../shared/data); each case is one
`kgcert` process importing the kgcert of the checkout given (PYTHONPATH). A warm embedded
server is started for the cases and stopped after them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = next((up / "shared" / "data" for up in HERE.parents if (up / "shared" / "data").is_dir()),
            HERE.parent / "shared" / "data")
KGS = {  # name -> (format, path under ../shared/data)
    "alz": ("primekg", "primekg/kg_alzheimer_neighbourhood.csv"),
    "countries": ("wikidatasets", "countries"),
    "w5c": ("wikidata5m", "wikidata5m_countries"),
}
RELATION_SPECS = ("primekg.dual_indication", "primekg.contraindication_indication",
                  "primekg.exposure_drug")
ENTITY_SPECS = ("wikidata5m.entity.Q16", "wikidata5m.entity.Q159")
TASK_SPECS = ("kgllmbench.shortest_path", "kgllmbench.agg_by_relation",
              "kgllmbench.triple_retrieval")
FORMATS = ("list", "json", "yaml")
COUNT = "4"


def cases() -> list[tuple[str, list[str]]]:
    """(case name, `kgcert prompts` arguments) of the matrix."""
    found = []
    for spec in RELATION_SPECS:
        for setting in ("vanilla", "distractor"):
            for shots in ("1", "3"):
                found.append((f"{spec}/{setting}/fs{shots}",
                              ["--kg", "alz", "--spec", spec, "--setting", setting,
                               "--few-shot", shots]))
    for spec in ENTITY_SPECS:
        for setting in ("vanilla", "distractor"):
            found.append((f"{spec}/{setting}", ["--kg", "w5c", "--spec", spec,
                                                "--setting", setting]))
    for spec in TASK_SPECS:
        for form in FORMATS:
            for names in ("real", "pseudonymized"):
                extra = ["--pseudonymize"] if names == "pseudonymized" else []
                found.append((f"{spec}/{form}/{names}",
                              ["--kg", "countries", "--spec", spec, "--format", form, *extra]))
    return found


def _env(checkout: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout.resolve()), "OMP_NUM_THREADS": "1"}


def _kgcert(checkout: Path, args: list[str]) -> bytes:
    # In the checkout: `python -m` puts the working folder first on the path.
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], env=_env(checkout),
                          cwd=checkout, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"kgcert {' '.join(args)} failed: {done.stderr.decode()[-2000:]}")
    return done.stdout


def digests(checkout: Path) -> dict[str, str]:
    """Per case, the sha256 of its JSON lines; "total" over all of them in order."""
    found: dict[str, str] = {}
    total = hashlib.sha256()
    imported = subprocess.run([sys.executable, "-c", "import kgcert; print(kgcert.__file__)"],
                              env=_env(checkout), cwd=checkout, capture_output=True, text=True,
                              check=True).stdout.strip()
    if not Path(imported).resolve().is_relative_to(checkout.resolve()):
        raise SystemExit(f"kgcert was imported from {imported}, not from {checkout}")
    _kgcert(checkout, ["server", "start"])
    try:
        for name, args in cases():
            out = _kgcert(checkout, ["prompts", "--json", "--n", COUNT, *args])
            if not out.strip():
                raise SystemExit(f"{name}: no prompts")
            found[name] = hashlib.sha256(out).hexdigest()
            total.update(out)
    finally:
        _kgcert(checkout, ["server", "stop"])
    found["total"] = total.hexdigest()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=HERE)
    parser.add_argument("--compare", type=Path, default=None,
                        help="Another checkout: digests of both, case by case.")
    parser.add_argument("--load", action="store_true", help="Load the KGs first.")
    args = parser.parse_args()
    if args.load:
        for name, (form, path) in KGS.items():
            _kgcert(args.checkout, ["load", form, str(DATA / path), "--kg", name])
    mine = digests(args.checkout)
    other = digests(args.compare) if args.compare is not None else None
    for name, digest in mine.items():
        if other is None:
            print(f"{digest}  {name}")
        else:
            print(f"{'same' if other[name] == digest else 'DIFFERENT':9} {digest[:16]} "
                  f"{other[name][:16]}  {name}")
    if other is not None and other != mine:
        raise SystemExit("the prompts differ")


if __name__ == "__main__":
    main()
