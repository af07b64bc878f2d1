"""A grid over C solved warm (``warm_start=True``) against cold (a fresh estimator for each C), in one process.

    python benchmarks/warm_start.py                 # every case below, 3 repeats (about 10 min here)
    python benchmarks/warm_start.py --quick         # small problems, 1 repeat (a smoke run)
    python benchmarks/warm_start.py --cases mc-digits bin-digits --repeat 5

A GridSearch-like search over C: ``--points`` values (10) log-spaced from ``--c-min`` to ``--c-max``
(0.01 to 10), solved in ascending order, each at the estimators' defaults (tol 1e-3, the solver named).
For each case and each repeat, the whole grid is solved five ways, each timed from the first ``fit`` to
the last (validation and problem set-up included):

- **cold**: a fresh estimator for each C;
- **warm**: one estimator with ``warm_start=True``, ``set_params(C=c).fit(X, y)`` along the grid: the
  library's rule (:mod:`svmteach.estimators.warm_start`: alpha kept where the box grew, as it does on an
  ascending grid, shrunk with the box where it shrank);
- **warm, scaled** (a local variant, not the library's rule): the same, with the previous alpha first
  multiplied by C_new / C_old (feasible for every loss: the box, or the simplex, scales with C);
- **warm, descending**: the library's rule along the grid in descending order (there alpha shrinks with
  the box, so keeping and scaling coincide);
- **LIBLINEAR** (binary and Crammer-Singer cases): the same grid with LIBLINEAR's ``train`` (same loss, its
  ``-B 1`` bias, its default eps), cold, and with the previous weights passed as its initial solution
  (the ``init_sol`` field of its ``parameter``: the Python binding has no option for it; LIBLINEAR's
  README says it is used by some solvers only); and LIBLINEAR's primal solver ``-s 2`` (squared hinge: a
  different loss, the one solver family whose warm start LIBLINEAR offers, its ``-C`` search) cold and warm,
  for scale.  LIBLINEAR's ``problem`` is built once, outside the timings.

Every warm fit is checked: its relative duality gap certified (at most tol) and its primal within tol
(relative) of the cold fit's at the same C.  Work is counted as epochs (sample visits / n) for dual
coordinate ascent and the multiclass solvers, pair steps for SMO.  Times are medians of ``--repeat``
runs (the variants interleaved) with their range; one thread (numba and the BLAS); the load average before and after is printed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table

from svmteach import BinarySVC, MulticlassSVC
from harness import liblinear_available, liblinear_problem, seconds_text

TOL = 1e-3
VARIANTS = ("cold", "warm", "warm, scaled", "warm, descending")


# ---- the problems ---------------------------------------------------------------------------------

def issue_multiclass(n):
    """The multiclass issue's problem (benchmarks/multiclass.py's "issue"): 10 classes, d = 100."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=n, n_features=100, n_informative=50, n_classes=10,
                               n_clusters_per_class=1, flip_y=0.05, random_state=0)
    return StandardScaler().fit_transform(X) / np.sqrt(100), y


def digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.data / 16.0, data.target


def binary_dense(n):
    """benchmarks/binary.py's dense problem (dual CD's): make_classification, d = 100, standardised / sqrt(d)."""
    from binary import dense_problem

    return dense_problem(n, 100)


def binary_smo(n):
    """benchmarks/binary.py's SMO problem: make_classification, d = 20, standardised (gamma = 1/d)."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, flip_y=0.05, random_state=0)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def cases(quick):
    """``{name: (title, X, y, make(C, warm) -> estimator, work label, liblinear solver or None)}``."""
    n_mc, n_bin, n_smo = (2000, 2000, 1000) if quick else (20000, 20000, 5000)
    Xi, yi = issue_multiclass(n_mc)
    Xd, yd = digits()
    Xb, yb = binary_dense(n_bin)
    Xs, ys = binary_smo(n_smo)
    yeo = np.where(yd % 2 == 0, 1.0, -1.0)
    gamma_d = 1.0 / (Xd.shape[1] * Xd.var())  # scikit-learn's "scale", fixed once

    def mc(loss, solver):
        return lambda C, warm: MulticlassSVC(C=C, loss=loss, solver=solver, warm_start=warm)

    def binary(solver, **kw):
        return lambda C, warm: BinarySVC(C=C, solver=solver, warm_start=warm, **kw)

    issue = f"the multiclass issue's problem, {n_mc} x 100, 10 classes"
    return {
        "mc-issue-cs": (issue, Xi, yi, mc("cs", "blondel"), "epochs", "-s 4"),
        "mc-issue-ww": (issue, Xi, yi, mc("ww", "exact"), "epochs", None),
        "mc-digits-cs": ("digits / 16, 1797 x 64, 10 classes", Xd, yd, mc("cs", "blondel"), "epochs", "-s 4"),
        "mc-digits-ww": ("digits / 16, 1797 x 64, 10 classes", Xd, yd, mc("ww", "exact"), "epochs", None),
        "bin-dense-dual_cd": (f"binary.py's dense problem, {n_bin} x 100, linear", Xb, yb, binary("dual_cd"),
                              "epochs", "-s 3"),
        "bin-digits-dual_cd": ("digits / 16 even vs odd, 1797 x 64, linear", Xd, yeo, binary("dual_cd"), "epochs",
                               "-s 3"),
        "bin-smo-smo": (f"binary.py's SMO problem, {n_smo} x 20, gaussian gamma = 1/20", Xs, ys,
                        binary("smo", kernel="rbf", gamma=1.0 / 20), "steps", None),
        "bin-digits-smo": (f"digits / 16 even vs odd, 1797 x 64, gaussian gamma = {gamma_d:.3g}", Xd, yeo,
                           binary("smo", kernel="rbf", gamma=gamma_d), "steps", None),
    }


# ---- one grid ---------------------------------------------------------------------------------------

def work_of(est, label, n):
    """This fit's work: epochs (MulticlassSVC's n_iter_; BinarySVC dual CD's steps / n) or SMO's steps."""
    if isinstance(est, MulticlassSVC) or label == "steps":
        return est.n_iter_
    return est.n_iter_ / n


def scale_previous(est, factor):
    """The local variant: the kept state's alpha times ``factor`` = C_new / C_old, and the bounds it was fitted
    with likewise, so that the library's rule (which keeps alpha where the box grew) starts from the scaled alpha."""
    state = est.result_.state
    est.result_ = est.result_._replace(state=state._replace(alpha=state.alpha * factor))
    est._fit_C_i = est._fit_C_i * factor


