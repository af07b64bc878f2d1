"""The GPU check in one command: the GPU tests, then the GPU benchmark, its table written into RESULTS.md.

    python benchmarks/gpu.py --check                  # on a machine with CuPy and a CUDA GPU, under --budget (480 s)
    python benchmarks/gpu.py --check --cpu-dry-run    # anywhere: the same code path, CuPy replaced by NumPy
    python benchmarks/gpu.py --check --results out.md --budget 300
    python benchmarks/gpu.py --insert out.md          # a block written elsewhere (a device machine) into RESULTS.md
    python benchmarks/gpu.py --sizes 500000           # the benchmark alone (harness.py; ``svmteach bench``)

``--check``: (a) ``python -m pytest -q -o addopts="" -m gpu`` on the test modules that mark a test ``gpu``, in a
subprocess, its counts recorded (without CuPy or a GPU they skip, and the table says so); (b) the parallel solver against
the CPU fast path (:func:`harness.compare`) for Weston-Watkins and Crammer-Singer on
``synthetic_multiclass(n, d=784, k=10)`` at n = 100,000 and, when the budget leaves room,
1,000,000, beside the bandwidth bound of a step (two reads of X over the card's measured copy
rate); every run has a budget, the sizes share what the tests left, and a run stopped at its
budget is a bound (">"); (c) the table, with the machine, the GPU, the date and the command,
replaces what lies between :data:`BEGIN` and :data:`END` in ``--results`` (RESULTS.md's "The GPU
path" section by default).  (d) kernel multiclass: ``MulticlassSVC(kernel="rbf")`` (the working sets,
:class:`svmteach.solvers.WorkingSet`) with ``device="gpu"`` against the same estimator on the CPU and
scikit-learn's ``SVC`` (LIBSVM, one-vs-one) on ``benchmarks/kernel_multiclass.py``'s problem at n = 20,000
(wall-clock seconds of one fit each, the CPU fits on one thread), with both fits' certified gaps and how often
their predictions agree on the test set.  ``--cpu-dry-run``: n = 2,000, d = 50, one run each, the parallel
solver on NumPy arrays through the namespace CuPy's arrays get (:func:`harness.cupy_code_path_on_numpy`),
the host's copy rate for the card's, the kernel fits at n = 600; the table says it is not a GPU
measurement, and a dry run never replaces a GPU measurement in the file.
"""

from __future__ import annotations

import argparse
import datetime
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import harness
from svmteach.backend import cupy_available, one_blas_thread
from svmteach.data import synthetic_multiclass

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
BEGIN, END = "<!-- gpu-check:begin -->", "<!-- gpu-check:end -->"
DRY_RUN = "Dry run on the CPU: CuPy replaced by NumPy; not a GPU measurement."
#: A module that does not import where the check runs (a package missing there) is counted as an error, and the
#: GPU tests of the others still run.  Only the modules that mark a test ``gpu`` are collected (collecting the
#: whole suite took most of a dry run's time).
GPU_TESTS = [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-m", "gpu", "-p", "no:cacheprovider",
             "--continue-on-collection-errors"]


def gpu_test_files() -> list[str]:
    """The test modules that mark a test ``gpu`` (``pytest.mark.gpu`` in their text), relative to the checkout."""
    return sorted(str(f.relative_to(ROOT)) for f in (ROOT / "tests").rglob("test_*.py")
                  if "mark.gpu" in f.read_text(encoding="utf-8"))

#: What each kind of check measures: sizes, features, classes, runs of each solver, the gap to reach.
PLANS = {"gpu": dict(sizes=(100_000, 1_000_000), d=784, k=10, repeat=3, tol=1e-3, kernel_n=20_000,
                    kernel_seconds=150.0),
         "dry": dict(sizes=(2_000,), d=50, k=10, repeat=1, tol=1e-3, kernel_n=600, kernel_seconds=20.0)}
LOSSES = ("ww", "cs")
#: A size starts only with at least this many seconds of the budget for it (data, warm-up, four runs).
MIN_SECONDS_PER_SIZE = 60.0
#: Seconds kept back at the end of the budget for the table and the file.
RESERVE = 10.0
#: The tests may use at most this share of the budget.
TESTS_SHARE = 0.4


#: The counts of pytest's summary line.
SUMMARY = r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)"


