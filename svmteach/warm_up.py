"""Compile ahead of the course: the fits and steps the notebooks take, on tiny data, so that numba's cache holds
their machine code before a student's first cell asks for it.

``svmteach lab`` runs this in a background process (lowered priority) while JupyterLab starts; a notebook that
runs meanwhile compiles what it needs itself, and numba's cache keeps whichever copy is written last (the same
code).  ``python -m svmteach.warm_up`` runs it in the foreground, one line per part.  What each part compiles was
chosen by running the course on an empty numba cache after it and counting the cache entries the notebooks
still wrote (``benchmarks/RESULTS.md``, first-use compiling).
"""

from __future__ import annotations

import os
import sys
import time
import warnings


def _binary():
    from . import data
    from .estimators import BinarySVC, OneVsOneSVC, OneVsRestSVC
    from .problems import BinaryProblem
    from .solvers import SMO, DualCoordinateAscent, PrimalSubgradient, iterate

    X, y = data.overlapping_blobs(n=30, seed=0)
    BinarySVC().fit(X, y)                                    # dual coordinate ascent, the intercept a column
    BinarySVC(fit_intercept=False).fit(X, y)
    BinarySVC(solver="smo").fit(X, y)                        # SMO, linear kernel
    BinarySVC(kernel="rbf", gamma=1.0).fit(X, y)             # SMO, gaussian kernel
    BinarySVC(kernel="poly", gamma=1.0, degree=3, coef0=-2.0).fit(X, y)
    for kernel in ("linear", "gaussian"):                    # the explorers' step paths
        problem = BinaryProblem(X, y, C=1.0, kernel=kernel, gamma=1.0)
        for solver in (SMO(), SMO(selection="max_violating_pair", shrinking=False), DualCoordinateAscent(),
                       PrimalSubgradient()):
            if kernel == "linear" or isinstance(solver, SMO):
                for _ in iterate(solver, problem, max_iter=3):
                    pass
    Xm, ym = data.multiclass_blobs(n=30, k=3, seed=0)
    OneVsRestSVC(solver="dual_cd", fit_intercept=False).fit(Xm, ym)
    OneVsOneSVC(solver="smo").fit(Xm, ym)


def _multiclass_linear():
    import numpy as np

    from . import data
    from .estimators import MulticlassSVC
    from .problems import MulticlassProblem
    from .solvers import CSBlondel, ExactBlock, WWExact, WWShark, iterate

    X, y = data.multiclass_blobs(n=30, k=3, seed=0)
    for loss, solver in (("ww", None), ("ww", "shark"), ("cs", None), ("llw", None)):
        for fit_intercept in (True, False):
            MulticlassSVC(loss=loss, solver=solver, fit_intercept=fit_intercept).fit(X, y)
    MulticlassSVC(loss="ww", solver="parallel", fit_intercept=False).fit(X, y)
    MulticlassSVC(loss="cs", solver="parallel", fit_intercept=False).fit(X, y)
    # float32 data (data.synthetic_multiclass, notebook 8's sequential-versus-parallel race)
    X32 = X.astype(np.float32)
    MulticlassSVC(loss="ww", fit_intercept=False).fit(X32, y)
    MulticlassSVC(loss="ww").fit(X32, y)
    # the step paths the explorers and notebooks 6 and 7 watch, a block at a time
    for loss, solver in (("ww", WWExact()), ("ww", WWShark()), ("cs", CSBlondel()), ("llw", ExactBlock()),
                         ("mmr", ExactBlock())):
        for _ in iterate(solver, MulticlassProblem(X, y, loss=loss), max_iter=3):
            pass


def _multiclass_kernel():
    from . import data
    from .estimators import MulticlassSVC

    X, y = data.multiclass_blobs(n=30, k=3, seed=0)
    for loss in ("ww", "cs", "llw"):
        MulticlassSVC(loss=loss, kernel="rbf", gamma=1.0).fit(X, y)
        # the working sets, the default once K outgrows the row cache (a researcher's first large fit)
        MulticlassSVC(loss=loss, kernel="rbf", gamma=1.0, solver="working_set").fit(X, y)


#: The parts, in the order the course meets them: (what it compiles, the function).
PARTS = (("the binary solvers", _binary), ("the linear multiclass solvers", _multiclass_linear),
         ("the kernel multiclass solvers", _multiclass_kernel))


def warm_up(out=None) -> float:
    """Run every part, printing a line as each one starts; return the seconds it took."""
    out = sys.stdout if out is None else out
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny problems: a fit short of tol says nothing here
        for number, (what, part) in enumerate(PARTS, 1):
            print(f"svmteach warm-up: {number}/{len(PARTS)} {what}", file=out, flush=True)
            part()
    return time.perf_counter() - start


def main(argv=None) -> int:
    """``--background`` (as ``svmteach lab`` runs it): lowered priority, and one line when it is done."""
    background = "--background" in (sys.argv[1:] if argv is None else argv)
    if background:
        if hasattr(os, "nice"):
            os.nice(10)  # JupyterLab and the student's kernels come first
        os.environ["SVMTEACH_COMPILE_NOTICE"] = "0"  # its own line says it all
    with open(os.devnull, "w") as quiet:
        seconds = warm_up(out=quiet if background else None)
    print(f"svmteach: the course's solvers are compiled ({seconds:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
