"""The estimators' defaults and their traps (issue 26): the linear BinarySVC() answers at any n (dual coordinate
ascent with a penalised intercept column), a warm start on other labels starts cold instead of raising, the
verbose log ends with the verdict on the model the fit returns (after the interior-point finish), and
MulticlassSVC(solver="parallel") on a CPU warns that it is meant for a GPU.
"""

import warnings

import numpy as np
import pytest
from conftest import random_binary
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from test_multiclass import random_multiclass

from svmteach import BinarySVC, MulticlassSVC
from svmteach.backend import cupy_available


def hinge_primal(X, y, w, b, B):
    """:math:`\\tfrac12 (\\|w\\|^2 + (b/B)^2) + \\sum_i \\max(0, 1 - y_i (w^\\top x_i + b))` at C = 1: the
    problem with the intercept as a penalised feature of value B (LIBLINEAR's -B), written out."""
    return 0.5 * (w @ w + (b / B) ** 2) + np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()


# ---- 1. the linear default answers at any n ------------------------------------------------------------

def test_linear_default_is_dual_cd_and_reaches_tol_at_n_10000():
    """SMO with the linear kernel left a relative gap of 0.8 after 30 s here; dual CD keeps w and steps in O(d).
    The gap is recomputed from what the fit returns, and the optimum checked against LIBLINEAR's."""
    rng = np.random.default_rng(0)
    n, d, B, tol = 10_000, 50, 2.0, 1e-3
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    X = rng.standard_normal((n, d))
    X[:, :5] += y[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = BinarySVC(intercept_scaling=B, random_state=0).fit(X, y)
    assert m.solver_ == "dual_cd" and m.result_.converged
    w, b = m.coef_[0], m.intercept_[0]
    primal = hinge_primal(X, y, w, b, B)
    # the dual of the same problem from alpha: sum alpha - 1/2 ||sum alpha_i y_i [x_i, B]||^2 (= ||w||^2 + (b/B)^2)
    dual = m.alpha_.sum() - 0.5 * (w @ w + (b / B) ** 2)
    assert np.all((m.alpha_ >= 0) & (m.alpha_ <= 1.0))
    assert primal == pytest.approx(m.result_.primal, rel=1e-9)
    assert (primal - dual) / primal <= tol
    ref = LinearSVC(loss="hinge", C=1.0, intercept_scaling=B, tol=1e-8, max_iter=200_000).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # LIBLINEAR's own stop; its primal is what we compare
        best = hinge_primal(X, y, ref.coef_[0], ref.intercept_[0], B)
    assert dual <= best * (1 + 1e-9)  # weak duality against LIBLINEAR's model
    assert primal <= best + tol * primal


def test_other_kernels_keep_smo_and_the_bias_choice_is_explicit():
    X, y = random_binary(n=40, seed=3)
    assert BinarySVC(kernel="rbf").fit(X, y).solver_ == "smo"
    assert BinarySVC(solver="smo").fit(X, y).solver_ == "smo"  # the unpenalised bias, asked for by name
    assert BinarySVC(tol=1e-6, random_state=0).fit(X, y).solver_ in ("dual_cd", "interior_point")


def test_direct_finish_only_on_small_problems():
    """The default's interior-point finish stays for small problems: a run stopped short at n = 4,000 is not
    handed to Newton steps (it warns instead)."""
    X, y = random_binary(n=4000, d=3, seed=5)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 epochs"):
        m = BinarySVC(max_iter=1, tol=1e-8).fit(X, y)
    assert m.solver_ == "dual_cd" and not m.result_.converged
    small = BinarySVC(max_iter=1, tol=1e-8).fit(X[:200], y[:200])
    assert small.solver_ == "interior_point" and small.result_.converged


# ---- 2. a warm start on other labels --------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"solver": "smo"}, {"kernel": "rbf"}, {}, {"solver": "dual_cd"}],
                         ids=["smo", "rbf-default", "linear-default", "dual_cd"])
