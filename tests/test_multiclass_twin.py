"""The step path and the compiled fast path of every sequential multiclass solver are one algorithm:
with shrinking on (the default), both take the same set-aside decisions and epoch schedule, so at
every epoch's end their states agree (alpha, W, the samples and classes set aside, the order, the
violation), dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp

from svmteach import MulticlassProblem
from svmteach.solvers import CSBlondel, ExactBlock, WWExact, WWShark

SOLVERS = [
    ("ww", lambda: WWExact(random_state=3)),
    ("ww", lambda: WWShark(random_state=3)),
    ("cs", lambda: CSBlondel(random_state=3)),
    ("cs", lambda: CSBlondel(skip_tol=1e-3, random_state=3)),
    ("llw", lambda: ExactBlock(random_state=3)),
]
IDS = ["ww-exact", "ww-shark", "cs-blondel", "cs-blondel-skip", "llw-exact"]


def clusters(n=60, k=4, d=5, seed=0):
    """Well separated classes, some rows overlapping: many samples come to rest, some never do."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = 3.0 * rng.normal(size=(k, d))[y] + rng.normal(size=(n, d))
    X[::7] *= 0.1  # a few rows near the origin, whose blocks stay busy
    return X, y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("loss, make", SOLVERS, ids=IDS)
def test_step_path_and_fast_path_shrink_alike(loss, make, sparse):
    X, y = clusters()
    p = MulticlassProblem(sp.csr_matrix(X) if sparse else X, y, C=1.0, loss=loss)
    solver = make()
    assert solver.shrinking
    fast = slow = solver.init(p)
    shrunk = classes_aside = 0
    for _ in range(40):  # Lee-Lin-Wahba's first samples come to rest after about 25 epochs
        fast = solver.advance(p, fast, 1)  # the next epoch begins (its first visit by the step path) ...
        fast = solver.advance(p, fast, len(fast.perm) - fast.pos)  # ... and the compiled path ends it
        while not (slow.epoch == fast.epoch and slow.pos == len(slow.perm)):
            slow = solver.step(p, slow)
        assert slow.n_iter == fast.n_iter
        np.testing.assert_array_equal(slow.perm, fast.perm)
        np.testing.assert_array_equal(slow.active, fast.active)
        np.testing.assert_array_equal(slow.active_classes, fast.active_classes)
        np.testing.assert_allclose(slow.alpha, fast.alpha, rtol=0, atol=1e-10)
        np.testing.assert_allclose(slow.W, fast.W, rtol=0, atol=1e-10)
        np.testing.assert_allclose(slow.sweep_violation, fast.sweep_violation, rtol=1e-8, atol=1e-10)
        assert slow.reactivate_at == fast.reactivate_at
        np.testing.assert_allclose(slow.rest_margin, fast.rest_margin, rtol=1e-8, atol=1e-10)
        if len(fast.perm) == p.n_samples:  # the fast path's verdict of a full epoch is the step path's
            np.testing.assert_allclose(fast.violation, slow.sweep_violation, rtol=1e-8, atol=1e-10)
        shrunk = max(shrunk, int(np.sum(~fast.active)))
        classes_aside = max(classes_aside, int(np.sum(~fast.active_classes)))
    assert shrunk > 0  # the run did set samples aside ...
    assert classes_aside > 0 or isinstance(solver, WWShark)  # ... and the exact blocks classes within blocks
