"""The Euclidean projection onto a simplex, drawn: beta_hat sorted, its projection and the threshold theta.

The projection of :math:`\\hat\\beta \\in \\mathbb R^k` onto :math:`\\{\\beta \\ge 0,\\ \\mathbf 1^\\top\\beta = z\\}` is

.. math::

    \\beta_m = \\max(\\hat\\beta_m - \\theta,\\ 0), \\qquad \\theta \\text{ such that } \\textstyle\\sum_m \\beta_m = z:

every entry lowered by the same threshold and cut at zero.  The picture draws the entries of
:math:`\\hat\\beta` sorted (largest first) as light bars, the projection beside each as a dark bar, and
:math:`\\theta` as a dashed line: the kept entries are those whose light bar reaches above it, and
each dark bar is the part of its light bar above the line.  A Crammer-Singer block step is such a
projection (:class:`~svmteach.losses.crammer_singer.CSBlock`); :class:`SimplexView` draws one, from a
block or from numbers (the simplex explorer).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from matplotlib.ticker import MaxNLocator

HAT_COLOR, BETA_COLOR = "#9ecae1", "#e6550d"


class SimplexPicture(NamedTuple):
    """What the picture of one projection shows.

    Attributes
    ----------
    beta_hat : (k,) the point projected;  z : float, the mass;  beta : (k,) its projection;
    theta : float, the threshold;  order : (k,) int, the entries sorted by beta_hat, largest first
    (bar m of the picture is entry ``order[m]``);  kept : int, how many entries of beta are positive.
    """

    beta_hat: np.ndarray
    z: float
    beta: np.ndarray
    theta: float
    order: np.ndarray
    kept: int


def simplex_picture(beta_hat, z, beta, theta):
    """The :class:`SimplexPicture` of a projection (NumPy copies; the order is stable for ties)."""
    beta_hat = np.array(beta_hat, dtype=np.float64)
    beta = np.array(beta, dtype=np.float64)
    order = np.argsort(-beta_hat, kind="stable")
    return SimplexPicture(beta_hat=beta_hat, z=float(z), beta=beta, theta=float(theta), order=order,
                          kept=int(np.count_nonzero(beta > 0)))


def block_picture(block):
    """The :class:`SimplexPicture` of a Crammer-Singer block step (a ``CSBlock``), or None when it
    projected nothing: before the first step, a skipped block, or a zero row."""
    if block is None or getattr(block, "beta_hat", None) is None or block.beta is None:
        return None
    from ..backend import to_numpy

    return simplex_picture(to_numpy(block.beta_hat), block.z, to_numpy(block.beta), block.theta)


class SimplexView:
    """A projection onto the simplex on ``ax``, updated in place by :meth:`update`.

    Parameters
    ----------
    ax : a matplotlib Axes.
    fontsize : float, the legend's and the note's size.
    legend : draw a legend of the bars and the line on ``ax``.
    labelsize : float or None, the title's and the axis labels' size (None: ``rcParams``).
    """

    def __init__(self, ax, fontsize=9, legend=True, labelsize=None):
        self.ax = ax
        self._label = {} if labelsize is None else {"fontsize": labelsize}
        self._k = None
        self._hat = self._beta = None
        self.theta_line = ax.axhline(0.0, color="k", ls="--", lw=1.5, zorder=4, label="\u03b8 (threshold)")
        ax.axhline(0.0, color="gray", lw=0.5, zorder=1)
        self.note = ax.text(0.5, 0.5, "", transform=ax.transAxes, ha="center", va="center", fontsize=fontsize,
                            color="#636363")
        ax.set_xlabel("entry, sorted by \u03b2\u0302", **self._label)
        ax.set_ylabel("value", **self._label)
        ax.yaxis.set_major_locator(MaxNLocator(4))
        self._legend = legend
        self._fontsize = fontsize
        self.picture = None

    def handles(self):
        """The bars and the threshold, for a legend elsewhere (the explorer puts one under its figure)."""
        from matplotlib.patches import Patch

        return [Patch(color=HAT_COLOR, label="\u03b2\u0302 (sorted)"), Patch(color=BETA_COLOR, label="\u03b2 = projection"),
                self.theta_line]

    def _bars(self, k):
        """Create the two bar sets for ``k`` entries (once per k)."""
        if self._hat is not None:
            self._hat.remove()
            self._beta.remove()
        x = np.arange(k)
        self._hat = self.ax.bar(x - 0.2, np.zeros(k), 0.4, color=HAT_COLOR, zorder=2)
        self._beta = self.ax.bar(x + 0.2, np.zeros(k), 0.4, color=BETA_COLOR, zorder=3)
        self.ax.set_xticks(x)
        self.ax.set_xlim(-0.6, k - 0.4)
        if self._legend:
            self.ax.legend(handles=self.handles(), loc="upper right", fontsize=self._fontsize, framealpha=0.85)
        self._k = k

    def update(self, picture, title=None, note=""):
        """Draw ``picture`` (a :class:`SimplexPicture`, or None: empty bars and ``note``); returns it."""
        self.picture = picture
        if picture is None:
            if self._hat is not None:
                for bar in (*self._hat, *self._beta):
                    bar.set_height(0.0)
            self.theta_line.set_visible(False)
            self.note.set_text(note)
            self.ax.set_ylim(-1.0, 1.0)
            self.ax.set_title(title or "projection onto the simplex", **self._label)
            return picture
        k = picture.beta_hat.size
        if self._k != k:
            self._bars(k)
        hat, beta = picture.beta_hat[picture.order], picture.beta[picture.order]
        for bar, height in zip(self._hat, hat):
            bar.set_height(height)
        for bar, height in zip(self._beta, beta):
            bar.set_height(height)
        self.theta_line.set_visible(math.isfinite(picture.theta))
        if math.isfinite(picture.theta):
            self.theta_line.set_ydata([picture.theta, picture.theta])
        self.note.set_text(note)
        values = [0.0, *hat, *beta] + ([picture.theta] if math.isfinite(picture.theta) else [])
        lo, hi = min(values), max(values)
        pad = 0.12 * (hi - lo) if hi > lo else 1.0
        self.ax.set_ylim(lo - pad, hi + 2 * pad)  # room above for the legend
        self.ax.set_title(title if title is not None else
                          f"z = {picture.z:.3g}: \u03b8 = {picture.theta:.3g}, {picture.kept} of {k} kept",
                          **self._label)
        return picture
