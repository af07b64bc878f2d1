"""BinarySVC against scikit-learn's SVC (LIBSVM) at n = 20,000: fit time, peak memory, pickle size; and
MulticlassSVC(loss="cs") against LinearSVC(multi_class="crammer_singer") at 60,000 x 784: peak memory in copies of X.

    python benchmarks/memory.py                   # n = 20,000, gaussian and linear, 3 repeats; then n = 100,000
    python benchmarks/memory.py --quick           # n = 2,000, 1 repeat, no n = 100,000 (a smoke run)
    python benchmarks/memory.py --large-budget 0  # leave n = 100,000 out
    python benchmarks/memory.py --only-multiclass # the multiclass section alone (--multiclass: after the rest)

The problem: ``make_classification(n, n_features=10, n_informative=5, flip_y=0.05, random_state=0)``,
standardised, labels +-1; C = 1, tol = 1e-3, cache_size = 200 (MB) for both libraries; the gaussian kernel
with gamma = 0.1 (1/d, fixed), and the linear kernel.  ``BinarySVC(kernel=...)`` as it comes (its default
solver, SMO with its bias, as SVC's) against ``SVC(kernel=...)``.

Each fit runs in a fresh Python process of its own (one library per process, ``--repeat`` processes each),
on one thread (numba and the BLAS).  The process imports the library, makes the data, fits a tiny problem
once (numba compiles or loads its cache here, outside the measure), and then records:

- the baseline: its resident set size (VmRSS) at that moment;
- the fit, timed; the peak resident set size of the process after it (``resource.getrusage``'s
  ``ru_maxrss``) minus the baseline: the memory the fit added at its peak (an upper bound: the
  process's peak before the fit, if higher, would show instead; the data here are 1.6 MB);
- the size of ``pickle.dumps`` of the fitted model;
- a second fit under ``tracemalloc``: its peak of traced allocations (Python objects and NumPy arrays,
  svmteach's kernel-row cache included; not LIBSVM's C++ cache, nor numba's own allocations);
- the number of support vectors and the training accuracy.

Then n = 100,000 with the linear kernel, ``BinarySVC()`` only (it failed with a MemoryError asking for 37 GB
before its row cache), once, in a process given ``--large-budget`` seconds (300) with ``verbose=1``: its
time and peak, or, when it runs out of time, the last progress line it printed (how far it got); then
``BinarySVC(solver="smo", max_iter=1)`` (one epoch) at that size (SMO's steps per second, to say how long an epoch takes) and
``BinarySVC(solver="dual_cd")`` (the linear solver) for contrast, each in a fresh process.

Then (``--multiclass``, or alone with ``--only-multiclass``) the multiclass section: ``MulticlassSVC(loss="cs")``
against ``LinearSVC(multi_class="crammer_singer")`` (LIBLINEAR), both with their defaults (C = 1, an intercept:
a penalised constant column of 1 for both; max_iter and tol their own), on MNIST-sized data: 60,000 x 784,
10 classes (``--mc-rows`` fewer), pixel-like values in [0, 1] with 20% of them nonzero, generated with a fixed
seed (:func:`mnist_like`); float64 and float32, dense and CSR.  Each fit in a fresh process (as above): the
peak RSS it added over the process's baseline (VmHWM, the peak reset just before the fit through
``/proc/self/clear_refs``, so that making the data does not hide it, minus VmRSS then, after ``malloc_trim``
returned the memory freed while making the data) and, in a second fit,
tracemalloc's peak, both in units of the stored X's bytes (the CSR's data, indices and indptr); the time, and
the primal objective P of the model on the problem with its bias column, with the relative duality gap
(P - D) / |P| where D is MulticlassSVC's dual (LIBLINEAR's P against the D of MulticlassSVC on the same data:
a bound on how far its model is from the optimum).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

C, TOL, CACHE_MB, D, GAMMA = 1.0, 1e-3, 200, 10, 0.1
PROBE_EPOCHS = 1  # BinarySVC counts max_iter in epochs: one is n = 100,000 of SMO's pair steps


def data(n):
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=n, n_features=D, n_informative=5, flip_y=0.05, random_state=0)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


MC_N, MC_D, MC_K, MC_DENSITY = 60_000, 784, 10, 0.2


def mnist_like(n, dtype, sparse):
    """``n`` x 784 pixel-like values in [0, 1] (20% nonzero) of 10 classes, seed 0, made a block of rows at a time
    (no temporary copy of X beside it), stored as ``dtype``, dense or CSR; the labels 0..9."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    centers = rng.random((MC_K, MC_D))
    y = rng.integers(0, MC_K, n)
    X = np.empty((n, MC_D), dtype=dtype)
    for s in range(0, n, 5000):
        e = min(s + 5000, n)
        block = np.clip(centers[y[s:e]] + 0.5 * rng.standard_normal((e - s, MC_D)), 0.0, 1.0)
        block[rng.random((e - s, MC_D)) >= MC_DENSITY] = 0.0
        X[s:e] = block
    return (sp.csr_array(X) if sparse else X), y


