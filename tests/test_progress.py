"""Long fits: Ctrl-C keeps the run as it stands (solve's ``interrupted``), and ``verbose`` progress lines.

A Ctrl-C is a KeyboardInterrupt raised where the run happens to be; here it is raised by a callback or
by a solver's ``advance`` after some chunks (no signals, no sleeps).  What the interrupted result reports
is recomputed from its ``alpha`` with NumPy, and a run continued from it reaches the optimum of an
independent QP solver.
"""

import io
import re

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum, ww_dual_optimum

from svmteach import BinaryProblem, DualCoordinateAscent, MulticlassProblem, WWExact, solve
from svmteach.estimators.progress import COLUMNS, Progress, check_verbose, fit_progress

C = 1.0


def binary_objectives(X, y, alpha):
    """No-bias binary SVM: w = sum_i alpha_i y_i x_i, P = 1/2 |w|^2 + C sum_i max(0, 1 - y_i w'x_i),
    D = sum_i alpha_i - 1/2 |w|^2."""
    w = X.T @ (alpha * y)
    P = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w)).sum()
    return P, alpha.sum() - 0.5 * w @ w


def ww_objectives(X, codes, alpha, M=1.0):
    """Weston-Watkins: W = -M alpha' X, P = 1/2 |W|^2 + C sum_i sum_{j != y_i} max(0, 1 - M (w_{y_i} - w_j)'x_i),
    D = sum_{j != y_i} alpha_ij - 1/2 |W|^2."""
    W = -M * alpha.T @ X
    S = X @ W.T
    rows = np.arange(len(codes))
    hinge = np.maximum(0.0, 1.0 - M * (S[rows, codes][:, None] - S))
    hinge[rows, codes] = 0.0
    others = np.ones_like(alpha, dtype=bool)
    others[rows, codes] = False
    half_norm = 0.5 * (W * W).sum()
    return half_norm + C * hinge.sum(), alpha[others].sum() - half_norm


def binary_case():
    X, y = random_binary(n=120, d=6, seed=4, shift=1.0)
    return BinaryProblem(X, y, C=C), DualCoordinateAscent(random_state=0), X, y


def ww_case():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    codes = np.argmax(X[:, :3] + 0.7 * rng.normal(size=(60, 3)), axis=1)
    return MulticlassProblem(X, codes, C=C, loss="ww"), WWExact(random_state=0), X, codes


class Interrupting:
    """A callback that raises KeyboardInterrupt at its ``after``-th call, keeping the states it saw."""

    def __init__(self, after):
        self.after, self.seen = after, []

    def __call__(self, state):
        self.seen.append(state)
        if len(self.seen) == self.after:
            raise KeyboardInterrupt


def check_reported(result, objectives, X, labels):
    """The result's primal, dual and gap are those of its alpha."""
    alpha = np.asarray(result.state.alpha)
    P, D = objectives(X, labels, alpha)
    np.testing.assert_allclose([result.primal, result.dual], [P, D], rtol=1e-9)
    np.testing.assert_allclose(result.gap, (P - D) / abs(P), rtol=1e-6, atol=1e-12)
    assert result.gap > 1e-6  # stopped well before the optimum: the test saw an unfinished run


@pytest.mark.parametrize("case, objectives", [(binary_case, binary_objectives), (ww_case, ww_objectives)])
def test_ctrl_c_in_a_callback_keeps_the_state_it_interrupted(case, objectives):
    problem, solver, X, labels = case()
    stop = Interrupting(after=3)
    result = solve(solver, problem, tol=1e-12, callback=stop)
    assert result.interrupted and not result.converged
    assert result.n_iter == stop.seen[-1].n_iter
    np.testing.assert_array_equal(np.asarray(result.state.alpha), np.asarray(stop.seen[-1].alpha))
    check_reported(result, objectives, X, labels)
    assert not solve(solver, problem, tol=1e-3).interrupted


class InterruptedAdvance(DualCoordinateAscent):
    """Dual coordinate ascent whose ``advance`` is cut by a Ctrl-C at its ``after``-th call."""

    def __init__(self, after, **options):
        super().__init__(**options)
        self.after, self.calls = after, 0

    def advance(self, problem, state, n_steps, tol=None):
        self.calls += 1
        if self.calls == self.after:
            raise KeyboardInterrupt
        return super().advance(problem, state, n_steps, tol)


@pytest.mark.parametrize("record_history", [False, True])
def test_ctrl_c_inside_a_chunk_keeps_the_last_whole_state_and_continuing_reaches_the_optimum(record_history):
    problem, _, X, y = binary_case()
    solver = InterruptedAdvance(after=4, random_state=0)
    seen = []
    result = solve(solver, problem, tol=1e-12, record_history=record_history, callback=seen.append)
    assert result.interrupted and not result.converged and len(seen) == 3
    assert result.n_iter == seen[-1].n_iter == 3 * problem.n_samples  # three whole epochs, the fourth lost
    check_reported(result, binary_objectives, X, y)
    if record_history:  # the history ends at what the result reports
        assert result.history["n_iter"][-1] == result.n_iter and result.history["gap"][-1] == result.gap
    # the model as it stands goes on: a run continued from it reaches the QP solver's optimum
    done = solve(DualCoordinateAscent(random_state=0), problem, tol=1e-9, state=result.state)
    optimum, _ = binary_dual_optimum(X @ X.T, y, C, bias=False)
    assert done.converged and not done.interrupted
    np.testing.assert_allclose(done.dual, optimum, rtol=1e-6)


