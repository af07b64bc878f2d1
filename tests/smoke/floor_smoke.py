"""Smoke test at the lowest supported versions: run by ``tests/smoke/run_floor.sh`` in a fresh virtual
environment where ``floor-constraints.txt`` pins every dependency to the floor pyproject.toml declares.

One fit per estimator, one step and one solve per solver, each checked against an independent
answer (scikit-learn / LIBSVM / LIBLINEAR on the same problem, the objective recomputed here with
NumPy from the returned weights), and one explorer driven from Python; the script also runs the
course's lightest notebook through nbval.  Not collected by the main suite (no ``test_`` prefix).
"""

import re
from importlib.metadata import version
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402

import svmteach  # noqa: E402
from svmteach import data  # noqa: E402
from svmteach.estimators import RLSClassifier  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
C = 1.0


def pins() -> dict:
    """``{name: version}`` from floor-constraints.txt."""
    lines = (HERE / "floor-constraints.txt").read_text().splitlines()
    found = (re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;#]+)", line.split("#")[0].strip()) for line in lines)
    return {m.group(1).lower(): m.group(2) for m in found if m}


def declared_floors() -> dict:
    """``{name: version}`` of pyproject.toml's ``dependencies = [...]`` (every one has a ``>=`` floor)."""
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1)
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r'"([A-Za-z0-9_.-]+)>=([^",<;]+)', block)}


def extra_floor(name: str) -> str:
    """The ``>=`` floor of ``name`` in pyproject.toml's ``test = [...]`` extra."""
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^test = \[(.*?)^\]", text, re.S | re.M).group(1)
    return re.search(rf'"{name}>=([^",<;]+)"', block).group(1)


def test_the_floors_are_the_ones_declared_and_installed():
    floors, pinned = declared_floors(), pins()
    assert pinned["pandas"] == extra_floor("pandas"), "pandas: floor-constraints.txt and the test extra disagree"
    assert floors and set(floors) <= set(pinned), f"pin every declared floor: {set(floors) - set(pinned)}"
    assert {name: pinned[name] for name in floors} == floors, "floor-constraints.txt and pyproject.toml disagree"
    for name in ("dask", "distributed"):  # the [dask] extra's floors, listed in the test extra too
        assert pinned[name] == extra_floor(re.escape(name + "[array]") if name == "dask" else name), name
    installed = {name: version(name) for name in pinned}
    assert installed == pinned, "this environment is not the floor environment"


# ---- independent objectives -------------------------------------------------------------------

def binary_primal(w, b, X, y, C):
    """1/2 |w|^2 + C sum_i max(0, 1 - y_i (w'x_i + b))."""
    return 0.5 * w @ w + C * np.maximum(0, 1 - y * (X @ w + b)).sum()


def multiclass_primal(W, X, y, C, loss):
    """Weston-Watkins (M = 1): 1/2 |W|_F^2 + C sum_i sum_{j != y_i} max(0, 1 - (w_{y_i} - w_j)'x_i);
    Crammer-Singer: 1/2 |W|_F^2 + C sum_i max(0, 1 + max_{m != y_i} w_m'x_i - w_{y_i}'x_i)."""
    S = X @ W.T
    rows = np.arange(len(y))
    margins = S[rows, y][:, None] - S  # (w_{y_i} - w_j)'x_i, 0 at j = y_i
    hinge = np.maximum(0, 1 - margins)
    hinge[rows, y] = 0
    loss_sum = hinge.sum() if loss == "ww" else hinge.max(axis=1).sum()
    return 0.5 * (W * W).sum() + C * loss_sum


