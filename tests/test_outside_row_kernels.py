"""A loss from outside the package with its own compiled row kernels: one module (this file) and one registry
entry (:func:`svmteach.losses.register_loss`), the driver files untouched.

The loss is Weston-Watkins solved by another block algorithm, exact coordinate sweeps over the block's
off-label entries instead of the package's breakpoint sort: the compiled epochs run it (drivers compiled for it
in this process), the step path and the violations of a model call it directly, and every answer is checked
against Clarabel's optimum of the loss's dual (:func:`oracles.multiclass_dual_optimum`).  A loss that changes
the mathematics without kernels of its own, or that brings uncompiled ones, is refused by name."""

import numpy as np
import pytest
from numba import njit
from oracles import multiclass_dual_optimum

from svmteach import MulticlassProblem, MulticlassSVC, solve
from svmteach.losses import LOSSES, WestonWatkins, register_loss
from svmteach.losses.row_kernels import RowKernels, box_violation
from svmteach.solvers import ExactBlock, WWExact, WWShark
from svmteach.solvers import numba_multiclass as nm

SWEEPS = 10_000


@njit
def sweep_block(s, a, y, q, C, params, rest, look, buffers, picture):
    """The Weston-Watkins block by exact coordinate steps: with g_j = M (s_y - s_j) - 1 and a_q = M^2 q, the block
    minimises g'd + a_q/2 (|d|^2 + (1'd)^2) over the off-label change d in the box [0, C]; coordinate j's exact
    step is d_j -= (g_j + a_q (d_j + 1'd)) / (2 a_q), clipped.  Sweeps until no entry moves."""
    M = params[0]
    k = s.shape[0]
    g = buffers[0][0, :k]
    d = buffers[0][1, :k]
    aq = M * M * q
    violation = 0.0
    for j in range(k):
        g[j] = M * (s[y] - s[j]) - 1.0 if j != y else 0.0
        d[j] = 0.0
        if j != y:
            violation = max(violation, box_violation(g[j], a[j], C))
    if picture.shape[0] > 0:
        picture[0, :] = g
    if violation == 0.0:
        return violation, 0
    total = 0.0  # 1'd
    for _ in range(SWEEPS):
        moved = 0.0
        for j in range(k):
            if j == y:
                continue
            if aq > 0.0:
                target = a[j] + d[j] - (g[j] + aq * (d[j] + total)) / (2.0 * aq)
            else:  # a zero row: the block is linear, each entry at the bound its gradient points to
                target = C if g[j] < 0.0 else 0.0
            new = min(max(target, 0.0), C) - a[j]
            moved = max(moved, abs(new - d[j]))
            total += new - d[j]
            d[j] = new
        if moved <= 1e-15 * max(C, 1.0):
            break
    for j in range(k):
        if j != y:
            a[j] += d[j]
    rest_sum = 0.0
    for j in range(k):
        if j != y:
            rest_sum += a[j]
    a[y] = -rest_sum
    if picture.shape[0] > 0:  # Weston-Watkins's picture: the gradient, u (here the old entries), the new entries
        for j in range(k):
            if j != y:
                p = j if j < y else j - 1
                picture[1, p] = a[j] - d[j]
                picture[2, p] = a[j]
    return violation, 1


@njit
def sweep_coef(new, old, params, out):
    M = params[0]
    for m in range(new.shape[0]):
        out[m] = -M * (new[m] - old[m])


class WWSweeps(WestonWatkins):
    name = "ww_sweeps"
    title = "Weston-Watkins, by coordinate sweeps"
    kernels = RowKernels(block=sweep_block, coef=sweep_coef)
    embedding = WestonWatkins.embedding


@pytest.fixture
def sweeps():
    loss = register_loss(WWSweeps())
    yield loss
    del LOSSES[loss.name]


