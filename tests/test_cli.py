"""The ``svmteach`` command: ``lab`` copies the course without overwriting a student's notebooks and
really starts JupyterLab on it (as root too, with JupyterLab's own options passed through);
``bench`` refuses bad arguments before it runs; ``verify`` runs the derivations.

:func:`running_lab` and :func:`check_lab` are also used by ``test_newcomer.py``."""

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from svmteach import bench, cli

#: generous: JupyterLab starts in seconds, but CI's two cores may be busy with other work
DEADLINE = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, what: str, deadline: float = DEADLINE, proc=None, log=None):
    """Poll ``condition()`` until it returns something truthy; fail after ``deadline`` seconds,
    or at once if ``proc`` ends, with the server's log."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what}: the process ended with {proc.returncode}:\n{log() if log else ''}")
        time.sleep(0.25)
    pytest.fail(f"{what}: not within {deadline:.0f} s\n{log() if log else ''}")


def fetch(url: str):
    """The body of ``url`` as text, or None while the server does not answer yet."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read().decode()
    except (urllib.error.URLError, OSError):
        return None


@contextlib.contextmanager
def running_lab(cmd, cwd: Path, env=None):
    """Run ``svmteach lab ...`` (``cmd``) in its own process group; yield the course URL it announces
    and a function returning its log so far.  On exit, stop it with SIGTERM to the group and wait
    (with a deadline) until it has exited."""
    log_path = cwd / "lab.log"
    with open(log_path, "w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    log = log_path.read_text
    try:
        announced = wait_for(lambda: re.search(r"the course is open at (\S+)", log()), "svmteach lab's URL",
                             proc=proc, log=log)
        yield announced.group(1), log
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=DEADLINE)  # svmteach passes SIGTERM on and returns when JupyterLab has exited
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            pytest.fail(f"svmteach lab did not stop on SIGTERM within {DEADLINE:.0f} s:\n{log()}")


def check_lab(url: str, folder: Path, log):
    """The page at ``url`` is JupyterLab, serving ``folder``, which holds every course notebook."""
    page = wait_for(lambda: fetch(url), f"the page {url}", log=log)
    assert "<title>JupyterLab</title>" in page and "jupyter-config-data" in page
    course = sorted(p.name for p in cli.course_source().glob("*.ipynb"))
    assert course and sorted(p.name for p in folder.glob("*.ipynb")) == course
    token = re.search(r"token=(\w+)", url)
    api = url.split("/lab")[0] + "/api/contents" + (f"?token={token.group(1)}" if token else "")
    listed = json.loads(wait_for(lambda: fetch(api), "the contents API", log=log))["content"]
    assert set(course) <= {item["name"] for item in listed}  # the server's root is the course folder


# ---- svmteach lab ------------------------------------------------------------------------------

def test_lab_copies_the_course_and_keeps_existing_work(tmp_path, capsys):
    target = tmp_path / "course"
    assert cli.main(["lab", "--dir", str(target), "--copy-only"]) == 0
    names = sorted(p.name for p in target.glob("*.ipynb"))
    assert names and names == sorted(p.name for p in cli.course_source().glob("*.ipynb"))
    mine = target / names[0]
    mine.write_text("my edits")
    cli.main(["lab", "--dir", str(target), "--copy-only"])
    assert mine.read_text() == "my edits"
    assert "existing ones kept" in capsys.readouterr().out


def test_lab_solutions_copies_the_course_with_every_exercise_solved(tmp_path, monkeypatch, capsys):
    import nbformat

    from svmteach.exercises import EXERCISES
    from svmteach.exercises.notebooks import stub_name

    monkeypatch.chdir(tmp_path)
    assert cli.main(["lab", "--solutions", "--copy-only"]) == 0  # its own default folder, not the student's
    target = tmp_path / "svmteach-solutions"
    assert "with every exercise solved" in capsys.readouterr().out
    assert not (tmp_path / "svmteach-course").exists()
    stubs = [c for p in sorted(target.glob("*.ipynb")) for c in nbformat.read(p, as_version=4).cells if stub_name(c)]
    assert sorted(stub_name(c) for c in stubs) == sorted(EXERCISES)
    for cell in stubs:
        assert f"def {stub_name(cell)}(" in cell.source and "return NotImplemented" not in cell.source
    mine = target / "04_smo.ipynb"
    mine.write_text("my notes")
    cli.main(["lab", "--solutions", "--dir", str(target), "--copy-only"])
    assert mine.read_text() == "my notes"


