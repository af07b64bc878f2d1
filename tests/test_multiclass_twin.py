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
    ("cs", lambda: CSBlondel(random_state=3, order="adaptive")),
    ("ww", lambda: WWExact(random_state=3, order="shuffled")),
    ("llw", lambda: ExactBlock(random_state=3)),
]
IDS = ["ww-exact", "ww-shark", "cs-blondel", "cs-blondel-skip", "cs-blondel-adaptive", "ww-exact-shuffled", "llw-exact"]


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
        fast = solver.advance(p, fast, 1)  # the next epoch begins (its first visit, a call of its own) ...
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
        np.testing.assert_allclose(slow.preference, fast.preference, rtol=1e-8)  # the adaptive order's
        assert slow.mean_violation == pytest.approx(fast.mean_violation, rel=1e-8, abs=1e-12)
        assert slow.mean_visits == fast.mean_visits
        if len(fast.perm) == p.n_samples:  # the fast path's verdict of a full epoch is the step path's
            np.testing.assert_allclose(fast.violation, slow.sweep_violation, rtol=1e-8, atol=1e-10)
        shrunk = max(shrunk, int(np.sum(~fast.active)))
        classes_aside = max(classes_aside, int(np.sum(~fast.active_classes)))
    assert shrunk > 0  # the run did set samples aside ...
    assert solver.order == "shuffled" or np.ptp(fast.preference) > 0  # ... visited by preferences that moved
    assert classes_aside > 0 or isinstance(solver, WWShark)  # ... and the exact blocks classes within blocks


def assert_same_picture(fast, slow):
    """Two ``block`` pictures field by field: integers and flags alike, numbers to rounding (the compiled
    scores are fastmath dot products, the step path's ``W @ x``)."""
    assert type(fast) is type(slow)
    for name, a, b in zip(type(fast)._fields, fast, slow):
        if a is None or b is None:
            assert a is None and b is None, name
        else:
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, name
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("kind", ["dense", "sparse", "rbf"])
@pytest.mark.parametrize("loss, make", SOLVERS, ids=IDS)
def test_the_fast_path_draws_its_last_visit_as_the_step_path(loss, make, kind):
    """A fast ``advance`` runs every visit compiled, its last one drawing the state's picture (``i``, ``block``)
    into the step path's buffers: it calls neither ``step`` nor ``update`` (it replayed that visit by them),
    and its picture and state are the step path's visit from the same state, the numbers to rounding (the
    compiled scores are fastmath dot products, the step path's ``W @ x``)."""
    X, y = clusters()
    rbf = kind == "rbf"
    p = MulticlassProblem(sp.csr_matrix(X) if kind == "sparse" else X, y, C=1.0, loss=loss,
                          **(dict(kernel="rbf", gamma=0.1) if rbf else {}))
    fast_solver, solver = make(), make()

    def replayed(*args, **kwargs):
        raise AssertionError("the fast path replayed its last visit in Python")

    fast_solver.step = fast_solver.update = replayed
    state, shrunk = solver.init(p), False
    for n_steps in (1, 2, 7, p.n_samples, 3 * p.n_samples, 5) + (p.n_samples - 1,) * 60:
        fast = fast_solver.advance(p, state, n_steps)
        before = fast_solver.advance(p, state, fast.n_iter - state.n_iter - 1) if fast.n_iter - state.n_iter > 1 else state
        slow = solver.step(p, before)  # the same visit by the step path, from the same state
        assert (fast.n_iter, fast.epoch, fast.pos, fast.i) == (slow.n_iter, slow.epoch, slow.pos, slow.i)
        np.testing.assert_array_equal(fast.active, slow.active)
        np.testing.assert_array_equal(fast.active_classes, slow.active_classes)
        np.testing.assert_allclose(fast.alpha, slow.alpha, rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.W, slow.W, rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.sweep_violation, slow.sweep_violation, rtol=1e-9, atol=1e-12)
        if getattr(fast.block, "skipped", False) != getattr(slow.block, "skipped", False):
            # a Crammer-Singer block at its optimum to rounding: skipped (violation 0) or not (1e-16) is rounding's
            assert max(fast.block.violation, slow.block.violation) < 1e-12
            fast_block, slow_block = (b._replace(skipped=None, beta_hat=None, z=None, beta=None, theta=None)
                                      for b in (fast.block, slow.block))
        else:
            fast_block, slow_block = fast.block, slow.block
        assert_same_picture(fast_block, slow_block)
        state, shrunk = fast, shrunk or not fast.active.all()
    assert shrunk  # the run did set samples aside


@pytest.mark.parametrize("loss", ["llw", "mmr"])
@pytest.mark.parametrize("bias", [None, 1.5])
def test_a_centred_loss_moves_its_shared_part_apart_and_returns_the_weights(loss, bias):
    """Lee-Lin-Wahba and maximum-margin regression move every class at a step, those that did not change by one
    shared value: the compiled epochs keep that part in a row of its own (numba_multiclass.LinearModel's
    ``common``) and return W itself, the step path's and A(alpha)' X to rounding, with an intercept column too."""
    X, y = clusters(seed=1)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, bias=bias)
    solver = ExactBlock(random_state=3)
    fast = solver.advance(p, solver.init(p), 30 * p.n_samples)
    slow = solver.init(p)
    while slow.n_iter < fast.n_iter:
        slow = solver.step(p, slow)
    np.testing.assert_allclose(fast.alpha, slow.alpha, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast.W, slow.W, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast.W, p.loss_object.weights(p, fast.alpha), rtol=0, atol=1e-10)
    assert solver.engine_model(p, fast).common.shape == (fast.W.shape[1],)  # the shared row was in use
    assert np.abs(fast.W.sum(axis=0)).max() < 1e-10  # the classes' weights sum to 0
