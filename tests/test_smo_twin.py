"""SMO's two paths are one source: the readable ``step`` and the compiled ``advance`` take the same steps.

The step path calls the compiled kernels the fast path's loop runs (working-set rules, pair step,
bias), so every number a step produces is the fast path's, bit for bit: the chosen pair, alpha,
the cached gradient, the bias and the picture of the step; with shrinking (LIBSVM's, on by default) also the samples set aside, and when
they are set aside and brought back.
"""

import math

import numpy as np
import pytest
from conftest import random_binary

from svmteach import SMO, BinaryProblem
from svmteach.solvers.numba_smo import PairPicture
from svmteach.solvers.smo import RULES

KERNELS = [dict(kernel="linear"), dict(kernel="rbf", gamma=0.7), dict(kernel="poly", degree=2, gamma=0.5, coef0=1.0)]


def _problem(kernel, weighted, n=24):
    X, y = random_binary(n=n, d=3, seed=4)
    weights = None
    if weighted:  # weights spanning a decade, one of them 0 (a box {0})
        weights = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
        weights[5] = 0.0
    return BinaryProblem(X, y, C=0.8, sample_weight=weights, **kernel)


def _same(fast, slow):
    """Every field a step sets, bit for bit (NaN where no pair was stepped)."""
    np.testing.assert_array_equal(fast.alpha, slow.alpha)
    np.testing.assert_array_equal(fast.grad, slow.grad)
    assert fast.b == slow.b and fast.b_rule == slow.b_rule
    np.testing.assert_array_equal(fast.active, slow.active)
    assert fast.shrink_in == slow.shrink_in
    for name in PairPicture._fields:
        a, b = getattr(fast, name), getattr(slow, name)
        assert a == b or (math.isnan(a) and math.isnan(b)), name


@pytest.mark.parametrize("shrinking", [False, True], ids=["all", "shrinking"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("rule", RULES)
def test_step_path_equals_fast_path_step_for_step(rule, kernel, weighted, shrinking):
    """From each state of a step-path run, one step of each path: the same pair, alpha, gradient, bias,
    picture and (with shrinking) active samples; then the fast path's run of as many steps in one call ends
    where the step path did.  With shrinking the run is long enough to set samples aside (every n steps)."""
    p = _problem(kernel, weighted, n=60 if shrinking else 24)
    solver = SMO(rule, random_state=3, shrinking=shrinking)
    start = state = solver.init(p)
    pairs = set()
    fewest = p.n_samples
    for _ in range(200 if shrinking else 60):
        slow = solver.step(p, state)
        still = slow.alpha_i_new == slow.alpha_i_old and slow.alpha_j_new == slow.alpha_j_old
        if slow.i < 0 or (still and rule != "random"):
            break  # the end of a run: advance then recomputes the exact gradient (tested elsewhere)
        fast = solver.advance(p, state, 1)
        assert fast.n_iter == slow.n_iter
        _same(fast, slow)
        pairs.add((slow.i, slow.j))
        fewest = min(fewest, len(slow.active))
        state = slow
    assert state.n_iter >= 10 and len(pairs) >= 5  # the runs went somewhere
    assert (fewest < p.n_samples) == shrinking  # samples were set aside (on the step path and, above, the fast)
    _same(solver.advance(p, start, state.n_iter), state)  # one call of the loop: the same run


def test_the_random_rule_draws_its_violator_by_the_fast_paths_bias():
    """The random rule picks a violator for the bias b, so the step path's b must be the loop's own: a b
    computed another way (from f = y (1 - g), as the objectives do) differs in its last bits and can put
    a point on the other side of a threshold.  Both paths' b: :func:`~svmteach.solvers.numba_smo.intercept`."""
    from svmteach import objectives as obj
    from svmteach.solvers.numba_smo import intercept, working_sets

    p = _problem(KERNELS[1], weighted=True)
    solver = SMO("random", random_state=0)
    state = solver.init(p)
    for _ in range(25):
        state = solver.step(p, state)
        assert state.b == intercept(*working_sets(p.y, p.C_i, state.alpha, state.grad))[0]
        b_objectives, _ = obj.optimal_intercept(p, state.alpha, p.y * (1.0 - state.grad))
        assert state.b == pytest.approx(b_objectives, rel=1e-12, abs=1e-12)  # the same bias, up to rounding
