"""The explorers' narration (svmteach.widgets.narration) against the states it reads.

Each solver an explorer can drive takes a few steps; for each step what the sentence claims (the pair or the
coordinate or the sample, why it was chosen, what was clipped, how many classes a projection kept, how many samples
still violate KKT) is computed again here from the state before the step and the data alone (kernel matrices,
gradients, working sets, projections written out in NumPy), and the sentence must say that.
"""

import math
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.losses import get_loss  # noqa: E402
from svmteach.problems import BinaryProblem, MulticlassProblem  # noqa: E402
from svmteach.solvers import make_multiclass_solver, make_solver  # noqa: E402
from svmteach.widgets import narration  # noqa: E402
from svmteach.widgets.binary import offered_solvers as binary_solvers  # noqa: E402
from svmteach.widgets.multiclass import offered_solvers as multiclass_solvers  # noqa: E402

GAMMA = 1.0
TAU = 1e-12  # LIBSVM's curvature where K_ii + K_tt - 2 K_it <= 0
NUMBER = r"(-?(?:inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?))"


def number_after(text, label):
    """The number printed right after ``label`` in ``text`` (a test failure if there is none)."""
    m = re.search(re.escape(label) + r"\s*" + NUMBER, text)
    assert m, f"no number after {label!r} in: {text}"
    return float(m.group(1))


def near(printed, value, rel=5.1e-3, abs_=1e-6):
    """A number printed to 3 significant digits is ``value``."""
    return math.isclose(printed, value, rel_tol=rel, abs_tol=abs_)


def gram(X, kernel):
    if kernel == "linear":
        return X @ X.T
    sq = np.sum(X ** 2, axis=1)
    return np.exp(-GAMMA * (sq[:, None] + sq[None, :] - 2 * X @ X.T))


@pytest.fixture(scope="module")
def blobs():
    return data.overlapping_blobs(40, seed=1)


@pytest.fixture(scope="module")
def three():
    return data.multiclass_blobs(45, k=3, seed=2)


def film(solver, problem, steps):
    """``[(before, after), ...]``: each step of the explorer's kind (every state measured)."""
    state = solver.measure(problem, solver.init(problem))
    pairs = []
    for _ in range(steps):
        after = solver.measure(problem, solver.step(problem, state))
        pairs.append((state, after))
        state = after
    return pairs


# ---- every solver an explorer drives has its sentence ---------------------------------------------------
def explorable_cases():
    cases = [("binary", name, None, kernel) for name in binary_solvers() for kernel in ("linear", "gaussian")]
    for loss in ("ww", "cs", "llw", "mmr"):
        for kernel in ("linear", "gaussian"):
            cases += [("multiclass", name, loss, kernel) for name in multiclass_solvers(loss, kernel)]
    return cases


@pytest.mark.parametrize("kind, name, loss, kernel", explorable_cases())
def test_every_solver_an_explorer_drives_is_narrated_at_every_step(blobs, three, kind, name, loss, kernel):
    """The registry's explorable solvers, each loss and kernel: the start and every step have a sentence that names
    what its picture's type says, and the gap of the state."""
    if kind == "binary":
        problem = BinaryProblem(*blobs, C=1.0, kernel=kernel, gamma=GAMMA)
        solver = make_solver(name, "binary", kernel=kernel, random_state=0)
    else:
        problem = MulticlassProblem(*three, C=1.0, loss=loss, kernel=kernel, gamma=GAMMA)
        solver = make_multiclass_solver(name, get_loss(loss), random_state=0, kernel=kernel)
    first = film(solver, problem, 1)[0][0]
    assert narration.step_sentence(solver, problem, first) == narration.NO_STEP
    for _, state in film(solver, problem, 4):
        assert type(solver.step_picture(state)) in narration.STEP_SENTENCES
        text = narration.narrate(solver, problem, state)
        assert text.startswith(narration.step_sentence(solver, problem, state))
        assert near(number_after(text, "Gap"), state.gap, rel=0.06)  # printed to 2 digits
        if name != "smo":  # each sample's violation, whose largest is the state's own (SMO's is the pair gap m - M)
            assert near(solver.sample_violations(problem, state).max(), state.kkt, 1e-9, 1e-12)


def test_a_picture_without_a_sentence_is_an_error_not_a_blank(blobs):
    problem = BinaryProblem(*blobs, C=1.0)
    solver = make_solver("interior_point", "binary")  # not offered by the explorers: its Newton steps have none
    with pytest.raises(TypeError, match="no sentence for the step picture"):
        narration.step_sentence(solver, problem, solver.init(problem))