def stored_bytes(X):
    import scipy.sparse as sp

    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes


def hwm_and_rss_mb():
    """The process's peak resident set size (VmHWM) and its resident set size now (VmRSS), in MB."""
    found = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM:", "VmRSS:")):
                found[line[:5]] = int(line.split()[1]) / 1024
    return found["VmHWM"], found["VmRSS"]


def mc_child(library, dtype, layout, n):
    """Run in the fresh process: one multiclass fit measured (see the module's docstring), a JSON line on stdout."""
    import tracemalloc
    import warnings

    import numba
    import numpy as np
    from threadpoolctl import threadpool_limits

    from svmteach.problems import MulticlassProblem

    numba.set_num_threads(1)
    if library == "svmteach":
        from svmteach import MulticlassSVC

        def make():
            return MulticlassSVC(loss="cs")
    else:
        from sklearn.svm import LinearSVC

        def make():
            return LinearSVC(multi_class="crammer_singer")

    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X, y = mnist_like(n, np.dtype(dtype), layout == "csr")
        Xw, yw = mnist_like(300, np.dtype(dtype), layout == "csr")
        make().fit(Xw, yw)  # numba compiles or loads its cache here
        del Xw, yw
        try:  # glibc keeps freed memory of the data's making, which the fit would reuse unseen: give it back
            import ctypes

            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc
            pass
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM := VmRSS: the data's making is forgotten
        base = hwm_and_rss_mb()[1]
        t0 = time.perf_counter()
        model = make().fit(X, y)
        seconds = time.perf_counter() - t0
        peak = hwm_and_rss_mb()[0]
        W = np.hstack([model.coef_, model.intercept_[:, None]])  # the bias column's weights (its value is 1)
        alpha = model.alpha_ if library == "svmteach" else None
        epochs = int(np.max(model.n_iter_))
        del model
        tracemalloc.start()
        make().fit(X, y)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        problem = MulticlassProblem(X, y, C=1.0, loss="cs", bias=1.0)
        obj = problem.loss_object
        P = float(obj.primal(problem, W))
        D = float(obj.dual(problem, alpha, obj.weights(problem, alpha))) if alpha is not None else None
    print(json.dumps({"seconds": seconds, "base_rss": base, "added_mb": peak - base,
                      "added": (peak - base) * 2**20 / stored_bytes(X), "traced": traced / stored_bytes(X),
                      "x_mb": stored_bytes(X) / 2**20, "P": P, "D": D, "epochs": epochs,
                      "warnings": sorted({f"{w.category.__name__}: {str(w.message)[:90]}" for w in caught})}))


