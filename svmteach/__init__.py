"""svmteach: exact, step-by-step SVM solvers for learning, teaching and running SVM duality.

The public API, flat: problems, solvers, the drivers ``iterate`` / ``solve``,
kernels and the scikit-learn compatible estimators.  Each name is imported when first used
(PEP 562), so that ``svmteach --help`` and the course's tools do not load numba and scikit-learn.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import TYPE_CHECKING

#: The one version string (pyproject.toml reads it: ``[tool.setuptools.dynamic]``).
__version__ = "0.1.0"


class _InstallCompiledCache:
    """Installs :mod:`svmteach.compiled_cache` (it imports numba) before the first submodule that may
    compile is imported: numba picks a function's cache locator when ``@njit(cache=True)`` decorates."""

    LIGHT = frozenset({f"{__name__}.cli", f"{__name__}.compiled_cache"})  # never compile
    lock = threading.RLock()

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.startswith(f"{__name__}.") and name not in cls.LIGHT:
            with cls.lock:  # two threads importing at once: both wait until it is installed
                if cls in sys.meta_path:
                    sys.meta_path.remove(cls)
                    from . import compiled_cache

                    compiled_cache.install()
        return None  # the usual finders import the module


sys.meta_path.insert(0, _InstallCompiledCache)

#: Each public name and the module that defines it.
_SOURCES = {
    "BinarySVC": ".estimators", "MulticlassSVC": ".estimators",
    "OneVsRestSVC": ".estimators", "OneVsOneSVC": ".estimators", "RLSClassifier": ".estimators",
    "BinaryProblem": ".problems", "MulticlassProblem": ".problems",
    "Kernel": ".kernels", "gram": ".kernels", "make_kernel": ".kernels",
    "SMO": ".solvers", "DualCoordinateAscent": ".solvers", "PrimalSubgradient": ".solvers", "WWExact": ".solvers",
    "WWShark": ".solvers", "CSBlondel": ".solvers", "ParallelBlock": ".solvers", "InteriorPoint": ".solvers",
    "SolveResult": ".solvers", "iterate": ".solvers", "solve": ".solvers",
    "classroom": ".viz.presentation",  # svmteach.classroom(): the explorers made after it at the classroom size
}

__all__ = list(_SOURCES)

if TYPE_CHECKING:  # what a type checker and the import-graph test read
    from .estimators import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC, RLSClassifier
    from .kernels import Kernel, gram, make_kernel
    from .problems import BinaryProblem, MulticlassProblem
    from .viz.presentation import classroom
    from .solvers import (
        SMO,
        CSBlondel,
        DualCoordinateAscent,
        InteriorPoint,
        ParallelBlock,
        PrimalSubgradient,
        SolveResult,
        WWExact,
        WWShark,
        iterate,
        solve,
    )


def __getattr__(name: str):
    """A public name, or a submodule (``svmteach.objectives`` after ``import svmteach``), imported on first use."""
    if name in _SOURCES:
        value = getattr(importlib.import_module(_SOURCES[name], __name__), name)
        globals()[name] = value  # imported once
        return value
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":  # a submodule that fails to import says why
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SOURCES))
