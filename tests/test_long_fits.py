"""Long fits: ``verbose`` progress, Ctrl-C keeping the model, and data frames' feature names.

A KeyboardInterrupt is raised from the progress callback that ``fit`` hands to :func:`svmteach.solve`
(the estimators' ``fit_progress`` is replaced by one that raises after a few calls): no signals, no
sleeps.  An interrupted fit must return a model that predicts, warn that it was interrupted, and report
a gap that is the gap of the model it returns, recomputed here from ``alpha_`` and ``problem_for``.
"""

import re
from contextlib import contextmanager

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from test_weights_multiclass import dual_and_weights, primal

import svmteach.estimators.base as estimator_base
from svmteach import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC
from svmteach.estimators import RLSClassifier


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:500] / 16.0, y[:500]


ESTIMATORS = {
    "smo": lambda **kw: BinarySVC(solver="smo", **kw),
    "smo-rbf": lambda **kw: BinarySVC(solver="smo", kernel="rbf", gamma=0.02, C=100.0, **kw),
    "dual_cd": lambda **kw: BinarySVC(solver="dual_cd", **kw),
    "ww": lambda **kw: MulticlassSVC(loss="ww", **kw),
    "cs": lambda **kw: MulticlassSVC(loss="cs", **kw),
    "llw": lambda **kw: MulticlassSVC(loss="llw", **kw),
}


def labels(name, y):
    return (y >= 5).astype(int) if name in ("smo", "smo-rbf", "dual_cd") else y


ROW = re.compile(r"^\s*(\d+\.\d)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_verbose_prints_the_gap_as_the_fit_goes(name, digits, capsys):
    X, y = digits
    est = ESTIMATORS[name](verbose=1, tol=1e-4).fit(X, labels(name, y))
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].startswith(type(est).__name__) and "samples" in lines[0]
    assert "rel. gap" in lines[1]
    rows = [ROW.match(line) for line in lines[2:-1]]
    assert rows and all(rows), out
    steps = [int(r.group(2)) for r in rows]
    assert steps == sorted(steps)
    primal_, dual_, gap = (float(rows[-1].group(g)) for g in (3, 4, 5))
    assert gap == pytest.approx((primal_ - dual_) / primal_, rel=1e-2, abs=1e-6)  # the gap is the objectives'
    # the last row is the model's (the fit's own solver unless the interior-point method finished it)
    if est.solver_ != "interior_point":
        assert steps[-1] == est.result_.n_iter
        assert float(rows[-1].group(5)) == pytest.approx(est.result_.gap, rel=1e-2, abs=1e-12)
    assert re.match(r"^(converged|not converged): \d+ steps, relative gap \S+, [\d.]+ s$", lines[-1]), lines[-1]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_verbose_zero_prints_nothing(name, digits, capsys):
    X, y = digits
    ESTIMATORS[name](tol=1e-2).fit(X[:100], labels(name, y[:100]))
    assert capsys.readouterr().out == ""


class InterruptAfter:
    """A progress callback that raises KeyboardInterrupt at its ``calls``-th call (as Ctrl-C would)."""

    def __init__(self, calls):
        self.calls, self.seen = calls, 0

    def __call__(self, state):
        self.seen += 1
        if self.seen >= self.calls:
            raise KeyboardInterrupt

    def finish(self, result, direct=None):
        self.finished = result


@pytest.fixture
def ctrl_c(monkeypatch):
    """Replace the estimators' ``fit_progress`` with one whose callback is interrupted at its second call."""
    made = []

    @contextmanager
    def interrupting_progress(est, solver, problem, verbose):
        made.append(InterruptAfter(2))
        yield made[-1]

    monkeypatch.setattr(estimator_base, "fit_progress", interrupting_progress)  # the one fit template's
    return made


