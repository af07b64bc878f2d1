"""``warm_start=True``: a fit starts from the previous fit's dual solution, scaled into the new box.

Sample i's dual variables live in a box (or scaled simplex) proportional to :math:`C_i = C\\,w_i`, and
every per-sample equality is homogeneous, so :math:`\\alpha_i \\, C_i^{new} / C_i^{old}` is feasible again.
With a bias (SMO), :math:`y^\\top\\alpha = 0` holds only under one factor for all: the smallest ratio.
The solver's own ``warm_start`` then makes the state feasible (a no-op up to rounding) and measures it.
A fit on other labels starts cold: the previous solution belongs to another problem.

Scaling rather than keeping alpha: at large C the support vectors' alphas grow about in proportion to
C, so the scaled point starts near the new optimum (``benchmarks/warm_start.py``).  A scaled point whose
objectives overflow float64 (C from 1 to 1e300) is dropped: the fit starts cold.
"""

from __future__ import annotations

import math

import numpy as np

from ..backend import to_numpy
from ..problems import MulticlassProblem


def labels(problem):
    """The problem's labels as it codes them: class indices (multiclass) or +-1 (binary)."""
    return to_numpy(problem.codes if isinstance(problem, MulticlassProblem) else problem.y)


def warm_state(est, solver, problem):
    """The previous fit's final state, scaled to ``problem``'s bounds, or None (a cold start) when
    ``est`` has no previous fit, was fitted by another solver, or on data of another shape, classes or labels."""
    previous = getattr(est, "result_", None)
    state = getattr(previous, "state", None)
    if state is None or not isinstance(state, getattr(type(solver), "State", ())):
        return None
    if getattr(problem, "chunked", False):  # the solver scales each part where it lives (CoCoA.warm_start)
        same = (len(state.part_states) == problem.n_parts and np.array_equal(est.classes_, problem.classes)
                and getattr(est, "_fit_n_columns", None) == problem.n_features
                and np.array_equal(getattr(est, "_fit_sizes", None), problem.sizes))
        return state if same else None
    old_C = getattr(est, "_fit_C_i", None)
    alpha = to_numpy(state.alpha)
    if (old_C is None or len(old_C) != problem.n_samples or alpha.shape[0] != problem.n_samples
            or not np.array_equal(est.classes_, problem.classes)
            or getattr(est, "_fit_n_columns", None) != problem.n_features
            or not np.array_equal(getattr(est, "_fit_y", None), labels(problem))):
        return None
    new_C = to_numpy(problem.C_i)
    # 0 where the old bound was 0: alpha_i was 0 there
    ratio = np.divide(new_C, old_C, out=np.zeros_like(new_C), where=old_C > 0)
    if solver.bias:
        # y'alpha = 0 holds under one factor for all: the smallest ratio of a nonzero alpha_i keeps every box
        ratio = np.full_like(ratio, ratio[alpha != 0].min(initial=1.0))
    scale = ratio if alpha.ndim == 1 else ratio[:, None]
    scaled = state._replace(alpha=problem.xp.asarray(alpha * scale, dtype=state.alpha.dtype))
    # a huge ratio (C from 1 to 1e300) can scale the weights past float64: ||W||^2 = inf where a cold start is
    # finite; such a start is no start, and the fit begins cold
    with np.errstate(over="ignore", invalid="ignore"):
        measured = solver.warm_start(problem, scaled)
    if not (math.isfinite(float(measured.primal)) and math.isfinite(float(measured.dual))):
        return None
    return scaled


def remember(est, problem, result, warm_start: bool):
    """Keep what the next warm start needs (the final state, each sample's bound and label) when
    ``warm_start``; otherwise keep only the result's numbers (a lean model: no state, no copy of the data)."""
    if warm_start and getattr(problem, "chunked", False):  # the state keeps each part's C_i where it lives
        est.result_ = result
        est._fit_sizes, est._fit_n_columns = problem.sizes.copy(), problem.n_features
    elif warm_start:
        est.result_ = result
        est._fit_C_i = to_numpy(problem.C_i).copy()
        est._fit_y = labels(problem).copy()
        est._fit_n_columns = problem.n_features
    else:
        est.result_ = result._replace(state=None, states=None)
        for name in ("_fit_C_i", "_fit_y", "_fit_n_columns", "_fit_sizes"):
            est.__dict__.pop(name, None)