def test_ww_continued_after_ctrl_c_reaches_the_optimum():
    problem, solver, X, codes = ww_case()
    result = solve(solver, problem, tol=1e-12, callback=Interrupting(after=2))
    done = solve(solver, problem, tol=1e-9, state=result.state)
    np.testing.assert_allclose(done.dual, ww_dual_optimum(X, codes, C, 1.0), rtol=1e-6)


# ---- verbose --------------------------------------------------------------------------------------

ROW = re.compile(r"\s*(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")


class Named:
    """Stands for an estimator: only its class name is printed."""


def printed_rows(text):
    lines = text.splitlines()
    assert lines[0] == "Named: solver dual_cd, 120 samples, 6 features, 2 classes" and lines[1] == COLUMNS
    rows = [tuple(float(v) for v in ROW.fullmatch(line).groups()) for line in lines[2:-1]]
    return rows, lines[-1]


def test_verbose_prints_every_measured_state_once_and_the_end():
    problem, solver, X, y = binary_case()
    out = io.StringIO()
    progress = Progress(Named(), solver, problem, out=out)
    result = solve(solver, problem, tol=1e-6, record_history=True, callback=progress)  # every chunk measured
    progress.finish(result)
    rows, end = printed_rows(out.getvalue())
    history = result.history
    assert [int(r[1]) for r in rows] == history["n_iter"][1:]  # one line per measured chunk, the last once
    for (epochs, steps, P, D, gap, seconds), i in zip(rows, range(1, len(history["n_iter"]))):
        assert epochs == pytest.approx(steps / problem.n_samples, abs=0.051)
        assert (P, D) == (pytest.approx(history["primal"][i], rel=1e-8), pytest.approx(history["dual"][i], rel=1e-8))
        assert gap == pytest.approx((P - D) / abs(P), rel=6e-3, abs=1e-12)  # the printed gap is the printed P, D's
        assert seconds >= 0
    assert [r[5] for r in rows] == sorted(r[5] for r in rows)
    assert end.startswith(f"converged: {result.n_iter} steps, relative gap {result.gap:.3g}, ")


def test_verbose_with_the_cheap_stop_prints_only_measured_states_each_once():
    problem, solver, X, y = binary_case()
    out = io.StringIO()
    progress = Progress(Named(), solver, problem, out=out)
    calls = []
    result = solve(solver, problem, tol=1e-9, callback=lambda s: calls.append(s) or progress(s))
    progress.finish(result)
    rows, end = printed_rows(out.getvalue())
    states = {int(s.n_iter): s for s in calls + [result.state]}
    for epochs, steps, P, D, gap, seconds in rows:  # each printed line is a state's true objectives
        assert (P, D) == tuple(pytest.approx(v, rel=1e-8) for v in binary_objectives(X, y, states[int(steps)].alpha))
    assert len({(r[2], r[3]) for r in rows}) == len(rows) < len(calls)  # no measure twice; unmeasured chunks skipped
    assert rows[-1][1] == result.n_iter and end.startswith("converged")


def test_an_interrupted_run_says_so():
    problem, solver, X, y = binary_case()
    out = io.StringIO()
    progress = Progress(Named(), solver, problem, out=out)
    stop = Interrupting(after=2)
    result = solve(solver, problem, tol=1e-12, callback=lambda s: progress(s) or stop(s))
    progress.finish(result)
    assert out.getvalue().splitlines()[-1].startswith("interrupted (Ctrl-C): the model is the last state above")


def test_fit_progress_is_silent_at_verbose_0(capsys):
    problem, solver, X, y = binary_case()
    with fit_progress(Named(), solver, problem, 0) as progress:
        assert progress is None
    with fit_progress(Named(), solver, problem, False) as progress:
        assert progress is None
    assert capsys.readouterr().out == ""
    with fit_progress(Named(), solver, problem, np.int64(2)) as progress:
        progress.finish(solve(solver, problem, callback=progress))
    assert capsys.readouterr().out.splitlines()[1] == COLUMNS


@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.0, TypeError), ("1", TypeError), (None, TypeError)])
def test_check_verbose_names_the_argument(value, error):
    with pytest.raises(error, match="verbose"):
        check_verbose(value)


def test_check_verbose_accepts_ints_and_bools():
    assert [check_verbose(v) for v in (0, 3, True, False, np.int32(1))] == [0, 3, 1, 0, 1]
