"""``svmteach bench``: the CPU fast path against the parallel solver on the GPU.

For each size n and each loss (Weston-Watkins, Crammer-Singer), on
:func:`svmteach.data.synthetic_multiclass` (d = 784, k = 10, float32, C = 1):

- **CPU**: the compiled sequential solver (the loss's default: ``ExactBlock`` / ``CSBlondel``, one thread),
  run by :func:`svmteach.solve` to the relative duality gap ``tol``; its time, epochs
  and time per epoch.  A run that would pass ``--cpu-budget`` seconds is stopped and
  reported as a lower bound (">").
- **GPU** (where CuPy sees a CUDA device): :class:`~svmteach.ParallelBlock` on
  ``device="gpu"`` to the same gap; its time (data already on the GPU, after a
  warm-up on a small problem), steps, time per step, and the time per step that the
  GPU's memory bandwidth allows for reading X twice (a step's two matrix products).
- Without a GPU the parallel solver runs on the CPU (NumPy) instead, for reference,
  and the table says so.

Long runs draw a progress bar on stderr.  The result is a Markdown table on stdout
(and JSON with ``--json PATH``).  ``benchmarks/gpu.py`` calls this module.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np

from .backend import cupy_available
from .data import synthetic_multiclass
from .problems import MulticlassProblem
from .losses import LOSSES, get_loss
from .solvers import ParallelBlock, make_multiclass_solver, solve



class Progress:
    """A callback for :func:`svmteach.solve`: a bar on stderr, filled as log(gap) falls to log(tol).

    Returns True (stop) once ``budget`` seconds have passed.
    """

    def __init__(self, label: str, tol: float, budget: float = math.inf, stream=None, width: int = 30):
        self.label, self.tol, self.budget, self.width = label, tol, budget, width
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        self.first_gap = None
        self.stopped = False
        self.drawn = -math.inf

    def fraction(self, gap: float) -> float:
        if self.first_gap is None:
            self.first_gap = max(gap, self.tol * 10)
        if not gap > 0:
            return 1.0
        span = math.log(self.first_gap / self.tol)
        return min(max(math.log(self.first_gap / gap) / span, 0.0), 1.0)

    def __call__(self, state) -> bool:
        elapsed = time.perf_counter() - self.start
        self.stopped = elapsed > self.budget
        frac = self.fraction(float(state.gap))
        if elapsed - self.drawn < 0.5 and not self.stopped:  # redraw at most twice a second
            return False
        self.drawn = elapsed
        done = int(round(frac * self.width))
        bar = "#" * done + "-" * (self.width - done)
        self.stream.write(f"\r  {self.label:<24} [{bar}] gap {state.gap:.2e} -> {self.tol:.0e}  "
                          f"{state.n_iter:>9} steps  {elapsed:7.1f} s")
        self.stream.flush()
        return self.stopped

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def bandwidth_bytes_per_second():
    """``(peak, measured)``: the GPU memory's peak from its properties (None if unknown) and a
    device-to-device copy's rate counting bytes read and written."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    clock_khz, bus_bits = props.get("memoryClockRate", 0), props.get("memoryBusWidth", 0)
    peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 if clock_khz and bus_bits else None
    a = cupy.ones(2**28, dtype=cupy.float32)  # 1 GiB
    b = cupy.empty_like(a)
    cupy.copyto(b, a)
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        cupy.copyto(b, a)
    cupy.cuda.Device().synchronize()
    measured = 5 * 2 * a.nbytes / (time.perf_counter() - t0)
    del a, b
    return peak, measured


def gpu_name() -> str:
    import cupy

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def run_cpu(X, y, loss, tol, budget):
    """The compiled sequential solver: ``(seconds, epochs, seconds per epoch, gap, converged)``."""
    problem = MulticlassProblem(X, y, C=1.0, loss=loss)
    solver = make_multiclass_solver(None, get_loss(loss), random_state=0)  # the loss's sequential default
    solve(solver, MulticlassProblem(X[:200], y[:200], loss=loss), tol=tol)  # compile
    bar = Progress(f"cpu {loss} n={len(y)}", tol, budget)
    t0 = time.perf_counter()
    r = solve(solver, problem, tol=tol, max_iter=10**12, callback=bar)
    seconds = time.perf_counter() - t0
    bar.close()
    epochs = r.n_iter / problem.n_samples
    return seconds, epochs, seconds / max(epochs, 1e-12), r.gap, r.converged


def run_parallel(X, y, loss, tol, device, budget):
    """:class:`ParallelBlock` on ``device``: ``(seconds, steps, seconds per step, gap, converged)``."""
    solve(ParallelBlock(), MulticlassProblem(X[:1000], y[:1000], loss=loss, device=device), tol=tol)  # warm up
    problem = MulticlassProblem(X, y, C=1.0, loss=loss, device=device)
    solver = ParallelBlock()
    _sync(device)
    bar = Progress(f"{device} parallel {loss} n={len(y)}", tol, budget)
    t0 = time.perf_counter()
    r = solve(solver, problem, tol=tol, max_iter=10**9, callback=bar)
    _sync(device)
    seconds = time.perf_counter() - t0
    bar.close()
    # the time of a plain step, alone (no measure): the quantity the bandwidth bound is about
    state = r.state
    _sync(device)
    t1 = time.perf_counter()
    for _ in range(10):
        state = solver.step(problem, state)
    _sync(device)
    per_step = (time.perf_counter() - t1) / 10
    return seconds, r.n_iter, per_step, r.gap, r.converged


def _sync(device):
    if device == "gpu":
        import cupy

        cupy.cuda.Device().synchronize()