def test_binary_warm_start_on_other_labels_starts_cold(kwargs):
    """SMO's warm state broke y'alpha = 0 for the new labels: "state.alpha has y'alpha = 2.08 != 0"."""
    X, y = random_binary(n=60, d=3, seed=6)
    other = np.where(X[:, 1] > 0, 1.0, -1.0)
    warm = BinarySVC(warm_start=True, tol=1e-8, random_state=0, **kwargs).fit(X, y)
    warm.fit(X, other)
    cold = BinarySVC(tol=1e-8, random_state=0, **kwargs).fit(X, other)
    assert warm.result_.converged and warm.solver_ == cold.solver_
    assert warm.result_.primal == pytest.approx(cold.result_.primal, rel=1e-6)
    np.testing.assert_array_equal(warm.predict(X), cold.predict(X))


@pytest.mark.parametrize("loss, solver", [("ww", None), ("cs", None), ("llw", None), ("ww", "shark")])
def test_multiclass_warm_start_on_other_labels(loss, solver):
    X, y = random_multiclass(n=60, d=3, k=3, seed=7)
    other = (y + 1) % 3
    warm = MulticlassSVC(loss=loss, solver=solver, warm_start=True, tol=1e-8, random_state=0).fit(X, y)
    warm.fit(X, other)
    cold = MulticlassSVC(loss=loss, solver=solver, tol=1e-8, random_state=0).fit(X, other)
    assert warm.result_.converged
    assert warm.result_.primal == pytest.approx(cold.result_.primal, rel=1e-6)


# ---- 3. verbose ends with the verdict on the returned model ------------------------------------------------

def log_lines(capsys):
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


@pytest.mark.parametrize("make, data", [
    (lambda: BinarySVC(max_iter=1, tol=1e-8, verbose=1), lambda: random_binary(n=40, seed=3)),
    (lambda: BinarySVC(kernel="rbf", max_iter=1, tol=1e-8, verbose=1), lambda: random_binary(n=40, seed=3)),
    (lambda: MulticlassSVC(max_iter=1, tol=1e-9, verbose=1), lambda: random_multiclass(n=40, d=3, k=3, seed=2)),
], ids=["binary-linear", "binary-rbf", "multiclass"])
def test_verbose_prints_the_direct_finish_and_the_final_verdict(make, data, capsys):
    est = make()
    est.fit(*data())
    lines = log_lines(capsys)
    assert est.solver_ == "interior_point" and est.result_.converged
    finish = [line for line in lines if line.startswith("interior-point finish")]
    assert len(finish) == 1 and f"relative gap {est.result_.gap:.3g}" in finish[0]
    assert any("stopped short of tol" in line for line in lines)
    assert lines[-1].startswith("converged:") and f"relative gap {est.result_.gap:.3g}" in lines[-1]
    assert lines.index(finish[0]) == len(lines) - 2  # the verdict comes after the finish


def test_verbose_without_a_finish_is_unchanged(capsys):
    X, y = random_binary(n=40, seed=3)
    with pytest.warns(ConvergenceWarning):
        BinarySVC(solver="smo", max_iter=1, tol=1e-8, verbose=1).fit(X, y)
    lines = log_lines(capsys)
    assert lines[-1].startswith("not converged:") and not any("interior-point" in line for line in lines)


# ---- 4. the parallel solver on a CPU ----------------------------------------------------------------------

@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_parallel_on_a_cpu_warns_once(device):
    if device == "auto" and cupy_available():
        pytest.skip("'auto' picks the GPU here")
    X, y = random_multiclass(n=30, d=3, k=3, seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        MulticlassSVC(solver="parallel", device=device, tol=1e-4).fit(X, y)
    gpu = [w for w in caught if issubclass(w.category, UserWarning) and "meant for a GPU" in str(w.message)]
    assert len(gpu) == 1 and "sequential default" in str(gpu[0].message)
    assert gpu[0].filename == __file__  # it points at the caller's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        MulticlassSVC(tol=1e-4).fit(X, y)  # the sequential default says nothing
