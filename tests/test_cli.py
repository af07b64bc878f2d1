"""The ``svmteach`` command: ``lab`` copies the course without overwriting a student's notebooks and
really starts JupyterLab on it (as root too, with JupyterLab's own options passed through);
``bench`` runs the checkout's benchmark harness and refuses bad arguments before it runs; ``verify`` runs
the derivations; ``--help`` loads nothing heavy.

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

import numpy as np
import pytest

from svmteach import cli
from svmteach.exercises.notebooks import course_source

bench = cli.bench_harness()  # benchmarks/harness.py of this checkout

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
    course = sorted(p.name for p in course_source().glob("*.ipynb"))
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
    assert names and names == sorted(p.name for p in course_source().glob("*.ipynb"))
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


@pytest.mark.slow  # tens of seconds: the whole run only (conftest.py's tiers)
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


def test_help_loads_nothing_heavy():
    """``svmteach --help`` answers without numba, scikit-learn, SciPy, matplotlib or the benchmark harness."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "svmteach.cli", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "bench" in out.stdout
    loaded = {line.rpartition("|")[2].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "svmteach" in loaded  # the importtime lines were read (the command itself runs as __main__)
    heavy = {m for m in loaded if m.partition(".")[0] in ("numba", "sklearn", "scipy", "matplotlib", "harness")}
    assert not heavy, sorted(heavy)


def test_version_is_the_package_version(capsys):
    import svmteach

    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"svmteach {svmteach.__version__}"


# ---- svmteach bench ----------------------------------------------------------------------------

def test_bench_without_a_checkout_says_where_the_harness_is_looked_for(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "CHECKOUT", tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", "--sizes", "1000"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "benchmarks" / "harness.py") in err and "pip install -e" in err



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
    ("--repeat", "0", "at least 1"),
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
    assert seen == dict(sizes=[1000], d=3, k=2, tol=0.5, losses=("ww", "cs"), cpu_budget=300.0, out=str(out),
                        repeat=3, liblinear=True)
    seen.clear()
    assert cli.main(["bench", "--sizes", "1000", "--repeat", "2", "--no-liblinear", "--losses", "cs"]) == 0
    assert seen["repeat"] == 2 and seen["liblinear"] is False and seen["losses"] == ("cs",)


@pytest.mark.parametrize("num, num_done, den, den_done, text", [
    (2.0, True, 1.0, True, "2.00x"),
    (1.0, True, 3.0, True, "0.33x"),
    (24.68, True, 2.0, True, "12.3x"),
    # a numerator stopped short would have taken longer: a lower bound, rounded down so that it stays true
    (2.049, False, 1.0, True, "> 2.04x"),
    (123.49, False, 10.0, True, "> 12.3x"),
    # a denominator stopped short: an upper bound, rounded up
    (0.601, True, 1.0, False, "< 0.61x"),
    (1.0, False, 1.0, False, "no bound (both stopped short)"),
])
def test_bench_writes_a_ratio_from_a_stopped_run_as_a_bound(num, num_done, den, den_done, text):
    assert bench.ratio_text(num, num_done, den, den_done) == text


def test_bench_repeats_finished_runs_only_and_gives_median_and_range():
    runs = iter([dict(seconds=3.0, converged=True), dict(seconds=1.0, converged=True),
                 dict(seconds=2.0, converged=True)])
    out = bench.repeated(lambda: next(runs), 3)
    assert out["times"] == [3.0, 1.0, 2.0] and out["seconds"] == 2.0
    assert bench.spread(out["times"]) == "2 s (1-3)" and bench.spread([0.01234]) == "0.0123 s"
    calls = []
    stopped = bench.repeated(lambda: calls.append(1) or dict(seconds=300.5, converged=False), 3)
    assert len(calls) == 1 and stopped["times"] == [300.5] and not stopped["converged"]


def test_bench_table_marks_runs_stopped_at_their_budget(monkeypatch, capsys):
    """A CPU run stopped at its budget: its time is printed as a lower bound, both speed-ups as bounds."""
    def cpu(problem, tol, budget):
        return dict(seconds=5.0, epochs=10.0, gap=0.5, dual=1.0, converged=False)

    def parallel(problem, tol, device, budget):
        return dict(seconds=2.0, steps=40, per_step=0.05, gap=1e-4, dual=1.0, converged=True)

    monkeypatch.setattr(bench, "run_cpu", cpu)
    monkeypatch.setattr(bench, "run_parallel", parallel)
    monkeypatch.setattr(bench, "_warm_up", lambda *a: None)
    monkeypatch.setattr(bench, "run_liblinear", lambda prob, classes, repeat: (np.zeros((3, 20)), [1.0] * repeat))
    monkeypatch.setattr(bench, "liblinear_available", lambda: True)
    monkeypatch.setattr(bench, "liblinear_problem", lambda X, y: None)
    monkeypatch.setattr(bench, "cupy_available", lambda: False)
    (row,) = bench.benchmark([1000], d=20, k=3, losses=("cs",), repeat=3)
    assert row["cpu_times"] == [5.0]  # not repeated: it stopped at its budget
    assert row["speedup_text"] == "> 2.50x" and row["cpu_vs_liblinear"] == "> 5.00x"
    assert row["parallel_times"] == [2.0] * 3
    out = capsys.readouterr().out
    assert "| > 5 s | 10 |" in out and "| > 2.50x |" in out and "| > 5.00x |" in out
    assert "cores" in out and "numba threads" in out and "BLAS threads" in out and bench.cpu_model() in out


def test_bench_reads_liblinear_weights_in_svmteach_class_order():
    """LIBLINEAR stores W by feature and its classes in the order met; liblinear_cs gives (k, d) rows in
    sorted-label order: checked against scikit-learn's Crammer-Singer (LIBLINEAR inside, its own layout)."""
    pytest.importorskip("liblinear")
    from sklearn.svm import LinearSVC

    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 5))
    y = np.array([7, 10, 4, 1])[rng.integers(0, 4, 120)]
    y[:4] = [7, 10, 4, 1]  # LIBLINEAR meets the labels in this order, not sorted
    X[:, -1] = 0.0  # a last column without a nonzero: W still has all d columns
    X += 0.8 * np.eye(4, 5)[np.searchsorted([1, 4, 7, 10], y)]
    W, seconds = bench.liblinear_cs(bench.liblinear_problem(X, y), np.unique(y), C=0.5, eps=1e-8)
    ref = LinearSVC(C=0.5, multi_class="crammer_singer", fit_intercept=False, tol=1e-8, max_iter=100_000).fit(X, y)
    assert W.shape == (4, 5) and seconds >= 0
    assert np.allclose(W, ref.coef_, atol=1e-5)


# ---- svmteach verify ---------------------------------------------------------------------------

@pytest.mark.slow  # tens of seconds: the whole run only (conftest.py's tiers)
@pytest.mark.xdist_group("derivations")  # the worker that derives every model once: verify reads its cache
def test_verify_runs_the_derivations(capsys, monkeypatch):
    from svmteach import derivations
    from svmteach.derivations import __main__ as derivations_cli

    derived = []

    def cached_steps(models=None):  # each model derived once per process, as test_derivations.py reads them
        keys = list(derivations.MODELS) if models is None else models
        derived.extend(keys)
        return [s for key in keys for s in derivations.steps(key)]

    monkeypatch.setattr(derivations_cli, "all_steps", cached_steps)
    assert cli.main(["verify"]) == 0
    out = capsys.readouterr().out
    assert derived == list(derivations.MODELS)  # verify asked for every model
    assert re.search(r"\n\d+ verified, \d+ errata, \d+ caveats?, \d+ definitions, 0 failed\n$", out), out[-300:]
