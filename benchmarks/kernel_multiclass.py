"""Kernel MulticlassSVC against scikit-learn's SVC (LIBSVM, one-vs-one) on a 10-class gaussian-kernel problem (issue 29).

    python benchmarks/kernel_multiclass.py                 # n = 5,000 then 20,000 (one run each at 20,000)
    python benchmarks/kernel_multiclass.py --quick         # n = 1,000, a smoke run
    python benchmarks/kernel_multiclass.py --n 5000 --repeat 3 --losses ww cs --json out.json

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
fits freed: as ``memory.py`` measures it), and for svmteach the epochs (``n_iter_``), the final relative gap
and what the run did, counted by wrappers around the solver's compiled epoch and its measure (their cost, a
copy of the visited rows of alpha per epoch call, is in the times): the block visits, the visits that moved
alpha (each moves S = K A by a kernel column, O(nk)), the kernel rows asked of the row cache and how many of
them were computed (misses: the request sequence replayed through an LRU of the cache's size, checked
against the cache's own request count and the rows it holds at the end), and the seconds in the compiled
epochs and in the measures (each recomputes S from alpha over the support vectors and both objectives).
For SVC: the SMO iterations summed over its 45 problems (``n_iter_``).  A Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table  # noqa: E402
from memory import hwm_and_rss_mb  # noqa: E402

from svmteach import MulticlassSVC  # noqa: E402
from svmteach.solvers import multiclass_base  # noqa: E402

C, GAMMA, CACHE_MB, D, K = 1.0, 0.05, 200, 20, 10
LOSSES = ("ww", "cs", "llw")


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
    """Wraps ``MulticlassSolver.measure``, ``._epoch`` and the step path's ``kernel_row`` while installed:
    times and visits, and the sequence of kernel rows asked for (a compiled epoch asks for row i at each visit
    that moved alpha_i; the replayed last visit of an ``advance`` through ``kernel_row``)."""

    def __init__(self, progress=False):
        self.progress = progress
        self.originals = (multiclass_base.MulticlassSolver.measure, multiclass_base.MulticlassSolver._epoch,
                          multiclass_base.kernel_row)
        self.reset()

    def reset(self):
        self.measure_s = self.epoch_s = 0.0
        self.measures = self.visits = self.moved = 0
        self.requests, self.rows = [], None
        self.start = time.perf_counter()

    def install(self):
        measure, epoch, kernel_row = self.originals
        me = self

        def timed_measure(solver, problem, state):
            t0 = time.perf_counter()
            out = measure(solver, problem, state)
            me.measure_s += time.perf_counter() - t0
            me.measures += 1
            if me.progress:  # how far a run got, should its wall-clock limit stop it
                print(f"  measure {me.measures}: {time.perf_counter() - me.start:.1f} s into the fit, "
                      f"{me.visits / problem.n_samples:.1f} epochs of visits, gap {out.gap:.2e} "
                      f"(epochs {me.epoch_s:.1f} s, measures {me.measure_s:.1f} s)", file=sys.stderr, flush=True)
            return out

        def counted_epoch(solver, problem, alpha, W, order, active, margin, classes, rows):
            before = alpha[order]
            t0 = time.perf_counter()
            out = epoch(solver, problem, alpha, W, order, active, margin, classes, rows)
            me.epoch_s += time.perf_counter() - t0
            moved = order[np.any(alpha[order] != before, axis=1)]
            me.visits += len(order)
            me.moved += len(moved)
            me.requests.append(moved)
            me.rows = rows
            return out

        def counted_row(problem, i, rows):
            me.requests.append(np.array([i]))
            me.rows = rows
            return kernel_row(problem, i, rows)

        multiclass_base.MulticlassSolver.measure = timed_measure
        multiclass_base.MulticlassSolver._epoch = counted_epoch
        multiclass_base.kernel_row = counted_row

    def uninstall(self):
        (multiclass_base.MulticlassSolver.measure, multiclass_base.MulticlassSolver._epoch,
         multiclass_base.kernel_row) = self.originals

    def rows_computed(self):
        """``(requests, misses)``: the rows asked for and those computed, the sequence replayed through an LRU of
        the cache's size (as ``numba_kernel_rows.get_row`` keeps it), checked against the cache."""
        cache = self.rows
        slots = cache.buffer.shape[0]
        held, misses, count = OrderedDict(), 0, 0
        for part in self.requests:
            for i in part.tolist():
                count += 1
                if i in held:
                    held.move_to_end(i)
                    continue
                misses += 1
                held[i] = None
                if len(held) > slots:
                    held.popitem(last=False)
        if count != int(cache.clock[0]):  # a visit asked for a row and left alpha as it was: no replay
            return int(cache.clock[0]), None
        assert set(held) == set(np.flatnonzero(cache.slot >= 0).tolist()), "the replayed LRU is not the cache's"
        return count, misses


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


