"""The estimators' base class: max_iter in epochs, scikit-learn's parameter constraints, the fit template's order."""

import warnings

import numpy as np
import pytest
from conftest import random_binary
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from svmteach import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC, RLSClassifier
from svmteach.estimators import base


def _multiclass(n=30, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)), np.arange(n) % 3


def _fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("make, data", [
    (lambda: BinarySVC(solver="smo"), lambda: random_binary(n=40, seed=3)),
    (lambda: BinarySVC(solver="dual_cd"), lambda: random_binary(n=40, seed=3)),
    (lambda: MulticlassSVC(solver="exact"), _multiclass),
    (lambda: MulticlassSVC(loss="cs", solver="blondel"), _multiclass),
])
def test_max_iter_counts_epochs_in_both_estimators(make, data):
    """max_iter=1 is one epoch: n steps of the one-sample (or one-pair) solvers, whatever the estimator."""
    X, y = data()
    est = make().set_params(max_iter=1, tol=1e-14, C=100.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 epochs"):
        est.fit(X, y)
    assert est.result_.n_iter == len(y) and est.n_iter_ == 1
    two = _fit_quietly(make().set_params(max_iter=2, tol=1e-14, C=100.0), X, y)
    assert two.result_.n_iter == 2 * len(y) and two.n_iter_ == 2


def test_max_iter_none_is_the_solvers_default_budget():
    X, y = random_binary(n=40, seed=3)
    est = _fit_quietly(BinarySVC(solver="primal_subgradient", fit_intercept=False, tol=1e-14), X, y)
    solver = est.make_solver()
    assert est.result_.n_iter == solver.default_max_iter(est.problem_for(X, y))  # in steps: one an epoch
    assert est.n_iter_ == est.result_.n_iter


#: A bad value of every parameter of every estimator, refused by fit naming the parameter.
BAD = {"C": 0.0, "kernel": "sigmoid", "gamma": -1.0, "degree": 0, "coef0": np.inf, "solver": 3, "selection": "best",
       "tol": 0.0, "max_iter": 0, "random_state": -1, "record_history": "yes", "device": "tpu", "fit_intercept": 1,
       "intercept_scaling": np.nan, "class_weight": "unbalanced", "warm_start": None, "verbose": -1,
       "cache_size": 0, "loss": 3, "M": -1.0, "lam": 0.0, "lams": 0.5}

ESTIMATORS = {"BinarySVC": BinarySVC, "MulticlassSVC": MulticlassSVC, "OneVsRestSVC": OneVsRestSVC,
              "OneVsOneSVC": OneVsOneSVC, "RLSClassifier": RLSClassifier}
CASES = [(name, param) for name, Est in ESTIMATORS.items() for param in Est().get_params()]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_parameter_has_a_constraint(name):
    Est = ESTIMATORS[name]
    assert set(Est._parameter_constraints) == set(Est().get_params())


@pytest.mark.parametrize("name, param", CASES)
def test_a_bad_value_of_every_parameter_is_refused_naming_it(name, param):
    X, y = _multiclass() if name != "BinarySVC" else random_binary(n=40, seed=3)
    est = ESTIMATORS[name](**{param: BAD[param]})
    with pytest.raises(InvalidParameterError, match=f"^The '{param}' parameter of {name} must be"):
        est.fit(X, y)


@pytest.mark.parametrize("make, data", [(lambda: BinarySVC(solver="exact"), lambda: random_binary(n=40, seed=3)),
                                        (lambda: MulticlassSVC(solver="smo"), _multiclass),
                                        (lambda: MulticlassSVC(loss="nope"), _multiclass)])
def test_what_constraints_cannot_say_is_refused_naming_it(make, data):
    X, y = data()
    with pytest.raises(ValueError, match="^(solver|loss) must be one of"):
        make().fit(X, y)


def test_a_class_weights_value_is_refused_naming_it():
    X, y = random_binary(n=40, seed=3)
    with pytest.raises(ValueError, match=r"^class_weight\[1\]"):
        BinarySVC(class_weight={1: -1.0}).fit(X, y)


@pytest.mark.parametrize("make", [lambda: BinarySVC(solver="exact"), lambda: BinarySVC(C=-1.0)])
def test_a_bad_parameter_is_refused_before_any_work(make, monkeypatch):
    """The template validates before it builds a problem or a solver: a bad X is not even looked at."""
    built = []
    monkeypatch.setattr(BinarySVC, "problem_for", lambda self, *a, **k: built.append(1))
    monkeypatch.setattr(base, "solve", lambda *a, **k: built.append(1))
    with pytest.raises(ValueError, match="solver|'C'"):
        make().fit(np.full((3, 2), np.nan), [0, 1, 2])
    assert not built


def test_the_fit_template_runs_its_steps_in_order(monkeypatch):
    """validate, problem, warm state, solve, direct finish, store: each once, in this order."""
    order = []

    def spy(where, name):
        original = getattr(where, name)

        def wrapped(*args, **kwargs):
            order.append(name)
            return original(*args, **kwargs)
        monkeypatch.setattr(where, name, wrapped)

    spy(BinarySVC, "check_params")
    spy(BinarySVC, "make_solver")
    spy(BinarySVC, "problem_for")
    spy(base, "warm_state")
    spy(base, "solve")
    spy(base, "finish_directly")
    spy(BinarySVC, "store")
    X, y = random_binary(n=40, seed=3)
    BinarySVC(warm_start=True).fit(X, y)
    # problem_for validates again when called on its own (it is public)
    assert order == ["check_params", "make_solver", "problem_for", "check_params", "warm_state", "solve",
                     "finish_directly", "store"]
