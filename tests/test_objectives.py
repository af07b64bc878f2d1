"""Objectives and KKT quantities against direct formulas and the QP oracle."""

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum

from svmteach import BinaryProblem
from svmteach import objectives as obj


def test_objectives_match_direct_formulas():
    X, y = random_binary(n=15, d=2, seed=1)
    p = BinaryProblem(X, y, C=0.7)
    alpha = np.random.default_rng(0).uniform(0, 0.7, 15)
    w = X.T @ (alpha * y)
    b = 0.3
    assert obj.primal(p, alpha, b) == pytest.approx(0.5 * w @ w + 0.7 * np.maximum(0, 1 - y * (X @ w + b)).sum())
    assert obj.dual(p, alpha) == pytest.approx(alpha.sum() - 0.5 * w @ w)
    assert obj.relative_gap(10.0, 9.0) == pytest.approx(0.1)
    np.testing.assert_allclose(obj.slacks(p, X @ w, b), np.maximum(0, 1 - y * (X @ w + b)))


def test_kkt_at_the_qp_optimum():
    X, y = random_binary(n=30, d=2, seed=2)
    p = BinaryProblem(X, y, C=1.0, kernel="rbf", gamma=1.0)
    best, alpha = binary_dual_optimum(np.array(p.gram), y, 1.0, bias=True)
    alpha = np.where(alpha < 1e-7, 0.0, np.where(alpha > 1 - 1e-7, 1.0, alpha))
    f = obj.scores(p, alpha)
    b, rule = obj.optimal_intercept(p, alpha, f)
    assert rule == "mean over free SVs"
    assert obj.kkt_violation(p, alpha, f, bias=True) < 1e-5
    assert obj.relative_gap(obj.primal(p, alpha, b, f), obj.dual(p, alpha, f)) < 1e-5
    # Rosasco's MIT 9.520 notes' table: alpha = 0 -> margin >= 1, free -> margin = 1, alpha = C -> margin <= 1
    m = obj.margins(p, f, b)
    cat = obj.kkt_categories(p, alpha)
    assert np.all(m[cat == obj.AT_ZERO] >= 1 - 1e-5)
    np.testing.assert_allclose(m[cat == obj.FREE], 1.0, atol=1e-5)
    assert np.all(m[cat == obj.AT_C] <= 1 + 1e-5)
    assert {obj.AT_ZERO, obj.FREE, obj.AT_C} == set(cat.tolist())


def test_kkt_violation_is_positive_away_from_the_optimum():
    X, y = random_binary(n=10, d=2, seed=3)
    p = BinaryProblem(X, y)
    alpha = np.zeros(10)
    f = obj.scores(p, alpha)
    assert obj.kkt_violation(p, alpha, f, bias=False) == pytest.approx(1.0)  # g = 1 at alpha = 0
    assert obj.kkt_violation(p, alpha, f, bias=True) == pytest.approx(2.0)  # m - M = 1 - (-1)


def random_multiclass(loss, sparse, weighted, seed, n=97, d=13, k=4):
    """A random multiclass problem (a third of X zero), its feasible alpha (a projected random one) and W(alpha)."""
    import scipy.sparse as sp

    from svmteach import MulticlassProblem

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=(n, 1))
    X[rng.random((n, d)) < 1 / 3] = 0
    X[5] = 0  # an empty row
    y = np.arange(n) % k
    weight = rng.uniform(0, 3, n) if weighted else None
    p = MulticlassProblem(sp.csr_array(X) if sparse else X, y, C=0.3, loss=loss, M=0.5, sample_weight=weight,
                          bias=1.0 if seed % 2 else None)
    alpha = p.loss_object.feasible(p, rng.normal(scale=0.3, size=(n, k)))
    return p, alpha, obj.multiclass_weights(p, alpha)


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_multiclass_measures_a_block_of_rows_at_a_time_are_the_whole_ones(monkeypatch, loss, sparse, weighted):
    """multiclass_measures and multiclass_gap_rounding over blocks of 1 to 97 rows (rows.BLOCK_BYTES) equal, to
    rounding, the loss's primal, dual and KKT violation on the whole (n, k) scores, and the bound in one block."""
    import svmteach.rows as rows

    for seed in range(4):
        p, alpha, W = random_multiclass(loss, sparse, weighted, seed)
        loss_object = p.loss_object
        S = obj.multiclass_scores(p, W)
        whole = (loss_object.primal(p, W, S), loss_object.dual(p, alpha, W), loss_object.kkt_violation(p, alpha, S))
        monkeypatch.setattr(rows, "BLOCK_BYTES", 1 << 30)
        assert len(list(obj.multiclass_row_blocks(p))) == 1
        bound = obj.multiclass_gap_rounding(p, alpha, W)
        for block_bytes in (1, 200, 1000):  # 1 row a block (8 k bytes a row at least), a few rows, many
            monkeypatch.setattr(rows, "BLOCK_BYTES", block_bytes)
            assert len(list(obj.multiclass_row_blocks(p))) > 1
            np.testing.assert_allclose(obj.multiclass_measures(p, alpha, W), whole, rtol=1e-13)
            assert obj.multiclass_gap_rounding(p, alpha, W) == pytest.approx(bound, rel=1e-13)