# ---- SMO -------------------------------------------------------------------------------------------------
def working_sets(y, alpha, C):
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return up, low


@pytest.mark.parametrize("selection", ["second_order", "max_violating_pair", "random"])
@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_smo_says_which_pair_its_rule_chose_and_what_was_clipped(blobs, selection, kernel):
    X, y = blobs
    C = 1.0
    problem = BinaryProblem(X, y, C=C, kernel=kernel, gamma=GAMMA)
    solver = make_solver("smo", "binary", kernel=kernel, selection=selection, random_state=0)
    K = gram(X, kernel)
    Q = (y[:, None] * y[None, :]) * K
    clipped_seen = set()
    for before, after in film(solver, problem, 12):
        text = narration.step_sentence(solver, problem, after)
        i, j = int(number_after(text, "i =")), int(number_after(text, "j ="))
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        v = y * (1.0 - Q @ a0)  # y_t g_t from the state before the step, g = 1 - Q alpha
        up, low = working_sets(y, a0, C)
        assert set(np.flatnonzero(a1 != a0)) <= {i, j}
        if selection != "random":  # the random rule's partner is any sample
            assert up[i] and low[j]
        d = v[i] - v[j]
        if selection == "second_order":
            assert near(v[i], v[up].max(), 1e-9, 1e-12)  # the most violating in I_up
            a = K[i, i] + np.diag(K) - 2 * K[i]
            gain = np.where(low & (v < v[i]), (v[i] - v) ** 2 / np.where(a > 0, a, TAU), -np.inf)
            assert near(gain[j], gain.max(), 1e-9, 1e-12)  # the partner of largest gain
            assert near(number_after(text, "b\u00b2/a ="), gain[j])
            assert near(number_after(text, "a = \u03b7 ="), a[j])
        elif selection == "max_violating_pair":
            assert near(v[i], v[up].max(), 1e-9, 1e-12) and near(v[j], v[low].min(), 1e-9, 1e-12)
        assert near(number_after(text, "g_j ="), d)
        # the segment of alpha_j and the maximiser on the line, from the formulas
        if y[i] != y[j]:
            L, H = max(0.0, a0[j] - a0[i]), min(C, C + a0[j] - a0[i])
        else:
            L, H = max(0.0, a0[i] + a0[j] - C), min(C, a0[i] + a0[j])
        eta = K[i, i] + K[j, j] - 2 * K[i, j]
        assert eta > 0
        unclipped = a0[j] + y[j] * (v[j] - v[i]) / eta  # alpha_j + y_j (E_i - E_j) / eta, E_t = b - y_t g_t
        assert near(number_after(text, "\u2192"), a1[j])
        if unclipped > H + 1e-9:
            assert f"clipped at H = {narration.g(H)}" in text and near(a1[j], H, 1e-9, 1e-12)
            clipped_seen.add("H")
        elif unclipped < L - 1e-9:
            assert f"clipped at L = {narration.g(L)}" in text and near(a1[j], L, 1e-9, 1e-12)
            clipped_seen.add("L")
        elif L < unclipped < H and a1[j] != a0[j]:
            assert "not clipped" in text and near(a1[j], unclipped, 1e-7, 1e-9)
            clipped_seen.add("inside")
    assert len(clipped_seen) >= 2  # the film shows more than one case


def test_with_samples_set_aside_smo_says_it_chose_among_the_active_ones():
    """After LIBSVM's shrinking has set samples aside, the rules look at the active ones (the engine's ``active``):
    the sentence says so, and i and j are the most violating and the best partner among those."""
    X, y = data.overlapping_blobs(200, seed=4)
    C, kernel = 10.0, "gaussian"
    problem = BinaryProblem(X, y, C=C, kernel=kernel, gamma=GAMMA)
    solver = make_solver("smo", "binary", kernel=kernel, random_state=0)
    K = gram(X, kernel)
    Q = (y[:, None] * y[None, :]) * K
    checked = 0
    state = solver.measure(problem, solver.init(problem))
    for _ in range(260):
        before, state = state, solver.measure(problem, solver.step(problem, state))
        active = np.zeros(len(y), dtype=bool)
        active[state.active] = True
        if active.all() or solver.step_picture(state).i < 0:
            continue
        text = narration.step_sentence(solver, problem, state)
        assert f"among the {active.sum()} of {len(y)} samples shrinking keeps active" in text
        i, j = int(number_after(text, "i =")), int(number_after(text, "j ="))
        a0 = np.asarray(before.alpha)
        v = y * (1.0 - Q @ a0)
        up, low = working_sets(y, a0, C)
        up, low = up & active, low & active
        assert up[i] and near(v[i], v[up].max(), 1e-9, 1e-12)
        a = K[i, i] + np.diag(K) - 2 * K[i]
        gain = np.where(low & (v < v[i]), (v[i] - v) ** 2 / np.where(a > 0, a, TAU), -np.inf)
        assert near(gain[j], gain.max(), 1e-9, 1e-12)
        checked += 1
    assert checked >= 20


