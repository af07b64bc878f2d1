"""Grouping for a run on several cores (pytest-xdist, ``--dist loadgroup``): a notebook's cells share one kernel
and run in order on one worker, and each browser module keeps its one JupyterLab; every other test goes where
there is room.  Here at the root, not in tests/, so that it holds for a run that names notebooks only."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

# One BLAS thread for each process of the run: pytest -n auto starts a worker a core, and BLAS threads beside them
# (in the workers, the notebooks' kernels, the browser's JupyterLab) spin against each other (benchmarks/RESULTS.md,
# the test suite's time).  Set here, before the workers and the kernels they start inherit the environment; a
# value set outside the run is kept.
_SET_HERE = [name for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if name not in os.environ]
for _name in _SET_HERE:
    os.environ[_name] = "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one worker (pytest-xdist)")
    if "OPENBLAS_NUM_THREADS" in _SET_HERE:  # this process's BLAS too, where NumPy was loaded before (no workers)
        from threadpoolctl import threadpool_limits

        config._blas_limit = threadpool_limits(limits=1, user_api="blas")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path).resolve()
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
        if path.suffix == ".ipynb" or where.startswith("tests/browser/"):
            item.add_marker(pytest.mark.xdist_group(where))
