"""What the explorers refuse, what they keep as given, and what their status line says: a non-finite point to
remove, C or gamma outside a slider's range, a bad tol, and the first run of a solver that compiles first."""

import math
import types

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer, MulticlassExplorer, RLSPathExplorer  # noqa: E402
from svmteach.widgets import explorer as explorer_module  # noqa: E402


@pytest.fixture(scope="module")
def blobs():
    return data.overlapping_blobs(40, seed=1)


@pytest.fixture(scope="module")
def three():
    return data.multiclass_blobs(45, k=3, seed=2)


def test_removing_at_a_non_finite_point_is_refused_and_removes_nothing(blobs, three):
    for ex in (BinaryExplorer(*blobs), MulticlassExplorer(*three)):
        X, y = ex.X.copy(), ex.y.copy()
        for point in [(np.nan, np.nan), (np.inf, 0.0), (0.0, -np.inf), (np.nan, 1.0)]:
            with pytest.raises(ValueError, match=r"^x1, x2 must be finite numbers.*no point was removed"):
                ex.remove_point(*point)
            np.testing.assert_array_equal(ex.X, X)
            np.testing.assert_array_equal(ex.y, y)
        with pytest.raises(TypeError, match="^x1, x2 must be finite numbers"):
            ex.remove_point("left", 0.0)


def test_a_C_outside_the_slider_is_kept_and_the_slider_widened(blobs, three):
    explorers = [BinaryExplorer(*blobs, C=C) for C in (1e6, 2.5e-4, 1e300)]
    explorers += [MulticlassExplorer(*three, C=C) for C in (1e-9, 3e3)]
    for ex, C in zip(explorers, (1e6, 2.5e-4, 1e300, 1e-9, 3e3)):
        slider = ex.sliders["C"]
        assert slider.value == C and ex.problem.C == C  # not clamped to 1e-3 .. 1e3
        assert 10.0 ** slider.min <= C <= 10.0 ** slider.max
        assert slider.min <= -3 and slider.max >= 3  # the usual range stays in reach


def test_a_gamma_outside_the_slider_is_kept(blobs):
    ex = BinaryExplorer(*blobs, kernel="gaussian", gamma=1e3)
    assert ex.sliders["gamma"].value == 1e3 and ex.problem.kernel.gamma == 1e3
    X, y = data.moons(30, noise=0.2, seed=1)
    rls = RLSPathExplorer(X, y, gamma=1e-4)
    assert rls.sliders["gamma"].value == 1e-4


@pytest.mark.parametrize("C, error", [(0, ValueError), (-1.0, ValueError), (math.nan, ValueError),
                                      (math.inf, ValueError), ("abc", TypeError), (None, TypeError)])
def test_a_C_that_is_not_a_positive_number_is_refused_naming_C(blobs, three, C, error):
    with pytest.raises(error, match="^C must be"):
        BinaryExplorer(*blobs, C=C)
    with pytest.raises(error, match="^C must be"):
        MulticlassExplorer(*three, C=C)
    with pytest.raises(error, match="^gamma must be"):
        BinaryExplorer(*blobs, gamma=C)


@pytest.mark.parametrize("tol, error", [(-1.0, ValueError), (math.nan, ValueError), (0.0, ValueError),
                                        (math.inf, ValueError), ("abc", TypeError), (None, TypeError)])
def test_a_tol_that_is_not_a_positive_number_is_refused_naming_tol(blobs, three, tol, error):
    with pytest.raises(error, match="^tol must be"):
        BinaryExplorer(*blobs, tol=tol)
    with pytest.raises(error, match="^tol must be"):
        MulticlassExplorer(*three, tol=tol)


class Clock:
    """The explorers' clock, moved by hand: a 'compilation' takes 13 s on it, solving takes what a test says."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def with_a_compile_delay(monkeypatch, ex, clock, solving=0.0):
    """The explorer's solver class, whose first ``advance`` ever takes 13 s on ``clock`` (numba compiling) and
    every later one ``solving`` s; returns the status lines seen during the first call."""
    Solver = type(ex.solver)
    real = Solver.advance
    seen = []

    def advance(self, problem, state, n_steps, tol=None):
        if not seen:
            seen.append(ex.status.text)
            clock.now += 13.0
        else:
            clock.now += solving
        return real(self, problem, state, n_steps, tol)

    monkeypatch.setattr(Solver, "advance", advance)
    return seen


def test_after_a_loss_switch_compiling_is_not_taken_from_the_time_budget(monkeypatch, three):
    clock = Clock()
    monkeypatch.setattr(explorer_module, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    ex = MulticlassExplorer(*three, C=1.0)
    ex.dropdowns["loss"].value = "llw"
    seen = with_a_compile_delay(monkeypatch, ex, clock)
    ex.buttons["to convergence"].click()
    assert seen and "compiling" in seen[0]  # said while it compiled
    assert ex.state.gap <= ex.tol, ex.status.text  # the budget went to solving, and sufficed
    assert "stopped at" not in ex.status.text
    assert "compiled first, 13 s, not counted in the time budget" in ex.status.text


def test_a_budget_spent_on_solving_is_still_reported_after_compiling(monkeypatch, blobs):
    clock = Clock()
    monkeypatch.setattr(explorer_module, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    ex = BinaryExplorer(*blobs, C=1.0, tol=1e-12)
    ex.dropdowns["solver"].value = "primal_subgradient"
    with_a_compile_delay(monkeypatch, ex, clock, solving=2.0)  # each epoch: 2 s of solving
    ex.buttons["to convergence"].click()
    assert ex.state.gap > ex.tol
    assert "stopped at the time budget of 3 s" in ex.status.text  # two epochs, 4 s of solving
    assert "compiled first, 13 s" in ex.status.text