def test_lab_refuses_a_file_for_the_folder(tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["lab", "--dir", str(a_file)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--dir" in err and "not a folder" in err and "Traceback" not in err
    assert a_file.read_text() == "not a folder"


@pytest.mark.parametrize("euid", [0, 1000])
def test_lab_passes_jupyterlab_options_through_and_allows_root(tmp_path, monkeypatch, euid):
    started = []

    class FakeServer:
        def __init__(self, cmd):
            started.append(cmd)
            self.pid = -1

        def poll(self):
            return 0

        def wait(self):
            return 0

    monkeypatch.setattr(cli.subprocess, "Popen", FakeServer)
    monkeypatch.setattr(cli.os, "geteuid", lambda: euid, raising=False)
    options = ["--no-browser", "--port", "8890", "--ip=0.0.0.0"]
    assert cli.main(["lab", "--dir", str(tmp_path / "c"), *options]) == 0
    (cmd,) = started
    assert cmd[1:3] == ["-m", "jupyterlab"] and f"--ServerApp.root_dir={tmp_path / 'c'}" in cmd
    assert cmd[-len(options):] == options  # in order, and --no-browser is not taken for --copy-only
    assert ("--allow-root" in cmd) == (euid == 0)


def test_only_lab_takes_unknown_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["verify", "--port", "8890"])
    assert exit_.value.code == 2 and "unrecognized arguments: --port 8890" in capsys.readouterr().err


def test_lab_serves_the_course_as_the_current_user(tmp_path):
    """Really start it, as whoever runs the tests (root in CI), on a free port, and fetch the page."""
    folder = tmp_path / "course"
    cmd = [sys.executable, "-m", "svmteach.cli", "lab", "--dir", str(folder), "--no-browser",
           "--port", str(free_port()), "--ip", "127.0.0.1"]
    with running_lab(cmd, tmp_path) as (url, log):
        assert url.startswith("http://127.0.0.1:") and "/lab" in url
        assert "Ctrl-C twice" in log() and "jupyter server stop" in log()
        check_lab(url, folder, log)
    assert "Running as root is not recommended" not in log()


# ---- svmteach bench ----------------------------------------------------------------------------

def test_bench_help_is_plain_text(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "Crammer-Singer" in out and "--json" in out
    for markup in ("``", ":func:", ":class:", ":math:", "**", "\\"):
        assert markup not in out, markup


@pytest.mark.parametrize("option, value, says", [
    ("--d", "0", "at least 1"),
    ("--k", "1", "at least 2"),
    ("--tol", "-1", "above 0"),
    ("--tol", "nan", "above 0"),
    ("--cpu-budget", "0", "above 0"),
    ("--json", "/nonexistent/x.json", "does not exist"),
])
def test_bench_refuses_bad_arguments_before_running(monkeypatch, capsys, tmp_path, option, value, says):
    monkeypatch.setattr(bench, "benchmark", lambda *a, **k: pytest.fail("the benchmark ran"))
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and says in err and "Traceback" not in err


def test_bench_refuses_a_json_path_it_cannot_write(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(bench, "benchmark", lambda *a, **k: pytest.fail("the benchmark ran"))
    with pytest.raises(SystemExit):
        cli.main(["bench", "--json", str(tmp_path)])  # a folder, not a file
    assert "argument --json" in capsys.readouterr().err
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(SystemExit):
            cli.main(["bench", "--json", str(locked / "x.json")])
        assert "cannot be written" in capsys.readouterr().err


def test_bench_passes_valid_arguments_on(monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr(bench, "benchmark", lambda sizes, **kw: seen.update(kw, sizes=sizes))
    out = tmp_path / "rows.json"
    assert cli.main(["bench", "--sizes", "1000", "--d", "3", "--k", "2", "--tol", "0.5", "--json", str(out)]) == 0
    assert seen == dict(sizes=[1000], d=3, k=2, tol=0.5, losses=("ww", "cs"), cpu_budget=300.0, out=str(out))


# ---- svmteach verify ---------------------------------------------------------------------------

def test_verify_runs_the_derivations(capsys):
    assert cli.main(["verify"]) == 0
    assert "errata" in capsys.readouterr().out
