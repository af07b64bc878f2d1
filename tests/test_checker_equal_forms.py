"""A checker never rejects right work: every reference solution, rewritten in another form that is equal in exact
arithmetic (other operand orders, another algorithm, the formula of an intermediate step), passes its check, the
solver run included.  A run that replays the reference path in lockstep fails some of these: a last-bit rounding
difference becomes another pair choice many steps later (issue 46: ``min(C, C - alpha_i + alpha_j)`` failed at
SMO's pair step 28)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from svmteach import exercises

# ---- the rewrites, each equal to the reference in exact arithmetic ------------------------------------------


def hinge_losses_clip(w, b, X, y):
    return np.clip(1.0 - y * (X @ w) - y * b, 0.0, None)


def hinge_subgradient_positive_part(w, X, y, C):
    active = (1.0 - y * (X @ w)) > 0  # the hinge's argument is positive
    return w - C * ((y * active) @ X)


def hinge_subgradient_counting_the_kink(w, X, y, C):
    """The other end of the subdifferential: a point exactly on its margin counted (<= 1)."""
    active = y * (X @ w) <= 1.0
    return w - C * (X[active].T @ y[active])


def kkt_category_reordered(alpha_i, margin_i, C, tol):
    at_zero, at_c = alpha_i <= tol * C, alpha_i >= (1.0 - tol) * C
    if not at_zero and not at_c:
        return "free" if -tol <= margin_i - 1.0 <= tol else "violated"
    if at_zero:
        return "violated" if 1.0 - margin_i > tol else "zero"
    return "violated" if margin_i - 1.0 > tol else "bound"


def dual_objective_outer(alpha, y, K):
    return float(alpha.sum() - 0.5 * np.sum(np.outer(alpha * y, alpha * y) * K))


def dca_update_one_fraction(alpha_i, g_i, Q_ii, C):
    if Q_ii > 0:
        return float(np.clip((alpha_i * Q_ii + g_i) / Q_ii, 0.0, C))
    return C if g_i > 0 else 0.0 if g_i < 0 else alpha_i


def dca_gradient_update_factored(grad, Q, i, delta):
    if delta == 0:
        return grad.copy()
    return (grad / delta - Q[:, i]) * delta


def smo_bounds_issue_form(alpha_i, alpha_j, y_i, y_j, C):
    if y_i != y_j:
        return max(0.0, alpha_j - alpha_i), min(C, C - alpha_i + alpha_j)
    return max(0.0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)


def smo_bounds_parenthesised(alpha_i, alpha_j, y_i, y_j, C):
    if y_i != y_j:
        return max(0.0, alpha_j - alpha_i), min(C, C + (alpha_j - alpha_i))
    s = alpha_i + alpha_j
    return max(0.0, s - C), min(C, s)


def smo_pair_update_rearranged(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
    if eta > 0:
        new_j = float(np.clip(alpha_j - y_j * (E_j - E_i) / eta, L, H))
    else:
        def psi(t):
            return t * (y_j * E_i - y_j * E_j) - eta * t * t / 2
        best = max((psi(L - alpha_j), L), (psi(H - alpha_j), H))
        new_j = best[1] if best[0] > 0 else alpha_j
    return alpha_i - y_i * y_j * (new_j - alpha_j), new_j


def gaussian_gram_expanded(X, Z, gamma):
    d2 = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2.0 * X @ Z.T  # ||x||^2 + ||z||^2 - 2 x'z
    return np.exp(-gamma * np.maximum(d2, 0.0))


def loo_residuals_step_two(K, y, lam):
    """The formula of the statement's step (2): (y_i - f(x_i)) / (1 - (K G)_ii)."""
    G = np.linalg.inv(K + lam * np.eye(len(y)))
    KG = K @ G
    return (y - KG @ y) / (1.0 - np.diag(KG))


def loo_residuals_solve(K, y, lam):
    A = K + lam * np.eye(len(y))
    c = np.linalg.solve(A, y)
    return c / np.diag(np.linalg.solve(A, np.eye(len(y))))


def ww_gradient_take_along(W, X, y, M):
    S = X @ W.T
    own = np.take_along_axis(S, y[:, None], axis=1)
    G = M * own - M * S - 1.0
    G[np.arange(len(y)), y] = 0.0
    return G


def shark_step_clip_the_step(grad_ij, alpha_ij, sqnorm_i, M, C):
    if sqnorm_i > 0:
        return float(np.clip(-grad_ij / (2.0 * M ** 2 * sqnorm_i), -alpha_ij, C - alpha_ij))
    return C - alpha_ij if grad_ij < 0 else -alpha_ij


