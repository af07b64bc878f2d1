"""Dual coordinate ascent's two paths are one source, shrinking on: with the linear kernel the readable
``step`` keeps ``w`` as the compiled loop does and reads the coordinate's gradient
:math:`g_i = 1 - y_i w^\\top x_i` with the loop's own compiled function, so both paths take the same
shrinking decisions from the same numbers, bit for bit, on any CPU target (a gradient kept apart
from w differs in its last bits, and a shrinking threshold's tie can then flip).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_binary

from svmteach import BinaryProblem, DualCoordinateAscent
from svmteach.solvers.numba_dual_cd import CoordinatePicture, Sweep


@pytest.mark.parametrize("init", ["zero", "uniform"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_linear_step_path_equals_fast_path_step_for_step(sparse, init):
    X, y = random_binary(n=20, d=3, seed=9)
    X[3] = 0.0  # a zero row: Q_ii = 0, the parabola's better end
    weights = np.linspace(0.5, 2.0, len(y))
    weights[7] = 0.0  # a box {0}
    p = BinaryProblem(sp.csr_array(X) if sparse else X, y, C=0.5, sample_weight=weights)
    solver = DualCoordinateAscent(init=init, random_state=5, shrinking=True)
    state = solver.init(p)
    set_aside = 0
    for _ in range(150):  # several epochs: shrinks, crosses epochs, reactivates
        slow = solver.step(p, state)
        fast = solver.advance(p, state, 1)
        assert fast.n_iter == slow.n_iter
        for name in (*CoordinatePicture._fields, *Sweep._fields):
            a, b = getattr(fast, name), getattr(slow, name)
            assert a == b or (a != a and b != b), name  # bit for bit (NaN: a coordinate set aside)
        np.testing.assert_array_equal(fast.index, slow.index)
        np.testing.assert_array_equal(fast.alpha, slow.alpha)
        np.testing.assert_array_equal(fast.w, slow.w)
        set_aside += slow.shrunk
        state = slow
    assert set_aside > 0  # shrinking took part
