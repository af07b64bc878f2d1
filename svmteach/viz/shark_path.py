"""One Weston-Watkins block, drawn: Shark's coordinate moves as a path beside the exact block's one jump.

A visit to sample :math:`i` improves its block :math:`\\beta = (\\alpha_{ij})_{j \\ne y_i}` with the others
fixed.  In the block the dual (a minimisation) is, divided by :math:`a = M^2 \\|x_i\\|^2` (see
:mod:`svmteach.losses.weston_watkins`),

.. math::

    \\tfrac12 \\bigl(\\|\\beta\\|^2 + (\\mathbf 1^\\top \\beta)^2\\bigr) - u^\\top \\beta, \\qquad 0 \\le \\beta \\le C,

whose Hessian :math:`I + \\mathbf 1 \\mathbf 1^\\top` tilts its level sets.  Shark
(:class:`~svmteach.solvers.WWShark`) moves one coordinate at a time, each move to the minimum
along it (clipped to the box), so its path is a staircase that zigzags down the tilted valley;
Wang and Scott's exact block (:class:`~svmteach.solvers.WWExact`) jumps to the minimiser at once.

The picture is the plane of the two rival classes Shark moved most (with one rival, its one
coordinate): the box :math:`[0, C]^2`, level lines of the block objective in that plane (the
other coordinates held at the exact solution, so the exact point is the lowest point of the
plane; the levels pass through Shark's first vertices), Shark's path (one vertex per move; a
move on a third class leaves the vertex in place) and the exact jump.  Whichever solver took the
step, the other one's answer is computed from the same state before the step (the step is pure:
the state after it gives the one before), so the two are always side by side.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..backend import to_numpy
from ..rows import dense_row

SHARK_COLOR, EXACT_COLOR = "#e6550d", "#08519c"
#: Points per side of the grid the level lines are computed on.
LEVEL_GRID = 41
#: A visit that moves no entry of alpha_i by more than STILL * C (neither Shark's moves nor the exact jump)
#: is drawn as "already optimal" in the whole box: zoomed in, its picture was a flat line on a 1e-6 axis.
STILL = 1e-3


class BlockPathPicture(NamedTuple):
    """What the picture of one Weston-Watkins block visit shows (coordinates in the plane of ``axes``).

    Attributes
    ----------
    i : int, the sample;  y : int, its class index;  C : float;  ran : {"shark", "exact"}, the solver whose step it was.
    axes : (p, q), the two rival classes of the plane (q = -1 with a single rival, k = 2: the picture
        is then one line, at height 0).
    before : (k,) alpha_i before the step;  shark_after, exact_after : (k,) alpha_i after Shark's
        visit and after the exact block.
    moves_j, moves_m : (n_moves,) Shark's moves: the class and the (clipped) step of each.
    vertices : (n_moves + 1, 2) Shark's path in the plane: ``before`` and the row after each move.
    exact : (2,) the exact block's solution in the plane.
    u : (k - 1,) the block's vector (the exact block's ``u``), in the order of ``others``;
    others : (k - 1,) the rival classes;  linear : bool, the block is linear (a zero row): no level lines.
    """

    i: int
    y: int
    C: float
    ran: str
    axes: tuple
    before: np.ndarray
    shark_after: np.ndarray
    exact_after: np.ndarray
    moves_j: np.ndarray
    moves_m: np.ndarray
    vertices: np.ndarray
    exact: np.ndarray
    u: np.ndarray
    others: np.ndarray
    linear: bool


def _plane(row, axes):
    p, q = axes
    return np.array([row[p], row[q] if q >= 0 else 0.0])


def block_path_picture(problem, state):
    """The :class:`BlockPathPicture` of the last step of a :class:`~svmteach.solvers.WWShark` or
    :class:`~svmteach.solvers.WWExact` state on ``problem`` (a Weston-Watkins problem), or None
    before the first step."""
    from ..solvers import WWExact, WWShark
    from ..solvers.multiclass_base import moved_model
    from ..solvers.ww_shark import SharkMoves

    block = state.block
    if state.i is None or state.i < 0 or getattr(block, "delta", None) is None:
        return None
    i = int(state.i)
    M, C, k = problem.M, float(problem.C_i[i]), problem.k  # the sample's box [0, C_i]
    x = to_numpy(dense_row(problem.design, i, problem.xp))  # float64, the bias column's B appended
    delta = to_numpy(block.delta).astype(np.float64)
    alpha = to_numpy(state.alpha).astype(np.float64)
    before = alpha[i] - delta
    # the step moved the model by A(delta) = -M delta (W = -M alpha' X; on a kernel problem S = K A): undo it
    W_before = moved_model(problem, state._replace(W=to_numpy(state.W).astype(np.float64)), i, x, M * delta)
    y = int(to_numpy(problem.codes)[i])
    alpha_before = alpha.copy()
    alpha_before[i] = before
    state_before = state._replace(alpha=alpha_before, W=W_before)
    exact = WWExact(shrinking=False).update(problem, state_before, i)  # the exact block from the same state
    exact_after, exact_block = to_numpy(exact.alpha[i]).astype(np.float64), exact.block
    if isinstance(block, SharkMoves):
        ran, moves = "shark", block
    else:  # Shark's visit from the same state before the step
        ran = "exact"
        moves = WWShark(shrinking=False).update(problem, state_before, i).block
    moves_j = np.asarray(moves.moves_j, dtype=np.int64)
    moves_m = np.asarray(moves.moves_m, dtype=np.float64)
    rows = np.tile(before, (len(moves_j) + 1, 1))
    for t, (j, m) in enumerate(zip(moves_j, moves_m)):  # each move: alpha_ij += m, alpha_iy -= m
        rows[t + 1 :, j] += m
        rows[t + 1 :, y] -= m
    others = np.array([j for j in range(k) if j != y], dtype=np.int64)
    # the plane: the two rivals Shark moved most (then the exact jump's largest)
    travel = np.array([np.abs(moves_m[moves_j == j]).sum() for j in others])
    jump = np.abs(exact_after - before)[others]
    ranked = others[np.lexsort((-jump, -travel))]
    axes = (int(ranked[0]), int(ranked[1]) if k > 2 else -1)
    u = to_numpy(exact_block.u).astype(np.float64)
    linear = not (M * M * float(problem.sqnorm[i]) * k * C > 0) or not np.all(np.isfinite(u))
    return BlockPathPicture(i=i, y=y, C=C, ran=ran, axes=axes, before=before, shark_after=rows[-1],
                            exact_after=exact_after, moves_j=moves_j, moves_m=moves_m,
                            vertices=np.array([_plane(r, axes) for r in rows]), exact=_plane(exact_after, axes),
                            u=u, others=others, linear=bool(linear))


def block_movement(picture):
    """How far a visit moves the sample's alpha_i: the largest entry of Shark's or the exact block's change."""
    return float(max(np.abs(picture.shark_after - picture.before).max(), np.abs(picture.exact_after - picture.before).max()))


