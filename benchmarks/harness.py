"""The GPU benchmark's harness: the CPU fast path against the parallel solver on the GPU, and against LIBLINEAR.

For each size n and each loss (Weston-Watkins, Crammer-Singer), on
:func:`svmteach.data.synthetic_multiclass` (d = 784, k = 10, float32, C = 1):

- **CPU**: the compiled sequential solver (the loss's default: ``ExactBlock`` / ``CSBlondel``),
  run by :func:`svmteach.solve` to the relative duality gap ``tol``; its time, epochs
  and time per epoch.  A run that would pass ``--cpu-budget`` seconds is stopped and
  reported as a lower bound (">").
- **GPU** (where CuPy sees a CUDA device): :class:`~svmteach.ParallelBlock` on
  ``device="gpu"`` to the same gap; its time (data already on the GPU, after a
  warm-up on a small problem), steps, time per step, and the time per step that the
  GPU's memory bandwidth allows for reading X twice (a step's two matrix products).
  Without a GPU the parallel solver runs on the CPU (NumPy) instead, and the table says so.
- **LIBLINEAR** ``-s 4`` (Crammer-Singer, where the ``liblinear`` package imports), with its
  default ``eps = 0.1``: its time, and for the Crammer-Singer rows an upper bound on its
  relative primal suboptimality, ``(P - D) / D`` with D the best dual value svmteach certified.
  LIBLINEAR has no Weston-Watkins solver: the WW rows compare with its Crammer-Singer time.

Every run is repeated (``repeat``; a run stopped at its budget is not): the tables give the
median and the range.  A speed-up computed from a run stopped short of ``tol`` is a bound,
written "> 2.1x" or "< 0.6x", never a plain ratio.  The header names the CPU, its cores and
the threads numba and the BLAS may use.  Long runs draw a progress bar on stderr.  The result
is a Markdown table on stdout (and JSON with ``--json PATH``).  ``python benchmarks/gpu.py`` and
``svmteach bench`` (from a checkout) run it; ``python benchmarks/gpu.py --check`` runs its :func:`compare`
under a time budget (and, as a dry run, on ``device="numpy-as-cupy"``: :func:`cupy_code_path_on_numpy`);
the other benchmarks share its machine and LIBLINEAR helpers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

from svmteach.backend import cupy_available
from svmteach.data import synthetic_multiclass
from svmteach.losses import LOSSES, get_loss
from svmteach.problems import MulticlassProblem
from svmteach.solvers import ParallelBlock, make_multiclass_solver, solve

#: LIBLINEAR's default stopping tolerance for ``-s 4``.
LIBLINEAR_EPS = 0.1


class Progress:
    """A callback for :func:`svmteach.solve`: a bar on stderr, filled as log(gap) falls to log(tol).

    Returns True (stop) once ``budget`` seconds have passed.  Between two measures of the gap
    (:func:`svmteach.solve`'s cheap stop) the bar shows the last measured one.
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


# ---- the machine ----------------------------------------------------------------------------------

def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux, else what :mod:`platform` knows)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def threads() -> dict:
    """The threads in effect now: ``{"numba": n, "blas": m}`` (m None where threadpoolctl finds no BLAS)."""
    import numba
    from threadpoolctl import threadpool_info

    blas = [lib["num_threads"] for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return {"numba": numba.get_num_threads(), "blas": max(blas) if blas else None}


def machine() -> str:
    """One line: CPU model, cores, the threads numba and the BLAS use now, Python and NumPy versions."""
    t = threads()
    blas = "no BLAS found" if t["blas"] is None else f"BLAS threads {t['blas']}"
    return (f"{cpu_model()}, {os.cpu_count()} cores; numba threads {t['numba']}, {blas}; "
            f"Python {platform.python_version()}, NumPy {np.__version__}")


# ---- LIBLINEAR ------------------------------------------------------------------------------------

def liblinear_available() -> bool:
    """Whether the ``liblinear`` package (``liblinear-official``) imports."""
    try:
        from liblinear import liblinearutil  # noqa: F401
    except ImportError:
        return False
    return True


def liblinear_problem(X, y, bias=None):
    """LIBLINEAR's problem for ``X`` (dense or scipy.sparse) and labels ``y``; ``bias``: LIBLINEAR's ``-B``, a
    constant feature of that value appended to every row (the intercept, penalised with w), None: none.

    X goes in as a ``scipy.sparse.csr_matrix``: the binding converts that one in vectorised
    code, but a dense array row by row in Python (minutes at n = 100,000) and a ``csr_array``
    not at all."""
    import scipy.sparse as sp
    from liblinear import liblinearutil as ll

    if bias is not None and not (math.isfinite(bias) and bias > 0):
        raise ValueError(f"bias must be a positive finite number (LIBLINEAR's -B) or None, not {bias!r}")
    return ll.problem(np.asarray(y, dtype=np.float64), sp.csr_matrix(X), bias=-1 if bias is None else float(bias))


def liblinear_cs(prob, classes, C=1.0, eps=LIBLINEAR_EPS):
    """Train LIBLINEAR ``-s 4`` (Crammer-Singer) on ``prob``, with ``-B`` its own bias (``liblinear_problem``'s
    ``bias``; none by default): its weights ``W``, (k, d) or (k, d + 1) with the bias column's weights last
    (svmteach's ``MulticlassProblem(bias=...)`` layout), one row per class of ``classes`` (sorted labels, as
    svmteach orders them), and the seconds ``train`` took."""
    from liblinear import liblinearutil as ll

    param = ll.parameter(f"-s 4 -c {C!r} -e {eps!r} -B {prob.bias!r} -q")  # train sets the problem's bias to -B
    t0 = time.perf_counter()
    model = ll.train(prob, param)
    seconds = time.perf_counter() - t0
    d, k, biased = model.get_nr_feature(), model.get_nr_class(), model.bias >= 0
    w = np.ctypeslib.as_array(model.w, shape=((d + biased) * k,)).reshape(d + biased, k).T  # stored (features, classes)
    W = np.zeros((len(classes), prob.n))  # prob.n: the columns, bias included; a model may know fewer (unseen: 0)
    rows = np.searchsorted(classes, model.get_labels())
    W[rows, :d] = w[:, :d]
    if biased:
        W[rows, -1] = w[:, d]
    return W, seconds


# ---- ratios and bounds ----------------------------------------------------------------------------

def ratio_text(num: float, num_done: bool, den: float, den_done: bool) -> str:
    """``num / den`` as text: ``"1.23x"`` when both runs finished; a bound when one stopped short.

    A run stopped short (at its budget, or without reaching its tolerance) would have taken at
    least its measured time, so a stopped numerator makes the ratio a lower bound (``"> 2.1x"``)
    and a stopped denominator an upper bound (``"< 0.61x"``); both stopped: no bound at all.  A
    bound is rounded away from the truth it bounds (down for ">", up for "<"), so it stays true.
    """
    if not (num_done or den_done):
        return "no bound (both stopped short)"
    r = num / den
    digits = 2 if r < 10 else 1
    scale = 10 ** digits
    if num_done and den_done:
        return f"{r:.{digits}f}x"
    if not num_done:  # the true numerator is above the measured one: the ratio is above r
        return f"> {math.floor(r * scale) / scale:.{digits}f}x"
    return f"< {math.ceil(r * scale) / scale:.{digits}f}x"


def seconds_text(t: float) -> str:
    """Seconds with three significant digits below 100 (``"0.0123"``, ``"4.56"``), to 0.1 s above."""
    return f"{t:.3g}" if t < 100 else f"{t:.1f}"


def spread(times) -> str:
    """``"0.52 s"`` for one run, ``"0.52 s (0.5-0.55)"``: the median and the range of several."""
    med = seconds_text(statistics.median(times))
    if len(times) == 1:
        return f"{med} s"
    return f"{med} s ({seconds_text(min(times))}-{seconds_text(max(times))})"


def repeated(run_once, repeat: int, until: float | None = None):
    """Call ``run_once()`` (which returns a dict with ``seconds`` and ``converged``) up to ``repeat`` times;
    a run that stopped short is not repeated, and with ``until`` (a :func:`time.perf_counter` time) no run
    starts that would end after it, judged by the longest run so far.  Returns the last run's dict with
    ``times``, every run's seconds, and ``seconds``, their median."""
    times = []
    for _ in range(repeat):
        if times and max(times) > seconds_left(until):
            break
        out = run_once()
        times.append(out["seconds"])
        if not out["converged"]:
            break
    return dict(out, times=times, seconds=statistics.median(times))


def seconds_left(until: float | None) -> float:
    """The seconds from now to ``until`` (a :func:`time.perf_counter` time; at least 0), infinite for None."""
    return math.inf if until is None else max(until - time.perf_counter(), 0.0)


# ---- the runs -------------------------------------------------------------------------------------

def bandwidth_bytes_per_second(xp=None, nbytes: int = 2**30):
    """``(peak, measured)``: the GPU memory's peak from its properties (None if unknown) and a
    device-to-device copy's rate counting bytes read and written.  ``xp=numpy``: the host memory's
    copy rate (peak None), the dry run's stand-in for the card's."""
    if xp is None:
        import cupy as xp
    peak = None
    if xp is not np:
        props = xp.cuda.runtime.getDeviceProperties(0)
        clock_khz, bus_bits = props.get("memoryClockRate", 0), props.get("memoryBusWidth", 0)
        peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 if clock_khz and bus_bits else None
    a = xp.ones(nbytes // 4, dtype=xp.float32)
    b = xp.empty_like(a)
    xp.copyto(b, a)
    _sync("cpu" if xp is np else "gpu")
    t0 = time.perf_counter()
    for _ in range(5):
        xp.copyto(b, a)
    _sync("cpu" if xp is np else "gpu")
    measured = 5 * 2 * a.nbytes / (time.perf_counter() - t0)
    del a, b
    return peak, measured


def gpu_name() -> str:
    import cupy

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def run_cpu(problem, tol, budget):
    """The compiled sequential solver, once: a dict of seconds, epochs, gap, dual, converged."""
    solver = make_multiclass_solver(None, problem.loss_object, random_state=0)  # the loss's sequential default
    bar = Progress(f"cpu {problem.loss_object.name} n={problem.n_samples}", tol, budget)
    t0 = time.perf_counter()
    r = solve(solver, problem, tol=tol, max_iter=10**12, callback=bar)
    seconds = time.perf_counter() - t0
    bar.close()
    return dict(seconds=seconds, epochs=r.n_iter / problem.n_samples, gap=r.gap, dual=r.dual,
                converged=r.converged)


def run_parallel(problem, tol, device, budget):
    """:class:`ParallelBlock` on ``device``, once: a dict of seconds, steps, the time of a plain step,
    gap, dual, converged."""
    solver = ParallelBlock()
    _sync(device)
    bar = Progress(f"{device} parallel {problem.loss_object.name} n={problem.n_samples}", tol, budget)
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
    return dict(seconds=seconds, steps=r.n_iter, per_step=per_step, gap=r.gap, dual=r.dual, converged=r.converged)


def run_liblinear(prob, classes, repeat):
    """LIBLINEAR ``-s 4`` at its default eps, ``repeat`` times: its weights (last run) and the times."""
    times = []
    for _ in range(repeat):
        W, seconds = liblinear_cs(prob, classes)
        times.append(seconds)
    return W, times


#: Where the parallel solver runs: on CuPy, on plain NumPy, or the dry run's NumPy through CuPy's code path.
PARALLEL_DEVICES = ("gpu", "cpu", "numpy-as-cupy")


def _sync(device):
    if device == "gpu":
        import cupy

        cupy.cuda.Device().synchronize()


@contextlib.contextmanager
def cupy_code_path_on_numpy():
    """Inside: svmteach takes NumPy arrays through the namespace CuPy's arrays get (array-api-compat's,
    here its NumPy one), so a problem built and solved here runs the GPU's code path on the CPU.

    The substitution the dry run needs (``benchmarks/gpu.py --check --cpu-dry-run``; the tests'
    ``compat_namespace`` fixture does the same): :func:`svmteach.backend.array_namespace` asks
    ``_is_cupy`` which arrays are CuPy's.  Problems built outside keep plain NumPy."""
    from svmteach import backend

    original = backend._is_cupy
    backend._is_cupy = lambda a: isinstance(a, np.ndarray) or original(a)
    try:
        if backend.is_numpy(backend.array_namespace(np.ones(1))):  # the seam moved: say so, never run plain NumPy
            raise RuntimeError("svmteach.backend.array_namespace no longer asks _is_cupy: the dry run cannot take "
                               "NumPy arrays through CuPy's code path")
        yield
    finally:
        backend._is_cupy = original


def code_path(device):
    """The context the parallel solver's problems are built and solved in on ``device`` (:data:`PARALLEL_DEVICES`)."""
    if device not in PARALLEL_DEVICES:
        raise ValueError(f"device must be one of {PARALLEL_DEVICES}, got {device!r}")
    return cupy_code_path_on_numpy() if device == "numpy-as-cupy" else contextlib.nullcontext()


def parallel_problem(X, y, loss, device, cpu_problem=None):
    """The problem the parallel solver runs on ``device``; build and solve it inside :func:`code_path`
    (``cpu_problem``, where given, is shared on ``device="cpu"``)."""
    if device == "cpu" and cpu_problem is not None:
        return cpu_problem
    return MulticlassProblem(X, y, C=1.0, loss=loss, device="gpu" if device == "gpu" else None)


def compare(X, y, loss, tol, device, repeat, budget=math.inf, cpu_until=None, parallel_until=None, cpu_problem=None):
    """The CPU fast path and the parallel solver on ``device`` on one problem, each repeated (see
    :func:`repeated`; ``budget`` caps every run, ``*_until`` end each side's runs).  The parallel side runs
    first.  Returns ``(cpu, parallel)``: the two :func:`repeated` dicts."""
    with code_path(device):
        problem = parallel_problem(X, y, loss, device, cpu_problem)
        par = repeated(lambda: run_parallel(problem, tol, device, min(budget, seconds_left(parallel_until))),
                       repeat, parallel_until)
        del problem
    problem = cpu_problem if cpu_problem is not None else MulticlassProblem(X, y, C=1.0, loss=loss)
    cpu = repeated(lambda: run_cpu(problem, tol, min(budget, seconds_left(cpu_until))), repeat, cpu_until)
    return cpu, par


def row(X, loss, tol, cpu, par, device, bandwidth=None):
    """One line of the table (a dict), from :func:`compare`'s two dicts; ``bandwidth`` (bytes per second)
    gives the bound on a step: two reads of X."""
    n, d = X.shape
    return dict(n=n, d=d, loss=loss, tol=tol,
                cpu_seconds=cpu["seconds"], cpu_times=cpu["times"], cpu_converged=cpu["converged"],
                cpu_gap=cpu["gap"], cpu_epochs=cpu["epochs"],
                cpu_seconds_per_epoch=cpu["times"][-1] / max(cpu["epochs"], 1e-12),
                parallel_device=device, parallel_seconds=par["seconds"], parallel_times=par["times"],
                parallel_converged=par["converged"], parallel_gap=par["gap"], parallel_steps=par["steps"],
                parallel_seconds_per_step=par["per_step"],
                bandwidth_bound_per_step=2 * X.nbytes / bandwidth if bandwidth else None,
                speedup=cpu["seconds"] / par["seconds"],
                speedup_text=ratio_text(cpu["seconds"], cpu["converged"], par["seconds"], par["converged"]))


def _warm_up(X, y, losses, tol, device):
    """Compile the sequential solvers and warm the parallel one up on small problems (outside the timings)."""
    for loss in losses:
        solve(make_multiclass_solver(None, get_loss(loss), random_state=0),
              MulticlassProblem(X[:200], y[:200], loss=loss), tol=tol)
        with code_path(device):
            solve(ParallelBlock(), parallel_problem(X[:1000], y[:1000], loss, device), tol=tol)


def benchmark(sizes, d=784, k=10, tol=1e-3, losses=("ww", "cs"), cpu_budget=300.0, out=None, repeat=3,
              liblinear=True):
    """Run the benchmark and return its rows (dicts); prints the machine and a Markdown table."""
    gpu = cupy_available()
    device = "gpu" if gpu else "cpu"
    liblinear = liblinear and liblinear_available()
    peak = measured = None
    if gpu:
        peak, measured = bandwidth_bytes_per_second()
    rows = []
    for n in sizes:
        X, y = synthetic_multiclass(n, d, k, seed=0)
        _warm_up(X, y, losses, tol, device)
        ll_W = ll_times = None
        if liblinear:
            ll_W, ll_times = run_liblinear(liblinear_problem(X, y), np.unique(y), repeat)
        for loss in losses:
            problem = MulticlassProblem(X, y, C=1.0, loss=loss)
            cpu, par = compare(X, y, loss, tol, device, repeat, budget=cpu_budget, cpu_problem=problem)
            line = dict(row(X, loss, tol, cpu, par, device, peak or measured), k=k)
            if liblinear:
                ll_seconds = statistics.median(ll_times)
                line.update(liblinear_seconds=ll_seconds, liblinear_times=ll_times, liblinear_eps=LIBLINEAR_EPS,
                            cpu_vs_liblinear=ratio_text(cpu["seconds"], cpu["converged"], ll_seconds, True))
                if loss == "cs":
                    # weak duality: every dual value svmteach reached is at most P*, so (P - D) / D bounds
                    # LIBLINEAR's relative suboptimality from above
                    D = max(cpu["dual"], par["dual"])
                    line["liblinear_primal"] = problem.loss_object.primal(problem, ll_W)
                    line["liblinear_subopt_bound"] = (line["liblinear_primal"] - D) / D
            rows.append(line)
    head = describe(gpu, peak, measured)
    print(head)
    print()
    print(table(rows))
    if out:
        with open(out, "w") as f:
            json.dump(dict(machine=head, rows=rows), f, indent=1)
    return rows


def describe(gpu, peak, measured) -> str:
    line = machine()
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
    """The rows as a Markdown table (LIBLINEAR's columns where the rows have them)."""
    with_ll = any("liblinear_seconds" in r for r in rows)
    head = ["loss", "n", "CPU fast path: time to tol", "epochs", "per epoch", "parallel (device)",
            "time to tol", "steps", "per step", "bandwidth bound per step (per step / it)",
            "speed-up (CPU / parallel)"]
    if with_ll:
        head += [f"LIBLINEAR -s 4 (CS, eps {LIBLINEAR_EPS:g})", "its suboptimality <=", "CPU / LIBLINEAR"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cpu = ("" if r["cpu_converged"] else "> ") + spread(r["cpu_times"])
        par = ("" if r["parallel_converged"] else "> ") + spread(r["parallel_times"])
        b = r["bandwidth_bound_per_step"]
        bound = "" if b is None else f"{1e3 * b:.2f} ms ({r['parallel_seconds_per_step'] / b:.1f}x)"
        cells = [r["loss"], str(r["n"]), cpu, f"{r['cpu_epochs']:.0f}", f"{seconds_text(r['cpu_seconds_per_epoch'])} s",
                 r["parallel_device"], par, str(r["parallel_steps"]), f"{1e3 * r['parallel_seconds_per_step']:.2f} ms",
                 bound, r["speedup_text"]]
        if with_ll:
            sub = r.get("liblinear_subopt_bound")
            cells += [spread(r["liblinear_times"]) if "liblinear_times" in r else "",
                      "(CS only)" if sub is None else f"{sub:.1e}", r.get("cpu_vs_liblinear", "")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: ``svmteach bench --help``: the module docstring without its markup.
DESCRIPTION = """\
Times the CPU fast path against the parallel solver and against LIBLINEAR, for
Weston-Watkins and Crammer-Singer, on synthetic data (d = 784 features, k = 10
classes, float32, C = 1).

  CPU        the compiled sequential solver (the loss's default) run to the
             relative duality gap --tol: its time, epochs and time per epoch.
             A run longer than --cpu-budget seconds is stopped and reported as a
             lower bound (">").
  parallel   ParallelBlock on the GPU (where CuPy sees a CUDA device) to the same gap:
             its time (data already on the GPU, after a warm-up), steps, time per
             step, and the time per step that the GPU's memory bandwidth allows.
             Without a GPU it runs on the CPU instead, and the table says so.
  LIBLINEAR  -s 4 (Crammer-Singer) at its default eps 0.1, where the liblinear
             package is installed: its time, and for the CS rows an upper bound on
             its relative primal suboptimality (from svmteach's certified dual).
             LIBLINEAR has no Weston-Watkins solver: WW rows compare with its CS time.

Each run is repeated --repeat times (a run stopped at its budget is not): the
table gives the median and the range. A speed-up computed from a run stopped
short is a bound ("> 2.1x", "< 0.61x"), not a plain ratio. The header names the
CPU, its cores and the threads numba and the BLAS use. Long runs draw a progress
bar on stderr. The result is a Markdown table on stdout, and JSON with --json PATH.
"""


def main(argv=None, prog="svmteach bench") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION,
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
    parser.add_argument("--repeat", type=_at_least(1), default=3,
                        help="runs of each solver; the table gives the median and the range (default 3)")
    parser.add_argument("--no-liblinear", dest="liblinear", action="store_false",
                        help="skip LIBLINEAR (by default it runs where the liblinear package is installed)")
    parser.add_argument("--json", type=_writable_file, default=None,
                        help="also write the rows as JSON to this file (its folder must exist)")


def run(args) -> int:
    sizes = args.sizes or ([10_000, 100_000, 500_000] if cupy_available() else [2_000, 20_000])
    if any(n < 1000 for n in sizes):
        raise SystemExit("svmteach bench: --sizes must be at least 1000 each")
    benchmark(sizes, d=args.d, k=args.k, tol=args.tol, losses=tuple(args.losses), cpu_budget=args.cpu_budget,
              out=args.json, repeat=args.repeat, liblinear=args.liblinear)
    return 0
