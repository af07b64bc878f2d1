"""The solver registry and its factory: a newly registered solver reaches every consumer, and a solver that
cannot do what is asked (unknown, sparse X, another kind of problem, a loss, a kernel, the bias) is refused
naming ``solver``, never replaced by another."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import sparse  # noqa: E402

from svmteach import BinarySVC, MulticlassSVC, data  # noqa: E402
from svmteach import objectives as obj  # noqa: E402
from svmteach.kernels import KERNELS  # noqa: E402
from svmteach.losses import get_loss  # noqa: E402
from svmteach.solvers import (BINARY_SOLVERS, MULTICLASS_SOLVERS, SOLVERS, DualCoordinateAscent,  # noqa: E402
                              make_multiclass_solver, make_solver, register_solver)
from svmteach.solvers.dual_cd import DualCDState  # noqa: E402


class CountingCD(DualCoordinateAscent):
    """Dual coordinate ascent under a name no consumer has heard of; it counts the runs it starts."""

    name = "counting_cd"
    runs = 0

    def init(self, problem):
        type(self).runs += 1
        return super().init(problem)


class DenseOnlyCD(DualCoordinateAscent):
    """A binary solver that declares it does not take sparse X."""

    name = "dense_only_cd"
    takes_sparse = False


class LinearOnlyCD(DualCoordinateAscent):
    """A binary solver that declares it takes the linear kernel only."""

    name = "linear_only_cd"
    kernels = ("linear",)


@pytest.fixture
def registered():
    """Register the test solvers for one test, and remove them after it."""
    added = [register_solver(cls) for cls in (CountingCD, DenseOnlyCD, LinearOnlyCD)]
    CountingCD.runs = 0
    yield
    for cls in added:
        del SOLVERS[cls.name]


def test_a_registered_binary_solver_is_the_one_the_estimator_runs(registered):
    X, y = data.overlapping_blobs(60, seed=2)
    est = BinarySVC(solver="counting_cd", C=1.0, tol=1e-9, random_state=3).fit(X, y)
    assert CountingCD.runs == 1 and est.solver_ == "counting_cd"  # not silently another solver
    oracle = BinarySVC(solver="dual_cd", C=1.0, tol=1e-9, random_state=3).fit(X, y)  # the same algorithm, built in
    np.testing.assert_array_equal(est.alpha_, oracle.alpha_)
    np.testing.assert_array_equal(est.predict(X), oracle.predict(X))
    assert est.result_.converged and est.result_.gap <= 1e-9
    # its gap, recomputed from what the fit returns: the no-bias problem on [X, B] (a penalised intercept)
    problem = est.problem_for(X, y)
    f = obj.scores(problem, est.alpha_)
    gap = obj.relative_gap(float(obj.primal(problem, est.alpha_, f=f)), float(obj.dual(problem, est.alpha_, f=f)))
    assert gap == pytest.approx(est.result_.gap, abs=1e-12) and gap <= 1e-9


def test_a_registered_binary_solver_is_offered_and_run_by_the_explorer(registered):
    from svmteach.widgets import BinaryExplorer

    X, y = data.overlapping_blobs(30, seed=1)
    explorer = BinaryExplorer(X, y, C=1.0, solver="smo")
    assert "counting_cd" in explorer.dropdowns["solver"].options
    assert "interior_point" not in explorer.dropdowns["solver"].options  # its Newton steps are not explorable
    explorer.dropdowns["solver"].value = "counting_cd"
    assert type(explorer.solver) is CountingCD and CountingCD.runs >= 1
    explorer.buttons["step"].click()
    assert explorer.state.n_iter == 1 and isinstance(explorer.state, DualCDState)
    explorer.buttons["to convergence"].click()
    assert explorer.state.gap <= explorer.tol and "counting_cd" in explorer.status.value
    assert type(BinaryExplorer(X, y, solver="counting_cd").solver) is CountingCD


def test_an_unknown_solver_is_refused_naming_it():
    X, y = data.overlapping_blobs(20, seed=0)
    with pytest.raises(ValueError, match="^solver must be one of .*got 'counting_cd'$"):  # not registered here
        BinarySVC(solver="counting_cd").fit(X, y)
    with pytest.raises(ValueError, match="^solver must be one of .*got 'counting_cd'$"):
        make_solver("counting_cd", "binary")
    with pytest.raises(ValueError, match="^solver must be one of .*got 'counting_cd'$"):
        make_multiclass_solver("counting_cd", get_loss("ww"))
    with pytest.raises(ValueError, match="^kind must be one of"):
        make_solver("smo", "ternary")


def test_a_solver_of_the_other_kind_of_problem_is_refused_naming_it(registered):
    X, y = data.overlapping_blobs(20, seed=0)
    Xm, ym = data.multiclass_blobs(30, k=3)
    with pytest.raises(ValueError, match="^solver must be one of .*'shark' solves multiclass problems only"):
        BinarySVC(solver="shark").fit(X, y)
    with pytest.raises(ValueError, match="^solver must be one of .*'shark' solves multiclass problems only"):
        make_solver("shark", "binary")
    with pytest.raises(ValueError, match="^solver must be one of .*'counting_cd' solves binary problems only"):
        MulticlassSVC(solver="counting_cd").fit(Xm, ym)
    with pytest.raises(ValueError, match="^solver must be one of .*'counting_cd' solves binary problems only"):
        make_solver("counting_cd", "multiclass", loss=get_loss("ww"))
    with pytest.raises(ValueError, match="^solver must be one of .*'shark' does not solve the 'cs' loss"):
        MulticlassSVC(loss="cs", solver="shark").fit(Xm, ym)
    with pytest.raises(ValueError, match="^solver must be one of .*'shark' does not solve the 'cs' loss"):
        make_multiclass_solver("shark", get_loss("cs"))


def test_an_incapable_solver_is_refused_naming_it(registered):
    X, y = data.overlapping_blobs(20, seed=0)
    with pytest.raises(TypeError, match="^solver='dense_only_cd' does not take sparse X; .*'dual_cd'"):
        BinarySVC(solver="dense_only_cd").fit(sparse.csr_array(X), y)
    with pytest.raises(TypeError, match="^solver='dense_only_cd' does not take sparse X"):
        make_solver("dense_only_cd", "binary", sparse=True)
    BinarySVC(solver="dense_only_cd").fit(X, y)  # dense X: it runs
    with pytest.raises(ValueError, match="^solver='linear_only_cd' does not take kernel='gaussian'"):
        BinarySVC(solver="linear_only_cd", kernel="rbf", fit_intercept=False).fit(X, y)
    with pytest.raises(ValueError, match="^solver='linear_only_cd' does not take kernel='gaussian'"):
        make_solver("linear_only_cd", "binary", kernel="rbf")
    with pytest.raises(ValueError, match="^solver='smo' does not solve the problem without a bias .*fit_intercept"):
        BinarySVC(solver="smo", fit_intercept=False).fit(X, y)
    with pytest.raises(ValueError, match="^solver='smo' does not solve the problem without a bias"):
        make_solver("smo", "binary", bias=False)
    with pytest.raises(ValueError, match="^solver='dual_cd' does not solve the problem with an unpenalised bias"):
        make_solver("dual_cd", "binary", bias=True)
    Xm, ym = data.multiclass_blobs(30, k=3)
    with pytest.raises(TypeError, match="^solver='interior_point' does not take sparse X; .*'exact'"):
        MulticlassSVC(solver="interior_point").fit(sparse.csr_array(Xm), ym)  # the multiclass estimator asks too
    with pytest.raises(TypeError, match="^solver='interior_point' does not take sparse X"):
        make_multiclass_solver("interior_point", get_loss("ww"), sparse=True)


def test_register_solver_refuses_what_is_not_a_solver_and_a_taken_name():
    with pytest.raises(TypeError, match="^solver must be a subclass of Solver"):
        register_solver(object)

    class Impostor(DualCoordinateAscent):
        name = "smo"

    with pytest.raises(ValueError, match="^solver 'smo' is already registered, as SMO"):
        register_solver(Impostor)
    assert SOLVERS["smo"].__name__ == "SMO"


def test_the_views_follow_the_registry(registered):
    assert "counting_cd" in BINARY_SOLVERS and "counting_cd" not in MULTICLASS_SOLVERS
    assert BINARY_SOLVERS["counting_cd"] is CountingCD
    with pytest.raises(KeyError):
        MULTICLASS_SOLVERS["counting_cd"]


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_every_registered_solver_declares_its_capabilities(name):
    """The declarations the factory reads are well formed, and a solver built with a bias option has it."""
    cls = SOLVERS[name]
    assert cls.name == name and (cls.binary or cls.multiclass)
    assert set(cls.kernels) <= set(KERNELS) and cls.kernels
    assert set(cls.bias_options) <= {True, False} and cls.bias_options
    for flag in (cls.binary, cls.multiclass, cls.takes_sparse, cls.explorable, cls.prefers_gpu):
        assert isinstance(flag, bool)
    if cls.binary:
        for bias in cls.bias_options:
            assert make_solver(name, "binary", bias=bias, chunked=cls.chunked).bias is bias
    if cls.multiclass:
        assert any(cls.solves(get_loss(loss)) for loss in ("ww", "cs", "llw"))
        assert make_solver(name, "multiclass", loss=next(get_loss(loss) for loss in ("ww", "cs", "llw")
                                                         if cls.solves(get_loss(loss))), bias=False,
                           chunked=cls.chunked).bias is False
    assert isinstance(cls.chunked, bool)