# ---- dual coordinate ascent and the subgradient method ------------------------------------------------------
@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_dual_cd_says_the_coordinate_its_vertex_and_the_clip(blobs, kernel):
    X, y = blobs
    C = 0.5
    problem = BinaryProblem(X, y, C=C, kernel=kernel, gamma=GAMMA)
    solver = make_solver("dual_cd", "binary", kernel=kernel, random_state=0)
    Q = (y[:, None] * y[None, :]) * gram(X, kernel)
    seen = set()
    for before, after in film(solver, problem, 25):  # within the first epoch (40 coordinates)
        text = narration.step_sentence(solver, problem, after)
        i = int(number_after(text, "i ="))
        assert i == before.index[before.pos]  # the next in this epoch's order (the engine's documented order)
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        vertex = a0[i] + (1.0 - Q[i] @ a0) / Q[i, i]  # the parabola's maximiser along coordinate i
        assert set(np.flatnonzero(a1 != a0)) <= {i} and near(a1[i], min(max(vertex, 0.0), C), 1e-9, 1e-12)
        assert near(number_after(text, "vertex"), vertex)
        if vertex > C:
            assert f"clipped to C_i = {narration.g(C)}" in text
            seen.add("C")
        elif vertex < 0:
            assert "clipped to 0" in text
            seen.add("0")
        else:
            assert "not clipped" in text
            seen.add("inside")
    assert len(seen) >= 2


def test_the_subgradient_method_says_its_step_size_and_who_is_inside_the_margin(blobs):
    X, y = blobs
    C = 1.0
    problem = BinaryProblem(X, y, C=C)
    solver = make_solver("primal_subgradient", "binary", random_state=0)
    for before, after in film(solver, problem, 5):
        text = narration.step_sentence(solver, problem, after)
        t = before.n_iter
        assert near(number_after(text, "\u03b7 ="), 1.0 / (t + 1))  # the 1/t schedule, learning rate 1
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        w0 = X.T @ (a0 * y)
        sub = w0 - C * X.T @ (y * (y * (X @ w0) < 1))  # w - sum_{m_i < 1} C y_i x_i
        assert near(number_after(text, "subgradient of norm"), np.linalg.norm(sub))
        inside = int(np.sum(y * (X @ (X.T @ (a1 * y))) < 1))
        assert f"{inside} of {len(y)} samples now have margin" in text


# ---- how many samples still violate KKT ----------------------------------------------------------------------
def binary_violations(X, y, alpha, b, C, kernel):
    g = 1.0 - y * (gram(X, kernel) @ (alpha * y) + b)
    return np.where(alpha <= 0, np.maximum(g, 0), np.where(alpha >= C, np.maximum(-g, 0), np.abs(g)))


@pytest.mark.parametrize("name", ["smo", "dual_cd", "primal_subgradient"])
def test_the_count_of_kkt_violators_is_the_samples_own_conditions(blobs, name):
    X, y = blobs
    problem = BinaryProblem(X, y, C=1.0)
    solver = make_solver(name, "binary", random_state=0)
    for _, state in film(solver, problem, 6):
        alpha, b = solver.coefficients(problem, state)
        expected = binary_violations(X, y, alpha, b, 1.0, "linear")
        np.testing.assert_allclose(solver.sample_violations(problem, state), expected, atol=1e-9)
        if name != "smo":  # without a bias the largest is the state's own KKT measure
            assert near(expected.max(), state.kkt, 1e-9, 1e-12)
        count = int(np.sum(expected > narration.KKT_TOL))
        assert f"{count} samples still violate KKT" in narration.standing_sentence(solver, problem, state)