def run_gpu_tests(timeout: float) -> dict:
    """The GPU tests in a subprocess: their counts (passed, failed, skipped, ...), exit code and seconds."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run(GPU_TESTS + gpu_test_files(), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(counts={}, rc=None, seconds=time.perf_counter() - t0, timed_out=True, tail="")
    # pytest's summary is stdout's last line that counts something (a plugin may write to stderr after it)
    lines = [line for line in done.stdout.splitlines() if re.search(SUMMARY, line)]
    tail = lines[-1:] or (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
    counts = {word.rstrip("s") if word != "passed" else word: int(num) for num, word in re.findall(SUMMARY, tail[0])}
    return dict(counts=counts, rc=done.returncode, seconds=time.perf_counter() - t0, timed_out=False, tail=tail[0])


def tests_text(t: dict, gpu: bool) -> str:
    command = f'python -m pytest -q -o addopts="" -m gpu {" ".join(gpu_test_files())}'
    if t["timed_out"]:
        return f"GPU tests (`{command}`): stopped after {t['seconds']:.0f} s, their share of the budget"
    c = t["counts"]
    parts = [f"{c[key]} {key}" for key in ("passed", "failed", "error", "skipped", "xfailed", "xpassed") if c.get(key)]
    text = f"GPU tests (`{command}`): {', '.join(parts) or 'none ran'} in {t['seconds']:.0f} s"
    if c.get("skipped"):
        text += " (skipped: no CuPy or no CUDA GPU on this machine)" if not gpu else " (skipped although CuPy sees a GPU)"
    if t["rc"] not in (0, 5):
        text += f"; pytest exited {t['rc']}: {t['tail']}"
    return text


def benchmark(plan: dict, device: str, deadline: float):
    """The harness's comparison at each of ``plan``'s sizes, as far as ``deadline`` allows: (rows, notes, the
    bandwidth's ``(peak, measured)``).  The sizes left share the time left; in a size, each loss gets its share,
    half of it for the parallel solver's runs."""
    rows, notes = [], []
    bandwidth = harness.bandwidth_bytes_per_second(np, 2**26) if device != "gpu" else harness.bandwidth_bytes_per_second()
    sizes = plan["sizes"]
    for i, n in enumerate(sizes):
        share = (deadline - time.perf_counter()) / (len(sizes) - i)  # the sizes left share the time left
        if share < MIN_SECONDS_PER_SIZE and device == "gpu":
            notes.append(f"n = {n:,} left out: {share:.0f} s of the budget were left for it "
                         f"(at least {MIN_SECONDS_PER_SIZE:.0f} s needed)")
            continue
        size_end = time.perf_counter() + share
        X, y = synthetic_multiclass(n, plan["d"], plan["k"], seed=0)
        harness._warm_up(X, y, LOSSES, plan["tol"], device)
        for j, loss in enumerate(LOSSES):
            loss_share = (size_end - time.perf_counter()) / (len(LOSSES) - j)
            start = time.perf_counter()
            cpu, par = harness.compare(X, y, loss, plan["tol"], device, plan["repeat"],
                                       parallel_until=start + loss_share / 2, cpu_until=start + loss_share)
            rows.append(dict(harness.row(X, loss, plan["tol"], cpu, par, device, bandwidth[0] or bandwidth[1]),
                             k=plan["k"]))
        del X, y
        if device == "gpu":
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()
    return rows, notes, bandwidth


def kernel_module():
    """``benchmarks/kernel_multiclass.py`` (its problem and settings), imported from beside this file."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import kernel_multiclass

    return kernel_multiclass


def kernel_benchmark(plan: dict, device: str, deadline: float):
    """Kernel multiclass on ``device`` against the CPU and SVC (the module's (d)): ``(rows, notes)``, a row per loss,
    each fit timed once (wall clock) after a small fit compiled the sub-problems' code."""
    from sklearn.svm import SVC

    from svmteach import MulticlassSVC

    kernel_multiclass = kernel_module()
    n = plan["kernel_n"]
    if deadline - time.perf_counter() < plan["kernel_seconds"]:
        return [], [f"kernel multiclass left out: {max(deadline - time.perf_counter(), 0):.0f} s of the budget were "
                    f"left for it (at least {plan['kernel_seconds']:.0f} s needed)"]
    Xtr, ytr, Xte, yte = kernel_multiclass.data(n)
    on_device = "gpu" if device == "gpu" else "cpu"  # the dry run: NumPy arrays through CuPy's code path

    def fitted(make, where):
        with harness.code_path(where):
            t0 = time.perf_counter()
            model = make().fit(Xtr, ytr)
            return time.perf_counter() - t0, model

    svc_s, svc = fitted(lambda: SVC(kernel="rbf", C=kernel_multiclass.C, gamma=kernel_multiclass.GAMMA), "cpu")
    rows = []
    for loss in LOSSES:
        def make(dev=on_device, loss=loss):
            return MulticlassSVC(kernel="rbf", loss=loss, C=kernel_multiclass.C, gamma=kernel_multiclass.GAMMA,
                                 solver="working_set", device=dev, random_state=0)

        for where in (device, "cpu"):  # compile (or load) the sub-problem's code, outside the timings
            with harness.code_path(where):
                make("cpu" if where == "cpu" else on_device).fit(Xtr[:300], ytr[:300])
        dev_s, on = fitted(make, device)
        cpu_s, cpu = fitted(lambda: make("cpu"), "cpu")
        rows.append(dict(loss=loss, n=n, device=device, device_seconds=dev_s, cpu_seconds=cpu_s, svc_seconds=svc_s,
                         device_gap=float(on.result_.gap), cpu_gap=float(cpu.result_.gap),
                         agree=float(np.mean(on.predict(Xte) == cpu.predict(Xte))),
                         accuracy=float(on.score(Xte, yte)), svc_accuracy=float(svc.score(Xte, yte))))
    return rows, []


def kernel_table(rows) -> str:
    """The kernel rows as a Markdown table."""
    head = ["loss", "n", "working sets (device)", "on the device", "on the CPU (1 thread)", "SVC (1 thread)",
            "CPU / device", "device / SVC", "gaps (device, CPU)", "test predictions agree", "test accuracy (SVC)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([
            r["loss"], str(r["n"]), r["device"], f"{r['device_seconds']:.2f} s", f"{r['cpu_seconds']:.2f} s",
            f"{r['svc_seconds']:.2f} s", f"{r['cpu_seconds'] / r['device_seconds']:.2f}x",
            f"{r['device_seconds'] / r['svc_seconds']:.2f}x", f"{r['device_gap']:.1e}, {r['cpu_gap']:.1e}",
            f"{100 * r['agree']:.1f}%", f"{r['accuracy']:.3f} ({r['svc_accuracy']:.3f})"]) + " |")
    return "\n".join(lines)


