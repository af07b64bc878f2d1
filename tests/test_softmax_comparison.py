"""Notebook 7, section 8: softmax (multinomial logistic regression) on the same picture as Weston-Watkins and
Crammer-Singer (issue 46, section 3).

The figure is drawn by the notebook's own cell (its source run here, on the notebook's data), and read back
from its rendered pixels:

- the softmax panel's regions against ``LogisticRegression.predict`` of a model fitted here, and against the
  argmax of the minimiser of the objective the text writes (``1/2 ||W||_F^2 + C sum_i cross-entropy``) found
  by SciPy's L-BFGS on our own gradient: both independent of the cell's drawing;
- the WW and CS panels against Clarabel's Weston-Watkins primal and LIBLINEAR's Crammer-Singer
  (``tests/test_pictures.py``'s oracles);
- its rings: on the hinge panels exactly the support vectors of the oracle's optimum (every point outside the
  margin left out), on the softmax panel every point, each ring's area its weight ``1 - p(y_i | x_i)``.

And what the text claims: ``w_m = C sum_i ([y_i = m] - p(m | x_i)) x_i`` at the optimum, every coefficient
non-zero; the regions differ on less than 5% of the box.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.optimize import minimize  # noqa: E402
from scipy.special import logsumexp, softmax  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from test_pictures import cs_optimum, drawn_regions_agree, ww_optimum  # noqa: E402

from svmteach import MulticlassSVC, data  # noqa: E402

NB07 = Path(__file__).resolve().parent.parent / "notebooks" / "07_crammer_singer.ipynb"
C = 1.0


def cell_source():
    cells = json.loads(NB07.read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if c["cell_type"] == "code" and "LogisticRegression(" in "".join(c["source"])]
    return "".join(cell["source"])


def softmax_optimum(X, codes, k, C):
    """argmin 1/2 ||W||_F^2 + C sum_i (logsumexp(W x_i) - w_{y_i}' x_i), by L-BFGS on its exact gradient."""
    n, d = X.shape
    Y = np.eye(k)[codes]

    def f(v):
        W = v.reshape(k, d)
        S = X @ W.T
        value = 0.5 * np.sum(W * W) + C * np.sum(logsumexp(S, axis=1) - np.sum(S * Y, axis=1))
        grad = W + C * (softmax(S, axis=1) - Y).T @ X
        return value, grad.ravel()

    r = minimize(f, np.zeros(k * d), jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15,
                                                                           "maxiter": 10_000})
    assert np.max(np.abs(f(r.x)[1])) < 1e-7, r.message
    return r.x.reshape(k, d)


@pytest.fixture(scope="module")
def drawn():
    """The notebook's cell run on the notebook's data: its namespace (models, weight, fig, axes)."""
    X, y = data.multiclass_blobs(90, k=4, seed=0)  # the notebook's X, y (its first code cell)
    plt.rcParams.update({"font.size": 12})
    ns = {"np": np, "plt": plt, "MulticlassSVC": MulticlassSVC, "X": X, "y": y}
    show, plt.show = plt.show, (lambda *a, **k: None)
    try:
        exec(compile(cell_source(), str(NB07), "exec"), ns)
    finally:
        plt.show = show
    yield ns
    plt.close(ns["fig"])


def test_the_softmax_panel_draws_logistic_regressions_regions(drawn):
    X, y, fig, axes = drawn["X"], drawn["y"], drawn["fig"], drawn["axes"]
    assert [ax.get_title() for ax in axes] == ["WW", "CS", "softmax"]
    fresh = LogisticRegression(C=C, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(X, y)
    drawn_regions_agree(fig, axes[2], 4, lambda Z: fresh.predict(Z))
    W = softmax_optimum(np.asarray(X, float), np.asarray(y), 4, C)
    drawn_regions_agree(fig, axes[2], 4, lambda Z: np.argmax(Z @ W.T, axis=1))
    # the cell's model minimises the objective the text writes
    np.testing.assert_allclose(drawn["models"]["softmax"].coef_, W, atol=1e-5)


def test_the_hinge_panels_draw_the_ww_and_cs_optima(drawn):
    X, y, fig, axes = drawn["X"], np.asarray(drawn["y"]), drawn["fig"], drawn["axes"]
    oracle = {"WW": ww_optimum(np.asarray(X, float), y, 4, C), "CS": cs_optimum(np.asarray(X, float), y, C)}
    for ax, name in zip(axes[:2], ("WW", "CS")):
        drawn_regions_agree(fig, ax, 4, lambda Z, W=oracle[name]: np.argmax(Z @ W.T, axis=1))


def _rings(ax):
    """The open black circles on ``ax``: (offsets, sizes)."""
    for coll in ax.collections:
        face, edge = coll.get_facecolors(), coll.get_edgecolors()
        if len(edge) and np.allclose(edge[:, :3], 0) and (len(face) == 0 or np.allclose(face[:, 3], 0)):
            return np.asarray(coll.get_offsets()), np.broadcast_to(coll.get_sizes(), (len(coll.get_offsets()),))
    raise AssertionError(f"no rings on {ax.get_title()}")


def test_the_rings_are_the_support_vectors_and_every_point_for_softmax(drawn):
    X, y, axes = np.asarray(drawn["X"], float), np.asarray(drawn["y"]), drawn["axes"]
    for ax, name in zip(axes[:2], ("WW", "CS")):
        W = ww_optimum(X, y, 4, C) if name == "WW" else cs_optimum(X, y, C)
        S = X @ W.T
        rival = np.ones_like(S, bool)
        rival[np.arange(len(y)), y] = False
        margin = np.min(np.where(rival, S[np.arange(len(y)), y][:, None] - S, np.inf), axis=1)
        ringed = {tuple(p) for p in _rings(ax)[0]}
        inside = {tuple(p) for p in X[margin < 1 - 1e-4]}   # within the margin: a support vector for sure
        outside = {tuple(p) for p in X[margin > 1 + 1e-4]}  # beyond it: never one
        assert inside <= ringed and not (ringed & outside), name
        assert len(ringed) < len(y) / 2
    offsets, sizes = _rings(axes[2])
    np.testing.assert_array_equal(offsets, X)
    W = softmax_optimum(X, y, 4, C)
    weight = 1.0 - softmax(X @ W.T, axis=1)[np.arange(len(y)), y]
    np.testing.assert_allclose(sizes, 400 * weight, rtol=1e-4, atol=1e-6)
    assert sizes.min() > 0


def test_what_the_text_says_of_the_logistic_loss(drawn):
    X, y = np.asarray(drawn["X"], float), np.asarray(drawn["y"])
    W = softmax_optimum(X, y, 4, C)
    coefficients = np.eye(4)[y] - softmax(X @ W.T, axis=1)          # [y_i = m] - p(m | x_i)
    np.testing.assert_allclose(W, C * coefficients.T @ X, atol=1e-7)  # the representer form at the optimum
    assert np.all(np.abs(coefficients).max(axis=1) > 1e-5)          # never zero: every point weighs
    box = np.stack(np.meshgrid(np.linspace(-6, 6, 121), np.linspace(-6, 6, 121)), axis=-1).reshape(-1, 2)
    for W_hinge in (ww_optimum(X, y, 4, C), cs_optimum(X, y, C)):
        assert np.mean(np.argmax(box @ W_hinge.T, axis=1) != np.argmax(box @ W.T, axis=1)) < 0.05
    p = softmax(np.array([[1.5, 1.5], [4.0, 0.0]]) @ W.T, axis=1)
    np.testing.assert_allclose(p[0, :2], [0.52, 0.48], atol=0.005)
    assert p[1, 0] > 0.99
