"""Reports over run directories: tables (pandas), figures (matplotlib, optional), one static
HTML page, and paired model comparisons.

- :mod:`~kgcert.report.run_frames`: run directories into certificate and sample DataFrames;
- :mod:`~kgcert.report.tables`: LLMCert-C Table 1, per-spec certificates, KG-LLM-Bench
  task x format accuracies, accuracy by path length;
- :mod:`~kgcert.report.plots`: forest plots, heatmaps, accuracy by path length (PNG, SVG);
- :mod:`~kgcert.report.build`: all of it written under one folder with `report.html`;
- :mod:`~kgcert.report.compare`: exact McNemar per pair and a Holm-corrected hierarchy on
  samples aligned by index.
"""

from kgcert.report.build import build_report, write_report
from kgcert.report.compare import Alignment, Comparison, align, compare, compare_json
from kgcert.report.contents import Report
from kgcert.report.run_frames import RunInfo, RunSet, check_run_dir, load_runs
from kgcert.report.tables import (
    heatmap_matrix,
    outcome_roles,
    path_length_table,
    spec_table,
    summary_table,
    task_table,
)

__all__ = [
    "Alignment",
    "Comparison",
    "Report",
    "RunInfo",
    "RunSet",
    "align",
    "build_report",
    "check_run_dir",
    "compare",
    "compare_json",
    "heatmap_matrix",
    "load_runs",
    "outcome_roles",
    "path_length_table",
    "spec_table",
    "summary_table",
    "task_table",
    "write_report",
]
