"""The warm embedded graph server's life: started on demand, reused, stopped when idle or asked,
recovered after a kill, shared by concurrent commands, never blocked by stale files; loads and
--no-server run the server in-process.

Every command runs as a user runs it (`python -m kgcert` in a fresh process). Each test starts
one or two JVMs (20-40 s each on a busy machine), so they are few and each checks a lot.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kgcert.store.warm_files import WarmFiles, is_warm_server, pid_alive

TIMEOUT_S = 300


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("KGCERT_NO_SERVER", "KGCERT_SERVER_IDLE")}
    return env | {"KGCERT_DATA_DIR": str(data_dir), **extra}


def _start(data_dir: Path, *args: str, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "kgcert", *args], env=_env(data_dir, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kgcert(data_dir: Path, *args: str, code: int = 0, **extra: str) -> str:
    process = _start(data_dir, *args, **extra)
    out, err = process.communicate(timeout=TIMEOUT_S)
    assert process.returncode == code, f"kgcert {' '.join(args)}: {err}"
    return out + err


# Holds a connection to the warm server (as a long command does) while it lists, creates and
# drops a KG through it, then prints what it saw.
_CLIENT = """
import json, sys, time
from pathlib import Path
from kgcert.util.locations import StoreTarget
from kgcert.store import connect
server = connect(StoreTarget(data_dir=Path(sys.argv[1]), warm=True))
hold = float(sys.argv[2])
store = server.create("warm_kg")
store.execute("CREATE (:Entity {id: 'a'})")
seen = {"pid": server.pid, "after_create": server.list_kgs(),
        "nodes": store.value("MATCH (n:Entity) RETURN count(n)")}
