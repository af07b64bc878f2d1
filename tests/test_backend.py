"""One code path: the step-by-step solvers run unchanged on array-api-strict arrays."""

import array_api_strict as xps
import numpy as np
import pytest
from conftest import random_binary

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, PrimalSubgradient, iterate
from svmteach.backend import array_namespace, namespace_for_device, to_numpy


@pytest.mark.parametrize("make", [lambda: DualCoordinateAscent(random_state=0), lambda: PrimalSubgradient()])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_step_path_on_array_api_strict_equals_numpy(make, kernel):
    X, y = random_binary(n=12, d=2)
    strict = BinaryProblem(xps.asarray(X), y, C=1.0, kernel=kernel, gamma=0.5)
    plain = BinaryProblem(X, y, C=1.0, kernel=kernel, gamma=0.5)
    assert array_namespace(strict.X) is not np
    a = list(iterate(make(), strict, max_iter=30))[-1]
    b = list(iterate(make(), plain, max_iter=30))[-1]
    assert array_namespace(a.alpha) is array_namespace(strict.X)  # it never left the namespace
    np.testing.assert_allclose(to_numpy(a.alpha), b.alpha, atol=1e-12)
    assert a.dual == pytest.approx(b.dual, rel=1e-12)


@pytest.mark.parametrize("make", [lambda: SMO(), lambda: SMO("random", random_state=0),
                                  lambda: SMO("max_violating_pair")])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_smo_step_path_on_array_api_strict_reaches_numpys_optimum(make, kernel):
    """On NumPy, SMO's step path reads kernel rows from the compiled row cache; on another namespace it computes
    them with that namespace's operations.  The rows agree to rounding, and a near-tie in the choice of pair can
    then take another pair (after 15 steps here), so the two runs are compared at the optimum both reach."""
    X, y = random_binary(n=12, d=2)
    strict = BinaryProblem(xps.asarray(X), y, C=1.0, kernel=kernel, gamma=0.5)
    plain = BinaryProblem(X, y, C=1.0, kernel=kernel, gamma=0.5)
    a = list(iterate(make(), strict, max_iter=10_000, tol=1e-12))[-1]
    b = list(iterate(make(), plain, max_iter=10_000, tol=1e-12))[-1]
    assert array_namespace(a.alpha) is array_namespace(strict.X)  # it never left the namespace
    assert a.gap <= 1e-12 and b.gap <= 1e-12
    assert a.dual == pytest.approx(b.dual, rel=1e-11)
    np.testing.assert_allclose(to_numpy(a.alpha), b.alpha, atol=1e-5)


def test_device_choice():
    from svmteach.backend import cupy_available

    assert namespace_for_device("cpu") is np
    expected = "cupy" if cupy_available() else "numpy"
    assert namespace_for_device("auto").__name__ == expected
    if not cupy_available():
        with pytest.raises(ValueError, match="^device='gpu' needs CuPy"):
            namespace_for_device("gpu")
    with pytest.raises(ValueError, match="^device must be one of"):
        namespace_for_device("tpu")


def test_mixing_libraries_is_refused():
    with pytest.raises(TypeError, match="mixed"):
        array_namespace(np.ones(2), xps.ones(2))
