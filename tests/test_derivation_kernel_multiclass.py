"""The kernel multiclass derivation (issue 29): every step verified, the block kernels against an independent
oracle (the whole kernel dual in NumPy, one row of it maximised by Clarabel), and wrong formulas caught."""

import numpy as np
import pytest
from oracles import solve_qp

from svmteach import derivations
from svmteach.derivations import FAILED, VERIFIED
from svmteach.derivations import kernel_multiclass as km
from svmteach.losses import get_loss
from svmteach.losses.row_kernels import NOTHING_ASIDE, params, scratch

#: the derivations are computed once per test process (derivations.steps' cache), and this group keeps every test
#: that reads them on one worker of a parallel run, which computes them once (with test_derivation*.py)
pytestmark = pytest.mark.xdist_group("derivations")

LOSS_STEPS = ("stationarity in w_m, the representer form", "the training scores S = K A", "the norm of W",
              "the kernel dual", "K = XX' gives the linear dual", "the block of one sample in K_ii and s_i",
              "the linear block, with q_i for K_ii and W x_i for s_i", "S moves by a kernel column",
              "the loss's compiled block kernel on a kernel problem")


@pytest.fixture(scope="module")
def steps():
    return derivations.steps("kernel_multiclass")


def test_every_step_of_every_loss_is_verified(steps):
    assert [(s.name, s.check) for s in steps if s.status != VERIFIED] == []
    names = {s.name for s in steps}
    assert {f"{tag}: {name}" for tag in ("WW", "CS", "LLW", "MMR") for name in LOSS_STEPS} <= names
    assert {"intercept: the kernel of the extended features", "intercept: b_m = B^2 sum_i A_im",
            "intercept: the intercepts sum to zero", "multiclass_model.model: S = (K + B^2) A",
            "MulticlassSVC: kernel sums plus b_m"} <= names
    assert sum(s.kind == "numeric" for s in steps) == 8
    assert {s.model for s in steps} == {"kernel multiclass"}


def test_registered_by_key_and_displayed_name():
    names = [s.name for s in derivations.steps("kernel_multiclass")]
    assert [s.name for s in derivations.steps("kernel multiclass")] == names
    assert "kernel_multiclass" in derivations.MODELS
    assert repr(derivations.check("kernel multiclass", "CS: the kernel dual")).startswith("\u2714 checked by SymPy")


# ---- the block kernels against an independent oracle ----------------------------------------------------------


def clarabel_row(tag, K, A_rows, i, y, C, M):
    """Row i of alpha maximising the whole kernel dual D = l(alpha) - 1/2 <A, K A> with the other rows fixed,
    solved by Clarabel over the row's feasible set; ``A_rows`` is A(alpha) (n, k) at the current alpha."""
    k = A_rows.shape[1]
    J = np.eye(k) - np.ones((k, k)) / k
    R = {"WW": -M * np.eye(k), "CS": np.eye(k), "LLW": -J, "MMR": J}[tag]  # A_i = R a
    others = A_rows.copy()
    others[i] = 0.0
    cross = K[i] @ others  # (K A)_i without row i's own part
    off = np.arange(k) != y
    ell = {"WW": off * 1.0, "CS": (~off) * 1.0, "LLW": off * 1.0, "MMR": (~off) * 1.0}[tag]
    # maximise ell'a - (R a)'cross - K_ii/2 |R a|^2, i.e. minimise 1/2 a'Pa + q'a
    P, q = K[i, i] * R.T @ R, -ell + R.T @ cross
    e_y = (~off) * 1.0
    if tag == "CS":  # a <= C e_y, 1'a = 0
        return solve_qp(P, q, A_eq=np.ones(k), b_eq=[0.0], A_ineq=np.eye(k), b_ineq=C * e_y)
    if tag == "MMR":  # 0 <= a_y <= C, the other entries 0
        return solve_qp(P, q, A_eq=np.eye(k)[off], b_eq=np.zeros(k - 1), A_ineq=np.vstack([e_y, -e_y]),
                        b_ineq=[C, 0.0])
    box = np.vstack([np.eye(k)[off], -np.eye(k)[off]])
    limits = np.concatenate([np.full(k - 1, C), np.zeros(k - 1)])
    label = np.ones(k) if tag == "WW" else e_y  # WW: 1'a = 0; LLW: a_y = 0
    return solve_qp(P, q, A_eq=label, b_eq=[0.0], A_ineq=box, b_ineq=limits)