def multiclass_violations(problem, X, codes, alpha, W, loss, M=1.0, C=1.0):
    """Each sample's block KKT violation from the scores S = X W' (the losses' conditions written out)."""
    S = X @ W.T
    n, k = S.shape
    Y = np.eye(k, dtype=bool)[codes]
    s_y = S[np.arange(n), codes][:, None]
    if loss == "cs":
        G = np.where(Y, S, S + 1.0)
        low = np.where(alpha < np.where(Y, C, 0.0) * (1 - 1e-12), G, np.inf).min(axis=1)
        return G.max(axis=1) - low
    G = M * (s_y - S) - 1.0 if loss == "ww" else -(1.0 + S)
    pg = np.where(alpha <= 0, np.minimum(G, 0), np.where(alpha >= C, np.maximum(G, 0), G))
    return np.abs(np.where(Y, 0.0, pg)).max(axis=1)


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_the_multiclass_count_of_kkt_violators_is_each_blocks_condition(three, loss):
    X, codes = three
    problem = MulticlassProblem(X, codes, C=1.0, loss=loss)
    for name in multiclass_solvers(loss):
        solver = make_multiclass_solver(name, get_loss(loss), random_state=0)
        for _, state in film(solver, problem, 4):
            alpha, W = solver.coefficients(problem, state)
            expected = multiclass_violations(problem, X, codes, alpha, W, loss)
            np.testing.assert_allclose(solver.sample_violations(problem, state), expected, atol=1e-9)
            assert near(expected.max(), state.kkt, 1e-9, 1e-12)
            count = int(np.sum(expected > narration.KKT_TOL))
            assert f"{count} sample{'s' * (count != 1)} still violate" in narration.standing_sentence(solver, problem,
                                                                                                      state)


def test_a_converged_state_says_every_sample_satisfies_kkt(blobs):
    from svmteach.solvers import solve

    problem = BinaryProblem(*blobs, C=1.0)
    solver = make_solver("smo", "binary")
    state = solve(solver, problem, tol=1e-10).state
    assert "every sample satisfies KKT" in narration.standing_sentence(solver, problem, state)


# ---- the multiclass blocks ------------------------------------------------------------------------------------
def off_label_counts(row, label, C):
    beta = np.delete(row, label)
    at0, atC = int(np.sum(beta <= 0)), int(np.sum(beta >= C))
    return at0, atC, beta.size - at0 - atC


@pytest.mark.parametrize("loss", ["ww", "llw"])
def test_an_exact_block_says_its_root_and_which_multipliers_sit_at_a_bound(three, loss):
    X, codes = three
    C = 1.0
    problem = MulticlassProblem(X, codes, C=C, loss=loss)
    solver = make_multiclass_solver("exact", get_loss(loss), random_state=0)
    moved = 0
    for before, after in film(solver, problem, 20):
        text = narration.step_sentence(solver, problem, after)
        i = int(number_after(text, "sample"))
        assert i == before.perm[before.pos]  # the next sample of this epoch's order
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        assert f"(class {problem.classes[codes[i]]})" in text
        if np.array_equal(a0[i], a1[i]):
            assert "already optimal, nothing moved" in text
            continue
        moved += 1
        at0, atC, free = off_label_counts(a1[i], codes[i], C)
        assert f"{at0} at 0, {atC} at C_i = 1, {free} free" in text
        assert near(number_after(text, "1'\u03b2 ="), np.delete(a1[i], codes[i]).sum())
    assert moved >= 5


@pytest.mark.parametrize("name", ["exact", "shark"])
def test_a_visit_that_sets_its_sample_aside_says_so(three, name):
    """Shrinking sets a sample at rest aside when it is visited (the engine's ``active``): the sentence says that,
    and only then."""
    X, codes = three
    problem = MulticlassProblem(X, codes, C=1.0, loss="ww")
    solver = make_multiclass_solver(name, get_loss("ww"), random_state=0)
    resting = 0
    for before, after in film(solver, problem, 250):
        text = narration.step_sentence(solver, problem, after)
        i = int(number_after(text, "ample"))
        set_aside = not after.active[i]
        assert ("is at rest" in text) == set_aside
        if set_aside:
            np.testing.assert_array_equal(np.asarray(after.alpha)[i], np.asarray(before.alpha)[i])
            resting += 1
    assert resting >= 3


