"""Each usual wrong attempt at a code exercise is told what it is (issue 46: the simplex projection sorted in
increasing order, and rho off by one, were both told "rescaling is not a projection")."""

from __future__ import annotations

import numpy as np
import pytest

from svmteach import exercises


def simplex_sorted_increasing(v, z):
    u = np.sort(v)  # the slip: increasing
    css = np.cumsum(u) - z
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def simplex_divided_by_rho(v, z):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    theta = css[rho] / rho if rho > 0 else css[rho]  # the slip: rho is an index from 0, rho + 1 entries are kept
    return np.maximum(v - theta, 0.0)


def simplex_divided_by_rho_plus_two(v, z):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 2.0), 0.0)


def simplex_rescaled(v, z):
    kept = np.maximum(v, 0.0)
    return kept * z / kept.sum()


ATTEMPTS = [
    ("project_simplex", simplex_sorted_increasing, "increasing order", "rescaling"),
    ("project_simplex", simplex_divided_by_rho, "you divided by rho)", "rescaling"),
    ("project_simplex", simplex_divided_by_rho_plus_two, "rho + 2", "rescaling"),
    ("project_simplex", simplex_rescaled, "rescaling is not the nearest point", None),
]


@pytest.mark.parametrize("name, fn, says, not_says", ATTEMPTS, ids=[f.__name__ for _, f, _, _ in ATTEMPTS])
def test_a_wrong_attempt_is_named_for_what_it_is(name, fn, says, not_says):
    r = exercises.check(name, fn)
    assert not r.passed and r.failure is not None, r
    assert says in r.failure.hint, r
    if not_says:
        assert not_says not in r.failure.hint, r


def test_the_named_slips_are_not_the_projection():
    """Oracle: the projection is the minimiser of ||beta - v||^2 on the simplex (scipy's SLSQP on a small v); none of
    the slips gives it, the reference does."""
    from scipy.optimize import minimize

    v, z = np.array([2.5, 1.8, 0.9, 0.4, -0.3]), 1.0
    best = minimize(lambda b: np.sum((b - v) ** 2), np.full(5, z / 5), method="SLSQP", bounds=[(0, None)] * 5,
                    constraints=[{"type": "eq", "fun": lambda b: b.sum() - z}], options={"ftol": 1e-14}).x
    assert np.allclose(exercises.solution("project_simplex")(v, z), best, atol=1e-6)
    for _, fn, _, _ in ATTEMPTS:
        assert not np.allclose(fn(v, z), best, atol=1e-3), fn.__name__
