"""The claims of notebooks 6 and 7 checked against oracles.  The derivation-against-code comparisons the
notebooks no longer show (issue 28: "checked against svmteach.X" lines test the library, not the student) are
in tests/test_derivations.py (test_the_library_computes_what_the_notebooks_derive), with every notebook's.

Notebook 6: Shark's greedy steps inside one block (re-run here by an independent NumPy loop: from the second
step on, each is -1/2 the one before), every Shark visit ending at the block's optimum (Clarabel's QP of the
block), the two solvers taking the same decisions per epoch (and reaching Clarabel's dual optimum), and the
three-loss figure (its region pixels read back against Clarabel's Weston-Watkins and Lee-Lin-Wahba primals
and LIBLINEAR's Crammer-Singer) with the claims its text makes; the maximum-margin regression fit of section 5
(what its checked cell prints and the sentence after it says, against Clarabel's solutions of the MMR primal and
dual).  Notebook 7: the simplex's mass, C for the rows C_i - alpha_i and C ||x_i|| for Blondel's scaled beta.
"""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from oracles import llw_primal_optimum, mmr_kernel_dual_optimum, mmr_primal_optimum, solve_qp, ww_dual_optimum  # noqa: E402
from test_pictures import cs_optimum, drawn_regions_agree, ww_optimum  # noqa: E402

from svmteach import CSBlondel, MulticlassProblem, MulticlassSVC, WWExact, WWShark, data  # noqa: E402
from svmteach import iterate, solve  # noqa: E402


# ---- notebook 6: Shark's block -------------------------------------------------------------------

@pytest.fixture(scope="module")
def clouds():
    X, y = data.multiclass_blobs(90, k=4, seed=0)
    return X, y, MulticlassProblem(X, y, C=1.0, loss="ww", M=1.0)


def greedy_moves(neg_grad, alpha, y, a, C, max_moves, tol=1e-12):
    """Shark's rule, written again from the notebook's text: step on the coordinate of largest violation by
    m = -df/dalpha_ij / (2a), clipped to [0, C]; the negative gradient drops by 2am at j, am elsewhere."""
    g, al, moves = np.array(neg_grad, float), np.array(alpha, float), []
    for _ in range(max_moves):
        viol = np.where((g > 0) & (al < C), g, np.where((g < 0) & (al > 0), -g, 0.0))
        viol[y] = 0.0
        j = int(np.argmax(viol))
        if viol[j] < tol:
            break
        m = float(np.clip(g[j] / (2 * a), -al[j], C - al[j]))
        al[j] += m
        g -= a * m
        g[j] -= a * m
        g[y] = 0.0
        moves.append((j, m))
    return moves


def test_sharks_steps_are_the_greedy_rule_and_halve_with_a_sign_change(clouds):
    X, y, problem = clouds
    states = list(iterate(WWShark(random_state=2), problem, max_iter=3))  # the notebook's visit
    visit, before = states[-1], states[-2]
    i, block = visit.i, visit.block
    a = float(X[i] @ X[i])                                        # M = 1
    expected = greedy_moves(block.grads[0], np.asarray(before.alpha)[i], block.y, a, 1.0, 10 * problem.k)
    assert len(expected) == len(block.moves_j) == 40              # the cap, 10 k
    np.testing.assert_array_equal([j for j, _ in expected], block.moves_j)
    np.testing.assert_allclose([m for _, m in expected], block.moves_m, rtol=1e-9, atol=1e-15)
    steps = np.asarray(block.moves_m)
    ratios = steps[1:] / steps[:-1]
    assert round(ratios[0], 2) == 0.38                           # the notebook's "first ratio 0.38"
    np.testing.assert_allclose(ratios[1:20], -0.5, rtol=1e-6)    # then exactly -1/2 (two active rivals)