def run_n(n, losses, repeat, counters):
    """The rows of the table at size n (dicts), SVC first."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte, yte = data(n)
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

    runs("SVC(kernel='rbf')", lambda: SVC(kernel="rbf", C=C, gamma=GAMMA, cache_size=CACHE_MB),
         lambda m: dict(support=int(m.n_support_.sum()), smo_iterations=int(np.sum(m.n_iter_))))
    for loss in losses:
        def after(m):
            requests, misses = counters.rows_computed()
            return dict(support=len(m.support_), epochs=int(m.n_iter_), gap=float(m.result_.gap),
                        visits=counters.visits, moved=counters.moved, requests=requests, rows_computed=misses,
                        cache_rows=int(counters.rows.buffer.shape[0]), cache_mb=counters.rows.size_mb,
                        epoch_s=counters.epoch_s, measures=counters.measures, measure_s=counters.measure_s)

        runs(f"MulticlassSVC(kernel='rbf', loss='{loss}')",
             lambda: MulticlassSVC(kernel="rbf", loss=loss, C=C, gamma=GAMMA, cache_size=CACHE_MB), after)
    return out


def report(rows):
    svc = {r["n"]: r["seconds"] for r in rows if r["estimator"].startswith("SVC")}
    main = [(f"{r['n']:,}", r["estimator"], f"{r['seconds']:.2f} s ({r['low']:.2f}-{r['high']:.2f}, {r['runs']} runs)",
             f"{r['seconds'] / svc[r['n']]:.1f}", f"{r['accuracy']:.4f}", r["support"], f"{r['peak_mb']:.0f} MB",
             r.get("epochs", "-"), f"{r['gap']:.1e}" if "gap" in r else "-") for r in rows]
    print(table(main, ["n", "estimator", "fit time (median, range)", "/ SVC", "test accuracy", "support vectors",
                       "peak RSS added", "epochs", "final gap"]))
    print()
    work = [(f"{r['n']:,}", r["estimator"], f"{r['visits']:,}", f"{r['moved']:,}",
             f"{r['requests']:,} / {'?' if r['rows_computed'] is None else format(r['rows_computed'], ',')} "
             f"({r['cache_rows']:,} rows, {r['cache_mb']:.0f} MB)",
             f"{r['epoch_s']:.2f} s", f"{r['measure_s']:.2f} s ({r['measures']})",
             f"{1e6 * r['epoch_s'] / max(r['moved'], 1):.0f} us")
            for r in rows if "visits" in r]
    print(table(work, ["n", "estimator", "block visits", "visits that moved", "rows asked / computed (cache)",
                       "compiled epochs", "measures (count)", "epoch time per moving visit"]))
    print()
    print(table([(f"{r['n']:,}", f"{r['smo_iterations']:,}") for r in rows if "smo_iterations" in r],
                ["n", "SVC: SMO iterations, 45 problems summed"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 only (a smoke run)")
    parser.add_argument("--n", type=int, nargs="+", help="training sizes (default 5000 20000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per fit at n <= 5,000 (median)")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs per fit above n = 5,000")
    parser.add_argument("--losses", nargs="+", choices=LOSSES, default=list(LOSSES))
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--progress", action="store_true", help="a line on stderr at each measure of the gap")
    args = parser.parse_args(argv)
    sizes = [1000] if args.quick else (args.n or [5000, 20000])

    import numba

    numba.set_num_threads(1)
    rows = []
    counters = Counters(args.progress)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning would make the times meaningless
        print(machine(), file=sys.stderr)
        Xw, yw, _, _ = data(300)
        MulticlassSVC(kernel="rbf", gamma=GAMMA).fit(Xw, yw)  # numba compiles or loads its cache here
        counters.install()
        try:
            for n in sizes:
                rows += run_n(n, args.losses, args.repeat if n <= 5000 else args.repeat_large, counters)
        finally:
            counters.uninstall()
        print(machine())  # the threads the fits ran with
    print()
    report(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