def project_simplex(v, z):
    """The Euclidean projection of v onto {beta >= 0, sum beta = z} by sorting (Held et al. 1974)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    theta = css[rho] / (rho + 1)
    return np.maximum(v - theta, 0), theta


def test_a_crammer_singer_block_says_how_many_classes_its_projection_kept(three):
    X, codes = three
    C = 1.0
    problem = MulticlassProblem(X, codes, C=C, loss="cs")
    solver = make_multiclass_solver("blondel", get_loss("cs"), random_state=0)
    kept_seen = set()
    for before, after in film(solver, problem, 20):
        text = narration.step_sentence(solver, problem, after)
        i = int(number_after(text, "sample"))
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        if "skipped" in text:
            assert np.array_equal(a0[i], a1[i])
            continue
        # Blondel's block: beta_hat = r (u - alpha_i) + g / r, r = ||x_i||, u = C e_y, g = W x_i + 1 - e_y
        W0 = a0.T @ X  # w_m = sum_i alpha_im x_i
        e = np.eye(3)[codes[i]]
        r = np.linalg.norm(X[i])
        beta_hat = r * (C * e - a0[i]) + (W0 @ X[i] + 1.0 - e) / r
        beta, theta = project_simplex(beta_hat, C * r)
        np.testing.assert_allclose(a1[i], C * e - beta / r, atol=1e-9)  # the step the state took
        kept = int(np.sum(beta > 1e-12))
        assert f"kept {kept} of 3 classes" in text
        assert near(number_after(text, "mass z ="), C * r) and near(number_after(text, "\u03b8 ="), theta)
        kept_seen.add(kept)
    assert len(kept_seen) >= 2


def test_sharks_moves_are_counted_and_its_largest_change_is_the_rows(three):
    X, codes = three
    problem = MulticlassProblem(X, codes, C=1.0, loss="ww")
    solver = make_multiclass_solver("shark", get_loss("ww"), random_state=0)
    for before, after in film(solver, problem, 10):
        text = narration.step_sentence(solver, problem, after)
        i = int(number_after(text, "sample"))
        change = np.abs(np.asarray(after.alpha)[i] - np.asarray(before.alpha)[i]).max()
        if change == 0:
            assert "made no move" in text
            continue
        n_moves = int(number_after(text, "made"))
        assert 1 <= n_moves <= 10 * 3  # Shark's 10 k
        assert near(number_after(text, "largest change is"), change)


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_the_parallel_step_says_how_far_it_went_to_the_block_targets(three, loss):
    X, codes = three
    problem = MulticlassProblem(X, codes, C=1.0, loss=loss)
    solver = make_multiclass_solver("parallel", get_loss(loss), random_state=0)
    for before, after in film(solver, problem, 6):
        text = narration.step_sentence(solver, problem, after)
        p = solver.step_picture(after)
        a0, a1 = np.asarray(before.alpha), np.asarray(after.alpha)
        if "line search took" in text:
            t = number_after(text, "t =")
            np.testing.assert_allclose(a1, a0 + t * (np.asarray(p.target) - a0), atol=3e-3 * np.abs(a1).max())
        else:
            assert "plane" in text and p.used_plane


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_a_working_set_says_which_samples_it_solved_and_how_far_their_sub_problem_went(three, loss):
    """The samples named are the working set (every sample whose alpha moved is among them, the others kept theirs);
    the violations and epochs are the sub-problem's own."""
    X, codes = three
    problem = MulticlassProblem(X, codes, C=1.0, loss=loss, kernel="gaussian", gamma=GAMMA)
    solver = make_multiclass_solver("working_set", get_loss(loss), random_state=0, kernel="gaussian", working_set=6)
    for before, after in film(solver, problem, 6):
        text = narration.step_sentence(solver, problem, after)
        chosen = np.asarray(after.chosen)
        named = re.search(r"samples \(([\d, .]+)\)", text).group(1).split(", ")
        assert [int(i) for i in named] == chosen.tolist() and f"The working set of {chosen.size} samples" in text
        moved = np.flatnonzero(np.any(np.asarray(after.alpha) != np.asarray(before.alpha), axis=1))
        assert set(moved) <= set(chosen.tolist()) and moved.size > 0
        assert near(number_after(text, "violation went"), after.start) and near(number_after(text, "\u2192"), after.end)
        assert number_after(text, "in") == after.inner_epochs and number_after(text, "epochs (") == after.visits