def block_by_qp(neg_grad, alpha_i, y, a, C):
    """The exact block by Clarabel: min a/2 (|z|^2 + (1'z)^2) - c'z over [0, C]^(k-1), c_j = -df/dalpha_ij +
    a (alpha_ij - alpha_iy) (the notebook's block in its free entries z); returns the new row alpha_i."""
    free = [j for j in range(len(alpha_i)) if j != y]
    c = np.array([neg_grad[j] + a * (alpha_i[j] - alpha_i[y]) for j in free])
    m = len(free)
    H = a * (np.eye(m) + np.ones((m, m)))
    z = solve_qp(H, -c, A_ineq=np.vstack([np.eye(m), -np.eye(m)]), b_ineq=np.concatenate([np.full(m, C), np.zeros(m)]))
    row = np.zeros(len(alpha_i))
    row[free] = z
    row[y] = -z.sum()
    return row


def test_every_shark_visit_ends_at_the_blocks_optimum(clouds):
    X, y, problem = clouds
    previous, compared = None, 0
    for state in iterate(WWShark(random_state=0, shrinking=False), problem, max_iter=2 * problem.n_samples):
        if previous is not None and len(state.block.moves_j) >= 1:
            i = state.i
            target = block_by_qp(state.block.grads[0], np.asarray(previous.alpha)[i], state.block.y,
                                 float(X[i] @ X[i]), 1.0)
            np.testing.assert_allclose(np.asarray(state.alpha)[i], target, atol=1e-7)
            compared += 1
        previous = state
    assert compared >= 50


def test_per_epoch_the_two_solvers_are_one_run_at_the_qp_optimum(clouds):
    X, y, problem = clouds
    runs = [solve(s(random_state=0, shrinking=False), problem, tol=1e-8, record_history=True) for s in (WWShark, WWExact)]
    assert runs[0].n_iter == runs[1].n_iter and runs[0].history["n_iter"] == runs[1].history["n_iter"]
    np.testing.assert_allclose(runs[0].history["gap"], runs[1].history["gap"], rtol=1e-5, atol=1e-12)
    d_star = ww_dual_optimum(np.asarray(X, float), np.asarray(y), 1.0, 1.0)
    for r in runs:
        assert abs(r.dual - d_star) <= 1e-6 * abs(d_star)


# ---- notebook 6: the three losses ----------------------------------------------------------------

@pytest.fixture(scope="module")
def family():
    X, y = data.multiclass_blobs(150, k=4, spread=1.6, seed=0)
    X = np.asarray(X, float)
    models = {loss: MulticlassSVC(loss=loss, fit_intercept=False, C=1.0, tol=1e-6, random_state=0).fit(X, y)
              for loss in ("ww", "cs", "llw")}
    oracle = {"ww": ww_optimum(X, y, 4, 1.0), "cs": cs_optimum(X, y, 1.0), "llw": llw_primal_optimum(X, y, 1.0)[0]}
    return X, y, models, oracle


def test_the_three_loss_figure_draws_each_losss_optimum(family):
    """The notebook's figure, drawn as its cell draws it; each panel's region pixels against the oracle's W."""
    from svmteach.viz import draw_decision_regions

    X, y, models, oracle = family
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.6))
    for ax, loss, name in zip(axes, ["ww", "cs", "llw"], ["Weston-Watkins", "Crammer-Singer", "Lee-Lin-Wahba"]):
        draw_decision_regions(ax, models[loss], X, y, title=name, legend=(loss == "ww"))
        ax.set_xlabel("$x_1$"); ax.set_ylabel("$x_2$")  # noqa: E702
    plt.tight_layout()
    for ax, loss in zip(axes, ["ww", "cs", "llw"]):
        drawn_regions_agree(fig, ax, 4, lambda Z, W=oracle[loss]: np.argmax(Z @ W.T, axis=1))
    plt.close(fig)