def block_objective(picture, a_p, a_q):
    """The block objective divided by a, :math:`\\tfrac12(\\|\\beta\\|^2 + (\\mathbf 1^\\top\\beta)^2) - u^\\top\\beta`,
    at points of the picture's plane (arrays ``a_p``, ``a_q`` of the same shape), with the other rivals
    held at the exact solution."""
    beta = picture.exact_after[picture.others]  # (k-1,) the exact block
    p, q = picture.axes
    ip = int(np.flatnonzero(picture.others == p)[0])
    rest = beta.copy()
    rest[ip] = 0.0
    if q >= 0:
        iq = int(np.flatnonzero(picture.others == q)[0])
        rest[iq] = 0.0
    a_q = a_q if q >= 0 else np.zeros_like(a_p)
    u_p = picture.u[ip]
    u_q = picture.u[iq] if q >= 0 else 0.0
    total = a_p + a_q + rest.sum()  # 1' beta
    sq = a_p**2 + a_q**2 + np.sum(rest**2)  # ||beta||^2
    return 0.5 * (sq + total**2) - (u_p * a_p + u_q * a_q + picture.u @ rest)


class SharkPathView:
    """One Weston-Watkins block visit on ``ax`` (see the module docstring), updated by :meth:`update`.

    Parameters
    ----------
    ax : a matplotlib Axes;  fontsize : float, the legend's and notes' size;  legend : draw a legend on ``ax``;
    labelsize : float or None, the title's and axis labels' size.
    """

    def __init__(self, ax, fontsize=9, legend=True, labelsize=None):
        from matplotlib.patches import Rectangle

        self.ax = ax
        self._label = {} if labelsize is None else {"fontsize": labelsize}
        self.box = ax.add_patch(Rectangle((0, 0), 1, 1, facecolor="#deebf7", edgecolor="#6baed6", lw=1, zorder=0,
                                          label="box [0, C]\u00b2"))
        self._levels = None
        (self.path,) = ax.plot([], [], "-o", color=SHARK_COLOR, lw=1.6, ms=4, zorder=3, label="Shark's moves")
        (self.start,) = ax.plot([], [], "o", color="#636363", ms=8, zorder=4, label="\u03b1\u1d62 before")
        (self.exact,) = ax.plot([], [], "*", color=EXACT_COLOR, ms=15, zorder=5, label="exact block")
        self.jump = ax.annotate("", xy=(0, 0), xytext=(0, 0), zorder=4,
                                arrowprops=dict(arrowstyle="->", color=EXACT_COLOR, lw=1.8))
        self.note = ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", fontsize=fontsize,
                            color="#636363")
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(useOffset=False)  # plain tick labels, never "1e-5+1.439e-1" beside the axis
        ax.set_xlabel("\u03b1 of the sample, one rival class", **self._label)
        ax.set_ylabel("another rival class", **self._label)
        if legend:
            ax.legend(handles=self.handles(), loc="upper right", fontsize=fontsize, framealpha=0.85)
        self.picture = None

    def handles(self):
        """The markers, for a legend elsewhere."""
        return [self.path, self.start, self.exact]

    def _clear_levels(self):
        if self._levels is not None:
            self._levels.remove()
            self._levels = None

    def update(self, problem, state):
        """Draw the last step of ``state`` (WWShark or WWExact) on ``problem``; returns its :class:`BlockPathPicture`."""
        p = self.picture = block_path_picture(problem, state)
        C = float(problem.C_i[state.i]) if state.i is not None and state.i >= 0 else float(problem.C)  # the box
        self.box.set_width(C)
        self.box.set_height(C)
        self._clear_levels()
        if p is None:
            for line in (self.path, self.start, self.exact):
                line.set_data([], [])
            self.jump.set_visible(False)
            self.note.set_text("press step: one block,\nShark's moves and\nthe exact jump")
            self.ax.set_xlim(-0.1 * C, 1.1 * C)
            self.ax.set_ylim(-0.1 * C, 1.1 * C)
            self.ax.set_title("one sample's block", **self._label)
            return p
        V = p.vertices
        self.path.set_data(V[:, 0], V[:, 1])
        self.start.set_data([V[0, 0]], [V[0, 1]])
        self.exact.set_data([p.exact[0]], [p.exact[1]])
        moved = block_movement(p)
        if moved <= STILL * C:  # a block already (nearly) optimal: a zoom on it would show rounding on a 1e-6 axis
            self.jump.set_visible(False)
            self.note.set_text(f"this block is already optimal:\nneither solver moves \u03b1\u1d62\n"
                               f"by more than {moved:.0e}" if moved > 0 else
                               "this block is already optimal:\nneither solver moves \u03b1\u1d62")
            self.ax.set_xlim(-0.1 * C, 1.1 * C)  # the whole box, the point in it
            self.ax.set_ylim(-0.1 * C, 1.1 * C)
            px, qx = p.axes
            self.ax.set_xlabel(f"\u03b1 of sample {p.i}, class {px}", **self._label)
            self.ax.set_ylabel(f"\u03b1, class {qx}" if qx >= 0 else "(one rival only)", **self._label)
            self.ax.set_title(f"sample {p.i}: already optimal", **self._label)
            return p
        self.note.set_text("")
        self.jump.set_visible(bool(np.any(p.exact != V[0])))
        self.jump.xy, self.jump.xyann = tuple(p.exact), tuple(V[0])
        # a square view around the points (the same scale on both axes: the valley's tilt is true)
        pts = np.vstack([V, p.exact[None, :]])
        centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
        half = 0.5 * float(np.max(np.ptp(pts, axis=0)))
        half = 1.3 * half if half > 0 else 0.1 * C
        lo, hi = centre - half, centre + half
        self.ax.set_xlim(lo[0], hi[0])
        self.ax.set_ylim(lo[1], hi[1])
        px, qx = p.axes
        self.ax.set_xlabel(f"\u03b1 of sample {p.i}, class {px}", **self._label)
        self.ax.set_ylabel(f"\u03b1, class {qx}" if qx >= 0 else "(one rival only)", **self._label)
        if not p.linear and qx >= 0:
            gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], LEVEL_GRID), np.linspace(lo[1], hi[1], LEVEL_GRID))
            f = block_objective(p, gx, gy)
            best = float(block_objective(p, *p.exact))
            at = block_objective(p, V[:, 0], V[:, 1]) - best
            levels = np.unique(np.round(at[at > 1e-12 * max(1.0, abs(best))], 12))[::-1][:6][::-1]
            if levels.size >= 2:
                self._levels = self.ax.contour(gx, gy, f - best, levels=levels, colors="#9e9e9e", linewidths=0.8,
                                               zorder=1)
        n = len(p.moves_j)
        self.ax.set_title(f"sample {p.i}: Shark {n} move{'s' * (n != 1)}, exact 1 jump", **self._label)
        return p
