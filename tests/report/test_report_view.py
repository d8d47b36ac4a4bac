"""`kgcert view` (issue 47 item 8): every run under a folder on a loopback page with its
headlines, each run's report, and a page that shows samples written after it opened without
running `report` again. A real run on the Alzheimer PrimeKG extract, extended while the page is
open in headless Chromium; the command itself as a user starts it."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from run_cli import kgcert
from test_report_verdict_browser import browser  # noqa: F401 (the headless Chromium fixture)

from kgcert.report.live import ViewServer, run_folders

SPEC = "primekg.dual_indication"


# Each test's run its own seed: the session's data dir records every look at a seed's prompts,
# and refuses a rerun of them at another n in a new folder (one test grows its run to 9).
SEEDS = itertools.count(4)


def _run(alzheimer_kg: Any, out: Path, n: int, *extra: str) -> None:
    done = kgcert(alzheimer_kg.data_dir, "run", "--kg", alzheimer_kg.name, "--spec", SPEC,
                  "--model", "bernoulli:0.5", "--mode", "choice", "--n", str(n),
                  "--out", str(out), *extra)
    assert done.exit_code == 0, done.output


@pytest.fixture
def runs(alzheimer_kg: Any, tmp_path: Path) -> Path:
    _run(alzheimer_kg, tmp_path / "runs" / "team" / "live", 6, "--seed", str(next(SEEDS)))
    return tmp_path / "runs"


@pytest.fixture
def server(runs: Path) -> Iterator[ViewServer]:
    served = ViewServer(runs)
    thread = threading.Thread(target=served.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read().decode("utf-8")


def test_listing_names_each_run_with_its_headline(server: ViewServer, runs: Path):
    assert server.url.startswith("http://127.0.0.1:")
    assert run_folders(runs) == [runs / "team" / "live"]
    page = _get(server.url)
    [body] = [json.loads(p.read_text()) for p in
              (runs / "team" / "live" / "certificates").glob("*.json")]
    assert '<a class="run" href="/run/team/live/">team/live</a>' in page
    assert f"<td>{body['k']} / {body['n']}</td>" in page and 'data-samples="6"' in page
    assert "cannot be told apart from chance" in page or "chance 0.25" in page
    with pytest.raises(urllib.error.HTTPError):
        _get(server.url + "run/../../etc/")  # only the listed runs are served


def test_a_sample_written_after_the_page_opened_appears(
        browser: Any, server: ViewServer, runs: Path, alzheimer_kg: Any):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.get(server.url + "run/team/live/")
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#kgx-count[data-count]"))
    count = browser.find_element(By.ID, "kgx-count")
    assert count.get_attribute("data-count") == "6"
    browser.execute_script("window.kgxOpened = true")  # gone once the page reloads itself
    # the run goes on while the page is open: three more samples, a new certificate
    _run(alzheimer_kg, runs / "team" / "live", 9, "--new-design")
    started = time.monotonic()
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(
        By.CSS_SELECTOR, '#kgx-count[data-count="9"]'))
    assert time.monotonic() - started < 30
    assert browser.execute_script("return window.kgxOpened") is None  # it reloaded itself
    verdict = browser.find_element(By.ID, "verdict").text
    [body] = [json.loads(p.read_text()) for p in
              (runs / "team" / "live" / "certificates").glob("*.json")]
    assert body["n"] == 9 and f"{body['k']} / 9" in verdict


def test_the_command_serves_on_loopback_and_refuses_a_missing_folder(runs: Path, tmp_path: Path):
    missing = subprocess.run([sys.executable, "-m", "kgcert", "view", str(tmp_path / "none")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and "not a folder" in missing.stderr
    process = subprocess.Popen([sys.executable, "-m", "kgcert", "view", str(runs), "--port",
                                "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert url.startswith("http://127.0.0.1:")
        assert "team/live" in _get(url)
    finally:
        process.terminate()
        process.wait(timeout=30)