def report(rows, notes, tests, bandwidth, dry: bool, command: str, budget: float, seconds: float, plan: dict,
           kernel_rows=(), kernel_notes=()) -> str:
    """The block written between the markers: what ran where, when, by which command, and the table."""
    peak, measured = bandwidth
    if dry:
        where = ("no GPU: CuPy replaced by NumPy (the parallel solver on NumPy arrays through array-api-compat's "
                 f"namespace, the code path CuPy's arrays take); bandwidth: the host's memory copy, "
                 f"{measured / 1e9:.1f} GB/s")
    else:
        import cupy

        bw = [f"peak memory bandwidth {peak / 1e12:.2f} TB/s"] if peak else []
        bw.append(f"device copy {measured / 1e12:.2f} TB/s")
        where = f"GPU {harness.gpu_name()}, CuPy {cupy.__version__}, " + ", ".join(bw) + " (the bound uses the first)"
    lines = [BEGIN]
    if dry:
        lines += [f"**{DRY_RUN}**", ""]
    lines += [f"`{command}`, {datetime.date.today().isoformat()}, budget {budget:.0f} s, took {seconds:.0f} s.", "",
              f"Machine: {harness.machine()}; {where}.", "",
              tests_text(tests, not dry) + ".", "",
              f"Benchmark: `synthetic_multiclass(n, d={plan['d']}, k={plan['k']})`, float32, C = 1, to a relative "
              f"duality gap of {plan['tol']:g}; each run repeated up to {plan['repeat']} times within its budget "
              "(median and range); a run stopped at its budget is a bound (\">\").  The bandwidth bound of a "
              "step is two reads of X over the bandwidth.", "",
              harness.table(rows)]
    if notes:
        lines += [""] + [f"- {note}" for note in notes]
    if kernel_rows:
        kernel_multiclass = kernel_module()
        lines += ["", f"Kernel multiclass: `benchmarks/kernel_multiclass.py`'s problem (make_classification, "
                  f"{kernel_multiclass.D} features, {kernel_multiclass.K} classes), gaussian kernel, gamma = "
                  f"{kernel_multiclass.GAMMA:g}, C = {kernel_multiclass.C:g}; `MulticlassSVC(kernel=\"rbf\", "
                  "solver=\"working_set\")` at its defaults (tol 1e-3 on the certified gap) on the device and on "
                  "the CPU, `SVC(kernel=\"rbf\")` at its defaults; one fit each, wall clock.", "",
                  kernel_table(kernel_rows)]
    if kernel_notes:
        lines += [""] + [f"- {note}" for note in kernel_notes]
    lines.append(END)
    return "\n".join(lines)


