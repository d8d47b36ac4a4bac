"""`kgcert view`: a local page (loopback only) listing every run under a folder with its
headlines, each run's report built on request, and both refreshing while a run is written.

A page asks `state` every POLL_MS; the answer is a digest of the run's sample and certificate
files (names, sizes, modification times), so a page reloads only when a file changed. Pages are
built from the files each time they changed (the report's own code, no figures), so what the
viewer shows is what `kgcert report` would write at that moment.

    server = ViewServer(Path("runs"))        # port 0: a free one
    server.url                               # http://127.0.0.1:PORT/
    server.serve_forever()
"""

from __future__ import annotations

import hashlib
import html
import json
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from kgcert.errors import InputError, KgcertError
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir, run_dir_of

POLL_MS = 1500
LOOPBACK = "127.0.0.1"
MAX_DEPTH = 3  # run folders this deep under the root are listed


def run_folders(root: Path) -> list[Path]:
    """Every run folder under `root` (the root itself when it is one), sorted."""
    if RunLayout(root).run_file.is_file():
        return [root]
    found: list[Path] = []

    def walk(folder: Path, depth: int) -> None:
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            return
        for child in children:
            if RunLayout(child).run_file.is_file():
                found.append(child)
            elif depth < MAX_DEPTH and not child.name.startswith("."):
                walk(child, depth + 1)

    walk(root, 1)
    return found


def _files(run: Path) -> Iterator[Path]:
    layout = RunLayout(run)
    yield layout.run_file
    yield from run_dir_of(run).sample_files()
    yield from RunDir(layout).certificate_paths()


def run_state(run: Path) -> str:
    """A digest that changes whenever a sample or certificate file of `run` changes."""
    digest = hashlib.sha256()
    for path in _files(run):
        try:
            stat = path.stat()
        except OSError:
            continue
        digest.update(f"{path.name}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


LIVE_SCRIPT = """<script>
(function () {
  var state = %s, url = %s;
  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (s) {
      if (s.state !== state) location.reload();
      else setTimeout(poll, %d);
    }).catch(function () { setTimeout(poll, %d); });
  }
  setTimeout(poll, %d);
})();
</script>"""

BANNER = ('<p class="live" style="background:#eef4fb;padding:0.4em 0.8em;margin:0">'
          'kgcert view: this page reloads as the run is written. <a href="/">All runs</a></p>')


def live_script(state: str, url: str) -> str:
    return LIVE_SCRIPT % (json.dumps(state), json.dumps(url), POLL_MS, POLL_MS, POLL_MS)


def _page(title: str, body: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>"
            "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .6em;"
            "text-align:left}th{background:#f3f3f3}.note{color:#555}"
            f"</style></head><body>{body}</body></html>\n")


class Viewer:
    """What the server answers: the listing, a run's report, and states to poll."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pages: dict[Path, tuple[str, str]] = {}  # run -> (state, page)
        self._lock = threading.Lock()

    def runs(self) -> dict[str, Path]:
        """Runs by the name their page is addressed by (their path under the root)."""
        named = {}
        for run in run_folders(self.root):
            name = run.relative_to(self.root).as_posix() if run != self.root else run.name
            named[name] = run
        return named

    def state(self) -> str:
        digest = hashlib.sha256()
        for name, run in sorted(self.runs().items()):
            digest.update(f"{name}:{run_state(run)}\n".encode())
        return digest.hexdigest()[:16]

    def index(self) -> str:
        from kgcert.report.headline import headline_rows, run_headlines
        from kgcert.report.run_frames import load_runs

        runs = self.runs()
        parts = [f"<h1>kgcert view: {html.escape(str(self.root))}</h1>",
                 f'<p class="note">{len(runs)} run{"" if len(runs) == 1 else "s"}; this page '
                 "reloads when a run's samples or certificates change.</p>"]
        columns = ("model", "spec or suite", "setting", "k / n", "interval", "verdict",
                   "position bias")
        for name, run in runs.items():
            link = f"/run/{quote(name)}/"
            parts.append(f'<h2><a class="run" href="{link}">{html.escape(name)}</a></h2>')
            try:
                rows = headline_rows(run_headlines(load_runs([run], samples=False)))
            except KgcertError as error:
                parts.append(f'<p class="note">{html.escape(str(error))}</p>')
                continue
            folder = run_dir_of(run)
            samples = sum(map(folder.sample_lines, folder.sample_files()))
            parts.append(f'<p class="note" data-samples="{samples}">{samples:,} samples '
                         "written</p>")
            if not rows:
                parts.append('<p class="note">no certificate yet</p>')
                continue
            head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(row[c])}</td>" for c in columns)
                           + "</tr>" for row in rows)
            parts.append(f'<table class="headline"><thead><tr>{head}</tr></thead>'
                         f"<tbody>{body}</tbody></table>")
        return _page("kgcert view", "".join(parts) + live_script(self.state(), "/state"))

    def report(self, name: str) -> str | None:
        """The run's report page as `kgcert report` would write it now; None: no such run."""
        run = self.runs().get(name)
        if run is None:
            return None
        state = run_state(run)
        with self._lock:
            cached = self._pages.get(run)
            if cached is not None and cached[0] == state:
                return cached[1]
        page = self._build(run)
        script = live_script(state, f"/run/{quote(name)}/state")
        page = page.replace("<body>", "<body>" + BANNER, 1).replace(
            "</body>", script + "</body>", 1)
        with self._lock:
            self._pages[run] = (state, page)
        return page

    @staticmethod
    def _build(run: Path) -> str:
        from kgcert.report.build import build_report
        from kgcert.report.html import render

        try:
            return render(build_report([run]))
        except InputError as error:  # nothing written yet: say so, and wait for it
            return _page(f"kgcert view: {run.name}",
                         f"<h1>{html.escape(run.name)}</h1><p>{html.escape(str(error))}</p>")


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        viewer = self.server.viewer
        path = unquote(self.path.split("?", 1)[0])
        if path == "/":
            self._send(viewer.index())
        elif path == "/state":
            self._send(json.dumps({"state": viewer.state()}), "application/json")
        elif path.startswith("/run/") and path.endswith("/state"):
            run = viewer.runs().get(path[len("/run/"):-len("/state")].rstrip("/"))
            if run is None:
                self._missing()
            else:
                self._send(json.dumps({"state": run_state(run)}), "application/json")
        elif path.startswith("/run/") and path.endswith("/"):
            page = viewer.report(path[len("/run/"):-1])
            if page is None:
                self._missing()
            else:
                self._send(page)
        else:
            self._missing()

    def _missing(self) -> None:
        self._send("no such page or run", "text/plain", HTTPStatus.NOT_FOUND)

    def _send(self, text: str, kind: str = "text/html",
              status: HTTPStatus = HTTPStatus.OK) -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # the terminal shows the URL, not every request


class ViewServer(ThreadingHTTPServer):
    """The viewer on the loopback interface only: nothing off this machine reaches it."""

    daemon_threads = True

    def __init__(self, root: Path, port: int = 0) -> None:
        if not root.is_dir():
            raise InputError(f"{root} is not a folder: name the folder that holds your runs")
        self.viewer = Viewer(root)
        super().__init__((LOOPBACK, port), _Handler)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}/"
