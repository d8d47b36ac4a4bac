"""What a report holds: its tables, comparisons, figures and the files written.

`build.py` fills a `Report` and `html.py` and `headline.py` render one: the type they share
lives here, so the renderers never import the module that builds and writes reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kgcert.report import plots
from kgcert.report.compare import Comparison
from kgcert.report.run_frames import RunSet
from kgcert.report.spec_details import SpecDetails
from kgcert.report.variants import VariantComparison


@dataclass
class Report:
    runs: RunSet
    confidence: float
    alpha: float
    summary: pd.DataFrame
    specs: pd.DataFrame
    tasks: pd.DataFrame
    path_lengths: pd.DataFrame
    roles: pd.DataFrame
    details: dict[str, SpecDetails] = field(default_factory=dict)  # description, examples
    comparisons: list[Comparison] = field(default_factory=list)
    variants: list[VariantComparison] = field(default_factory=list)  # formats, names, strategies
    plots: list[plots.Plot] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    out: Path = Path()  # the folder written to
    family: str = "spec"  # the Holm family of the paired comparisons (compare.FAMILIES)
    # suite certificates beside the mean of their specs' bounds (report/suites.py)
    suites: pd.DataFrame = field(default_factory=pd.DataFrame)

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by file name (without extension)."""
        return {"summary": self.summary, "suites": self.suites, "spec_certificates": self.specs,
                "task_formats": self.tasks, "path_length": self.path_lengths,
                "chosen_roles": self.roles, "certificates": self.runs.certificates,
                "samples": self.runs.samples}