def blobs(n=36, d=3, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    return rng.normal(scale=1.5, size=(k, d))[y] + rng.normal(size=(n, d)), y


def rel(a, b):
    return abs(a - b) / abs(b)


def test_the_compiled_epochs_run_the_outside_kernel_to_the_oracle(sweeps):
    X, y = blobs()
    problem = MulticlassProblem(X, y, C=0.8, loss=sweeps.name)
    drivers = nm.drivers(sweeps.kernels)
    assert drivers.epochs is not nm.epochs and drivers.kernels is sweeps.kernels  # its own, not the package's
    r = solve(ExactBlock(random_state=0), problem, tol=1e-9, max_iter=10**6)
    best, _ = multiclass_dual_optimum(problem)
    assert r.converged and rel(r.dual, best) < 1e-8 and rel(r.primal, best) < 1e-8
    # the package's Weston-Watkins block reaches the same optimum on the same data
    ww = solve(WWExact(random_state=0), MulticlassProblem(X, y, C=0.8, loss="ww"), tol=1e-9, max_iter=10**6)
    np.testing.assert_allclose(r.state.W, ww.state.W, atol=1e-4 * np.abs(ww.state.W).max())


def test_the_estimator_and_the_step_path_take_the_outside_loss(sweeps):
    X, y = blobs(seed=1)
    m = MulticlassSVC(loss=sweeps.name, solver="exact", fit_intercept=False, tol=1e-8, max_iter=10**5,
                      random_state=0).fit(X, y)
    best, _ = multiclass_dual_optimum(MulticlassProblem(X, y, C=1.0, loss=sweeps.name))
    assert m.result_.converged and rel(m.result_.primal, best) < 1e-7
    # the step path calls the same kernel: a step moves alpha, W follows A(delta)' x_i, and the picture is filled
    solver, problem = ExactBlock(random_state=0), MulticlassProblem(X, y, C=1.0, loss=sweeps.name)
    state = solver.init(problem)
    for _ in range(5):
        state = solver.step(problem, state)
    np.testing.assert_allclose(state.W, -state.alpha.T @ X, atol=1e-12)
    assert state.block.grad is not None and state.block.y == y[state.i]
    # the model's violations (the narration's) come from the kernel too: zero at the optimum
    final = solve(solver, problem, tol=1e-10, max_iter=10**6).state
    assert solver.sample_violations(problem, final).max() <= 1e-6


def test_a_loss_that_changes_the_mathematics_without_kernels_is_refused_by_name():
    class Halved(WestonWatkins):  # a new gradient: Weston-Watkins's kernels would solve the wrong block
        name = "halved"

        def gradient(self, problem, S):
            return 0.5 * super().gradient(problem, S)

    loss = register_loss(Halved())
    try:
        assert not ExactBlock.solves(loss) and not WWShark.solves(loss) and not WWExact.solves(loss)
        X, y = blobs()
        problem = MulticlassProblem(X, y, loss=loss.name)
        with pytest.raises(ValueError, match="'halved'.*has none of its own"):
            ExactBlock().init(problem)
        with pytest.raises(ValueError, match="'halved'"):
            WWShark().init(problem)
    finally:
        del LOSSES[loss.name]


def test_uncompiled_kernels_are_refused_at_registration():
    def plain(s, a, y, q, C, params, rest, look, buffers, picture):
        return 0.0, 0

    class Plain(WestonWatkins):
        name = "plain"
        kernels = RowKernels(block=plain, coef=sweep_coef)

    with pytest.raises(TypeError, match="loss.kernels.block .*numba-compiled"):
        register_loss(Plain())
    assert "plain" not in LOSSES


def test_the_outside_drivers_copy_every_function_that_reaches_the_kernels():
    """Every compiled function of the drivers' module that reaches BLOCKS or COEFS, directly or through another, is
    in ``REACH_KERNELS``, each after those it calls: a function left out would run the package's kernels (its
    globals) for an outside loss, and give a right-looking answer from the wrong block."""
    dispatchers = {name: f for name, f in vars(nm).items() if hasattr(f, "py_func") and f.py_func.__module__ == nm.__name__}
    calls = {name: set(f.py_func.__code__.co_names) for name, f in dispatchers.items()}
    reach = {name for name, names in calls.items() if names & {"BLOCKS", "COEFS"}}
    while True:
        more = {name for name, names in calls.items() if names & reach} - reach
        if not more:
            break
        reach |= more
    assert reach == set(nm.REACH_KERNELS)
    position = {name: at for at, name in enumerate(nm.REACH_KERNELS)}
    for name in nm.REACH_KERNELS:
        assert all(position[callee] < position[name] for callee in calls[name] & reach - {name}), name