def run_grid(make, X, y, grid, variant, label):
    """Solve the grid one way: ``(seconds, {C: (work, gap, primal, converged)})``."""
    n = X.shape[0]
    order = grid[::-1] if variant == "warm, descending" else grid
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit stopped at max_iter shows as converged False
        t0 = time.perf_counter()
        est, previous = None, None
        for C in order:
            if variant == "cold" or est is None:
                est = make(C, variant != "cold")
            else:
                if variant == "warm, scaled":
                    scale_previous(est, C / previous)
                est.set_params(C=C)
            est.fit(X, y)
            r = est.result_
            out[C] = (work_of(est, label, n), r.gap, r.primal, r.converged)
            previous = C
        seconds = time.perf_counter() - t0
    return seconds, out


# ---- LIBLINEAR ------------------------------------------------------------------------------------------

def liblinear_grid(prob, grid, options, warm):
    """LIBLINEAR's ``train`` along the grid (``options``: its solver and flags), warm: each fit given the previous
    one's weights as ``parameter.init_sol``.  Returns ``(seconds, last weights)``."""
    from liblinear import liblinearutil as ll

    t0 = time.perf_counter()
    init = None
    for C in grid:
        param = ll.parameter(f"{options} -c {C!r} -B 1 -q")
        if warm and init is not None:
            param.init_sol = init.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        model = ll.train(prob, param)
        size = model.get_nr_feature() + 1  # + the bias column
        k = model.get_nr_class()
        init = np.ctypeslib.as_array(model.w, shape=(size * (1 if k == 2 else k),)).copy()
    return time.perf_counter() - t0, init


def bench_liblinear(X, y, grid, solver, repeat):
    """Rows: LIBLINEAR's grid cold and warm with ``solver`` (the same loss), and ``-s 2`` cold and warm."""
    prob = liblinear_problem(X, y)
    rows = []
    for options, what in ((solver, "same loss"), ("-s 2", "squared hinge, primal")):
        if options == "-s 2" and len(np.unique(y)) > 2:
            continue  # -s 2 is one-vs-rest there: not the same model family; left out
        cold = [liblinear_grid(prob, grid, options, False)[0] for _ in range(repeat)]
        try:
            warm = [liblinear_grid(prob, grid, options, True)[0] for _ in range(repeat)]
        except ValueError as err:  # LIBLINEAR refuses an initial solution for its dual solvers
            rows.append([f"LIBLINEAR {options} ({what}), default eps", spread(cold), f"refused: {err}", ""])
            continue
        ratio = statistics.median(warm) / statistics.median(cold)
        rows.append([f"LIBLINEAR {options} ({what}), default eps", spread(cold), spread(warm), f"{ratio:.2f}"])
    return rows


# ---- the report ----------------------------------------------------------------------------------------------

def spread(times):
    med = seconds_text(statistics.median(times))
    return f"{med} s" if len(times) == 1 else f"{med} s ({seconds_text(min(times))}-{seconds_text(max(times))})"