@pytest.mark.parametrize("loss", km.LOSSES, ids=lambda loss: loss.tag)
def test_the_compiled_block_on_kernel_scores_reaches_the_clarabel_optimum(loss):
    rng = np.random.default_rng(7)
    for _ in range(6):
        P = km.random_kernel_problem(loss, rng)
        kk, C, M = P["k"], P["C"], P["M"]
        A_rows = km.rows_of(loss, P["alpha"], M)
        for i in range(len(P["codes"])):
            y = int(P["codes"][i])
            new = P["alpha"][i].copy()
            get_loss(loss.tag.lower()).kernels.block(P["S"][i].copy(), new, y, float(P["K"][i, i]), C, params(M),
                                                     NOTHING_ASIDE, np.ones(kk, dtype=bool), scratch(kk),
                                                     np.empty((0, kk)))
            oracle = clarabel_row(loss.tag, P["K"], A_rows, i, y, C, M)
            np.testing.assert_allclose(new, oracle, atol=1e-6 * C)


@pytest.mark.parametrize("loss", km.LOSSES, ids=lambda loss: loss.tag)
def test_the_derivations_exhaustive_block_solver_agrees_with_clarabel(loss):
    """The oracle the derivation's numbers use (every active set tried) is itself right."""
    rng = np.random.default_rng(8)
    for _ in range(4):
        P = km.random_kernel_problem(loss, rng)
        kk, C, M = P["k"], P["C"], P["M"]
        H_fn, c_fn = km.block_problem(loss, kk)
        i = 0
        y = int(P["codes"][i])
        order = [y] + [m for m in range(kk) if m != y]
        H = np.asarray(H_fn(P["alpha"][i][order], P["S"][i][order], float(P["K"][i, i]), M), dtype=float)
        c = np.asarray(c_fn(P["alpha"][i][order], P["S"][i][order], float(P["K"][i, i]), M), dtype=float).ravel()
        z = km.active_set_minimum(H, c, *km.block_constraints(loss, kk, C))
        oracle = clarabel_row(loss.tag, P["K"], km.rows_of(loss, P["alpha"], M), i, y, C, M)
        np.testing.assert_allclose(z, oracle[[order[m] for m in loss.positions(0, kk)]], atol=1e-6 * C)


# ---- wrong formulas and wrong code are caught ---------------------------------------------------------------


def test_weights_without_the_centring_fail_the_lee_lin_wahba_steps():
    """Forgetting nu (A = -alpha, not row-centred) breaks the representer form and what follows from it."""
    wrong = km.LLW._replace(rows=lambda Am: -Am)
    failed = {s.name for s in km.loss_steps(wrong) if s.status == FAILED}
    assert {"LLW: stationarity in w_m, the representer form", "LLW: the training scores S = K A",
            "LLW: the norm of W", "LLW: the kernel dual", "LLW: K = XX' gives the linear dual"} <= failed


def test_maximum_margin_regression_without_the_centring_fails_its_steps():
    """W from alpha itself (no nu for sum_m w_m = 0): the representer form and what follows fail."""
    wrong = km.MMR._replace(rows=lambda Am: Am)
    failed = {s.name for s in km.loss_steps(wrong) if s.status == FAILED}
    assert {"MMR: stationarity in w_m, the representer form", "MMR: the training scores S = K A",
            "MMR: the kernel dual", "MMR: K = XX' gives the linear dual"} <= failed


def test_a_wrong_sign_of_the_scores_in_the_block_fails():
    wrong = km.CS._replace(linear=lambda Am, lab=km.labels: -km.CS.linear(Am, lab))
    failed = {s.name for s in km.loss_steps(wrong) if s.status == FAILED}
    assert {"CS: the kernel dual", "CS: K = XX' gives the linear dual"} <= failed


def test_a_block_kernel_given_the_kernel_without_the_intercept_fails_the_cross_check(monkeypatch):
    """Curvature K_ii (the Gaussian's 1) where K_ii + B^2 is right: the instances with an intercept disagree."""
    real = km.compiled_block

    def unit_curvature(loss):
        block = real(loss)
        return lambda s, a, y, q, *rest: block(s, a, y, 1.0, *rest)

    monkeypatch.setattr(km, "compiled_block", unit_curvature)
    failed = {s.name for s in km.numeric_checks() if s.status == FAILED}
    assert {f"{tag}: the loss's compiled block kernel on a kernel problem" for tag in ("WW", "CS", "LLW", "MMR")} <= failed


def test_a_library_intercept_without_b_squared_fails_the_cross_check(monkeypatch):
    from svmteach.estimators import multiclass as est

    real = est.MulticlassSVC.store

    def store_B(self, solver, problem, result):  # the intercept as B sum_i A_im, as if w's last entry were b
        real(self, solver, problem, result)
        if problem.kernel_offset > 0:
            self.intercept_ = self.intercept_ / np.sqrt(problem.kernel_offset)

    monkeypatch.setattr(est.MulticlassSVC, "store", store_B)
    failed = {s.name for s in km.numeric_checks() if s.status == FAILED}
    assert failed == {"MulticlassSVC: kernel sums plus b_m"}