def multiclass_section(n):
    """The multiclass table (Markdown) at ``n`` rows: every dtype and layout, both libraries, a fresh process each."""
    rows = []
    for dtype in ("float64", "float32"):
        for layout in ("dense", "csr"):
            runs = {}
            for library in ("svmteach", "liblinear"):
                cmd = [sys.executable, __file__, "--mc-child", library, dtype, layout, str(n)]
                env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
                done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
                if done.returncode != 0:
                    raise RuntimeError(f"{library} {dtype} {layout} n={n} failed:\n{done.stderr[-3000:]}")
                runs[library] = json.loads(done.stdout.splitlines()[-1])
            D = runs["svmteach"]["D"]
            for library, label in (("svmteach", 'MulticlassSVC(loss="cs")'),
                                   ("liblinear", 'LinearSVC(multi_class="crammer_singer")')):
                r = runs[library]
                rows.append([dtype, layout, label, f"{r['x_mb']:.0f} MB", f"{r['added']:.2f} ({r['added_mb']:.0f} MB)",
                             f"{r['traced']:.2f}", f"{r['seconds']:.1f} s", f"{r['epochs']}", f"{r['P']:.6g}",
                             f"{(r['P'] - D) / abs(r['P']):.2g}", f"{r['base_rss']:.0f} MB",
                             "; ".join(r["warnings"]) or "none"])
    return rows


