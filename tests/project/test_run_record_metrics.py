"""benchmarks/run_record_metrics.py (issue 44's before/after table): it measures this tree, and
on a planted tree it counts exactly the reads, writes and circles its rules name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmark_modules import BENCHMARKS, load_benchmark

REPO = Path(__file__).resolve().parents[2]

PLANTED = {
    "kgcert/__init__.py": "",
    "kgcert/cli/__init__.py": "",
    # two string-key reads of certificate fields; a generic key, a write and another dict's
    # unknown key are not
    "kgcert/cli/show.py": (
        "import json\n"
        "from kgcert.rundir.layout import RunLayout\n\n\n"
        "def show(body, row, layout):\n"
        "    body['guarantee'] = body['guarantee'] + '.'\n"
        "    print(body.get('lower'), row['spec'], row['whatever'])\n"
        "    return json.loads((layout.certificates_dir / 'a.json').read_text())\n\n\n"
        "def other(path):\n"
        "    return json.loads(path.read_text())\n"),
    # inside kgcert/certify/ and kgcert/rundir/run_dir.py the same reads are the type's own
    "kgcert/certify/__init__.py": "",
    "kgcert/certify/certificate.py": "def lower(body):\n    return body['lower']\n",
    "kgcert/rundir/__init__.py": "",
    "kgcert/rundir/layout.py": "RUN_FILE = 'run.yaml'\n",
    "kgcert/rundir/run_dir.py": (
        "import json\n\n\ndef certificate(path):\n    return json.loads(path.read_text())\n"),
    # a circle held only by a type-only import, and the run file written twice
    "kgcert/run/__init__.py": "",
    "kgcert/run/a.py": (
        "from typing import TYPE_CHECKING\n"
        "from kgcert.rundir.layout import RUN_FILE\n"
        "if TYPE_CHECKING:\n    from kgcert.run.b import B\n\n\n"
        "def save(layout, text, write_text):\n"
        "    saved = layout.run_file\n"
        "    write_text(saved, text)\n"
        "    (layout.root / RUN_FILE).write_text(text)\n"
        "    (layout.root / 'design.json').write_text(text)\n"),
    "kgcert/run/b.py": "from kgcert.run import a\n\n\nclass B:\n    pass\n",
}


def test_it_counts_what_is_planted(tmp_path: Path):
    metrics = load_benchmark("run_record_metrics")
    for name, text in PLANTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    column = metrics.measure(tmp_path)
    assert sorted(column.key_reads) == ["kgcert/cli/show.py:6 guarantee",
                                        "kgcert/cli/show.py:7 lower"]
    assert column.json_reads == ["kgcert/cli/show.py:8"]
    assert sorted(column.run_yaml_writes) == ["kgcert/run/a.py:10", "kgcert/run/a.py:9"]
    assert column.circles == [["kgcert.run.a", "kgcert.run.b"]]
    assert column.modules == len(PLANTED)
    assert (column.run_modules, column.run_lines) == (3, 16)
    assert column.largest == ("kgcert.run.a.save", 5)


def test_it_measures_this_tree_and_compares_two():
    metrics = load_benchmark("run_record_metrics")
    column = metrics.measure(REPO)
    assert column.modules == len(list((REPO / "kgcert").rglob("*.py")))
    assert column.lines == sum(len(p.read_text().splitlines())
                               for p in (REPO / "kgcert").rglob("*.py"))
    done = subprocess.run([sys.executable, str(BENCHMARKS / "run_record_metrics.py"),
                           "--compare", str(REPO), str(REPO)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    [modules] = [line for line in done.stdout.splitlines() if "modules (kgcert/)" in line]
    assert modules.count(f" {column.modules} ") == 2
