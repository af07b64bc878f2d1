"""``warm_start=True``: a fit starts from the previous fit's dual solution, scaled into the new box.

Sample i's dual variables live in a box (or a scaled simplex) proportional to its bound
:math:`C_i = C\\,w_i`.  At a new C (or new weights), :math:`\\alpha_i \\, C_i^{new} / C_i^{old}` is
feasible again: the box scales and every equality (``y'alpha = 0``, the Crammer-Singer and
Weston-Watkins sums) is homogeneous.  Near-by values of C have near-by solutions, so a grid over
C solved in order starts each fit close to its optimum (a C grid is benchmarked in
``benchmarks/warm_start.py``).  The solver's own ``warm_start`` then makes the state feasible
(exactly: a no-op for the scaled alpha, up to rounding) and measures it.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy


def warm_state(est, solver, problem):
    """The previous fit's final state, scaled to ``problem``'s bounds, or None (a cold start) when
    ``est`` has no previous fit, was fitted by another solver, or on data of another shape or classes."""
    previous = getattr(est, "result_", None)
    state = getattr(previous, "state", None)
    if state is None or not isinstance(state, getattr(type(solver), "State", ())):
        return None
    old_C = getattr(est, "_fit_C_i", None)
    alpha = to_numpy(state.alpha)
    if (old_C is None or len(old_C) != problem.n_samples or alpha.shape[0] != problem.n_samples
            or not np.array_equal(est.classes_, problem.classes)
            or getattr(est, "_fit_n_columns", None) != problem.n_features):
        return None
    new_C = to_numpy(problem.C_i)
    # alpha_i min(1, C_i^new / C_i^old), sample by sample: kept where the box grew (it is still feasible, and
    # W(alpha) is the old optimum's), shrunk with the box where it shrank (0 where the old bound was 0)
    ratio = np.minimum(np.divide(new_C, old_C, out=np.zeros_like(new_C), where=old_C > 0), 1.0)
    scale = ratio if alpha.ndim == 1 else ratio[:, None]
    return state._replace(alpha=problem.xp.asarray(alpha * scale, dtype=state.alpha.dtype))


def remember(est, problem, result, warm_start: bool):
    """Keep what the next warm start needs (the final state and each sample's bound) when ``warm_start``;
    otherwise keep only the result's numbers (a lean model: no state, no copy of the data)."""
    if warm_start:
        est.result_ = result
        est._fit_C_i = to_numpy(problem.C_i).copy()
        est._fit_n_columns = problem.n_features
    else:
        est.result_ = result._replace(state=None, states=None)
        for name in ("_fit_C_i", "_fit_n_columns"):
            est.__dict__.pop(name, None)
