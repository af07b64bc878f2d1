import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

# No property-based test may fail for being slow: on a loaded machine (CI's two cores shared
# with other work) an example can take seconds and generating data can be slow.  Tests that
# set their own settings keep them; these are the defaults underneath.  (The smoke test at the
# lowest supported versions runs without hypothesis.)
try:
    from hypothesis import HealthCheck, settings
except ImportError:
    pass
else:
    settings.register_profile("loaded-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("loaded-machine")

# Two tiers.  The whole run, `python -m pytest -n auto --dist loadgroup` (what CI runs through .ci/run), runs
# everything.  The quick tier, `... -m "not slow"`, leaves out what re-runs the course or installs packages: the
# notebooks under nbval, the solutions copy of the course under nbval, the real-browser tests, and the
# tests marked slow in their files (a newcomer's set-up and Binder's requirements in fresh environments).
SLOW = ("notebooks/", "tests/browser/", "tests/test_exercise_solutions.py")
ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(tryfirst=True)  # before -m selects on the marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path).resolve()
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
        if path.suffix == ".ipynb" or where.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def readme_environment(tmp_path_factory):
    """The README's set-up run as written in a copy of the checkout (test_newcomer.readme_setup): the copy and
    the finished install.  Made once per test process and shared by test_newcomer.py and test_binder.py (which
    share an xdist group): each installing every dependency into its own environment took 1-2 minutes."""
    import test_newcomer

    return test_newcomer.readme_setup(tmp_path_factory.mktemp("readme-environment"))


def random_binary(n=30, d=3, seed=0, shift=0.5):
    """A small random two-class problem with some overlap."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + shift * rng.normal(size=n) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0  # both classes, always
    return X, y


@pytest.fixture
def binary_data():
    return random_binary()


def agree_to_their_gap(estimator):
    """scikit-learn's checks that a default-tol estimator cannot pass: a weight of 2 and a repeated sample
    give fits that agree to their certified relative gap (tol = 1e-3), not to the checks' rtol of 1e-7;
    tests/test_estimator_weights.py runs the same checks at tol 1e-10, where they pass."""
    reason = ("weighted and repeated fits agree to their certified gap (tol=1e-3), not to rtol=1e-7; "
              "checked at tol=1e-10 in tests/test_estimator_weights.py")
    return {"check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason}


def cupy_code_path(monkeypatch):
    """From here to the test's end, NumPy arrays are treated as CuPy's are: through array-api-compat's namespace
    (its NumPy one, whose functions mirror the CuPy one), so the GPU code path runs on the CPU.  Returns it."""
    pytest.importorskip("array_api_compat")
    from svmteach import backend

    monkeypatch.setattr(backend, "_is_cupy", lambda a: isinstance(a, np.ndarray))
    import array_api_compat.numpy as compat

    assert backend.array_namespace(np.ones(2)) is compat and not backend.is_numpy(compat)
    return compat


@pytest.fixture
def compat_namespace(monkeypatch):
    """:func:`cupy_code_path` for the whole test."""
    return cupy_code_path(monkeypatch)