def test_what_the_three_loss_text_says(family):
    """WW and CS nearly agree, LLW differs; every point is an LLW support vector, about 85 for WW and CS."""
    X, y, models, oracle = family
    square = np.stack(np.meshgrid(np.linspace(-6, 6, 121), np.linspace(-6, 6, 121)), axis=-1).reshape(-1, 2)
    label = {loss: np.argmax(square @ W.T, axis=1) for loss, W in oracle.items()}
    assert np.mean(label["ww"] != label["cs"]) < 0.05
    assert np.mean(label["ww"] != label["llw"]) > 0.1 and np.mean(label["cs"] != label["llw"]) > 0.1
    n = len(y)
    rival = np.ones((n, 4), bool)
    rival[np.arange(n), y] = False
    S = X @ oracle["llw"].T
    assert np.all(np.max(np.where(rival, 1 + S, -np.inf), axis=1) > 1e-4)  # xi_im > 0 somewhere: alpha_im = C
    for loss in ("ww", "cs"):
        S = X @ oracle[loss].T
        margin = S[np.arange(n), y][:, None] - S                            # (w_y - w_m)'x_i
        charged = np.sum(np.min(np.where(rival, margin, np.inf), axis=1) < 1 + 1e-6)
        assert 78 <= charged <= 92, (loss, charged)                           # "about 85"
        support = np.sum(np.abs(np.asarray(models[loss].alpha_)).max(axis=1) > 1e-8)
        assert abs(support - charged) <= 4, (loss, support, charged)
    assert np.all(np.abs(np.asarray(models["llw"].alpha_)).max(axis=1) > 1e-3)


# ---- notebook 6: maximum-margin regression, the fourth member -------------------------------------

NOTEBOOK_6 = Path(__file__).resolve().parent.parent / "notebooks" / "06_weston_watkins.ipynb"


def mmr_cells():
    """The committed MMR cell of notebook 6 (its source and its printed text) and the Markdown cell after it."""
    cells = json.loads(NOTEBOOK_6.read_text(encoding="utf-8"))["cells"]
    k = next(k for k, c in enumerate(cells) if c["cell_type"] == "code" and "NBVAL_CHECK_OUTPUT" in "".join(c["source"])
             and 'loss="mmr"' in "".join(c["source"]))
    printed = "".join("".join(o.get("text", "")) for o in cells[k]["outputs"])
    assert cells[k + 1]["cell_type"] == "markdown"
    return "".join(cells[k]["source"]), printed, "".join(cells[k + 1]["source"])


