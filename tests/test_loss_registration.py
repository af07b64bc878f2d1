"""Adding a loss is one subclass and one registry line: a copy of Weston-Watkins registered as ``"ww2"``
runs through every consumer (the estimator with its direct finish, the interior-point and parallel
solvers, the explorer, the solver contract, sparse input), each answer checked against Clarabel's optimum
of the loss's dual (:func:`oracles.multiclass_dual_optimum`) or the ``"ww"`` answer on the same data."""

import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import test_contract as contract  # noqa: E402
from oracles import cs_dual_optimum, llw_primal_optimum, multiclass_dual_optimum, ww_dual_optimum  # noqa: E402
from scipy import sparse  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from svmteach import MulticlassProblem, MulticlassSVC, solve  # noqa: E402
from svmteach.losses import LOSSES, MulticlassLoss, WestonWatkins, register_loss  # noqa: E402
from svmteach.losses.crammer_singer import CrammerSinger  # noqa: E402
from svmteach.solvers import InteriorPoint, ParallelBlock  # noqa: E402
from svmteach.viz.shark_path import SharkPathView  # noqa: E402


class WW2(WestonWatkins):
    name = "ww2"
    title = "Weston-Watkins, again"


class WWNoEmbedding(WestonWatkins):
    """Weston-Watkins without a declared interior-point programme: the interior point does not solve it."""

    name = "ww_no_embedding"
    embedding = None


@pytest.fixture
def ww2():
    loss = register_loss(WW2())
    yield loss
    del LOSSES[loss.name]


def data(n=30, d=2, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(scale=2.0, size=(k, d))[y] + rng.normal(size=(n, d))
    return X, y


def rel(a, b):
    return abs(a - b) / abs(b)


def test_the_generic_oracle_is_the_hand_written_ones_on_the_package_losses():
    X, y = data()
    for loss, expected in (("ww", lambda p: ww_dual_optimum(X, p.codes, 0.7, 1.3)),
                           ("cs", lambda p: cs_dual_optimum(X, p.codes, 0.7)),
                           ("llw", lambda p: llw_primal_optimum(X, p.codes, 0.7)[1])):
        p = MulticlassProblem(X, y, C=0.7, loss=loss, M=1.3 if loss == "ww" else 1.0)
        assert rel(multiclass_dual_optimum(p)[0], expected(p)) < 1e-8, loss


def test_the_estimator_finishes_the_new_loss_directly(ww2):
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = MulticlassSVC(loss="ww2", fit_intercept=False, max_iter=1, tol=1e-10).fit(X, y)
    assert m.solver_ == "interior_point" and m.result_.converged  # the direct finish ran
    best, _ = multiclass_dual_optimum(MulticlassProblem(X, y, C=1.0, loss="ww2"))
    assert rel(m.result_.dual, best) < 1e-8 and rel(m.result_.primal, best) < 1e-8
    ref = MulticlassSVC(loss="ww", fit_intercept=False, max_iter=1, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=0, atol=1e-8 * np.abs(ref.coef_).max())


def test_the_direct_finish_is_skipped_for_a_loss_the_interior_point_does_not_solve():
    loss = register_loss(WWNoEmbedding())
    try:
        assert not InteriorPoint.solves(loss)
        X, y = data()
        with pytest.warns(ConvergenceWarning):  # the coordinate run stops short and says so; no crash
            m = MulticlassSVC(loss=loss.name, fit_intercept=False, max_iter=1, tol=1e-10).fit(X, y)
        assert m.solver_ != "interior_point"
        with pytest.raises(ValueError, match="does not solve"):
            InteriorPoint().init(MulticlassProblem(X, y, loss=loss.name))
    finally:
        del LOSSES[loss.name]


@pytest.mark.parametrize("solver", [InteriorPoint(), ParallelBlock()], ids=["interior_point", "parallel"])
def test_the_solvers_reach_the_oracle_on_the_new_loss(ww2, solver):
    X, y = data()
    p = MulticlassProblem(X, y, C=2.0, loss="ww2")
    best, _ = multiclass_dual_optimum(p)
    r = solve(solver, p, tol=1e-8, max_iter=100_000)
    assert r.converged and rel(r.dual, best) < 1e-7 and rel(r.primal, best) < 1e-7
    same = solve(solver, MulticlassProblem(X, y, C=2.0, loss="ww"), tol=1e-8, max_iter=100_000)
    np.testing.assert_array_equal(np.asarray(r.state.alpha), np.asarray(same.state.alpha))  # the same arithmetic


def test_sparse_input_on_the_new_loss(ww2):
    X, y = data()
    m = MulticlassSVC(loss="ww2", fit_intercept=False, tol=1e-8, max_iter=100_000,
                      random_state=0).fit(sparse.csr_array(X), y)
    best, _ = multiclass_dual_optimum(MulticlassProblem(X, y, C=1.0, loss="ww2"))
    assert m.result_.converged and rel(m.result_.dual, best) < 1e-7 and rel(m.result_.primal, best) < 1e-7


def test_the_explorer_offers_and_draws_the_new_loss(ww2):
    from svmteach.widgets import MulticlassExplorer

    X, y = data()
    e = MulticlassExplorer(X, y, C=1.0, loss="ww2", time_budget=math.inf)
    assert "ww2" in e.dropdowns["loss"].options
    assert isinstance(e.step_view, SharkPathView)  # the view of its block picture (Weston-Watkins')
    e.buttons["10 steps"].click()
    assert e.state.n_iter == 10
    e.buttons["to convergence"].click()
    best, _ = multiclass_dual_optimum(e.problem)
    assert e.state.gap <= e.tol and e.state.dual <= best * (1 + 1e-9) and e.state.primal >= best * (1 - 1e-9)


def test_the_contract_holds_for_every_solver_of_the_new_loss(ww2):
    ran = []
    for cls in contract.exported_solvers():
        if not cls.multiclass:
            continue
        for problem in contract.problems_for(cls):
            if getattr(problem, "loss", None) != "ww2":
                continue
            contract.test_coefficients_are_numpy_arrays(cls, problem)
            contract.test_advance_with_tol_stops_early_at_a_measured_converged_state(cls, problem)
            contract.test_advance_without_tol_takes_every_step(cls, problem)
            ran.append(cls.name)
    assert {"exact", "shark", "parallel", "interior_point"} <= set(ran)


def test_a_loss_missing_an_abstract_method_cannot_be_instantiated():
    class Half(MulticlassLoss):
        name = "half"

        def weight_rows(self, problem, alpha):
            return alpha

    with pytest.raises(TypeError, match="abstract"):
        Half()
    assert "dual_linear" in Half.__abstractmethods__


def test_register_loss_refuses_a_taken_name_and_a_non_loss():
    with pytest.raises(ValueError, match="loss"):
        register_loss(WestonWatkins())
    with pytest.raises(TypeError, match="loss"):
        register_loss("ww3")
    assert tuple(LOSSES) == ("ww", "cs", "llw", "mmr")


def test_an_embedding_that_does_not_match_the_dual_is_refused():
    class Mislabelled(WestonWatkins):
        name = "mislabelled"
        embedding = CrammerSinger.embedding  # alpha_off = -beta: its dual_linear is -1'beta

    X, y = data()
    p = MulticlassProblem(X, y, loss=register_loss(Mislabelled()).name)
    try:
        with pytest.raises(ValueError, match="loss: .*embedding does not match"):
            InteriorPoint().init(p)
    finally:
        del LOSSES["mislabelled"]