def cs_gradient_mask(W, x, y):
    return (W @ x) + (np.arange(W.shape[0]) != y)


def project_simplex_michelot(v, z):
    """Michelot's algorithm (1986): drop the entries below the threshold until none is dropped."""
    keep = np.ones(len(v), dtype=bool)
    while True:
        theta = (v[keep].sum() - z) / keep.sum()
        new = keep & (v > theta)
        if new.sum() == keep.sum() or not new.any():
            return np.maximum(v - theta, 0.0)
        keep = new


def cs_block_update_delta(alpha_i, g_i, y_i, sqnorm_i, C):
    r = np.sqrt(sqnorm_i)
    C_i = np.zeros(len(alpha_i))
    C_i[y_i] = C
    beta = project_simplex_michelot(r * C_i - r * alpha_i + g_i / r, C * r)
    delta = C_i - alpha_i - beta / r
    return alpha_i + delta


def relative_gap_ratio(primal, dual):
    if primal == 0:
        return 0.0 if dual == 0 else (np.inf if dual < 0 else -np.inf)
    return float(np.sign(primal) * (1.0 - dual / primal))


def multiclass_primal_loops(W, X, y, C, loss, M):
    total = 0.5 * float(np.trace(W @ W.T))
    for i in range(len(y)):
        s = W @ X[i]
        rivals = [m for m in range(W.shape[0]) if m != y[i]]
        if loss == "ww":
            total += C * sum(max(0.0, 1.0 - M * s[y[i]] + M * s[m]) for m in rivals)
        elif loss == "cs":
            total += C * max(0.0, 1.0 - s[y[i]] + max(s[m] for m in rivals))
        else:
            raise ValueError(loss)
    return total


EQUAL_FORMS = {
    "hinge_losses": [hinge_losses_clip],
    "hinge_subgradient": [hinge_subgradient_positive_part, hinge_subgradient_counting_the_kink],
    "kkt_category": [kkt_category_reordered],
    "dual_objective": [dual_objective_outer],
    "dca_update": [dca_update_one_fraction],
    "dca_gradient_update": [dca_gradient_update_factored],
    "smo_bounds": [smo_bounds_issue_form, smo_bounds_parenthesised],
    "smo_pair_update": [smo_pair_update_rearranged],
    "gaussian_gram": [gaussian_gram_expanded],
    "loo_residuals": [loo_residuals_step_two, loo_residuals_solve],
    "ww_gradient": [ww_gradient_take_along],
    "shark_step": [shark_step_clip_the_step],
    "cs_gradient": [cs_gradient_mask],
    "project_simplex": [project_simplex_michelot],
    "cs_block_update": [cs_block_update_delta],
    "relative_gap": [relative_gap_ratio],
    "multiclass_primal": [multiclass_primal_loops],
}


def test_every_code_exercise_has_a_rewrite():
    code = {e.name for e in exercises.catalog() if e.kind != "predict"}
    assert set(EQUAL_FORMS) == code


@pytest.mark.parametrize("name, fn", [(n, f) for n, fs in EQUAL_FORMS.items() for f in fs],
                         ids=[f"{n}: {f.__name__}" for n, fs in EQUAL_FORMS.items() for f in fs])
def test_an_equal_form_of_the_reference_passes(name, fn):
    r = exercises.check(name, fn)
    assert r.passed, r


def test_the_smo_bounds_forms_are_equal_and_differ_in_the_last_bits():
    """SymPy: the issue's two forms of H equal the reference's; and on some state of the run they differ in floating
    point (so the test above sees the fault the lockstep replay had)."""
    ai, aj, C = sp.symbols("alpha_i alpha_j C")
    assert sp.simplify((C - ai + aj) - (C + aj - ai)) == 0 and sp.simplify((C + (aj - ai)) - (C + aj - ai)) == 0
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1, (2, 10_000))
    assert np.any((1.0 - a[0] + a[1]) != (1.0 + a[1] - a[0]))


def test_a_kink_point_counted_with_a_weight_outside_0_1_is_still_wrong():
    def twice_at_the_kink(w, X, y, C):
        m = y * (X @ w)
        on = np.isclose(m, 1.0)
        return exercises.solution("hinge_subgradient")(w, X, y, C) - 2.0 * C * (X[on].T @ y[on])

    r = exercises.check("hinge_subgradient", twice_at_the_kink)
    assert not r.passed and r.failure is not None and "margin" in r.failure.label, r
