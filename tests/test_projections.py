"""Simplex projections and the exact Weston-Watkins block against brute force and a QP solver."""

import array_api_strict as xps
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from oracles import solve_qp

from svmteach.backend import to_numpy
from svmteach.projections import project_simplex_bisect, project_simplex_sort, ww_block_solve
from svmteach.losses.crammer_singer import project_simplex_row
from svmteach.losses.weston_watkins import block_row as ww_block_row

rows = st.integers(1, 6).flatmap(lambda k: arrays(np.float64, (4, k), elements=st.floats(-50, 50)))


def qp_simplex(v, z):
    k = len(v)
    return solve_qp(np.eye(k), -v, np.ones((1, k)), [z], -np.eye(k), np.zeros(k))


def qp_ww_block(u, C):
    m = len(u)
    return solve_qp(np.eye(m) + np.ones((m, m)), -u, A_ineq=np.vstack([np.eye(m), -np.eye(m)]),
                    b_ineq=np.concatenate([np.full(m, C), np.zeros(m)]))


@settings(max_examples=80, deadline=None)
@given(V=rows, z=st.floats(0.01, 20))
def test_simplex_projections_agree_and_are_optimal(V, z):
    a = project_simplex_sort(V, z)
    b = project_simplex_bisect(V, z)
    np.testing.assert_allclose(a, b, atol=1e-9)
    out = np.empty(V.shape[1])
    project_simplex_row(V[0], z, out, np.empty_like(out))
    np.testing.assert_allclose(out, a[0], atol=1e-12)
    assert np.all(a >= 0) and np.allclose(a.sum(axis=1), z)
    # optimality: beta = max(v - theta, 0) with one theta per row
    for v, p in zip(V, a):
        support = p > 0
        theta = (v[support] - p[support]).mean()
        np.testing.assert_allclose(p, np.maximum(v - theta, 0), atol=1e-9)


def test_simplex_projection_against_qp_and_per_row_mass():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(5, 7)) * 3
    z = np.array([0.5, 1.0, 2.0, 4.0, 8.0])
    P = project_simplex_sort(V, z)
    for v, zz, p in zip(V, z, P):
        np.testing.assert_allclose(p, qp_simplex(v, zz), atol=1e-7)


@settings(max_examples=80, deadline=None)
@given(U=rows, C=st.floats(0.01, 30))
def test_ww_block_is_optimal(U, C):
    B = ww_block_solve(U, C)
    for u, b in zip(U, B):
        t = b.sum()
        np.testing.assert_allclose(b, np.clip(u - t, 0, C), atol=1e-9 * max(1, C, np.abs(u).max()))
        out = np.empty(len(u))
        assert ww_block_row(u, C, out, np.empty(len(u))) == pytest.approx(t, abs=1e-9 * max(1, C, np.abs(u).max()))
        np.testing.assert_allclose(out, b, atol=1e-9 * max(1, C, np.abs(u).max()))


def test_ww_block_many_classes_uses_the_general_sort():
    u = np.random.default_rng(3).normal(size=150) * 2  # about 75 positive entries: beyond 64, the heapsort
    assert (u > 0).sum() > 64
    out = np.empty(150)
    t = ww_block_row(u, 0.3, out, np.empty(150))
    np.testing.assert_allclose(out, ww_block_solve(u[None, :], 0.3)[0], atol=1e-12)
    np.testing.assert_allclose(out, np.clip(u - t, 0, 0.3), atol=1e-12)


def test_ww_block_against_qp():
    rng = np.random.default_rng(1)
    U = rng.normal(size=(6, 5)) * 2
    for C in (0.1, 1.0, 10.0):
        B = ww_block_solve(U, C)
        for u, b in zip(U, B):
            np.testing.assert_allclose(b, qp_ww_block(u, C), atol=1e-6)


def test_batched_functions_run_on_array_api_strict():
    rng = np.random.default_rng(2)
    V = rng.normal(size=(3, 4))
    for f, args in ((project_simplex_sort, (1.5,)), (project_simplex_bisect, (1.5,)), (ww_block_solve, (0.7,))):
        np.testing.assert_allclose(to_numpy(f(xps.asarray(V), *args)), f(V, *args), atol=1e-12)


def test_rows_must_be_2d():
    with pytest.raises(ValueError, match="^V must be 2-D"):
        project_simplex_sort(np.ones(3), 1.0)


