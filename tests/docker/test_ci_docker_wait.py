"""The test session waits for .ci/run's background Docker set-up and requires the Docker tests
only when that set-up succeeded."""

from __future__ import annotations

import os

import pytest
from docker_helpers import wait_for_ci_docker


@pytest.mark.parametrize(("status", "required"), [("1 7", True), ("0 3", False)])
def test_the_docker_tests_are_required_only_after_a_good_set_up(status, required, tmp_path,
                                                                monkeypatch, capfd):
    # Set, then removed: monkeypatch then restores the variable as it was after the test, even
    # though wait_for_ci_docker sets it behind monkeypatch's back.
    monkeypatch.setenv("KGCERT_REQUIRE_DOCKER", "")
    monkeypatch.delenv("KGCERT_REQUIRE_DOCKER")
    monkeypatch.setenv("KGCERT_CI_DOCKER_STATUS", str(tmp_path / "status"))
    (tmp_path / "status").write_text(status + "\n")
    (tmp_path / "status.log").write_text("apt noise\nci-docker: engine 20.10\nE: no space left\n")
    wait_for_ci_docker(limit_s=5)
    assert (os.environ.get("KGCERT_REQUIRE_DOCKER") == "1") is required
    shown = capfd.readouterr().err
    assert "ci-docker: engine 20.10" in shown
    assert ("took 7 s" in shown) is required
    assert ("E: no space left" in shown) is not required


def test_a_set_up_that_never_ends_is_not_waited_for_forever(tmp_path, monkeypatch, capfd):
    # Set, then removed: monkeypatch then restores the variable as it was after the test, even
    # though wait_for_ci_docker sets it behind monkeypatch's back.
    monkeypatch.setenv("KGCERT_REQUIRE_DOCKER", "")
    monkeypatch.delenv("KGCERT_REQUIRE_DOCKER")
    monkeypatch.setenv("KGCERT_CI_DOCKER_STATUS", str(tmp_path / "status"))
    wait_for_ci_docker(limit_s=0)
    assert "KGCERT_REQUIRE_DOCKER" not in os.environ
    assert "the Docker tests will skip" in capfd.readouterr().err
