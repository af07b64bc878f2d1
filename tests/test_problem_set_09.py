"""The pen-and-paper problems of notebook 09 (kernel multiclass SVMs).

Each answer is computed in ``svmteach.exercises.problem_set.nb09`` from the definitions (fractions, SymPy, loops);
here it is compared with what the library computes for the same objects: its Gram matrices, ``point_scores``
and ``squared_norm`` (the representer form a fitted model uses), the intercept through ``bias`` (K + B^2), the
shapes of what a kernel and a linear block step move, its PSD warning, and gaussian fits at a large gamma against
scikit-learn's 1-nearest-neighbour rule.  Plus the set's own rules: kinds, answers that pass, wrong ones that
fail without the value, every computed number written in the worked solution, the notebook holding the section.
"""

from __future__ import annotations

import warnings

import nbformat
import numpy as np
import pytest

from svmteach import MulticlassProblem, solve
from svmteach.exercises import check_answer
from svmteach.exercises.problem_set import KINDS, expected_answer, problems
from svmteach.exercises.problem_set import nb09
from svmteach.exercises.problem_set.cells import is_synced
from svmteach.multiclass_model import point_scores, squared_norm
from svmteach.solvers import make_multiclass_solver

NOTEBOOK = nb09.__file__.rsplit("svmteach", 1)[0] + "notebooks/09_kernel_multiclass.ipynb"
X3 = np.array(nb09.X3, dtype=float)
Y3 = np.array(nb09.Y3)
A3 = np.array(nb09.A3, dtype=float)


def quadratic(**kw):
    """The problems' kernel (x'z + 1)^2 on the three points, as the library builds it (Crammer-Singer: A = alpha)."""
    return MulticlassProblem(X3, Y3, C=1.0, loss="cs", kernel="poly", degree=2, gamma=1.0, coef0=1.0, **kw)


def _written_forms(value: float) -> set[str]:
    forms = set()
    for digits in (5, 4, 3, 2):
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
        forms.add("0" if text == "-0" else text)
    if abs(value - round(value)) < 1e-9 and abs(value) >= 1000:
        forms |= {f"{int(round(value))}", f"{int(round(value)):,}", f"{int(round(value)):,}".replace(",", "{,}")}
    return forms


# ---- the set's rules ------------------------------------------------------------------------------------------


def test_notebook_09_has_four_to_six_problems_of_mixed_kinds_with_checked_answers():
    found = problems(9)
    assert 4 <= len(found) <= 6
    assert len({p.kind for p in found}) >= 3 and {"predict", "prove", "derive"} <= {p.kind for p in found}
    for p in found:
        assert p.kind in KINDS and len(p.solution) > 300 and "Answer:" in p.statement
        assert p.answer is not None


@pytest.mark.parametrize("name", [p.name for p in problems(9)])
def test_an_answer_passes_and_a_wrong_one_fails_without_the_value(name):
    value = np.asarray(expected_answer(name))
    assert check_answer(name, value.tolist()).passed
    result = check_answer(name, (value + 1.0).tolist())
    assert not result.passed and "entr" in result.text()
    for entry in value.ravel():
        if abs(entry) > 1e-3:
            assert f"{entry:.4f}" not in result.text()
    if np.any(value != 0):
        assert "sign" in check_answer(name, (-value).tolist()).hint  # the usual slip is named


@pytest.mark.parametrize("name", [p.name for p in problems(9)])
def test_every_computed_number_is_written_in_its_solution(name):
    p = [q for q in problems(9) if q.name == name][0]
    for entry in np.asarray(expected_answer(name), dtype=float).ravel():
        forms = _written_forms(float(entry))
        assert any(form in p.solution for form in forms), f"{name}: none of {sorted(forms)} in the solution"


def test_the_notebook_holds_the_section_before_its_summary():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    synced = [k for k, c in enumerate(nb.cells) if is_synced(c)]
    assert synced == list(range(synced[0], synced[-1] + 1))
    assert nb.cells[synced[0]].source.startswith("## Problems")
    assert nb.cells[synced[-1] + 1].source.startswith("## Summary")
    names = [c.metadata["svmteach"]["problem"] for c in nb.cells if "problem" in c.metadata.get("svmteach", {})]
    assert names == [p.name for p in problems(9)]