# ---- degenerate and invalid input ---------------------------------------------------------------

def exact_simplex(v, z):
    """Brute force in exact rational arithmetic: the support S is the set whose threshold
    theta = (sum_S v - z) / |S| keeps v > theta on S and v <= theta off it (Held et al.)."""
    from fractions import Fraction
    from itertools import combinations

    v = [Fraction(x) for x in v]
    z = Fraction(z)
    for size in range(1, len(v) + 1):
        for S in combinations(range(len(v)), size):
            theta = (sum(v[j] for j in S) - z) / size
            if all(v[j] > theta for j in S) and all(v[j] <= theta for j in range(len(v)) if j not in S):
                return np.array([float(max(x - theta, 0)) for x in v])
    raise AssertionError("no support found")


huge_rows = st.integers(1, 5).flatmap(lambda k: arrays(
    np.float64, (3, k), elements=st.sampled_from([0.0, -1.0, 1.0, 1e20, -1e20, 1e20 + 16384.0, 1e-300, 3.5])))


@settings(max_examples=60, deadline=None)
@given(V=huge_rows, z=st.sampled_from([1e-300, 1e-10, 0.5, 1.0, 7.0, 1e20]))
def test_simplex_projection_is_exact_on_ties_and_huge_entries(V, z):
    """Ties at 1e20 with z = 1 used to give a projection of the wrong mass; now exact, on every path."""
    for f in (project_simplex_sort, project_simplex_bisect):
        P = f(V, z)
        for v, p in zip(V, P):
            np.testing.assert_allclose(p, exact_simplex(v, z), rtol=1e-12, atol=1e-15 * z)
            assert p.sum() == pytest.approx(z, rel=1e-12)
    out = np.empty(V.shape[1])
    project_simplex_row(V[0], z, out, np.empty_like(out))
    np.testing.assert_allclose(out, exact_simplex(V[0], z), rtol=1e-12, atol=1e-15 * z)


def test_simplex_projection_of_lists_and_one_column():
    np.testing.assert_array_equal(project_simplex_sort([[1, 2, 3]], 1.0), [[0.0, 0.0, 1.0]])
    np.testing.assert_array_equal(project_simplex_bisect([[5.0], [-3.0]], 2.0), [[2.0], [2.0]])


@pytest.mark.parametrize("f", [project_simplex_sort, project_simplex_bisect])
@pytest.mark.parametrize("z, exc, match", [
    (0.0, ValueError, "^z must be positive and finite"),
    (-1.0, ValueError, "^z must be positive and finite"),
    (np.nan, ValueError, "^z must be positive and finite"),
    (np.inf, ValueError, "^z must be positive and finite"),
    (True, TypeError, "^z must be a positive number"),
    (np.array([1.0, 0.0]), ValueError, "^z must be positive and finite in every row"),
    (np.array([1.0, 2.0, 3.0]), ValueError, "^z must be a scalar or have one entry per row"),
])
def test_simplex_projection_refuses_a_bad_mass(f, z, exc, match):
    with pytest.raises(exc, match=match):
        f(np.ones((2, 3)), z)


@pytest.mark.parametrize("V, exc, match", [
    (np.ones((2, 0)), ValueError, "^V must have at least one column"),
    (np.array([[np.nan, 1.0]]), ValueError, "^V contains NaN or infinity"),
    (np.array([[np.inf, 1.0]]), ValueError, "^V contains NaN or infinity"),
    ([[1.0, "a"]], TypeError, "^V must be a 2-D array of numbers"),
    (np.ones((2, 2, 2)), ValueError, "^V must be 2-D"),
])
def test_simplex_projection_refuses_bad_rows(V, exc, match):
    for f in (project_simplex_sort, project_simplex_bisect):
        with pytest.raises(exc, match=match):
            f(V, 1.0)


def test_ww_block_refuses_bad_input():
    with pytest.raises(ValueError, match="^C must be positive and finite"):
        ww_block_solve(np.ones((2, 3)), 0.0)
    with pytest.raises(ValueError, match="^U contains NaN"):
        ww_block_solve(np.array([[np.nan, 1.0]]), 1.0)
    with pytest.raises(ValueError, match="^U must have at least one column"):
        ww_block_solve(np.ones((2, 0)), 1.0)
