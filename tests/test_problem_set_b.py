"""Problem set B: the pen-and-paper problems of notebooks 05-08.

Per notebook: enough problems of mixed kinds; every computed answer passes ``check_answer`` and a flipped one
fails; every number an answer computes is written in its worked solution; and each answer agrees with an
oracle that shares nothing with how the answer was computed (the library's solvers and formulas, Clarabel,
scikit-learn, or a certificate such as a zero duality gap).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from svmteach.exercises import check_answer
from svmteach.exercises.problem_set import KINDS, expected_answer, problems
from tests.oracles import solve_qp, ww_dual_optimum

NOTEBOOKS = ("05", "06", "07", "08")


def _written_forms(value: float) -> set[str]:
    """How a number may be written in a solution: rounded to 4, 3 or 2 decimals (trailing zeros dropped), or
    as an integer with or without thousands separators."""
    forms = set()
    for digits in (4, 3, 2):
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
        forms.add("0" if text == "-0" else text)
    if abs(value - round(value)) < 1e-9 and abs(value) >= 1000:
        forms |= {f"{int(round(value))}", f"{int(round(value)):,}"}
    return forms


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_notebook_has_five_problems_of_mixed_kinds(notebook):
    found = problems(notebook)
    assert len(found) >= 5
    assert all(p.kind in KINDS for p in found)
    assert len({p.kind for p in found}) >= 3, "mixed kinds: at least three of derive, prove, compute, explain, predict"
    for p in found:
        assert p.statement.strip() and p.solution.strip() and len(p.solution) > 300
        assert "Answer:" in p.statement if p.answer is not None else True


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_computed_answers_pass_and_a_flipped_one_fails(notebook):
    for p in problems(notebook):
        if p.answer is None:
            continue
        value = np.asarray(expected_answer(p.name))
        assert check_answer(p.name, value.tolist()).passed, p.name
        assert not check_answer(p.name, None).passed
        wrong = value + 1.0  # every entry off by 1 (a sign flip would leave the zero entries right)
        result = check_answer(p.name, wrong.tolist())
        assert not result.passed, p.name
        for entry in value.ravel():
            if abs(entry) > 1e-3:
                assert f"{entry:.4f}" not in result.text(), "the check never shows the right value"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_computed_number_is_written_in_its_solution(notebook):
    for p in problems(notebook):
        if p.answer is None:
            continue
        for entry in np.asarray(expected_answer(p.name), dtype=float).ravel():
            forms = _written_forms(float(entry))
            assert any(form in p.solution for form in forms), f"{p.name}: none of {sorted(forms)} in the solution"


def _answer(name):
    return np.asarray(expected_answer(name), dtype=float)


# ---- notebook 05: the library's RLS and leave-one-out formulas as oracles ----------------------------------


def test_05_answers_agree_with_the_library():
    from svmteach.kernels import Kernel, gram
    from svmteach.rls import loo_errors, solve_dual

    X2, Y2 = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[-1.0], [1.0]])
    K = gram(X2, None, Kernel("gaussian", 0.5))
    assert np.allclose(_answer("05.2"), solve_dual(K, Y2, 1.0)[:, 0], rtol=1e-9)
    # weighted RLS: (K + lam S^-1) c = Y is the library's solve with the diagonal added to K
    assert np.allclose(_answer("05.3"), np.linalg.solve(K + np.diag([1.0, 1.0 / 3.0]), Y2[:, 0]), rtol=1e-7)
    X3 = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    K3 = gram(X3, None, Kernel("polynomial", gamma=1.0, degree=1, coef0=1.0))
    assert np.allclose(_answer("05.4"), loo_errors(K3, np.array([[-1.0], [1.0], [1.0]]), [1.0])[0, :, 0], rtol=1e-9)
    assert np.allclose(_answer("05.4"), [-9 / 7, 15 / 11, 15 / 11], rtol=1e-9)
    assert _answer("05.1") == pytest.approx(-1.0)


def test_05_gamma_limits_match_large_and_small_gamma_fits():
    from svmteach.kernels import Kernel, gram
    from svmteach.rls import solve_dual

    X2, Y2 = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[-1.0], [1.0]])
    new = np.array([[1.0, 0.9]])
    small, large = Kernel("gaussian", 1e-7), Kernel("gaussian", 5000.0)
    f_small = gram(X2, None, small) @ solve_dual(gram(X2, None, small), Y2, 1.0)
    c_large = solve_dual(gram(X2, None, large), Y2, 1.0)
    f_large, f_new = gram(X2, None, large) @ c_large, gram(new, X2, large) @ c_large
    limits = _answer("05.5")
    assert f_small[1, 0] == pytest.approx(limits[0], abs=1e-6)
    assert f_large[1, 0] == pytest.approx(limits[1], abs=1e-9)
    assert f_new[0, 0] == pytest.approx(limits[2], abs=1e-9) and f_new[0, 0] > 0  # right side, value near 0


# ---- notebook 06: Clarabel, the library's Shark loop and exact block, a zero gap -------------------------


def test_06_two_samples_three_classes_has_a_zero_gap_and_matches_clarabel():
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])
    W = _answer("06.2")
    scores = X @ W.T
    hinges = sum(max(0.0, 1.0 - (scores[i, y[i]] - scores[i, j])) for i in range(2) for j in range(3) if j != y[i])
    P = 0.5 * np.sum(W ** 2) + hinges
    # the dual in the free entries by Clarabel: ||W||^2 = sum_i ||x_i||^2 ||alpha_i||^2 here (x_1'x_2 = 0)
    H = np.kron(np.eye(2), np.eye(2) + np.ones((2, 2)))
    v = solve_qp(H, -np.ones(4), A_ineq=np.vstack([np.eye(4), -np.eye(4)]), b_ineq=np.r_[np.ones(4), np.zeros(4)])
    D = v.sum() - 0.5 * v @ H @ v
    assert P == pytest.approx(D, abs=1e-7) and D == pytest.approx(2 / 3, abs=1e-7)
    assert np.allclose(W, [[2 / 3, -1 / 3], [-1 / 3, 2 / 3], [-1 / 3, -1 / 3]], atol=1e-12)


def test_06_rescaling_ratio_matches_clarabel():
    from svmteach import data

    X, y = data.multiclass_blobs(30, k=3, seed=0)
    ratio = ww_dual_optimum(X, y, C=0.25, M=1.0) / ww_dual_optimum(X, y, C=1.0, M=0.5)
    assert _answer("06.1") == pytest.approx(ratio, rel=1e-6) and ratio == pytest.approx(0.25, rel=1e-6)


def _shark(grad_neg, y, q, M, C, start=None, max_inner=60, inner_tol=1e-14):
    from svmteach.solvers.ww_shark import shark_inner

    g = np.array(grad_neg, float)
    a = np.zeros(len(g)) if start is None else np.array(start, float)
    record = np.zeros((max_inner, len(grad_neg) + 3))
    moves = shark_inner(g, a, y, q, M, C, max_inner, inner_tol, record)
    return a, record[:moves]


def test_06_shark_by_hand_is_the_librarys_shark_visit():
    s, M, q = np.array([0.0, 0.5, -0.5]), 0.5, 2.0
    a, record = _shark(1.0 - M * (s[0] - s), 0, q, M, 1.0)
    assert len(record) == 2
    assert record[:, 0].tolist() == [1, 2]  # rival 1, then rival 2
    assert np.allclose(record[:, 1], [1.25, 0.25]) and np.allclose(record[:, 2], [1.0, 0.25])
    assert np.allclose(a, _answer("06.3"))


def test_06_zigzag_ratio_in_the_librarys_shark_loop():
    # an unbounded (huge C) k = 3 block: Shark's moves halve and alternate from the third on, and the
    # violation falls below 1e-6 of its value after the first move 20 moves later
    M, q = 1.0, 0.7
    a, record = _shark([0.0, 1.3, 0.6], 0, q, M, 1e9, start=[-10.0, 5.0, 5.0], inner_tol=0.0, max_inner=40)
    m = record[:, 2]
    ratio, n_more = _answer("06.5")
    assert np.allclose(m[2:12] / m[1:11], ratio, rtol=1e-9)
    violation = np.abs(record[:, 3 + 1: 3 + 3]).max(axis=1)
    assert int(np.argmax(violation < 1e-6 * violation[0])) == n_more


def test_06_exact_block_ignores_the_order_of_tied_breakpoints():
    from svmteach.projections import ww_block_solve

    for u, expected in (([0.6, 0.6, 0.1], _answer("06.4")), ([1.2, 0.2, 0.2], [0.6, 0.0, 0.0])):
        for order in itertools.permutations(range(3)):
            got = ww_block_solve(np.array([u])[:, order], 1.0)[0]
            assert np.allclose(got, np.asarray(expected)[list(order)], atol=1e-12)


# ---- notebook 07: the library's projection and violation, Clarabel, certificates -------------------------


def test_07_projection_and_block_update_match_the_library():
    from svmteach.projections import project_simplex_sort

    v = np.array([[1.2, 0.5, -0.4]])
    assert np.allclose(_answer("07.1"), project_simplex_sort(v, 1.0)[0])
    assert np.allclose(project_simplex_sort(v, 3.0)[0], [1.7 + 1 / 15, 1.0 + 1 / 15, 0.1 + 1 / 15])
    # Blondel's update through the library's projection: beta_hat = r (C_i - alpha_i) + g / r, z = C r
    g, r, C_i = np.array([0.4, 1.6, 0.0]), 2.0, np.array([1.0, 0.0, 0.0])
    beta = project_simplex_sort((r * C_i + g / r)[None, :], r * 1.0)[0]
    assert np.allclose(_answer("07.3"), C_i - beta / r)


def test_07_one_sample_dual_has_zero_gap():
    for C, a in zip((1.0, 1.0 / 16), _answer("07.2")):
        w = np.array([2.0 * a, -2.0 * a])  # w_m = alpha^m x with x = 2
        P = 0.5 * np.sum(w ** 2) + C * max(0.0, 1.0 + w[1] * 2.0 - w[0] * 2.0)
        D = -(0.5 * np.sum(w ** 2) - a)  # -f, Delta picks alpha^1 = -a
        assert P == pytest.approx(D, abs=1e-12) and 0 <= a <= C


def test_07_slides_violation_flags_every_sample_at_the_librarys_optimum():
    from svmteach import CSBlondel, MulticlassProblem, data, solve
    from svmteach import objectives as obj
    from svmteach.exercises.problem_set.nb07 import violations

    # the two-sample problem: the library's optimum and its own KKT measure agree with the answer
    X, y = np.array([[1.0], [-2.0]]), np.array([0, 1])
    problem = MulticlassProblem(X, y, C=1.0, loss="cs")
    alpha = np.asarray(solve(CSBlondel(random_state=0), problem, tol=1e-12).state.alpha)
    right, slides = violations(X, y, alpha, 1.0)
    assert [slides[1], right[1]] == pytest.approx(_answer("07.4").tolist(), abs=1e-6)
    assert obj.multiclass_kkt_violation(problem, alpha, X @ obj.multiclass_weights(problem, alpha).T) < 1e-6
    # notebook 7's four clouds: the slides' formula flags all 90 samples, the right one none
    X4, y4 = data.multiclass_blobs(90, k=4, seed=0)
    problem = MulticlassProblem(X4, y4, C=1.0, loss="cs")
    alpha = np.asarray(solve(CSBlondel(random_state=0), problem, tol=1e-10).state.alpha)
    right, slides = violations(X4, y4, alpha, 1.0)
    assert right.max() < 1e-6 and slides.min() > 0.5


def test_07_masses_are_where_the_support_grows():
    from svmteach.projections import project_simplex_sort

    beta_hat = np.array([2.5, 1.8, 0.9, 0.4, -0.3])
    masses = _answer("07.5")
    for j, z in enumerate(masses, start=1):
        assert np.sum(project_simplex_sort(beta_hat[None, :], z * (1 - 1e-6))[0] > 1e-9) == j
        assert np.sum(project_simplex_sort(beta_hat[None, :], z * (1 + 1e-6))[0] > 1e-9) == j + 1
    beta = project_simplex_sort(beta_hat[None, :], 8.0)[0]
    assert np.mean(beta_hat - beta) == pytest.approx(-0.54)  # the threshold quoted for z = 8


# ---- notebook 08: the library's gap, scikit-learn's LinearSVC, the library's primal ----------------------


def test_08_relative_gap_matches_the_library_including_p_zero():
    from svmteach.objectives import relative_gap

    assert [relative_gap(12.5, 12.0), relative_gap(3.0, 3.00003)] == pytest.approx(_answer("08.1").tolist())
    assert relative_gap(0.0, 0.0) == 0.0
    assert relative_gap(0.0, -1.0) == np.inf and relative_gap(0.0, 1.0) == -np.inf  # what 08.1 part 4 says


def test_08_kernel_evaluation_counts_match_the_formulas():
    n, k = 1000, 10
    assert _answer("08.2").tolist() == [k * n * n, 2 * (k - 1) * n * n / k, n * n]


def _linear_svc(X, y, C):
    from sklearn.svm import LinearSVC

    model = LinearSVC(C=C, loss="hinge", fit_intercept=False, dual=True, tol=1e-12, max_iter=1_000_000)
    return model.fit(X, y).coef_[0]


def test_08_one_dimensional_bias_matches_linear_svc():
    x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([-1, -1, 1, 1])
    raw, centred = _answer("08.3")
    assert _linear_svc(x[:, None], y, 1.0)[0] == pytest.approx(raw, rel=1e-5)
    assert _linear_svc((x - 2.5)[:, None], y, 1.0)[0] == pytest.approx(centred, rel=1e-5)
    w, b = _linear_svc(np.column_stack([x, np.ones(4)]), y, 1.0)  # the constant feature of part 4
    assert (w, b) == pytest.approx((8 / 17, -15 / 17), rel=1e-5)


def test_08_two_class_single_machines_are_binary_svms():
    from svmteach import MulticlassSVC

    rng = np.random.default_rng(0)  # two overlapping clouds, so that some hinges are active
    X = np.vstack([rng.normal(-1, 1, (20, 2)), rng.normal(1, 1, (20, 2))])
    y = np.repeat([0, 1], 20)
    C_ww, C_cs = _answer("08.4")
    for loss, M, C_binary in (("ww", 0.5, C_ww), ("cs", 1.0, C_cs)):
        model = MulticlassSVC(loss=loss, M=M, C=1.0, fit_intercept=False, tol=1e-12, max_iter=100_000,
                              random_state=0).fit(X, y)
        v = M * (model.coef_[1] - model.coef_[0])
        assert np.allclose(v, _linear_svc(X, 2 * y - 1, C_binary), rtol=1e-4, atol=1e-6), loss


def test_08_primals_match_the_library():
    from svmteach import MulticlassProblem
    from svmteach import objectives as obj
    from svmteach.exercises.problem_set.nb08 import W3, X3, Y3

    got = [obj.multiclass_primal(MulticlassProblem(X3, Y3, C=1.0, loss=loss, M=1.0), W3) for loss in ("ww", "cs")]
    assert got == pytest.approx(_answer("08.5").tolist(), rel=1e-12)


def test_08_iris_origin_lies_before_versicolors_mean():
    from sklearn.preprocessing import StandardScaler

    from svmteach import data

    X, y = data.iris()
    Z = StandardScaler().fit_transform(X)
    mu = [Z[y == c].mean(axis=0) for c in range(3)]
    assert np.allclose(mu[0] + mu[1] + mu[2], 0.0, atol=1e-12)
    u = (mu[2] - mu[1]) / np.linalg.norm(mu[2] - mu[1])
    distance, half_gap = _answer("08.6")
    assert float(u @ (mu[1] + mu[2])) / 2 == pytest.approx(distance) and float(u @ (mu[2] - mu[1])) / 2 == pytest.approx(half_gap)
    assert 0 < float(u @ mu[1]) < 0.1  # the origin lies just before versicolor's mean, away from virginica
    assert int(np.sum(Z[y == 1] @ u > 0)) == 28  # "28 of 50" on virginica's side of a parallel boundary through 0


def test_other_numbers_the_solutions_quote():
    """Numbers written in the worked solutions beside the answers, recomputed."""
    from svmteach.exercises.problem_set.nb05 import X2, Y2, _gaussian
    from svmteach.exercises.problem_set.nb06 import ww_dual_optimum as ww_by_active_sets

    K = _gaussian(X2, X2, 0.5)
    assert np.allclose(np.linalg.eigvalsh(K), [0.6321, 1.3679], atol=5e-5)  # 05.2
    assert np.allclose(K @ _answer("05.2"), [-0.3873, 0.3873], atol=5e-5)
    fit = K @ _answer("05.3")  # 05.3: the heavier point is fitted more closely
    assert np.allclose(fit, [-0.3279, 0.6882], atol=5e-5) and (Y2[1] - fit[1]) == pytest.approx(_answer("05.3")[1] / 3)
    alpha, W = ww_by_active_sets([[1.0, 0.0], [0.0, 1.0]], [0, 1], k=3, C=0.25)  # 06.2 part 5
    assert np.allclose(W, [[0.5, -0.25], [-0.25, 0.5], [-0.25, -0.25]]) and np.allclose(alpha[0], [-0.5, 0.25, 0.25])
    free = np.ones((2, 3), bool)
    free[[0, 1], [0, 1]] = False  # the rivals' entries
    assert alpha[free].sum() - 0.5 * np.sum(W ** 2) == pytest.approx(5 / 8)  # D
