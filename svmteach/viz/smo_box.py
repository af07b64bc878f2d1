"""One step of SMO, drawn: the box [0, C]^2 of the pair, the constraint's segment, L and H.

An SMO step moves the pair :math:`(\\alpha_i, \\alpha_j)` along the line that keeps
:math:`y_i\\alpha_i + y_j\\alpha_j` fixed,

.. math::

    \\alpha_i = \\alpha_i^{\\rm old} + y_i y_j\\,(\\alpha_j^{\\rm old} - \\alpha_j),

of slope :math:`-y_i y_j` in the :math:`(\\alpha_j, \\alpha_i)` plane: :math:`-1` when the labels
agree, :math:`+1` when they differ.  The box cuts it to :math:`L \\le \\alpha_j \\le H`.  The picture
shows the box, the line (dashed) and its segment (solid), L and H, the pair before the step, the
unclipped point (where the dual's maximum along the line lies) and the clipped point (the pair
after the step).  All of these are fields of :class:`~svmteach.solvers.smo.SMOState`; the labels
come from the problem.  An unclipped point far outside the box (or none, when
:math:`\\eta \\le 0`) is marked by an arrow at the edge of the view.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from matplotlib.ticker import MaxNLocator

#: How far beyond the box (in units of C) the view widens to show the unclipped point.
WIDEN = 1.0


class BoxPicture(NamedTuple):
    """What the picture of one SMO step shows (coordinates ``(alpha_j, alpha_i)``).

    Attributes
    ----------
    i, j : int, the pair;  same_label : bool, y_i = y_j;  slope : float, -y_i y_j (-1 or +1).
    C, L, H : float, the box and the segment's bounds on alpha_j.
    before : (alpha_j_old, alpha_i_old);  after : (alpha_j_new, alpha_i_new).
    unclipped : (alpha_j_unclipped, the alpha_i on the line there) (+-inf when eta <= 0).
    segment : ((L, alpha_i at L), (H, alpha_i at H)).
    lim : (lo, hi), the view on both axes: the box, widened to hold the unclipped point up to ``WIDEN`` C.
    arrow : -1, 0 or +1: the unclipped point lies beyond the view (0: inside it), in the direction of alpha_j;
        the arrow is drawn along the line from the segment's end (H or L) to 0.25 C further in alpha_j.
    clipped : bool, the step stopped at L or H.
    """

    i: int
    j: int
    same_label: bool
    slope: float
    C: float
    L: float
    H: float
    before: tuple
    after: tuple
    unclipped: tuple
    segment: tuple
    lim: tuple
    arrow: int
    clipped: bool


def box_picture(state, y, C):
    """The :class:`BoxPicture` of an :class:`~svmteach.solvers.smo.SMOState` (``y``: the problem's labels
    in {-1, +1}), or None before the first step or when no pair violates (``state.i < 0``)."""
    if state.i is None or state.i < 0 or state.j is None or state.j < 0:
        return None
    C = float(C)
    yi, yj = float(y[state.i]), float(y[state.j])
    slope = -yi * yj  # d alpha_i / d alpha_j along the constraint line

    def on_line(aj):  # alpha_i on the line through the pair before the step
        return float(state.alpha_i_old) + slope * (aj - float(state.alpha_j_old))

    L, H = float(state.L), float(state.H)
    unc = float(state.alpha_j_unclipped)
    lo, hi, arrow = -0.1 * C, 1.1 * C, 0
    if math.isfinite(unc) and max(abs(unc - 0.5 * C), abs(on_line(unc) - 0.5 * C)) <= (0.5 + WIDEN) * C:
        for value in (unc, on_line(unc)):  # widen the view to hold the unclipped point
            lo, hi = min(lo, value - 0.05 * C), max(hi, value + 0.05 * C)
    else:  # too far (or none, eta <= 0): an arrow from the segment's end towards it, along the line
        arrow = 1 if unc > float(state.alpha_j_old) else -1
        end = H if arrow > 0 else L
        tip = end + 0.25 * C * arrow
        for value in (tip, on_line(tip)):
            lo, hi = min(lo, value - 0.05 * C), max(hi, value + 0.05 * C)
    unclipped_point = (unc, on_line(unc) if math.isfinite(unc) else slope * unc)
    new = float(state.alpha_j_new)
    return BoxPicture(i=int(state.i), j=int(state.j), same_label=yi == yj, slope=slope, C=C, L=L, H=H,
                      before=(float(state.alpha_j_old), float(state.alpha_i_old)),
                      after=(new, float(state.alpha_i_new)), unclipped=unclipped_point,
                      segment=((L, on_line(L)), (H, on_line(H))), lim=(lo, hi), arrow=arrow,
                      clipped=not (math.isfinite(unc) and unc == new))


class SMOBoxView:
    """The step of SMO on ``ax``, updated in place by :meth:`update` (see the module docstring).

    Parameters
    ----------
    ax : a matplotlib Axes;  fontsize : the legend's and the labels' size;  legend : draw a legend.
    labelsize : float or None, the title's and the axis labels' size (None: ``rcParams``).
    """

    def __init__(self, ax, fontsize=9, legend=True, labelsize=None):
        from matplotlib.patches import Rectangle

        self.ax = ax
        self._label = {} if labelsize is None else {"fontsize": labelsize}  # title and axis labels
        self.box = ax.add_patch(Rectangle((0, 0), 1, 1, fill=True, facecolor="#deebf7", edgecolor="k", lw=1.2,
                                          zorder=0, label="box [0, C]\u00b2"))
        (self.line,) = ax.plot([], [], color="#3182bd", lw=1, ls="--", zorder=1)
        (self.segment,) = ax.plot([], [], color="#3182bd", lw=3.5, solid_capstyle="butt", zorder=2,
                                  label="segment L \u2264 \u03b1\u2c7c \u2264 H")
        (self.ends,) = ax.plot([], [], "|", color="#3182bd", ms=14, mew=2.5, zorder=2)
        # L and H written beside the segment's ends, a few points away from them
        self.L_text = ax.annotate("L", xy=(0, 0), xytext=(-5, 5), textcoords="offset points", fontsize=fontsize,
                                  annotation_clip=False,
                                  ha="right", va="bottom", color="#08519c", zorder=6)
        self.H_text = ax.annotate("H", xy=(0, 0), xytext=(5, -5), textcoords="offset points", fontsize=fontsize,
                                  annotation_clip=False,
                                  ha="left", va="top", color="#08519c", zorder=6)
        (self.before,) = ax.plot([], [], "o", color="#636363", ms=8, zorder=3, label="pair before")
        (self.vertex,) = ax.plot([], [], "o", mfc="white", mec="k", mew=1.5, ms=9, zorder=4, label="unclipped")
        (self.after,) = ax.plot([], [], "*", color="#d62728", ms=15, zorder=5, label="clipped: pair after")
        self.arrow = ax.annotate("", xy=(0.0, 0.0), xytext=(0.0, 0.0),
                                 arrowprops=dict(arrowstyle="->", color="k", lw=1.5), zorder=6)
        self.arrow_text = ax.text(0.0, 0.0, "", fontsize=fontsize, ha="center", va="bottom", zorder=6)
        self.note = ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", fontsize=fontsize,
                            color="#636363")
        ax.set_aspect("equal", adjustable="box")
        if legend:
            ax.legend(loc="best", fontsize=fontsize, framealpha=0.85)
        # few tick labels: text is most of a redraw
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.ticklabel_format(useOffset=False)  # plain tick labels, never "1e-5+1.439e-1" beside the axis
        self.picture = None

    def handles(self):
        """The markers, for a legend elsewhere (the explorer puts one under its figure)."""
        return [self.before, self.vertex, self.after]

    def update(self, state, y, C):
        """Draw the step of ``state`` (an SMOState) for labels ``y`` and box [0, ``C``]; returns its :class:`BoxPicture`."""
        p = self.picture = box_picture(state, y, C)
        C = float(C)
        self.box.set_width(C)
        self.box.set_height(C)
        if p is None:
            for line in (self.line, self.segment, self.ends, self.before, self.vertex, self.after):
                line.set_data([], [])
            self.L_text.set_text("")
            self.H_text.set_text("")
            self.arrow.set_visible(False)
            self.arrow_text.set_visible(False)
            self.note.set_text("press step:\nthe box of\nthe chosen pair")
            self.ax.set_xlim(-0.1 * C, 1.1 * C)
            self.ax.set_ylim(-0.1 * C, 1.1 * C)
            self.ax.set_xlabel("\u03b1\u2c7c", **self._label)
            self.ax.set_ylabel("\u03b1\u1d62", **self._label)
            self.ax.set_title("the pair's box", **self._label)
            return p
        lo, hi = p.lim
        (L, aL), (H, aH) = p.segment
        # the whole line across the view: alpha_i = aL + slope (alpha_j - L)
        self.line.set_data([lo, hi], [aL + p.slope * (lo - L), aL + p.slope * (hi - L)])
        self.segment.set_data([L, H], [aL, aH])
        self.ends.set_data([L, H], [aL, aH])
        self.L_text.set_text(f"L = {L:.3g}")
        self.L_text.xy = (L, aL)
        self.H_text.set_text(f"H = {H:.3g}")
        self.H_text.xy = (H, aH)
        # beside each end, off the segment (perpendicular to it) and towards the middle of the view, so that
        # "H = 70.8" at the box's right edge is not cut off by the panel's edge: an end in the right half
        # is labelled to its left (ha="right"), one in the left half to its right
        middle = 0.5 * (lo + hi)
        for text, (x, _) in ((self.L_text, (L, aL)), (self.H_text, (H, aH))):
            right = x > middle
            dx = -1 if right else 1
            dy = -dx if p.slope > 0 else dx  # perpendicular to a slope +1 line: (-1, +1); to slope -1: (1, 1)
            text.set_position((5 * dx, 5 * dy))
            text.set_ha("right" if right else "left")
            text.set_va("bottom" if dy > 0 else "top")
        self.before.set_data(*([v] for v in p.before))
        self.after.set_data(*([v] for v in p.after))
        self.vertex.set_data(*(([v] for v in p.unclipped) if p.arrow == 0 else ([], [])))
        self.arrow.set_visible(p.arrow != 0)
        self.arrow_text.set_visible(p.arrow != 0)
        if p.arrow:  # along the line, from the segment's end to 0.25 C further
            end = H if p.arrow > 0 else L
            tail = (end, aL + p.slope * (end - L))
            tip = (end + 0.25 * C * p.arrow, tail[1] + p.slope * 0.25 * C * p.arrow)
            self.arrow.xy, self.arrow.xyann = tip, tail
            unc = p.unclipped[0]
            self.arrow_text.set_position(tip)
            self.arrow_text.set_va("bottom" if tip[1] >= tail[1] else "top")
            self.arrow_text.set_ha("right" if p.arrow > 0 else "left")
            self.arrow_text.set_text(f"unclipped {unc:.3g}" if math.isfinite(unc) else "no vertex")
        self.note.set_text("")
        self.ax.set_xlim(lo, hi)
        self.ax.set_ylim(lo, hi)
        self.ax.set_xlabel(f"\u03b1\u2c7c (j = {p.j})", **self._label)
        self.ax.set_ylabel(f"\u03b1\u1d62 (i = {p.i})", **self._label)
        labels = "y\u1d62 = y\u2c7c, slope \u22121" if p.same_label else "y\u1d62 \u2260 y\u2c7c, slope +1"
        self.ax.set_title(f"pair ({p.i}, {p.j}): {labels}" + (", clipped" if p.clipped else ""), **self._label)
        return p
