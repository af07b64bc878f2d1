"""A measure's per-sample arithmetic (each sample's loss, dual term and KKT violation) compiled in one pass (the
losses' ``terms``, svmteach.losses.row_kernels) against the loss's NumPy methods, which are what the derivations
check; and the start's measure (alpha = 0) without a product with X."""

import math

import numpy as np
import pytest

import svmteach.rows
from svmteach import MulticlassProblem, objectives as obj
from svmteach.losses import PACKAGE_LOSSES
from svmteach.losses.base import row_kernels
from svmteach.solvers import make_multiclass_solver
from test_row_kernel_twins import random_state


@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_terms_are_the_losses_numpy_methods(loss, seed, monkeypatch):
    problem, alpha, S = random_state(loss, seed)
    L = problem.loss_object
    out = np.full((problem.n_samples, 3), np.nan)
    row_kernels(L).terms(S, alpha, problem.codes, problem.C_i, float(problem.M), out)
    np.testing.assert_allclose(out[:, 0], L.sample_losses(problem, S), rtol=1e-13, atol=1e-13)
    assert math.isclose(out[:, 1].sum(), float(L.dual_linear(problem, alpha)), rel_tol=1e-12, abs_tol=1e-12)
    # sample by sample: the NumPy methods on each row alone (the row blocks' own parts, one row a block)
    monkeypatch.setattr(svmteach.rows, "block_bytes", lambda xp: 1)
    parts = list(obj.multiclass_row_blocks(problem))
    assert len(parts) == problem.n_samples
    for part, rows in parts:
        i = rows.start
        assert math.isclose(out[i, 1], float(L.dual_linear(part, alpha[rows])), rel_tol=1e-13, abs_tol=1e-13), i
        assert math.isclose(out[i, 2], float(L.kkt_violation(part, alpha[rows], S[rows])), rel_tol=1e-13,
                            abs_tol=1e-13), i


@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
def test_a_measure_and_its_rounding_bound_are_the_same_with_the_compiled_terms_and_without(loss, monkeypatch):
    problem, alpha, _ = random_state(loss, 3)
    W = obj.multiclass_weights(problem, alpha)
    compiled = obj.multiclass_measures(problem, alpha, W) + (obj.multiclass_gap_rounding(problem, alpha, W),)
    kernels = row_kernels(problem.loss_object)
    monkeypatch.setattr(type(problem.loss_object), "kernels", kernels._replace(terms=None))
    numpy = obj.multiclass_measures(problem, alpha, W) + (obj.multiclass_gap_rounding(problem, alpha, W),)
    np.testing.assert_allclose(compiled, numpy, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
def test_the_starts_measure_makes_no_product_with_X(loss, monkeypatch):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.arange(40) % 4
    problem = MulticlassProblem(X, y, C=0.7, loss=loss, sample_weight=rng.choice([0.0, 1.0, 2.0], size=40))
    L = problem.loss_object
    zeros = np.zeros((40, 4))
    expected = (0.7 * float(np.sum(problem.sample_weight * L.sample_losses(problem, zeros))),
                float(L.dual_linear(problem, zeros)), float(L.kkt_violation(problem, zeros, zeros)))

    def refused(*args, **kwargs):
        raise AssertionError("a product with X at alpha = 0")

    monkeypatch.setattr(obj.multiclass_model, "linear_scores", refused)
    monkeypatch.setattr(type(L), "weights", refused)
    state = make_multiclass_solver(None, L, random_state=0).init(problem)
    assert not np.any(state.W)
    np.testing.assert_allclose((state.primal, state.dual, state.kkt), expected, rtol=1e-13)
    assert state.gap == 1.0