time.sleep(hold)
server.drop("warm_kg")
seen["after_drop"] = server.list_kgs()
print(json.dumps(seen))
"""


# Holds the server past its idle time, then lists the KGs through it.
_HOLDER = """
import json, sys, time
from pathlib import Path
from kgcert.util.locations import StoreTarget
from kgcert.store import connect
server = connect(StoreTarget(data_dir=Path(sys.argv[1]), warm=True))
time.sleep(float(sys.argv[2]))
print(json.dumps({"pid": server.pid, "kgs": server.list_kgs()}))
"""


def _client(data_dir: Path, hold: float, **extra: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _CLIENT, str(data_dir), str(hold)],
                          env=_env(data_dir, **extra), capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _server_pid(data_dir: Path) -> int:
    state = WarmFiles.of(data_dir).read_state()
    assert state is not None, "no state file"
    return int(state["pid"])


def _server_pid_after(output: str, data_dir: Path) -> int:
    pid = _server_pid(data_dir)
    assert f"warm, pid {pid}" in output
    return pid


def _wait_gone(pid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while pid_alive(pid):
        assert time.monotonic() < deadline, f"server {pid} still runs after {seconds} s"
        time.sleep(0.2)


@pytest.fixture
def data_dir(tmp_path: Path):
    """A fresh data directory; any warm server left by a failing test is stopped."""
    yield tmp_path
    state = WarmFiles(tmp_path / "embedded").read_state()
    if state is not None and pid_alive(state["pid"]) and is_warm_server(state["pid"]):
        os.kill(state["pid"], signal.SIGKILL)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.slow
def test_start_on_demand_reuse_status_stop_and_kill_recovery(data_dir: Path) -> None:
    files = WarmFiles.of(data_dir)
    assert "no warm server running" in _kgcert(data_dir, "server", "status")

    first = _kgcert(data_dir, "info")  # the first graph command starts the server
    pid = _server_pid(data_dir)
    assert f"warm, pid {pid}" in first and is_warm_server(pid)
    assert _mode(files.state) == 0o600 and _mode(files.socket) == 0o600
    state = files.read_state()
    assert state is not None and {"bolt_port", "started", "last_used"} <= state.keys()

    assert f"warm, pid {pid}" in _kgcert(data_dir, "info")  # reused: no second JVM
    assert _server_pid(data_dir) == pid

    seen = _client(data_dir, hold=0)  # create and drop go through the control socket
    assert seen == {"pid": pid, "after_create": ["warm_kg"], "nodes": 1, "after_drop": []}

    status = _kgcert(data_dir, "server", "status")
    assert str(pid) in status and f"127.0.0.1:{state['bolt_port']}" in status
    assert str(data_dir) in status and "stops in" in status

    # Killed without a chance to clean up: the state and socket files stay behind, stale.
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid, 30)
    assert files.state.exists() and files.socket.exists()
    assert "no warm server running" in _kgcert(data_dir, "server", "status")
    recovered = _kgcert(data_dir, "info")
    new_pid = _server_pid(data_dir)
    assert new_pid != pid and f"warm, pid {new_pid}" in recovered

    assert f"stopped the warm server (pid {new_pid})" in _kgcert(data_dir, "server", "stop")
    assert not pid_alive(new_pid)
    assert not files.state.exists() and not files.socket.exists()
    assert "no warm server running" in _kgcert(data_dir, "server", "stop")


@pytest.mark.slow
def test_concurrent_commands_share_one_server_that_stops_when_idle(data_dir: Path) -> None:
    idle = 15.0
    env = {"KGCERT_SERVER_IDLE": str(idle)}
    # Three commands and a long client (holding the server for twice the idle time) at once.
    client = subprocess.Popen([sys.executable, "-c", _HOLDER, str(data_dir), str(2 * idle)],
                              env=_env(data_dir, **env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    commands = [_start(data_dir, "info", **env) for _ in range(3)]
    outputs = [process.communicate(timeout=TIMEOUT_S) for process in commands]
    assert [process.returncode for process in commands] == [0, 0, 0], outputs
    pid = _server_pid(data_dir)
    assert all(f"warm, pid {pid}" in out for out, _ in outputs)
    daemons = subprocess.run(["pgrep", "-f", f"kgcert.store.daemon --data-dir {data_dir}"],
                             capture_output=True, text=True, check=False).stdout.split()
    assert daemons == [str(pid)]

    # The client used the same server, which stayed up while it held it past the idle time.
    out, err = client.communicate(timeout=TIMEOUT_S)
    assert client.returncode == 0, err
    seen = json.loads(out)
    assert seen == {"pid": pid, "kgs": []}
    # Once no command uses it, it stops by itself and removes its files.
    _wait_gone(pid, idle + 60)
    assert not WarmFiles.of(data_dir).state.exists()


@pytest.mark.slow
def test_stale_files_never_block_and_load_runs_in_process(data_dir: Path,
                                                          tmp_path_factory) -> None:
    from kgcert.synth.primekg import SyntheticPrimeKG

    files = WarmFiles.of(data_dir)
    # Left by a dead server: a state file naming a pid that is gone, a socket nobody
    # listens on, a damaged state file; a start lock file is always there.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    files.write_state({"pid": int(dead.stdout), "bolt_port": 1, "started": "x"})
    files.socket.write_text("")
    files.start_lock.write_text("")
    started = _kgcert(data_dir, "server", "start", "--idle", "600")
    pid = _server_pid(data_dir)
    assert f"pid         {pid}" in started
    files.state.write_text("{not json")
    # A damaged state file does not hide a server that answers: it is reused, the file healed.
    assert f"warm, pid {pid}" in _kgcert(data_dir, "info")
    assert _server_pid(data_dir) == pid
    # A server that runs but does not answer (stopped here) is killed and replaced.
    os.kill(pid, signal.SIGSTOP)
    restarted = _server_pid_after(_kgcert(data_dir, "info"), data_dir)
    assert restarted != pid
    _wait_gone(pid, 60)

    # A load needs the server in-process: it stops the idle warm server first, loads with the
    # bulk writer, and the next command starts a warm server that sees the KG.
    csv = tmp_path_factory.mktemp("synth") / "kg.csv"
    SyntheticPrimeKG(scale=0.01, seed=3).write_kg_csv(csv)
    loaded = _kgcert(data_dir, "load", "primekg", str(csv), "--kg", "synth")
    assert "loaded KG synth" in loaded and "warm" not in loaded
    assert not pid_alive(restarted)
    info, _ = json.JSONDecoder().raw_decode(_kgcert(data_dir, "info", "--kg", "synth", "--json"))
    assert info["manifest"]["status"] == "complete"  # one object per line, the first

    # --no-server (and KGCERT_NO_SERVER=1) run in-process, after stopping the idle server.
    warm_pid = _server_pid(data_dir)
    assert "warm" not in _kgcert(data_dir, "--no-server", "info", "--kg", "synth")
    assert not pid_alive(warm_pid) and not files.state.exists()