# ---- the RLS and simplex explorers -------------------------------------------------------------------------
def test_the_rls_sentence_counts_errors_as_refits_do():
    from svmteach.widgets import RLSPathExplorer

    X, y = data.overlapping_blobs(30, seed=3)
    ex = RLSPathExplorer(X, y, lams=np.logspace(-3, 1, 9), lam=0.1)
    text = ex.narration.text
    lam = ex.state["lam"]
    K = gram(X, "gaussian")
    Y = np.where(y == np.unique(y)[1], 1.0, -1.0)
    c = np.linalg.solve(K + lam * np.eye(len(y)), Y)
    train = int(np.sum(np.sign(K @ c) != Y))
    loo = 0
    for i in range(len(y)):  # leave-one-out by refitting
        keep = np.arange(len(y)) != i
        ci = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(len(y) - 1), Y[keep])
        loo += int(np.sign(K[i, keep] @ ci) != Y[i])
    assert f"{train} of {len(y)} training points misclassified, {loo} when each is left out" in text
    assert near(number_after(text, "\u03bb ="), lam)
    where = "the leave-one-out best" if lam == ex.state["best_lam"] else "the leave-one-out best \u03bb ="
    assert where in text


@pytest.mark.parametrize("z", [0.5, 2.0, 6.0])
def test_the_simplex_sentence_says_what_the_projection_kept(z):
    from svmteach.widgets import SimplexProjectionExplorer

    ex = SimplexProjectionExplorer(z=z)
    beta, theta = project_simplex(ex.beta_hat, z)
    text = ex.narration.text
    assert f"kept {int(np.sum(beta > 0))} of {ex.beta_hat.size} entries" in text
    assert near(number_after(text, "\u03b8 ="), theta) and near(number_after(text, "z ="), z)


# ---- the explorers show it -------------------------------------------------------------------------------------
def test_the_solver_explorers_show_the_narration_under_their_figure(blobs, three):
    from svmteach.widgets import BinaryExplorer, MulticlassExplorer

    for ex in (BinaryExplorer(*blobs, C=1.0), MulticlassExplorer(*three, loss="cs")):
        assert ex.widget.children[-1] is ex.narration
        assert ex.widget.children[-2] is ex._figure_view.view
        assert ex.narration.text.startswith(narration.NO_STEP)
        ex.buttons["step"].click()
        assert ex.narration.text == narration.narrate(ex.solver, ex.problem, ex.state)
        ex.buttons["10 steps"].click()
        assert ex.narration.text == narration.narrate(ex.solver, ex.problem, ex.state)


def test_after_a_warm_start_the_narration_says_no_step_since(blobs, three):
    from svmteach.widgets import BinaryExplorer, MulticlassExplorer

    for ex, add in ((BinaryExplorer(*blobs, C=1.0, solver="dual_cd"), lambda ex: ex.add_point(0.3, 0.3)),
                    (MulticlassExplorer(*three, loss="ww"), lambda ex: ex.add_point(0.3, 0.3, ex.labels[0]))):
        ex.buttons["10 steps"].click()
        add(ex)  # a warm start from the solution shown: no step in the state's picture
        assert ex.narration.text.startswith("No step since the last warm start (a move of C or an edited point).")
        ex.buttons["step"].click()
        assert not ex.narration.text.startswith("No step")


def test_a_block_picture_of_a_loss_from_outside_the_package_gets_the_sentence_every_block_has(three):
    """An outside loss's own ``Block`` type has no sentence here: the narration says whose block moved and by how
    much (its ``delta``), not a TypeError in the middle of an explorer."""
    from typing import NamedTuple

    from svmteach.solvers.multiclass_base import VisitPicture

    class OwnBlock(NamedTuple):
        y: int
        delta: object

    problem = MulticlassProblem(*three, C=1.0, loss="ww")
    solver = make_multiclass_solver("exact", get_loss("ww"), random_state=0)
    state = film(solver, problem, 3)[-1][1]
    i = int(state.i)
    delta = np.zeros(problem.k)
    delta[1] = -0.25
    text = narration.visit_sentence(solver, problem, state, VisitPicture(i=i, block=OwnBlock(y=int(problem.codes[i]),
                                                                                             delta=delta)))
    assert text.startswith(f"The Weston-Watkins block for sample {i}") and "largest change is 0.25" in text
    still = narration.visit_sentence(solver, problem, state, VisitPicture(i=i, block=OwnBlock(y=0, delta=0 * delta)))
    assert "already optimal, nothing moved" in still or "at rest" in still