# ---- the answers against the library -------------------------------------------------------------------------


def test_09_1_the_scores_and_the_penalty_are_the_library_s_and_the_feature_space_s():
    problem = quadratic()
    K = np.asarray(problem.gram)
    np.testing.assert_array_equal(K, np.array(nb09.gram3(), dtype=float))
    S = K @ A3  # the solver's training scores for this alpha
    got = expected_answer("09.1")
    np.testing.assert_allclose(got[:3], S[1], rtol=1e-12)
    np.testing.assert_allclose(got[3], squared_norm(problem, A3, S), rtol=1e-12)
    np.testing.assert_allclose(point_scores(problem, A3, None, X3), S, rtol=1e-12)  # S = K A, as a model scores
    r2 = np.sqrt(2.0)  # the explicit feature map of the statement: W = A' Phi
    Phi = np.array([[a * a, b * b, r2 * a * b, r2 * a, r2 * b, 1.0] for a, b in X3])
    np.testing.assert_allclose(Phi @ Phi.T, K, rtol=1e-12)
    W = A3.T @ Phi
    np.testing.assert_allclose(np.sum(W * W), got[3], rtol=1e-12)
    np.testing.assert_allclose(np.sum(W[0] ** 2), 13 / 16, rtol=1e-12)  # the solution's ||w_0||^2


def test_09_2_the_new_point_s_scores_are_the_library_s_and_sum_to_zero():
    z = np.array([nb09.Z_NEW], dtype=float)
    scores = point_scores(quadratic(), A3, None, z)[0]
    np.testing.assert_allclose(expected_answer("09.2"), scores, rtol=1e-12)
    assert scores.sum() == pytest.approx(0.0, abs=1e-12) and int(np.argmax(scores)) == 1
    without_3 = A3.copy()
    without_3[2] = 0.0  # a zero row: only the support vectors x_1, x_2 enter
    full = point_scores(quadratic(), without_3, None, z)[0]
    by_hand = sum(without_3[i] * (X3[i] @ z[0] + 1.0) ** 2 for i in range(2))
    np.testing.assert_allclose(full, by_hand, rtol=1e-12)


def test_09_3_the_intercept_is_what_the_kernel_plus_b_squared_adds():
    B = 2.0
    plain, with_B = quadratic(), quadratic(bias=B)
    Z = np.array([[0.0, 0.0], [2.0, 1.0], [-1.0, 3.0], [0.5, -0.5]])
    b = point_scores(with_B, A3, None, Z) - point_scores(plain, A3, None, Z)  # the same b_m for every point
    got = expected_answer("09.3")
    np.testing.assert_allclose(b, np.tile(got[:3], (len(Z), 1)), rtol=1e-12, atol=1e-12)
    S, S_B = np.asarray(plain.gram) @ A3, np.asarray(with_B.gram) @ A3
    # ||W~||^2 = ||W||^2 + sum_m v_m^2: half the difference is the intercept's penalty
    half_v2 = 0.5 * (squared_norm(with_B, A3, S_B) - squared_norm(plain, A3, S))
    assert half_v2 == pytest.approx(got[3], rel=1e-12)