def test_what_the_mmr_cell_prints_and_its_text_says(family):
    """Section 5's maximum-margin regression fit on the three-loss figure's data: its primal is Clarabel's optimum
    (the gap it reports is below tol), its accuracy, the points carrying a multiplier (MMR's from Clarabel's dual
    and from the KKT reading of Clarabel's primal; WW's and LLW's from their oracles), and the misclassified points
    that carry none; the committed output prints these numbers and the sentence after the cell states them."""
    X, y, models, oracle = family
    n, k, C = len(y), 4, 1.0
    rows = np.arange(n)
    model = MulticlassSVC(loss="mmr", fit_intercept=False, C=C, tol=1e-6, random_state=0).fit(X, y)
    W = np.asarray(model.coef_)
    A = np.asarray(model.alpha_)

    # the primal: the fit's W is feasible and its objective, recomputed here, is Clarabel's optimum to the gap
    W_star, P_star = mmr_primal_optimum(X, y, C)
    D_star, beta = mmr_kernel_dual_optimum(X @ X.T, y, C)
    assert abs(P_star - D_star) <= 1e-8 * abs(P_star)                       # the two oracles agree
    assert np.abs(W.sum(axis=0)).max() < 1e-10                               # sum_m w_m = 0
    P_fit = 0.5 * np.sum(W * W) + C * np.sum(np.maximum(1.0 - np.einsum("ij,ij->i", X, W[y]), 0.0))
    assert P_star - 1e-9 * P_star <= P_fit <= P_star + 1e-6 * P_star
    assert model.result_.gap < model.tol                                     # "relative duality gap below tol: True"
    np.testing.assert_allclose(W, (A - A.mean(axis=1, keepdims=True)).T @ X, atol=1e-10)  # W from centred alphas
    assert np.all(A[y[:, None] != np.arange(k)[None, :]] == 0.0)              # one multiplier per sample

    # the accuracy, at the fit and at Clarabel's W
    accuracy = np.mean(np.argmax(X @ W_star.T, axis=1) == y)
    assert round(accuracy, 2) == round(np.mean(model.predict(X) == y), 2) == 0.75
    others = {loss: round(np.mean(models[loss].predict(X) == y), 2) for loss in ("ww", "cs", "llw")}
    assert others == {"ww": 0.74, "cs": 0.73, "llw": 0.73}                  # "against 0.73 and 0.74"

    # the points that carry a multiplier: Clarabel's dual, the KKT reading of its primal, and the fit
    own = np.einsum("ij,ij->i", X, W_star[y])                                 # w_{y_i}' x_i at the optimum
    below, on, above = own < 1 - 1e-6, np.abs(own - 1) <= 1e-6, own > 1 + 1e-6
    assert below.sum() + on.sum() + above.sum() == n
    assert (below.sum(), on.sum()) == (18, 6)
    assert np.sum(beta > 1e-6) == 24 and np.sum(beta > C - 1e-6) == 18       # Clarabel's alpha_{iy_i}
    assert np.all(beta[above] < 1e-6) and np.all(beta[below] > C - 1e-6)
    a = A[rows, y]
    assert np.sum(a > 1e-8) == 24 and np.sum(a > C - 1e-8) == 18
    # WW: the points within the margin at its oracle (the support of its dual); LLW: every point
    rival = np.ones((n, k), bool)
    rival[rows, y] = False
    S = X @ oracle["ww"].T
    charged = np.sum(np.min(np.where(rival, S[rows, y][:, None] - S, np.inf), axis=1) < 1 + 1e-6)
    support = {loss: int(np.sum(np.abs(np.asarray(models[loss].alpha_)).max(axis=1) > 1e-8)) for loss in ("ww", "llw")}
    assert charged == support["ww"] == 84 and support["llw"] == n == 150

    # misclassified at the optimum, and those of them that carry no multiplier: their true class scores above 1
    wrong = np.argmax(X @ W_star.T, axis=1) != y
    quiet = wrong & (beta < 1e-6)
    assert wrong.sum() == 38 and quiet.sum() == 19 and np.all(own[quiet] > 1 + 1e-3)
    assert np.array_equal(quiet, wrong & above)
    assert np.array_equal(model.predict(X) != y, wrong) and np.sum(wrong & (a == 0)) == 19

    # what the notebook prints and says
    source, printed, text = mmr_cells()
    assert "tol=1e-6" in source and "C=1.0" in source and "Xw, yw" in source
    assert printed.splitlines() == [
        "Maximum-margin regression: training accuracy 0.75",
        "relative duality gap below tol = 1e-06: True",
        "points with a nonzero multiplier, of 150: MMR 24, WW 84, LLW 150 (MMR's at the bound C = 1: 18)",
        "misclassified by MMR: 38, of which 19 carry no multiplier; each of these scores its true class above 1: True",
    ]
    for claim in ("0.75 here", "24 of the 150 carry a multiplier", "84 for Weston-Watkins", "all 150 for Lee-Lin-Wahba",
                  "the 18 at $C$ score below it, the other 6 exactly 1", "19 of the 38 points it misclassifies"):
        assert claim in text, claim


# ---- notebook 7: the simplex's mass ----------------------------------------------------------------

def test_the_simplex_mass_is_c_for_the_rows_and_c_norm_x_for_blondels_beta():
    X, y = data.multiclass_blobs(90, k=4, seed=0)
    problem = MulticlassProblem(X, y, C=1.0, loss="cs")
    run = solve(CSBlondel(random_state=0), problem, tol=1e-8)
    A = np.asarray(run.state.alpha)
    upper = np.zeros_like(A)
    upper[np.arange(len(y)), y] = 1.0
    dist = upper - A                                              # C_i - alpha_i: on the simplex of mass C
    assert dist.min() >= -1e-12 and np.allclose(dist.sum(axis=1), 1.0, atol=1e-12)
    state = list(iterate(CSBlondel(random_state=0), problem, max_iter=2))[-1]
    r = float(np.linalg.norm(X[state.i]))
    b = state.block
    assert abs(b.z - 1.0 * r) < 1e-12 and abs(b.beta.sum() - b.z) < 1e-9 and b.beta.min() >= 0