def benchmark(sizes, d=784, k=10, tol=1e-3, losses=("ww", "cs"), cpu_budget=300.0, out=None):
    """Run the benchmark and return its rows (dicts); prints a Markdown table."""
    gpu = cupy_available()
    device = "gpu" if gpu else "cpu"
    peak = measured = None
    if gpu:
        peak, measured = bandwidth_bytes_per_second()
    rows = []
    for n in sizes:
        X, y = synthetic_multiclass(n, d, k, seed=0)
        for loss in losses:
            c_sec, c_ep, c_per, c_gap, c_ok = run_cpu(X, y, loss, tol, cpu_budget)
            p_sec, p_steps, p_per, p_gap, p_ok = run_parallel(X, y, loss, tol, device, cpu_budget)
            bound = 2 * X.nbytes / peak if peak else (2 * X.nbytes / measured if measured else None)
            rows.append(dict(n=n, d=d, k=k, loss=loss, tol=tol, cpu_seconds=c_sec, cpu_converged=c_ok,
                             cpu_gap=c_gap, cpu_epochs=c_ep, cpu_seconds_per_epoch=c_per,
                             parallel_device=device, parallel_seconds=p_sec, parallel_converged=p_ok,
                             parallel_gap=p_gap, parallel_steps=p_steps, parallel_seconds_per_step=p_per,
                             bandwidth_bound_per_step=bound, speedup=c_sec / p_sec))
    print(describe(gpu, peak, measured))
    print()
    print(table(rows))
    if out:
        with open(out, "w") as f:
            json.dump(dict(machine=describe(gpu, peak, measured), rows=rows), f, indent=1)
    return rows


def describe(gpu, peak, measured) -> str:
    import numpy

    line = (f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
            f"NumPy {numpy.__version__}")
    if not gpu:
        return line + "; no GPU (CuPy or a CUDA device missing): the parallel solver ran on the CPU"
    import cupy

    bw = []
    if peak:
        bw.append(f"peak memory bandwidth {peak / 1e12:.2f} TB/s")
    if measured:
        bw.append(f"device copy {measured / 1e12:.2f} TB/s")
    return f"{line}; GPU {gpu_name()}, CuPy {cupy.__version__}, " + ", ".join(bw)


def table(rows) -> str:
    head = ["loss", "n", "CPU fast path: time to tol", "epochs", "per epoch", "parallel (device)",
            "time to tol", "steps", "per step", "bandwidth bound per step", "speed-up"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cpu = f"{'' if r['cpu_converged'] else '> '}{r['cpu_seconds']:.2f} s"
        par = f"{'' if r['parallel_converged'] else '> '}{r['parallel_seconds']:.2f} s"
        bound = "" if r["bandwidth_bound_per_step"] is None else f"{1e3 * r['bandwidth_bound_per_step']:.2f} ms"
        lines.append("| " + " | ".join([
            r["loss"], str(r["n"]), cpu, f"{r['cpu_epochs']:.0f}", f"{r['cpu_seconds_per_epoch']:.3f} s",
            r["parallel_device"], par, str(r["parallel_steps"]), f"{1e3 * r['parallel_seconds_per_step']:.2f} ms",
            bound, f"{r['speedup']:.1f}x"]) + " |")
    return "\n".join(lines)


#: ``svmteach bench --help``: the module docstring without its markup.
DESCRIPTION = """\
Times the CPU fast path against the parallel solver, for Weston-Watkins and
Crammer-Singer, on synthetic data (d = 784 features, k = 10 classes, float32, C = 1).

  CPU       the compiled sequential solver (the loss's default, one thread) run to
            the relative duality gap --tol: its time, epochs and time per epoch.
            A run longer than --cpu-budget seconds is stopped and reported as a
            lower bound (">").
  parallel  ParallelBlock on the GPU (where CuPy sees a CUDA device) to the same gap:
            its time (data already on the GPU, after a warm-up), steps, time per
            step, and the time per step that the GPU's memory bandwidth allows.
            Without a GPU it runs on the CPU instead, and the table says so.

Long runs draw a progress bar on stderr. The result is a Markdown table on stdout,
and JSON with --json PATH.
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="svmteach bench", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def _at_least(lowest):
    """An argparse type: an integer that is at least ``lowest``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {text}")
        return value
    return parse


def _positive_finite(text):
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not (0 < value < math.inf):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
    return value


def _writable_file(text):
    """An argparse type: a file path whose folder exists and can be written to (checked before the run)."""
    path = os.path.abspath(os.path.expanduser(text))
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{text} cannot be written (no permission)")
    return path


def add_arguments(parser):
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="numbers of samples, each at least 1000 "
                             "(default: 10000 100000 500000 with a GPU, 2000 20000 without)")
    parser.add_argument("--d", type=_at_least(1), default=784, help="features (default 784)")
    parser.add_argument("--k", type=_at_least(2), default=10, help="classes, at least 2 (default 10)")
    parser.add_argument("--tol", type=_positive_finite, default=1e-3,
                        help="relative duality gap to reach (default 1e-3)")
    parser.add_argument("--losses", nargs="+", choices=tuple(LOSSES), default=["ww", "cs"])
    parser.add_argument("--cpu-budget", type=_positive_finite, default=300.0,
                        help="seconds after which a run is stopped and reported as a lower bound (default 300)")
    parser.add_argument("--json", type=_writable_file, default=None,
                        help="also write the rows as JSON to this file (its folder must exist)")


def run(args) -> int:
    sizes = args.sizes or ([10_000, 100_000, 500_000] if cupy_available() else [2_000, 20_000])
    if any(n < 1000 for n in sizes):
        raise SystemExit("svmteach bench: --sizes must be at least 1000 each")
    benchmark(sizes, d=args.d, k=args.k, tol=args.tol, losses=tuple(args.losses), cpu_budget=args.cpu_budget,
              out=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