def rss_mb() -> float:
    """The process's resident set size now (VmRSS), in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(library, kernel, n, verbose, max_iter=None, solver=None):
    """Run in the fresh process: one fit measured, a JSON line on stdout (svmteach: ``max_iter`` epochs at most,
    ``solver`` its name or None for the default)."""
    import pickle
    import resource
    import tracemalloc
    import warnings

    import numba
    import numpy as np
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(1)
    params = {"kernel": "rbf", "gamma": GAMMA} if kernel == "gaussian" else {"kernel": "linear"}
    if library == "svmteach":
        from svmteach import BinarySVC

        def make():
            return BinarySVC(C=C, tol=TOL, cache_size=CACHE_MB, verbose=verbose, max_iter=max_iter, solver=solver,
                             **params)
    else:
        from sklearn.svm import SVC

        def make():
            return SVC(C=C, tol=TOL, cache_size=CACHE_MB, **params)

    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X, y = data(n)
        Xw, yw = data(200)
        make().set_params(verbose=0).fit(Xw, yw) if library == "svmteach" else make().fit(Xw, yw)  # compile / load
        base = rss_mb()
        base_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        t0 = time.perf_counter()
        model = make().fit(X, y)
        seconds = time.perf_counter() - t0
        # svmteach: the solver's steps (n_iter_ counts epochs); SVC: an array, one entry per pair of classes
        steps = int(model.result_.n_iter) if library == "svmteach" else int(np.sum(getattr(model, "n_iter_", -1)))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        size = len(pickle.dumps(model))
        accuracy = float((model.predict(X) == y).mean())
        n_sv = len(model.support_)
        del model
        traced = None
        if n <= 50_000:  # tracemalloc slows the fit: measured where it stays short
            tracemalloc.start()
            make().set_params(verbose=0).fit(X, y) if library == "svmteach" else make().fit(X, y)
            traced = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
    print(json.dumps({"seconds": seconds, "base_rss": base, "base_peak": base_peak, "peak": peak, "added": peak - base,
                      "pickle_mb": size / 2**20, "traced_mb": traced, "accuracy": accuracy, "n_sv": n_sv,
                      "steps": steps,
                      "warnings": sorted({f"{w.category.__name__}: {str(w.message)[:100]}" for w in caught})}))


def in_child(library, kernel, n, timeout, verbose=0, max_iter=0, solver="default"):
    """One fit in a fresh process: its JSON dict, or ``{"timeout": seconds, "last": last progress line}``."""
    cmd = [sys.executable, __file__, "--child", library, kernel, str(n), str(verbose), str(max_iter), solver]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired as err:
        text = (err.stdout or b"").decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        text += (err.stderr or b"").decode() if isinstance(err.stderr, bytes) else (err.stderr or "")
        lines = [line for line in text.splitlines() if line.strip()]
        # verbose=1 prints a header, then a line at every measured state (one an epoch of n steps for SMO)
        last = lines[-1] if len(lines) > 1 else "none (only the header: no epoch was finished)"
        return {"timeout": time.perf_counter() - t0, "last": last}
    if done.returncode != 0:
        raise RuntimeError(f"{library} {kernel} n={n} failed:\n{done.stderr[-3000:]}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    out = json.loads(lines[-1])
    out["log"] = lines[-4:-1]  # verbose progress (on stdout) before the JSON line
    return out


def spread(values, fmt):
    med = statistics.median(values)
    if len(values) == 1:
        return fmt.format(med)
    return f"{fmt.format(med)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", nargs=6, metavar=("LIBRARY", "KERNEL", "N", "VERBOSE", "MAX_ITER", "SOLVER"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="n = 2,000, 1 repeat, no n = 100,000")
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=None, help="fresh processes per library and kernel (3)")
    parser.add_argument("--large-budget", type=float, default=300.0,
                        help="seconds for the n = 100,000 linear BinarySVC() run (0: leave it out)")
    parser.add_argument("--only-large", action="store_true", help="only the n = 100,000 runs")
    parser.add_argument("--mc-child", nargs=4, metavar=("LIBRARY", "DTYPE", "LAYOUT", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--multiclass", action="store_true", help="add the multiclass section (CS, 60,000 x 784)")
    parser.add_argument("--only-multiclass", action="store_true", help="only the multiclass section")
    parser.add_argument("--mc-rows", type=int, default=MC_N, help="rows of the multiclass data (60,000)")
    args = parser.parse_args(argv)
    if args.mc_child:
        library, dtype, layout, n = args.mc_child
        return mc_child(library, dtype, layout, int(n))
    if args.only_multiclass:
        return print_multiclass(args.mc_rows)
    if args.child:
        library, kernel, n, verbose, max_iter, solver = args.child
        return child(library, kernel, int(n), int(verbose), int(max_iter) or None, None if solver == "default" else solver)

    from common import machine, table
    from threadpoolctl import threadpool_limits

    n = 2000 if args.quick else args.n
    repeat = args.repeat or (1 if args.quick else 3)
    load_before = os.getloadavg()
    rows = []
    for kernel in () if args.only_large else ("gaussian", "linear"):
        runs = {lib: [in_child(lib, kernel, n, None) for _ in range(repeat)] for lib in ("svmteach", "sklearn")}
        for lib, label in (("svmteach", f"BinarySVC(kernel={'rbf' if kernel == 'gaussian' else 'linear'!r})"),
                           ("sklearn", f"SVC(kernel={'rbf' if kernel == 'gaussian' else 'linear'!r})")):
            r = runs[lib]
            rows.append([kernel, label, spread([x["seconds"] for x in r], "{:.3g} s"),
                         spread([x["added"] for x in r], "{:.0f} MB"),
                         f"{statistics.median(x['base_rss'] for x in r):.0f} MB",
                         spread([x["traced_mb"] for x in r], "{:.1f} MB"),
                         f"{statistics.median(x['pickle_mb'] for x in r):.3g} MB",
                         f"{r[-1]['n_sv']}", f"{r[-1]['accuracy']:.4f}", "; ".join(r[-1]["warnings"])])
        t_us = statistics.median(x["seconds"] for x in runs["svmteach"])
        t_ref = statistics.median(x["seconds"] for x in runs["sklearn"])
        rows.append([kernel, "**time ratio BinarySVC / SVC**", f"**{t_us / t_ref:.2f}**", "", "", "", "", "", "", ""])
    large, probe, dual_cd = None, None, None
    if not args.quick:
        if args.large_budget > 0:
            large = in_child("svmteach", "linear", 100_000, args.large_budget, verbose=1)
        probe = in_child("svmteach", "linear", 100_000, None, max_iter=PROBE_EPOCHS, solver="smo")  # SMO's speed at this size
        dual_cd = in_child("svmteach", "linear", 100_000, None, solver="dual_cd")  # the linear solver, for contrast
    import numba

    numba.set_num_threads(1)
    with threadpool_limits(1):  # what the children ran with
        described = machine()
    print(described)
    print(f"load average (1, 5, 15 min) before: {' '.join(f'{v:.2f}' for v in load_before)}, "
          f"after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"\nn = {n}, d = {D}, C = {C:g}, tol = {TOL:g}, cache_size = {CACHE_MB} MB, gamma = {GAMMA:g}; "
          f"each fit in a fresh process, {repeat} processes each: median (range)\n")
    print(table(rows, ["kernel", "estimator", "fit time", "peak RSS added by the fit", "baseline RSS",
                       "tracemalloc peak", "pickle size", "support vectors", "training accuracy", "warnings"]))
    if large is not None:
        print("\nn = 100,000, linear, BinarySVC() (verbose=1), one fresh process:\n")
        if "timeout" in large:
            print(f"- stopped at the budget ({large['timeout']:.0f} s); its last progress line: {large['last']}")
        else:
            print(f"- fit {large['seconds']:.1f} s, peak RSS added {large['added']:.0f} MB (baseline "
                  f"{large['base_rss']:.0f} MB), pickle {large['pickle_mb']:.3g} MB, {large['n_sv']} support vectors, "
                  f"training accuracy {large['accuracy']:.4f}; warnings: {'; '.join(large['warnings']) or 'none'}")
            print("- its last progress lines: " + " | ".join(large["log"]))
    if probe is not None:
        print(f"\nn = 100,000, linear, fresh processes: BinarySVC(solver='smo', max_iter={PROBE_EPOCHS}) (SMO stopped after "
              f"{probe['steps']} steps): {probe['seconds']:.1f} s, {probe['steps'] / probe['seconds']:.0f} steps/s, "
              f"peak RSS added {probe['added']:.0f} MB; BinarySVC(solver='dual_cd') (the linear solver, "
              f"penalised bias): {dual_cd['seconds']:.2f} s, peak RSS added {dual_cd['added']:.0f} MB, pickle "
              f"{dual_cd['pickle_mb']:.3g} MB, training accuracy {dual_cd['accuracy']:.4f}, warnings: "
              f"{'; '.join(dual_cd['warnings']) or 'none'}")

    if args.multiclass:
        print()
        print_multiclass(args.mc_rows)


def print_multiclass(n):
    from common import machine, table
    from threadpoolctl import threadpool_limits

    load_before = os.getloadavg()
    rows = multiclass_section(n)
    import numba

    numba.set_num_threads(1)
    with threadpool_limits(1):
        print(machine())
    print(f"load average (1, 5, 15 min) before: {' '.join(f'{v:.2f}' for v in load_before)}, "
          f"after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    fewer = "" if n == MC_N else f" (fewer rows than MNIST's {MC_N:,}: --mc-rows {n})"
    print(f"\nMulticlass, Crammer-Singer: {n:,} x {MC_D} rows{fewer}, {MC_K} classes, {MC_DENSITY:.0%} nonzero, C = 1, "
          "an intercept, defaults otherwise; each fit in a fresh process, once. Memory in copies of the stored X\n")
    print(table(rows, ["dtype", "X", "estimator", "X stored", "peak RSS added by the fit (copies of X)",
                       "tracemalloc peak (copies of X)", "fit time", "epochs (n_iter_)", "primal P",
                       "(P - D) / |P|, D: MulticlassSVC's dual", "baseline RSS", "warnings"]))


if __name__ == "__main__":
    main()