def binary_gap(est, X, y):
    """(P - D) / P of the fitted model, from alpha_ and the rebuilt problem (K from its X, linear or rbf)."""
    p = est.problem_for(X, y)
    Xp, yp, C_i = np.asarray(p.X), np.asarray(p.y), np.asarray(p.C_i)
    if est.kernel == "rbf":
        sq = np.sum(Xp * Xp, axis=1)
        K = np.exp(-est.gamma * (sq[:, None] + sq[None, :] - 2.0 * Xp @ Xp.T))
    else:
        K = Xp @ Xp.T
    a = est.alpha_ * yp
    quadratic = float(a @ K @ a)
    f = K @ a + (est.intercept_[0] if est.solver_ == "smo" else 0.0)
    np.testing.assert_allclose(est.decision_function(X), f, atol=1e-8 * max(1.0, np.abs(f).max()))
    P = 0.5 * quadratic + float(np.sum(C_i * np.maximum(0.0, 1.0 - yp * f)))
    D = float(est.alpha_.sum()) - 0.5 * quadratic
    return (P - D) / P


def multiclass_gap(est, X, y):
    p = est.problem_for(X, y)
    Xp, C_i = np.asarray(p.X), np.asarray(p.C_i)
    D, W = dual_and_weights(Xp, np.asarray(p.codes), C_i, est.alpha_, est.loss)
    P = primal(Xp, np.asarray(p.codes), C_i, W, est.loss)
    return (P - D) / P


@pytest.mark.parametrize("solver", [None, "named"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_ctrl_c_keeps_the_model_with_a_warning(name, solver, digits, ctrl_c):
    X, y = digits
    yy = labels(name, y)
    kw = {"tol": 1e-12, "random_state": 0, "max_iter": 10**9 if name in ("smo", "smo-rbf", "dual_cd") else 10**5}
    est = ESTIMATORS[name](**kw)
    if solver is None:
        est.set_params(solver=None)
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        est.fit(X, yy)
    assert ctrl_c[-1].seen == 2  # interrupted at the callback's second call
    assert ctrl_c[-1].finished.interrupted  # fit told its progress how the run ended
    assert est.result_.interrupted and not est.result_.converged
    assert est.solver_ != "interior_point"  # an interrupted fit is not finished by another method
    assert np.mean(est.predict(X) == yy) > 0.8  # the model as it stands predicts
    gap = binary_gap(est, X, yy) if isinstance(est, BinarySVC) else multiclass_gap(est, X, yy)
    assert est.result_.gap == pytest.approx(gap, rel=1e-6, abs=1e-12)
    assert est.result_.gap > est.tol


def test_an_interrupted_warm_fit_can_be_continued(digits, ctrl_c, monkeypatch):
    X, y = digits
    est = MulticlassSVC(warm_start=True, tol=1e-6, random_state=0)
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        est.fit(X, y)
    monkeypatch.undo()  # Ctrl-C no more
    est.fit(X, y)
    assert est.result_.converged and not est.result_.interrupted
    assert multiclass_gap(est, X, y) <= 1e-6 * (1 + 1e-6)


# ---- data frames ------------------------------------------------------------------------------------------

FRAME_ESTIMATORS = [BinarySVC(), BinarySVC(solver="dual_cd"), MulticlassSVC(), MulticlassSVC(loss="cs"),
                    OneVsRestSVC(), OneVsOneSVC(), RLSClassifier()]


@pytest.mark.parametrize("est", FRAME_ESTIMATORS, ids=lambda e: type(e).__name__)
def test_data_frame_fits_record_feature_names(est, digits):
    pd = pytest.importorskip("pandas")
    X, y = digits
    names = [f"pixel {i}" for i in range(X.shape[1])]
    frame = pd.DataFrame(X[:150], columns=names)
    yy = (y[:150] >= 5).astype(int) if isinstance(est, BinarySVC) else y[:150] % 3
    est.fit(frame, yy)
    np.testing.assert_array_equal(est.feature_names_in_, np.array(names, dtype=object))
    assert est.n_features_in_ == X.shape[1]
    with pytest.warns(UserWarning, match="feature names"):  # scikit-learn's warning for an array after a frame
        from_array = est.predict(X[:150])
    np.testing.assert_array_equal(est.predict(frame), from_array)  # a frame predicts as its array
    with pytest.raises(ValueError, match="feature names"):
        est.predict(frame[names[::-1]])  # reversed columns are refused, not silently misread
    est.fit(X[:150], yy)  # refitted on an array: the names are forgotten
    assert not hasattr(est, "feature_names_in_")
