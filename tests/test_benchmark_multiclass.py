"""``benchmarks/multiclass.py`` compares one problem on both sides: without ``--intercept`` no intercept
anywhere, with it the constant feature 1 in svmteach's problem, in the "defaults" estimator and in LIBLINEAR
(``-B 1``).  Checked against LIBLINEAR through scikit-learn (its own weight layout) and against the certified
P* of the benchmark's reference run: every suboptimality the script reports lies between minus the
reference's gap and the accuracy its run promises."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from svmteach import cli

ROOT = Path(__file__).resolve().parent.parent
harness = cli.bench_harness()  # benchmarks/harness.py, as the script imports it
spec = importlib.util.spec_from_file_location("multiclass_benchmark", ROOT / "benchmarks" / "multiclass.py")
mc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mc)

REF_TOL = 1e-6


def offset_blobs(n=90, d=4, k=3, seed=0):
    """Three classes far from the origin, so that an intercept changes the optimum a lot."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.standard_normal((n, d)) + 3.0 + 1.5 * np.eye(k, d)[y]
    return X, y


@pytest.mark.parametrize("bias", [None, 1.0, 2.5])
def test_liblinear_cs_returns_the_bias_column_last(bias):
    """``liblinear_problem(bias=B)`` is LIBLINEAR's ``-B B``: liblinear_cs's last column is the bias feature's
    weights, scikit-learn's Crammer-Singer intercept_ / intercept_scaling (LIBLINEAR inside)."""
    pytest.importorskip("liblinear")
    from sklearn.svm import LinearSVC

    X, y = offset_blobs()
    y = np.array([7, 2, 5])[y]  # labels met unsorted
    W, _ = harness.liblinear_cs(harness.liblinear_problem(X, y, bias), np.unique(y), C=0.5, eps=1e-9)
    ref = LinearSVC(C=0.5, multi_class="crammer_singer", fit_intercept=bias is not None,
                    intercept_scaling=bias or 1.0, tol=1e-9, max_iter=200_000).fit(X, y)
    expected = ref.coef_ if bias is None else np.hstack([ref.coef_, ref.intercept_[:, None] / bias])
    assert W.shape == expected.shape
    assert np.allclose(W, expected, atol=1e-5)


def test_liblinear_problem_refuses_a_bad_bias():
    pytest.importorskip("liblinear")
    X, y = offset_blobs()
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="bias"):
            harness.liblinear_problem(X, y, bad)


@pytest.mark.parametrize("bias", [None, 1.0])
def test_every_row_is_measured_on_the_problem_of_its_p_star(bias):
    """The "defaults" fit solves the reference's problem (same X, bias column or not), and every
    suboptimality the script reports lies in [-the reference's gap, what the run promises]: the fit's
    tol 1e-3, LIBLINEAR's loosest eps reaching 1e-3, LIBLINEAR's default eps within 5%."""
    pytest.importorskip("liblinear")
    X, y = offset_blobs()
    problem, P_star, _ = mc.reference(X, y, 1.0, "cs", REF_TOL, bias)
    est = mc.estimator(1.0, "cs", None, bias)
    assert np.array_equal(np.asarray(est.problem_for(X, y).X), np.asarray(problem.X))

    section = mc.bench_problem("blobs", X, y, 1.0, [], ("cs",), 1, REF_TOL, bias)
    assert section["bias"] == bias and mc.mode_text(bias) in section["title"]
    low = -2 * REF_TOL
    fit_seconds, fit_sub = section["figures"]["svmteach CS, blondel"]["fit"]
    assert low <= fit_sub <= 1e-3 + 2 * REF_TOL
    ll = section["figures"]["liblinear"]
    assert ll["reached"] and low <= ll["loosest_subopt"] <= mc.TARGET
    assert low <= ll["default_subopt"] <= 0.05


def test_the_loosest_setting_is_one_whose_every_run_reaches_the_target():
    """LIBLINEAR's order depends on its C library's rand() state, which moves between trainings: a setting whose
    first run reaches the target and a later one misses it is not "reaching" it (a tighter one is taken)."""
    first_lucky = {0.1: [(1.0, 2 * mc.TARGET)], 0.03: [(1.0, 0.5 * mc.TARGET), (1.0, 1.6 * mc.TARGET)],
                   0.01: [(2.0, 0.5 * mc.TARGET), (2.0, 0.4 * mc.TARGET)]}
    runs = mc.Runs(lambda eps: first_lucky[eps].pop(0))
    setting, chosen, reached = runs.loosest([0.1, 0.03, 0.01], repeat=2)
    assert (setting, reached) == (0.01, True) and max(sub for _, sub in chosen) <= mc.TARGET
    never = mc.Runs(lambda eps: (1.0, 2 * mc.TARGET))
    assert never.loosest([0.1, 0.01], repeat=3)[0::2] == (0.01, False) and len(never.done[0.01]) == 3
