"""``python benchmarks/gpu.py --check``: the GPU tests and the GPU benchmark in one command, its table written
between two markers.  Here it runs as CI's smoke does, ``--cpu-dry-run`` (CuPy replaced by NumPy through the
code path CuPy's arrays take), and its pieces are checked alone: where the table goes, what a dry run may
replace, the budget's repeats and the substitution of CuPy's namespace."""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from svmteach import MulticlassProblem, cli
from svmteach.backend import cupy_available, is_numpy

ROOT = Path(__file__).resolve().parent.parent
harness = cli.bench_harness()  # benchmarks/harness.py, as gpu.py imports it
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu.py")
gpu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu)

OTHER = "# Results\n\nabove the block\n\n{begin}\n{inside}\n{end}\n\nbelow the block\n"


@pytest.mark.slow
def test_dry_run_writes_its_table_between_the_markers_and_replaces_it(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text(OTHER.format(begin=gpu.BEGIN, inside=f"an earlier {gpu.DRY_RUN}", end=gpu.END))
    command = [sys.executable, "benchmarks/gpu.py", "--check", "--cpu-dry-run", "--results", str(results)]
    # the file holds an earlier block between the markers: one run shows it replaced, not appended
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    text = results.read_text()
    assert text.startswith("# Results\n\nabove the block\n\n" + gpu.BEGIN)
    assert text.endswith(gpu.END + "\n\nbelow the block\n")
    assert text.count(gpu.BEGIN) == text.count(gpu.END) == 1  # replaced, not appended
    assert "an earlier" not in text
    block = text[text.index(gpu.BEGIN):text.index(gpu.END) + len(gpu.END)]
    assert gpu.DRY_RUN in block and "no GPU: CuPy replaced by NumPy" in block
    assert "--check --cpu-dry-run --results" in block  # the command
    assert "GPU tests" in block and ("skipped" in block or cupy_available())
    rows = [line.split(" | ") for line in block.splitlines() if line.startswith(("| ww |", "| cs |"))]
    assert [r[0:2] for r in rows] == [["| ww", "2000"], ["| cs", "2000"], ["| ww", "600"], ["| cs", "600"]]
    assert all(r[5] == "numpy-as-cupy" for r in rows[:2])  # the parallel solver's, then the kernel working sets'
    assert all(r[2] == "numpy-as-cupy" for r in rows[2:])
    gaps = [float(g) for r in rows[2:] for g in r[8].split(", ")]  # the device's and the CPU's certified gaps
    assert len(gaps) == 4 and all(0 <= g <= 1e-3 for g in gaps)
    assert block in done.stdout  # printed as well


def test_the_block_goes_only_where_the_markers_say(tmp_path):
    new = tmp_path / "new.md"
    gpu.write_block(new, "BLOCK", dry=True)  # a new file: the block alone
    assert new.read_text() == "BLOCK\n"
    without = tmp_path / "without.md"
    without.write_text("# Results\n")
    with pytest.raises(SystemExit, match="must hold the lines <!-- gpu-check:begin -->"):
        gpu.write_block(without, "BLOCK", dry=True)
    assert without.read_text() == "# Results\n"
    twice = tmp_path / "twice.md"
    twice.write_text(f"{gpu.BEGIN}\n{gpu.END}\n{gpu.BEGIN}\n{gpu.END}\n")
    with pytest.raises(SystemExit, match="once each"):
        gpu.write_block(twice, "BLOCK", dry=False)


def test_a_dry_run_never_replaces_a_gpu_measurement(tmp_path):
    results = tmp_path / "RESULTS.md"
    measured = OTHER.format(begin=gpu.BEGIN, inside="| ww | 100000 | ... on an H100 |", end=gpu.END)
    results.write_text(measured)
    with pytest.raises(SystemExit, match="holds a GPU measurement"):
        gpu.write_block(results, f"{gpu.BEGIN}\n{gpu.DRY_RUN}\n{gpu.END}", dry=True)
    assert results.read_text() == measured
    gpu.write_block(results, f"{gpu.BEGIN}\nanother GPU run\n{gpu.END}", dry=False)  # a GPU run does
    assert "another GPU run" in results.read_text() and "H100" not in results.read_text()
    empty = tmp_path / "empty.md"
    empty.write_text(OTHER.format(begin=gpu.BEGIN, inside="", end=gpu.END))
    gpu.write_block(empty, f"{gpu.BEGIN}\n{gpu.DRY_RUN}\n{gpu.END}", dry=True)  # empty markers take a dry run
    assert gpu.DRY_RUN in empty.read_text()


def test_insert_puts_a_block_written_elsewhere_into_the_file(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text(OTHER.format(begin=gpu.BEGIN, inside="old", end=gpu.END))
    fetched = tmp_path / "gpu-check.md"
    fetched.write_text(f"{gpu.BEGIN}\n| ww | 100000 | measured |\n{gpu.END}\n")
    assert gpu.main(["--insert", str(fetched), "--results", str(results)]) == 0
    assert results.read_text() == OTHER.format(begin=gpu.BEGIN, inside="| ww | 100000 | measured |", end=gpu.END)
    fetched.write_text("| ww | 100000 | measured |\n")
    with pytest.raises(SystemExit, match="is not a check's block"):
        gpu.main(["--insert", str(fetched), "--results", str(results)])


@pytest.mark.skipif(cupy_available(), reason="a machine with a GPU runs the check")
def test_check_without_a_gpu_asks_for_the_dry_run(tmp_path):
    with pytest.raises(SystemExit, match="--cpu-dry-run runs the same code path"):
        gpu.main(["--check", "--results", str(tmp_path / "r.md")])
    assert not (tmp_path / "r.md").exists()


def test_repeats_stop_before_a_run_would_pass_the_deadline():
    calls = []

    def run_once():
        calls.append(harness.seconds_left(until))
        return dict(seconds=10.0, converged=True)  # as if each run took 10 s: the next would not fit

    until = time.perf_counter() + 5.0
    out = harness.repeated(run_once, repeat=3, until=until)
    assert out["times"] == [10.0] and len(calls) == 1 and 0 < calls[0] <= 5.0
    out = harness.repeated(lambda: dict(seconds=1e-9, converged=True), repeat=3, until=time.perf_counter() + 60)
    assert out["times"] == [1e-9] * 3
    assert harness.seconds_left(None) == float("inf") and harness.seconds_left(time.perf_counter() - 1) == 0.0


def test_the_dry_runs_substitution_takes_cupys_code_path_and_only_inside():
    X = np.random.default_rng(0).standard_normal((30, 4)).astype(np.float32)
    y = np.arange(30) % 3
    with harness.code_path("numpy-as-cupy"):
        inside = MulticlassProblem(X, y)
        assert not is_numpy(inside.xp) and inside.xp.__name__ == "array_api_compat.numpy"
        assert inside.X.dtype == np.float32  # kept, as on CuPy
    assert is_numpy(MulticlassProblem(X, y).xp)
    with pytest.raises(ValueError, match="device must be one of"):
        harness.code_path("tpu")


def test_the_gpu_tests_counts_come_from_pytests_summary_whatever_follows_on_stderr(monkeypatch):
    """Under xdist (CI) a plugin writes a warning to stderr after pytest's summary: the counts are still read."""
    from types import SimpleNamespace

    done = SimpleNamespace(returncode=0, stdout="ssssss\n\n6 skipped, 41 deselected, 1 warning in 2.97s\n",
                           stderr="PytestBenchmarkWarning: Benchmarks are automatically disabled\n  warner(...)\n")
    monkeypatch.setattr(gpu.subprocess, "run", lambda *args, **kwargs: done)
    result = gpu.run_gpu_tests(timeout=10.0)
    assert result["counts"] == {"skipped": 6} and result["rc"] == 0
    assert "6 skipped" in gpu.tests_text(result, gpu=False)