def block_span(path: Path, dry: bool):
    """``(text, start, stop)``: ``path``'s text and where its block lies, markers included (None, None for a
    new or empty file).  A file without the markers is refused (naming them), and so is a dry run over a
    GPU measurement (empty markers take either): checked before the runs, and again before writing."""
    text = path.read_text() if path.exists() else ""
    if not text.strip():
        return text, None, None
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise SystemExit(f"{path} must hold the lines {BEGIN} and {END} once each, in that order, "
                         "where the check's table goes")
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    inside = text[start + len(BEGIN):stop - len(END)].strip()
    if dry and inside and DRY_RUN not in inside:
        raise SystemExit(f"{path} holds a GPU measurement between its markers: a dry run does not replace it "
                         "(give --results PATH for another file)")
    return text, start, stop


def write_block(path: Path, block: str, dry: bool) -> None:
    """Put ``block`` into ``path`` in place of what lies between the markers (a new or empty file: the block)."""
    text, start, stop = block_span(path, dry)
    path.write_text(block + "\n" if start is None else text[:start] + block + text[stop:])


def check(args, argv) -> int:
    t0 = time.perf_counter()
    deadline = t0 + args.budget - RESERVE
    gpu = cupy_available()
    if not (gpu or args.cpu_dry_run):
        raise SystemExit("python benchmarks/gpu.py --check: CuPy sees no CUDA GPU here (CuPy missing or no device); "
                         "--cpu-dry-run runs the same code path on the CPU, CuPy replaced by NumPy")
    dry = args.cpu_dry_run
    plan = PLANS["dry" if dry else "gpu"]
    results = Path(args.results) if args.results else RESULTS
    block_span(results, dry)  # a file the block cannot go into is refused before the runs
    tests = run_gpu_tests(timeout=TESTS_SHARE * args.budget)
    command = "python benchmarks/gpu.py " + " ".join(shlex.quote(a) for a in argv)
    with one_blas_thread():  # as every fit runs (CuPy is not limited); the table's machine line says so
        device = "numpy-as-cupy" if dry else "gpu"
        rows, notes, bandwidth = benchmark(plan, device, deadline - plan["kernel_seconds"])
        kernel_rows, kernel_notes = kernel_benchmark(plan, device, deadline)
        block = report(rows, notes, tests, bandwidth, dry, command, args.budget, time.perf_counter() - t0, plan,
                       kernel_rows, kernel_notes)
    print(block)
    write_block(results, block, dry)
    print(f"written to {results}", file=sys.stderr)
    failed = tests["timed_out"] or tests["rc"] not in (0, 5)
    return 1 if failed else 0


def insert(args) -> int:
    """Put a block that a check wrote elsewhere (the device machine's ``--results`` file) into ``--results``."""
    block = Path(args.insert).read_text().strip()
    if not (block.startswith(BEGIN) and block.endswith(END)):
        raise SystemExit(f"{args.insert} is not a check's block: it must start with {BEGIN} and end with {END}")
    results = Path(args.results) if args.results else RESULTS
    write_block(results, block, dry=DRY_RUN in block)
    print(f"written to {results}", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--check" not in argv and "--insert" not in argv:
        return harness.main(argv, prog="python benchmarks/gpu.py")
    parser = argparse.ArgumentParser(prog="python benchmarks/gpu.py --check", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true",
                      help="the GPU tests and the GPU benchmark, the table into RESULTS.md")
    mode.add_argument("--insert", metavar="BLOCK", default=None,
                      help="put the block a check wrote to --results elsewhere (fetched from a device machine) "
                           "into RESULTS.md (or --results)")
    parser.add_argument("--cpu-dry-run", action="store_true",
                        help="no GPU needed: the same code path on the CPU, CuPy replaced by NumPy, tiny sizes")
    parser.add_argument("--results", type=harness._writable_file, default=None,
                        help=f"the file the table goes into (default {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--budget", type=harness._positive_finite, default=480.0,
                        help="seconds the whole check may take (default 480)")
    args = parser.parse_args(argv)
    return insert(args) if args.insert else check(args, argv)


if __name__ == "__main__":
    sys.exit(main())