def bench_case(name, title, X, y, make, label, ll_solver, grid, repeat):
    """Print one case's tables; return its summary row."""
    runs = {v: [] for v in VARIANTS}
    for _ in range(repeat):  # the variants interleaved, so that a change in the machine's load falls on all
        for v in VARIANTS:
            runs[v].append(run_grid(make, X, y, grid, v, label))
    times = {v: [t for t, _ in runs[v]] for v in VARIANTS}
    cold_t = statistics.median(times["cold"])
    cold_P = {C: statistics.median(out[C][2] for _, out in runs["cold"]) for C in grid}

    def total_work(v):
        return statistics.median(sum(out[C][0] for C in grid) for _, out in runs[v])

    worst_gap, worst_dP, uncertified = 0.0, 0.0, []
    for v in VARIANTS[1:]:
        for _, out in runs[v]:
            for C in grid:
                _, gap, P, converged = out[C]
                worst_gap = max(worst_gap, gap)
                worst_dP = max(worst_dP, abs(P - cold_P[C]) / abs(cold_P[C]))
                if not (converged and gap <= TOL):
                    uncertified.append(f"{v} C={C:.3g} gap {gap:.1e}")
    cold_uncert = sorted({f"C={C:.3g}" for _, out in runs["cold"] for C in grid if out[C][1] > TOL})

    print(f"\n### {name}: {title}\n")
    print(f"grid: {len(grid)} values of C from {grid[0]:.3g} to {grid[-1]:.3g}, log-spaced; "
          f"{repeat} repeats; work in {label}")
    if cold_uncert:
        print(f"- cold fits not certified (gap > {TOL:g}, max_iter reached): {', '.join(cold_uncert)}")
    if uncertified:
        print(f"- warm fits not certified: {'; '.join(uncertified[:6])}" + (" ..." if len(uncertified) > 6 else ""))
    rows = []
    for v in VARIANTS:
        t = statistics.median(times[v])
        rows.append([v, spread(times[v]), f"{t / cold_t:.2f}", f"{total_work(v):.0f}"])
    print()
    print(table(rows, ["grid solved", "total time (range)", "time / cold", f"total {label}"]))
    # where warm starts help: each C's work, cold against warm (the first repeat)
    per_c = [[f"{C:.3g}"] + [f"{runs[v][0][1][C][0]:.0f}" for v in VARIANTS] for C in grid]
    print()
    print(table(per_c, ["C", *[f"{v}: {label}" for v in VARIANTS]]))
    if ll_solver is not None and liblinear_available():
        print()
        print(table(bench_liblinear(X, y, grid, ll_solver, repeat),
                    ["LIBLINEAR grid", "cold: total time (range)", "warm (init_sol): total time (range)",
                     "warm / cold"]))
    sys.stdout.flush()
    med = {v: statistics.median(times[v]) for v in VARIANTS}
    return [name, f"{len(grid)} C in [{grid[0]:.3g}, {grid[-1]:.3g}]", f"{med['cold']:.3g} s",
            f"{med['warm'] / med['cold']:.2f}", f"{med['warm, scaled'] / med['cold']:.2f}",
            f"{med['warm, descending'] / med['cold']:.2f}",
            " / ".join(f"{total_work(v):.0f}" for v in VARIANTS),
            f"{worst_gap:.1e}" + ("" if not uncertified else f" ({len(uncertified)} above tol)"),
            f"{worst_dP:.1e}"]


def warm_up():
    """Compile every solver used, outside the timings."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((60, 5)), np.arange(60) % 3
    yb = np.where(y == 0, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for loss, solver in (("cs", "blondel"), ("ww", "exact")):
            MulticlassSVC(loss=loss, solver=solver, warm_start=True).fit(X, y).set_params(C=2.0).fit(X, y)
        BinarySVC(solver="dual_cd", warm_start=True).fit(X, yb).set_params(C=2.0).fit(X, yb)
        BinarySVC(solver="smo", kernel="rbf", gamma=0.2, warm_start=True).fit(X, yb).set_params(C=2.0).fit(X, yb)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small problems, 1 repeat")
    parser.add_argument("--cases", nargs="+", default=None, help="some of the cases (default: all)")
    parser.add_argument("--repeat", type=int, default=None, help="grids solved per variant (default 3)")
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--c-min", type=float, default=0.01)
    parser.add_argument("--c-max", type=float, default=10.0)
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 3)
    grid = [float(c) for c in np.logspace(np.log10(args.c_min), np.log10(args.c_max), args.points)]
    import numba

    numba.set_num_threads(1)
    load_before = os.getloadavg()
    rows = []
    with threadpool_limits(1):
        warm_up()
        all_cases = cases(args.quick)
        for name in args.cases or list(all_cases):
            rows.append(bench_case(name, *all_cases[name], grid, repeat))
        described = machine()  # inside the limits: the threads the timings ran with
    print()
    print(described)
    print(f"load average (1, 5, 15 min) before: {' '.join(f'{v:.2f}' for v in load_before)}, "
          f"after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("\n### Summary: the grid's total time, warm / cold\n")
    print(table(rows, ["case", "grid", "cold: total time", "warm / cold", "warm, scaled / cold",
                       "warm, descending / cold", f"total work: {' / '.join(VARIANTS)}",
                       "largest gap of a warm fit (tol 1e-3)", "largest |P_warm - P_cold| / P_cold"]))


if __name__ == "__main__":
    main()
