"""One step of dual coordinate ascent, drawn: the dual along the chosen coordinate on [0, C].

Along coordinate :math:`i`, with the other multipliers fixed, the dual is the parabola
:math:`a x^2 + b x + \\text{const}` (``a``, ``b``: fields of
:class:`~svmteach.solvers.dual_cd.DualCDState`).  The picture shows its change from the value
before the step,

.. math::

    \\Delta D(x) = a\\,(x^2 - \\alpha_i^2) + b\\,(x - \\alpha_i),

over the box :math:`[0, C]`, the multiplier before the step (:math:`\\Delta D = 0` there), the
unclipped maximiser ``alpha_unclipped`` and the clipped one ``alpha_clipped``.  A maximiser far
outside the box (or none: :math:`a \\ge 0` gives :math:`\\pm\\infty`) is marked by an arrow at the
edge of the view.  :class:`ParabolaView` creates its artists once and updates them in place (the
explorer); :func:`parabola_picture` is the arithmetic, shared with tests.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from matplotlib.ticker import MaxNLocator

import numpy as np

#: How far beyond the box (in units of C) the view widens to show an unclipped maximiser; beyond
#: that the view stops there and an arrow at its edge points to the maximiser.
WIDEN = 1.5
#: Points of the drawn curve.
CURVE_POINTS = 120


class ParabolaPicture(NamedTuple):
    """What the picture of one coordinate step shows (all in the units of alpha_i and of the dual).

    Attributes
    ----------
    i : int, the coordinate;  C : float, the box's upper end.
    old : float, alpha_i before the step;  unclipped : float, the vertex (+-inf: none, NaN: shrunk);
    clipped : float, alpha_i after the step.
    gain_unclipped, gain_clipped : float, the change of the dual at those two points (NaN if not finite).
    xlim : (lo, hi), the view along alpha_i: the box, widened to hold the vertex up to ``WIDEN`` C.
    arrow : -1, 0 or +1: the vertex lies beyond the view's left / right edge (0: inside it or none).
    shrunk : bool, shrinking set coordinate i aside: nothing moved.
    """

    i: int
    C: float
    old: float
    unclipped: float
    clipped: float
    gain_unclipped: float
    gain_clipped: float
    xlim: tuple
    arrow: int
    shrunk: bool


def dual_change(state, x):
    """:math:`\\Delta D(x) = a(x^2 - \\alpha_i^2) + b(x - \\alpha_i)`: the dual's change when alpha_i goes from
    its value before the step of ``state`` to ``x`` (array or float)."""
    old = state.alpha_clipped - state.delta  # alpha_i before the step
    x = np.asarray(x, dtype=np.float64)
    return state.a * (x * x - old * old) + state.b * (x - old)


def parabola_picture(state, C):
    """The :class:`ParabolaPicture` of a :class:`~svmteach.solvers.dual_cd.DualCDState`, or None before
    the first step (``state.i < 0``)."""
    if state.i is None or state.i < 0:
        return None
    C = float(C)
    old = float(state.alpha_clipped - state.delta)
    unclipped, clipped = float(state.alpha_unclipped), float(state.alpha_clipped)
    lo, hi = -0.15 * C, 1.15 * C
    arrow = 0
    if math.isfinite(unclipped):
        if unclipped < lo:
            arrow = -1 if unclipped < -WIDEN * C else 0
            lo = max(unclipped - 0.1 * C, -WIDEN * C - 0.1 * C)
        elif unclipped > hi:
            arrow = 1 if unclipped > (1 + WIDEN) * C else 0
            hi = min(unclipped + 0.1 * C, (1 + WIDEN) * C + 0.1 * C)
    elif not math.isnan(unclipped):  # +-inf: a line or an upward parabola, no vertex
        arrow = 1 if unclipped > 0 else -1

    def gain(x):
        return float(dual_change(state, x)) if math.isfinite(x) else math.nan

    return ParabolaPicture(i=int(state.i), C=C, old=old, unclipped=unclipped, clipped=clipped,
                           gain_unclipped=gain(unclipped), gain_clipped=gain(clipped), xlim=(lo, hi),
                           arrow=arrow, shrunk=bool(state.shrunk))


class ParabolaView:
    """The step of dual coordinate ascent on ``ax``, updated in place by :meth:`update`.

    Parameters
    ----------
    ax : a matplotlib Axes.
    fontsize : float, the size of the legend and of the arrow's label (the axes' own labels
        follow ``rcParams`` or the caller's ``ax`` settings).
    legend : draw a legend of the markers.
    labelsize : float or None, the title's and the axis labels' size (None: ``rcParams``).
    """

    def __init__(self, ax, fontsize=9, legend=True, labelsize=None):
        self.ax = ax
        self._label = {} if labelsize is None else {"fontsize": labelsize}  # title and axis labels
        self.box = ax.axvspan(0.0, 1.0, color="#deebf7", zorder=0, label="box [0, C]")
        (self.curve,) = ax.plot([], [], color="k", lw=1.5, zorder=2, label="change of the dual")
        ax.axhline(0.0, color="gray", lw=0.5, zorder=1)
        (self.before,) = ax.plot([], [], "o", color="#636363", ms=7, zorder=3, label="\u03b1\u1d62 before")
        (self.vertex,) = ax.plot([], [], "o", mfc="white", mec="k", mew=1.5, ms=9, zorder=4,
                                 label="unclipped maximiser")
        (self.after,) = ax.plot([], [], "*", color="#d62728", ms=14, zorder=5, label="clipped: new \u03b1\u1d62")
        self.arrow = ax.annotate("", xy=(0.0, 0.5), xytext=(0.0, 0.5), xycoords="axes fraction",
                                 textcoords="axes fraction", fontsize=fontsize, ha="center", va="bottom",
                                 arrowprops=dict(arrowstyle="->", color="k", lw=1.5))
        self.note = ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", fontsize=fontsize,
                            color="#636363")
        ax.set_xlabel("\u03b1\u1d62", **self._label)
        ax.set_ylabel("change of the dual", **self._label)
        if legend:
            ax.legend(loc="lower center", fontsize=fontsize, framealpha=0.85)
        # few tick labels: text is most of a redraw
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.yaxis.set_major_locator(MaxNLocator(4))
        self.picture = None

    def handles(self):
        """The markers, for a legend elsewhere (the explorer puts one under its figure)."""
        return [self.before, self.vertex, self.after]

    def update(self, state, C):
        """Draw the step of ``state`` (a DualCDState) with box [0, ``C``]; returns its :class:`ParabolaPicture`."""
        p = self.picture = parabola_picture(state, C)
        self.box.set_x(0.0)
        self.box.set_width(float(C))
        if p is None:
            for line in (self.curve, self.before, self.vertex, self.after):
                line.set_data([], [])
            self.arrow.set_visible(False)
            self.note.set_text("press step:\nthe parabola of\nthe chosen coordinate")
            self.ax.set_xlim(-0.15 * C, 1.15 * C)
            self.ax.set_ylim(-1.0, 1.0)
            self.ax.set_title("dual along one coordinate", **self._label)
            return p
        x = np.linspace(*p.xlim, CURVE_POINTS)
        y = dual_change(state, x)
        self.curve.set_data(x, y)
        self.before.set_data([p.old], [0.0])
        inside = math.isfinite(p.unclipped) and p.arrow == 0
        self.vertex.set_data(([p.unclipped], [p.gain_unclipped]) if inside else ([], []))
        self.after.set_data([p.clipped], [p.gain_clipped])
        self.ax.set_xlim(*p.xlim)
        lo, hi = float(np.min(y)), float(np.max(y))
        pad = 0.08 * (hi - lo) if hi > lo else 1.0
        self.ax.set_ylim(lo - pad, hi + pad)
        self.arrow.set_visible(p.arrow != 0)
        if p.arrow:
            edge = 0.98 if p.arrow > 0 else 0.02
            self.arrow.xy = (edge, 0.85)
            self.arrow.set_position((edge - 0.14 * p.arrow, 0.85))
            where = f"{p.unclipped:.3g}" if math.isfinite(p.unclipped) else "none (no vertex)"
            self.arrow.set_text(f"vertex {where}")
        self.note.set_text("shrinking set this coordinate aside" if p.shrunk else "")
        if p.shrunk:
            title = f"i = {p.i}: set aside"
        elif not math.isfinite(p.unclipped):
            title = f"i = {p.i}: no vertex, best end {p.clipped:.3g}"
        elif p.unclipped == p.clipped:
            title = f"i = {p.i}: vertex {p.clipped:.3g}, inside the box"
        else:
            title = f"i = {p.i}: vertex {p.unclipped:.3g} clipped to {p.clipped:.3g}"
        self.ax.set_title(title, **self._label)
        return p
