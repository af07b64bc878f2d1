"""Shrinking in the sequential multiclass solvers' fast path (:mod:`svmteach.solvers.multiclass_base`).

A sample whose block is 0 with its loss 0 and room to spare is set aside; as LIBLINEAR does, an epoch
whose largest block violation is below ``reactivate_at`` is followed by one over every sample.  The
results are checked against the Clarabel QP oracle (tests/oracles.py) and against gaps recomputed here
from the alpha a run returns, never against the solvers' own fields.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from oracles import cs_dual_optimum, llw_primal_optimum, ww_dual_optimum

from svmteach import MulticlassProblem, solve
from svmteach.losses.base import scores
from svmteach.solvers import CSBlondel, ExactBlock, WWExact, WWShark
from svmteach.solvers.multiclass_base import SHRINK_FLOOR

#: (loss, M, solver class): every sequential solver and every loss it solves.
RUNS = [("cs", 1.0, CSBlondel), ("ww", 1.0, WWExact), ("ww", 0.5, WWShark), ("llw", 1.0, ExactBlock)]
IDS = [f"{S.__name__}-{loss}-M{M}" for loss, M, S in RUNS]


def clustered(n=60, d=3, k=4, spread=3.0, seed=0):
    """Gaussian classes around centres ``spread`` apart: most samples end well classified (at rest)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(scale=spread, size=(k, d))[y] + rng.normal(size=(n, d))
    return X, y


def oracle_optimum(loss, X, codes, C, M):
    if loss == "cs":
        return cs_dual_optimum(X, codes, C)
    if loss == "ww":
        return ww_dual_optimum(X, codes, C, M)
    return llw_primal_optimum(X, codes, C)[1]


def recomputed(problem, alpha):
    """Primal, dual and relative gap of ``alpha`` from scratch: W(alpha), the primal at W, the dual."""
    loss = problem.loss_object
    W = loss.weights(problem, alpha)
    P = loss.primal(problem, W, scores(problem, W))
    D = loss.dual(problem, alpha, W)
    return P, D, (P - D) / abs(P)


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def watching(solver_class):
    """A subclass of ``solver_class`` that keeps the fewest active samples any ``advance`` returned, every
    sample set aside at the end of one (``aside``), and the most classes of active samples set aside
    (``classes_aside``)."""

    class Watch(solver_class):
        fewest = math.inf
        aside = None
        classes_aside = 0

        def advance(self, problem, state, n_steps, tol=None):
            state = super().advance(problem, state, n_steps, tol)
            self.fewest = min(self.fewest, int(np.sum(state.active)))
            self.aside = ~state.active if self.aside is None else self.aside | ~state.active
            if state.active_classes.size:
                self.classes_aside = max(self.classes_aside, int(np.sum(~state.active_classes[state.active])))
            return state

    return Watch


@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=IDS)
@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
def test_shrinking_reaches_the_qp_optimum(loss, M, Solver, C):
    # Lee-Lin-Wahba's loss is 0 only once every other score is below -1 (with scores summing to 0): its
    # samples come to rest on fewer classes further apart
    X, y = clustered(k=3, spread=10.0) if loss == "llw" else clustered(spread=6.0)
    p = MulticlassProblem(X, y, C=C, loss=loss, M=M)
    best = oracle_optimum(loss, X, p.codes, C, M)
    solver = watching(Solver)(random_state=0)
    r = solve(solver, p, tol=1e-9, max_iter=5_000_000)
    assert r.converged
    assert solver.fewest < p.n_samples / 2  # samples were set aside: shrinking was at work
    P, D, gap = recomputed(p, r.state.alpha)
    assert gap <= 1e-9 and r.gap == pytest.approx(gap, rel=1e-6, abs=1e-13)
    assert rel(P, best) < 1e-6 and rel(D, best) < 1e-6


@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=IDS)
def test_samples_wrongly_set_aside_come_back(loss, M, Solver):
    """A state at the end of an epoch with a large violation, every sample of classes 0 and 1 set aside
    at alpha = 0 (a wrong guess: W = 0, none has any slack, and the optimum needs many of them): the
    epochs over the others bring their violation below ``reactivate_at``, every sample comes back, and the
    run ends at the QP optimum."""
    X, y = clustered(n=40, k=3, spread=2.0, seed=1)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, M=M)
    solver = Solver(random_state=0)
    start = solver.init(p)
    wrong = p.codes >= 2
    state = start._replace(pos=len(start.perm), active=wrong.copy(), sweep_violation=10.0, reactivate_at=1.0)
    state = solver.advance(p, state, int(wrong.sum()))
    assert np.array_equal(np.sort(state.perm), np.flatnonzero(wrong))  # the epoch after visits the others only
    assert state.pos == len(state.perm) and state.violation == math.inf
    for _ in range(200_000):
        state = solver.measure(p, solver.advance(p, state, p.n_samples))
        if state.gap <= 1e-9:
            break
    needed = np.abs(state.alpha[~wrong]).max(axis=1) > 1e-6
    assert needed.sum() >= 5  # the guess was wrong: the optimum needs them
    best = oracle_optimum(loss, X, p.codes, 1.0, M)
    P, D, gap = recomputed(p, state.alpha)
    assert gap <= 1e-9 and rel(P, best) < 1e-6 and rel(D, best) < 1e-6