@pytest.fixture(scope="module")
def blobs():
    X, y = data.overlapping_blobs(n=60, seed=1)
    return X, np.where(y > 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def iris():
    """Standardized iris with a constant feature (the multiclass models have no bias)."""
    X, y = data.iris()
    X = StandardScaler().fit_transform(X)
    return np.hstack([X, np.ones((len(X), 1))]), np.asarray(y)


@pytest.fixture(scope="module")
def with_bias(blobs):
    """LIBSVM's optimum of the SVM with a bias (scikit-learn's SVC)."""
    X, y = blobs
    ref = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    return binary_primal(ref.coef_[0], ref.intercept_[0], X, y, C), ref.predict(X)


@pytest.fixture(scope="module")
def without_bias(blobs):
    """LIBLINEAR's optimum of the SVM without a bias (scikit-learn's LinearSVC, hinge loss)."""
    X, y = blobs
    ref = LinearSVC(loss="hinge", C=C, fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(X, y)
    return binary_primal(ref.coef_[0], 0.0, X, y, C)


# ---- estimators -------------------------------------------------------------------------------

def test_binary_svc_reaches_libsvms_optimum(blobs, with_bias):
    X, y = blobs
    m = svmteach.BinarySVC(C=C, solver="smo", tol=1e-8).fit(X, y)  # LIBSVM's unpenalised bias
    optimum, predicted = with_bias
    assert binary_primal(m.coef_[0], m.intercept_[0], X, y, C) == pytest.approx(optimum, rel=1e-5)
    assert (m.predict(X) == predicted).mean() >= 0.98


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_multiclass_svc(iris, loss):
    X, y = iris
    m = svmteach.MulticlassSVC(fit_intercept=False, loss=loss, C=C, tol=1e-4, random_state=0).fit(X, y)
    P = multiclass_primal(m.coef_, X, y, C, loss)
    assert m.result_.converged and m.result_.gap <= 1e-4
    assert P == pytest.approx(m.result_.primal, rel=1e-9)  # the reported primal is the weights'
    if loss == "cs":  # LIBLINEAR solves the same problem: its weights cannot do better than the optimum
        ref = LinearSVC(multi_class="crammer_singer", C=C, fit_intercept=False, tol=1e-10,
                        max_iter=1_000_000).fit(X, y)
        assert P <= multiclass_primal(ref.coef_, X, y, C, "cs") * (1 + 2e-4)
        assert (m.predict(X) == ref.predict(X)).mean() >= 0.97
    assert (m.predict(X) == y).mean() >= 0.9


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_sparse_input_gives_the_dense_fit(iris, loss):
    """A CSR X (SciPy at its floor) through the compiled CSR loops: the dense X's model, to the certified gap.

    (A dense dot product sums in another order, so a shrinking decision may flip on a last bit and the
    runs stop at different certified points: ||W - W*||^2 / 2 <= P(W) - P* <= gap P bounds each.)"""
    from scipy import sparse

    X, y = iris
    Xs = sparse.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    tol = 1e-8
    dense = svmteach.MulticlassSVC(fit_intercept=False, loss=loss, C=C, tol=tol, random_state=0).fit(Xs.toarray(), y)
    ours = svmteach.MulticlassSVC(fit_intercept=False, loss=loss, C=C, tol=tol, random_state=0).fit(Xs, y)
    assert ours.result_.converged and dense.result_.converged
    assert np.linalg.norm(ours.coef_ - dense.coef_) <= 2 * np.sqrt(2 * tol * dense.result_.primal)
    assert multiclass_primal(ours.coef_, Xs.toarray(), y, C, loss) == pytest.approx(ours.result_.primal, rel=1e-9)
    binary = np.where(y == y[0], 1.0, -1.0)
    ref = LinearSVC(loss="hinge", C=C, fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(Xs, binary)
    m = svmteach.BinarySVC(C=C, tol=1e-8, fit_intercept=False).fit(Xs, binary)  # dual coordinate ascent, as LIBLINEAR's
    assert binary_primal(m.coef_[0], 0.0, Xs.toarray(), binary, C) == pytest.approx(
        binary_primal(ref.coef_[0], 0.0, Xs.toarray(), binary, C), rel=1e-5)


def test_one_vs_rest_and_one_vs_one_agree_with_scikit_learn(iris):
    X, y = iris
    ovr = svmteach.OneVsRestSVC(C=C, solver="smo", tol=1e-8).fit(X, y)  # SVC's unpenalised bias
    ovo = svmteach.OneVsOneSVC(C=C, solver="smo", tol=1e-8).fit(X, y)
    ref_ovr = OneVsRestClassifier(SVC(kernel="linear", C=C, tol=1e-10)).fit(X, y)
    ref_ovo = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)  # LIBSVM is one-vs-one
    assert (ovr.predict(X) == ref_ovr.predict(X)).mean() >= 0.98
    assert (ovo.predict(X) == ref_ovo.predict(X)).mean() >= 0.98


def test_data_frame_columns_are_named_and_checked(iris):
    import pandas as pd

    X, y = iris
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    for model in (svmteach.BinarySVC(), svmteach.MulticlassSVC(fit_intercept=False, random_state=0)):
        labels = y == y[0] if isinstance(model, svmteach.BinarySVC) else y
        model.fit(frame, labels)
        assert list(model.feature_names_in_) == list(frame.columns)
        np.testing.assert_array_equal(model.predict(frame), model.predict(frame.to_numpy()))
        with pytest.raises(ValueError, match="Feature names must be in the same order as they were in fit"):
            model.predict(frame[frame.columns[::-1]])


def test_rls_classifier_is_ridge_regression(blobs):
    X, y = blobs
    lam = 0.5
    m = RLSClassifier(lam=lam).fit(X, y)
    # linear kernel: f(x) = x'w with (X'X + lam I) w = X'y, solved here directly
    w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
    np.testing.assert_allclose(m.decision_function(X), X @ w, rtol=1e-8, atol=1e-10)
    assert np.array_equal(m.predict(X), np.where(X @ w > 0, 1.0, -1.0))


# ---- solvers: one step, one solve -------------------------------------------------------------

BINARY = [pytest.param(svmteach.SMO(), True, id="SMO"),
          pytest.param(svmteach.DualCoordinateAscent(random_state=0), False, id="DualCoordinateAscent")]
MULTICLASS = [pytest.param(solver, loss, id=f"{type(solver).__name__}-{loss}") for solver, loss in [
    (svmteach.WWExact(random_state=0), "ww"), (svmteach.WWShark(random_state=0), "ww"),
    (svmteach.CSBlondel(random_state=0), "cs"), (svmteach.ParallelBlock(), "ww"), (svmteach.ParallelBlock(), "cs")]]


def one_step(solver, problem):
    """The measured states before and after one step."""
    before = solver.measure(problem, solver.init(problem))
    return before, solver.measure(problem, solver.step(problem, before))


@pytest.mark.parametrize("solver, bias", BINARY)
def test_binary_dual_solvers(blobs, with_bias, without_bias, solver, bias):
    X, y = blobs
    problem = svmteach.BinaryProblem(X, y, C=C)
    before, after = one_step(solver, problem)
    assert after.n_iter == 1 and after.dual > before.dual  # a coordinate step improves the dual
    r = svmteach.solve(solver, problem, tol=1e-8, max_iter=1_000_000)
    optimum = with_bias[0] if bias else without_bias
    assert r.converged and r.gap <= 1e-8
    assert r.primal == pytest.approx(optimum, rel=1e-5) and r.dual <= optimum * (1 + 1e-9)


def test_primal_subgradient(blobs, without_bias):
    X, y = blobs
    problem = svmteach.BinaryProblem(X, y, C=C)
    before, after = one_step(svmteach.PrimalSubgradient(), problem)
    # from w = 0 every hinge is active: the subgradient is -C sum_i y_i x_i, and w moves against it
    assert after.n_iter == 1
    np.testing.assert_allclose(after.w, after.step_size * C * X.T @ y, rtol=1e-12)
    r = svmteach.solve(svmteach.PrimalSubgradient(), problem, max_iter=2000, tol=1e-6)
    # a primal value is never below the optimum; 2000 steps of 1/t come within a few percent of it
    assert without_bias * (1 - 1e-9) <= r.primal <= without_bias * 1.05


@pytest.fixture(scope="module")
def multiclass_optima(iris):
    """The optimum of each loss, from the sequential solvers run to a tiny gap, checked against LIBLINEAR."""
    X, y = iris
    out = {}
    for solver, loss in [(svmteach.WWExact(random_state=0), "ww"), (svmteach.CSBlondel(random_state=0), "cs")]:
        r = svmteach.solve(solver, svmteach.MulticlassProblem(X, y, C=C, loss=loss), tol=1e-9, max_iter=10**7)
        assert r.converged
        out[loss] = r.primal
    return out


@pytest.mark.parametrize("solver, loss", MULTICLASS)
def test_multiclass_solvers(iris, multiclass_optima, solver, loss):
    X, y = iris
    problem = svmteach.MulticlassProblem(X, y, C=C, loss=loss)
    before, after = one_step(solver, problem)
    assert after.n_iter == 1 and np.isfinite(after.gap) and after.dual >= before.dual - 1e-12
    r = svmteach.solve(solver, problem, tol=1e-5, max_iter=10**6)
    _, W = solver.coefficients(problem, r.state)
    assert r.converged and 0 <= r.gap <= 1e-5
    assert multiclass_primal(W, X, y, C, loss) == pytest.approx(r.primal, rel=1e-9)
    # within the gap of the optimum, which the dual bounds from below
    assert multiclass_optima[loss] * (1 - 1e-9) <= r.primal <= multiclass_optima[loss] * (1 + 2e-5)


def test_the_multiclass_optima_match_liblinear(iris, multiclass_optima):
    X, y = iris
    ref = LinearSVC(multi_class="crammer_singer", C=C, fit_intercept=False, tol=1e-10, max_iter=1_000_000).fit(X, y)
    assert multiclass_optima["cs"] == pytest.approx(multiclass_primal(ref.coef_, X, y, C, "cs"), rel=1e-5)


# ---- the explorers (ipywidgets, ipympl at their floors) ---------------------------------------

def test_an_explorer_steps(blobs):
    from svmteach.widgets import BinaryExplorer

    X, y = blobs
    explorer = BinaryExplorer(X, y, C=1.0)
    explorer.buttons["10 steps"].click()
    assert explorer.state.n_iter == 10 and "step 10" in explorer.status.text


def test_a_dask_array_is_fitted_where_its_chunks_live(iris):
    """The [dask] extra at its floor: CoCoA+ on a LocalCluster (two worker processes) reaches the in-memory fit."""
    import dask.array as da
    from distributed import Client, LocalCluster

    X, y = iris
    ref = svmteach.MulticlassSVC(C=0.1, fit_intercept=False, tol=1e-8).fit(X, y)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        est = svmteach.MulticlassSVC(C=0.1, fit_intercept=False, tol=1e-4).fit(da.from_array(X, chunks=(50, 5)), y)
    assert est.solver_ == "cocoa" and est.result_.converged
    assert (est.result_.primal - ref.result_.dual) / est.result_.primal <= 1e-4 + 1e-9