def test_09_4_the_counts_are_the_sizes_of_what_the_library_s_steps_move():
    rng = np.random.default_rng(0)
    n, d, k = 30, 5, 4
    X, y = rng.normal(size=(n, d)), np.arange(n) % k
    kernel = MulticlassProblem(X, y, C=1.0, loss="ww", kernel="rbf", gamma=0.5)
    linear = MulticlassProblem(X, y, C=1.0, loss="ww")
    ks = make_multiclass_solver("exact", kernel.loss_object, 0, kernel="rbf")
    ls = make_multiclass_solver("exact", linear.loss_object, 0)
    k0, l0 = ks.init(kernel), ls.init(linear)
    k1, l1 = ks.step(kernel, k0), ls.step(linear, l0)
    assert np.shape(k1.W) == (n, k) and np.shape(l1.W) == (k, d)  # the kernel solver keeps S, the linear one W
    K = np.asarray(kernel.gram)
    c = kernel.loss_object.weight_rows(kernel, np.asarray(k1.alpha) - np.asarray(k0.alpha))[k1.i]
    np.testing.assert_allclose(np.asarray(k1.W) - np.asarray(k0.W), np.outer(K[:, k1.i], c), atol=1e-12)
    assert np.all(np.asarray(k1.W) - np.asarray(k0.W) != 0)  # every training score moved: nk numbers
    c_lin = linear.loss_object.weight_rows(linear, np.asarray(l1.alpha) - np.asarray(l0.alpha))[l1.i]
    np.testing.assert_allclose(np.asarray(l1.W) - np.asarray(l0.W), np.outer(c_lin, X[l1.i]), atol=1e-12)

    def counts(n, d, k):  # the statement's rules, read off the arrays the steps move
        W_lin, S, X_rows = np.empty((k, d)), np.empty((n, k)), np.empty((n, d))
        return [2 * W_lin.size, S.size, S.size + X_rows.size, np.zeros((n, n)).itemsize * n * n]

    assert counts(n, d, k)[:3] == [2 * np.size(l1.W), np.size(k1.W), np.size(k1.W) + X.size]
    np.testing.assert_array_equal(expected_answer("09.4"), counts(nb09.N4, nb09.D4, nb09.K4))


def test_09_5_the_library_s_gram_matrices_and_its_warning():
    X = np.array(nb09.X5, dtype=float)[:, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        problem = MulticlassProblem(X, np.array([0, 1, 2]), C=1.0, loss="cs", kernel="poly", degree=2, gamma=1.0,
                                    coef0=-1.0)
        K = np.asarray(problem.gram)
    assert any("not positive semidefinite" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # warned above
        with_B = MulticlassProblem(X, np.array([0, 1, 2]), C=1.0, loss="cs", kernel="poly", degree=2, gamma=1.0,
                                   coef0=-1.0, bias=1.0)
        KB = np.asarray(with_B.gram)
    got = expected_answer("09.5")
    assert K[1, 1] == got[0] and KB[1, 1] == 1.0  # q_i without and with the intercept
    np.testing.assert_allclose([np.linalg.eigvalsh(K)[0], np.linalg.eigvalsh(KB)[0]], got[1:], rtol=1e-12)


@pytest.mark.parametrize("loss", ["cs", "ww"])
def test_09_6_a_large_gamma_gives_the_limit_rows_and_the_nearest_neighbour_regions(loss):
    from sklearn.neighbors import KNeighborsClassifier

    grid = np.array([[a, b] for a in range(3) for b in range(3)], dtype=float)  # nine points 1 apart
    y = np.array([0, 1, 2, 1, 2, 0, 2, 0, 1])
    problem = MulticlassProblem(grid, y, C=1.0, loss=loss, kernel="rbf", gamma=50.0)  # K = I up to e^-50
    solver = make_multiclass_solver(None, problem.loss_object, 0, kernel="rbf")  # the loss's exact block solver
    alpha = np.asarray(solve(solver, problem, tol=1e-10, max_iter=10**5).state.alpha)
    A = problem.loss_object.weight_rows(problem, alpha)
    own, rival, accuracy = expected_answer("09.6")
    np.testing.assert_allclose(A[np.arange(9), y], own, atol=1e-9)
    rivals = A[np.arange(9)[:, None], [[m for m in range(3) if m != c] for c in y]]
    np.testing.assert_allclose(rivals, rival, atol=1e-9)
    assert np.mean(np.argmax(point_scores(problem, alpha, None, grid), axis=1) == y) == accuracy
    assert np.all(np.any(A != 0, axis=1))  # every point a support vector
    a = np.linspace(-0.43, 2.41, 60)  # no grid point on a bisector x = 0.5 or 1.5, where the nearest point ties
    Z = np.array([[u, v] for u in a for v in a])
    ours = np.argmax(point_scores(problem, alpha, None, Z), axis=1)
    nearest = KNeighborsClassifier(n_neighbors=1).fit(grid, y).predict(Z)
    assert np.mean(ours == nearest) > 0.995