def many_classes(n=60, d=8, k=12, seed=0, sparse=False):
    """Random data in k = 12 classes (10+, as text): Gaussian centres, 2 apart, plus noise; ``sparse``:
    about 40% of the entries kept, as a CSR matrix (two rows empty)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(scale=2.0, size=(k, d))[y] + rng.normal(size=(n, d))
    if sparse:
        X = X * (rng.random((n, d)) < 0.4)
        X[[3, 17]] = 0.0
        X = sp.csr_matrix(X)
    return X, y


#: (loss, solver, C): Lee-Lin-Wahba at C = 100 needs more than 5,000,000 visits to 1e-9 here, with or without shrinking
CLASS_RUNS = [(loss, S, C) for loss, S in (("cs", CSBlondel), ("ww", WWExact), ("llw", ExactBlock))
              for C in (0.1, 1.0, 100.0) if (loss, C) != ("llw", 100.0)]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss, Solver, C", CLASS_RUNS, ids=[f"{loss}-C{C:g}" for loss, _, C in CLASS_RUNS])
def test_with_classes_set_aside_the_run_reaches_the_qp_optimum(loss, Solver, C, sparse):
    """Crammer-Singer (LIBLINEAR's rule), Weston-Watkins and Lee-Lin-Wahba (an entry at 0 pushed into its
    bound by more than the slack) set classes of active samples aside, and still end at the QP optimum."""
    X, y = many_classes(seed=int(C * 10), sparse=sparse)
    p = MulticlassProblem(X, y, C=C, loss=loss)
    best = oracle_optimum(loss, X.toarray() if sparse else X, p.codes, C, 1.0)
    solver = watching(Solver)(random_state=0)
    r = solve(solver, p, tol=1e-9, max_iter=5_000_000)
    assert r.converged
    assert solver.classes_aside > (p.n_samples if loss == "cs" else 0)  # classes of active samples were set aside
    P, D, gap = recomputed(p, r.state.alpha)
    assert gap <= 1e-9 and r.gap == pytest.approx(gap, rel=1e-6, abs=1e-13)
    assert rel(P, best) < 1e-6 and rel(D, best) < 1e-6
    if loss != "llw":  # Crammer-Singer's and Weston-Watkins's rows on their set (Lee-Lin-Wahba's label entry is 0)
        np.testing.assert_allclose(r.state.alpha.sum(axis=1), 0.0, rtol=0, atol=1e-13 * C)


def test_classes_wrongly_set_aside_come_back():
    """A state at the end of an epoch with a large violation, the samples of class 0 set aside and, for all
    the others, the classes 0 and 1 (a wrong guess: at W = 0 every class ties, and the optimum moves
    many of those entries off 0): the shrunk epochs never look at them, their violation falls below
    ``reactivate_at``, the epoch over all samples takes every class back, and the run ends at the QP optimum."""
    X, y = many_classes(n=48, seed=6)
    p = MulticlassProblem(X, y, C=1.0, loss="cs")
    solver = CSBlondel(random_state=0)
    start = solver.init(p)
    kept = p.codes != 0
    classes = np.ones((p.n_samples, p.k), dtype=bool)
    classes[:, :2] = False
    classes[p.codes == 1, 1] = True  # the label is never set aside
    state = start._replace(pos=len(start.perm), active=kept.copy(), active_classes=classes.copy(),
                           sweep_violation=10.0, reactivate_at=1.0)
    state = solver.advance(p, state, 5)
    aside = ~classes & kept[:, None]
    # still aside in the shrunk epoch (a visit that moves one takes it back)
    assert np.all(~state.active_classes[aside] | (state.alpha[aside] != 0.0))
    assert np.sum(~state.active_classes[aside]) >= aside.sum() - 2
    while len(state.perm) < p.n_samples:  # shrunk epochs, until their violation is below reactivate_at
        state = solver.advance(p, state, len(state.perm) - state.pos + 1)
    # the epoch over all samples took every class back (its first visit, the call's last, may set some aside again)
    assert state.pos == 1 and state.active_classes[np.arange(p.n_samples) != state.i].all()
    for _ in range(200_000):
        state = solver.measure(p, solver.advance(p, state, p.n_samples))
        if state.gap <= 1e-9:
            break
    moved = np.abs(state.alpha[kept & (p.codes != 1), 0]) > 1e-6
    assert moved.sum() >= 3  # the guess was wrong: the optimum needs them
    best = cs_dual_optimum(X, p.codes, 1.0)
    P, D, gap = recomputed(p, state.alpha)
    assert gap <= 1e-9 and rel(P, best) < 1e-6 and rel(D, best) < 1e-6


@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=IDS)
def test_without_shrinking_the_fast_path_takes_the_step_paths_steps(loss, M, Solver):
    X, y = clustered(n=30, seed=2)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, M=M)
    solver = Solver(random_state=4, shrinking=False)
    slow = solver.init(p)
    for _ in range(5 * p.n_samples + 3):
        slow = solver.step(p, slow)
    fast = solver.advance(p, solver.init(p), 5 * p.n_samples + 3)
    assert (fast.n_iter, fast.epoch, fast.pos) == (slow.n_iter, slow.epoch, slow.pos)
    assert fast.active.all() and len(fast.perm) == p.n_samples and fast.active_classes.shape == (0, 0)
    np.testing.assert_allclose(fast.alpha, slow.alpha, rtol=0, atol=1e-10)


@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=IDS)
def test_setting_aside_never_changes_a_step(loss, M, Solver):
    """Until samples are set aside every epoch visits every sample, with or without shrinking, and a
    sample set aside is one its step would not move: the two runs agree up to the end of the epoch that
    first sets samples aside, each with alpha_i = 0 (the first epoch sets none aside: no slack is known)."""
    X, y = clustered(k=3, spread=10.0, seed=3)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, M=M)
    plain, shrink = Solver(random_state=1, shrinking=False), Solver(random_state=1)
    state, other = shrink.init(p), plain.init(p)
    for epoch in range(500):
        state, other = shrink.advance(p, state, p.n_samples), plain.advance(p, other, p.n_samples)
        assert len(state.perm) == p.n_samples and state.n_iter == other.n_iter
        np.testing.assert_allclose(state.alpha, other.alpha, rtol=0, atol=1e-12)
        if not state.active.all():
            break
    assert epoch > 0 and 0 < np.sum(~state.active) and np.all(state.alpha[~state.active] == 0.0)


@pytest.mark.parametrize("order", ["shuffled", "adaptive"])
@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=IDS)
def test_epochs_follow_liblinears_rule_and_a_shrunk_epoch_never_looks_converged(loss, M, Solver, order):
    X, y = clustered(seed=4)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, M=M)
    solver = Solver(random_state=2, order=order)
    state = first = solver.advance(p, solver.init(p), p.n_samples)  # the first epoch
    before, before_classes = first.active.copy(), first.active_classes.copy()
    seen_shrunk = seen_back = False
    for _ in range(300):
        assert state.pos == len(state.perm)
        new = solver.advance(p, state, 1)  # the next epoch begins: over whom?
        full = len(new.perm) == p.n_samples
        # an epoch over all samples looks at every class (its first visit may set some aside again)
        assert not full or new.active_classes[np.arange(p.n_samples) != new.i].all()
        small = state.sweep_violation < state.reactivate_at
        assert full == (small or state.active.all())  # after a small violation comes a full epoch ...
        if small:  # ... and reactivate_at is halved
            assert new.reactivate_at == max(state.reactivate_at / 2, SHRINK_FLOOR)
            seen_back = seen_back or len(state.perm) < p.n_samples
        elif order == "shuffled":  # else the samples still active, those set aside in the last epoch included
            np.testing.assert_array_equal(np.sort(new.perm), np.flatnonzero(state.active))
        else:  # as many visits, drawn from them by their preferences
            assert len(new.perm) == np.sum(state.active) and state.active[new.perm].all()
        assert new.rest_margin == state.sweep_violation  # the slack asked of a sample to rest
        new = solver.advance(p, new, len(new.perm) - new.pos)  # the rest of the epoch
        assert new.pos == len(new.perm)
        if full:  # its violation: every block of the epoch but the first (a call of its own)
            assert new.violation == new.sweep_violation < math.inf
        else:  # a shrunk epoch says nothing of the samples it left aside
            assert new.violation == math.inf
        seen_shrunk = seen_shrunk or not full
        state = new
    assert seen_shrunk and seen_back
    np.testing.assert_array_equal(first.active, before)  # a state's arrays are never written
    np.testing.assert_array_equal(first.active_classes, before_classes)


def test_the_step_path_without_shrinking_never_shrinks():
    """(With shrinking, the step path sets aside what the fast path does: tests/test_multiclass_twin.py.)"""
    X, y = clustered(n=20, seed=5)
    p = MulticlassProblem(X, y, C=1.0, loss="cs")
    solver = CSBlondel(random_state=0, shrinking=False)
    state = solver.init(p)
    for _ in range(20 * p.n_samples):
        state = solver.step(p, state)
        assert state.active.all() and len(state.perm) == p.n_samples


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_shrinking_must_be_a_bool(bad):
    for Solver in (CSBlondel, WWExact, WWShark, ExactBlock):
        with pytest.raises(TypeError, match="^shrinking must be True or False"):
            Solver(shrinking=bad)


@pytest.mark.parametrize("loss, M, Solver", RUNS[:3], ids=IDS[:3])
def test_samples_at_their_upper_bound_are_set_aside_too(loss, M, Solver):
    """LIBLINEAR's ``-s 4`` sets aside a sample whose label is at C with one other class left, and a sample
    whose entries are all at a bound (0 or C) and pushed into it rests as well as one at 0: on overlapping
    classes at a small C (most samples at C), samples with alpha_i != 0 are set aside, and the run still reaches
    the QP's optimum (Crammer-Singer, Weston-Watkins exact and Shark's moves; Lee-Lin-Wahba rests at 0 only)."""
    X, y = clustered(n=80, k=3, spread=1.0, seed=5)
    p = MulticlassProblem(X, y, C=0.1, loss=loss, M=M)
    seen = []

    class Watch(Solver):
        def advance(self, problem, state, n_steps, tol=None):
            state = super().advance(problem, state, n_steps, tol)
            seen.append(int(np.sum(~state.active & np.any(state.alpha != 0.0, axis=1))))
            return state

    result = solve(Watch(random_state=0), p, tol=1e-9, max_iter=100_000)
    assert result.converged and max(seen) > 0
    optimum = oracle_optimum(loss, X, p.codes, 0.1, M)
    assert rel(recomputed(p, result.state.alpha)[1], optimum) < 1e-6


def test_an_adaptive_shrunk_epoch_visits_samples_by_their_preferences():
    """``order="adaptive"``: in a shrunk epoch a sample comes about (visits) p_i / sum(p) times; a full epoch visits
    every sample once whatever the preferences."""
    X, y = clustered(n=200, seed=6)
    p = MulticlassProblem(X, y, C=1.0, loss="ww")
    solver = WWExact(random_state=3)
    state = solver.init(p)
    active = np.zeros(p.n_samples, dtype=bool)
    active[:100] = True
    preference = np.full(p.n_samples, 0.05)
    preference[:10] = 20.0  # ten favoured samples: 200 of the 200.5 preference over the active ones
    shrunk = state._replace(pos=len(state.perm), active=active, preference=preference, sweep_violation=10.0,
                            reactivate_at=1.0)
    new = solver._next_epoch(p, shrunk)
    assert len(new.perm) == 100 and active[new.perm].all()
    counts = np.bincount(new.perm, minlength=p.n_samples)
    assert counts[:10].sum() >= 95  # 100 * 200 / 204.5 = 97.8 of the visits, up to the rounding
    np.testing.assert_array_equal(np.bincount(new.perm[new.perm < 10], minlength=10) > 0, np.ones(10, dtype=bool))
    full = solver._next_epoch(p, shrunk._replace(sweep_violation=0.5))  # below reactivate_at: every sample once
    np.testing.assert_array_equal(np.sort(full.perm), np.arange(p.n_samples))
    assert solver._next_epoch(p, shrunk).perm.tolist() == new.perm.tolist()  # drawn from (seed, epoch, state) only


@pytest.mark.parametrize("bad", ["liblinear", None, 1])
def test_order_must_be_named(bad):
    for Solver in (CSBlondel, WWExact, WWShark, ExactBlock):
        with pytest.raises(ValueError, match="^order must be one of"):
            Solver(order=bad)


def test_a_warm_start_sets_the_preferences_again_and_their_mean_is_summed_over_n_visits():
    """The adaptive order's mean violation is summed over the first n visits after the preferences are set (a run's
    first epoch, or the first n visits after a warm start), the preferences unchanged meanwhile; then they move."""
    X, y = clustered(n=60, seed=7)
    p, q = (MulticlassProblem(X, y, C=C, loss="ww") for C in (1.0, 3.0))
    solver = WWExact(random_state=1)
    state = solver.init(p)
    while state.n_iter < 10 * p.n_samples:  # (a call returns at the end of each epoch over all samples)
        state = solver.advance(p, state, 10 * p.n_samples - state.n_iter)
    assert np.ptp(state.preference) > 0 and state.mean_visits == p.n_samples
    state = solver.warm_start(q, state)
    assert np.all(state.preference == 1.0) and state.mean_visits == 0 and state.mean_violation == 0.0
    for _ in range(p.n_samples - 1):
        state = solver.step(q, state)
    assert np.all(state.preference == 1.0) and state.mean_visits == p.n_samples - 1 and state.mean_violation > 0
    for _ in range(2):
        state = solver.step(q, state)
    assert state.mean_visits == p.n_samples and np.ptp(state.preference) > 0
