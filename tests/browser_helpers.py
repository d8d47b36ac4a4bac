"""Headless Chromium for the report's browser tests, or a skip that says what to install."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def headless_chromium(*arguments: str) -> Iterator[Any]:
    """A Selenium driver of the machine's Chromium, headless, with `arguments` added; quit
    when the generator closes (use it as the body of a fixture)."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="Selenium is not installed (pip install 'kgcert[test]')")
    from selenium.webdriver.chrome.service import Service

    chromium = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                     if (found := shutil.which(name))), None)
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("no headless browser: install Chromium and its driver "
                    "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", *arguments):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
