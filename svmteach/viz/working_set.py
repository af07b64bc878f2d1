"""One step of the working-set solver, drawn: the samples it solved together, and how far their sub-problem went.

A step of :class:`~svmteach.solvers.WorkingSet` takes the next b samples of its epoch's order, computes their
kernel rows at once and solves the dual restricted to their b blocks in memory (the other blocks held fixed), by
epochs of exact block steps, until the sub-problem's largest block violation is ``inner_fraction`` of its first
(or after ``inner_epochs`` epochs); then every score moves by one product.  The picture shows that sub-problem on a
log scale against its inner epochs: its largest block violation in the first inner epoch and in the last (the two
the step records, joined by a dashed line: the epochs between are not recorded), the level at which it stops
(``inner_fraction`` times the first), and along the top the b samples in their class colours, with their indices
(the data panel rings the same samples).  :func:`working_set_picture` is the arithmetic, shared with tests;
:class:`WorkingSetView` creates its artists once and updates them in place.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from matplotlib.ticker import MaxNLocator

from .log_ticks import log10_axis
from .palette import class_colors

START_COLOR, END_COLOR, STOP_COLOR = "#636363", "#d62728", "#31a354"
#: The explorer rings the chosen samples on its data panel in this colour; the strip rings them alike.
RING_COLOR = "gold"
#: A last violation of exactly 0 (the log scale has none) is drawn this many decades under the stop line, and its
#: value printed as it is: "0".
ZERO_DECADES = 1.0
#: At most this many samples are labelled by their index along the top (more would overlap: dots only).
MAX_LABELLED = 12
#: The height (a fraction of the panel) of the strip of samples along the top, kept clear of the curve.
STRIP = 0.3


class WorkingSetStepPicture(NamedTuple):
    """What the picture of one working set shows.

    Attributes
    ----------
    chosen : (b,) int, the samples solved together;  classes : (b,) int, their class indices (colour m is class m).
    start, end : float, the sub-problem's largest block violation in its first and its last inner epoch.
    inner_epochs : int, its epochs;  visits : int, its block visits.
    stop : float, the level it stops at, ``inner_fraction * start``;  max_epochs : int, the most epochs it may take.
    reached : bool, it stopped at ``stop`` (False: after ``max_epochs`` epochs, short of it).
    solved : bool, nothing violated in its first epoch (start 0): the samples were already solved.
    """

    chosen: np.ndarray
    classes: np.ndarray
    start: float
    end: float
    inner_epochs: int
    visits: int
    stop: float
    max_epochs: int
    reached: bool
    solved: bool


def working_set_picture(problem, state, solver):
    """The :class:`WorkingSetStepPicture` of the last step of a :class:`~svmteach.solvers.WorkingSet` state on
    ``problem``, or None when the state shows no step (the start, a warm start)."""
    from ..backend import to_numpy

    chosen = np.asarray(state.chosen, dtype=np.int64)
    if chosen.size == 0 or not math.isfinite(state.start):
        return None
    start, end = float(state.start), float(state.end)
    stop = solver.inner_fraction * start
    return WorkingSetStepPicture(chosen=chosen.copy(), classes=np.asarray(to_numpy(problem.codes))[chosen].astype(int),
                                 start=start, end=end, inner_epochs=int(state.inner_epochs), visits=int(state.visits),
                                 stop=stop, max_epochs=int(solver.inner_epochs), reached=bool(end <= stop),
                                 solved=not start > 0.0)


def log_height(v, zero):
    """Where a violation is drawn: log10 of ``v``, or ``zero`` (a log10 value) where ``v`` is 0."""
    return math.log10(v) if v > 0 else zero


def strip_positions(b):
    """(b,) horizontal places (fractions of the panel's width) of the b samples along the top."""
    if b == 1:
        return np.array([0.5])
    return np.linspace(0.1, 0.9, b) if b > 4 else 0.5 + 0.16 * (np.arange(b) - (b - 1) / 2)


def value_ticks(lo, hi):
    """The ticks of the log10 axis between ``lo`` and ``hi``: whole powers of ten where there are two or more, else
    a few values between (labelled as the values they stand for: :mod:`svmteach.viz.log_ticks`)."""
    ticks = [t for t in MaxNLocator(4, integer=True).tick_values(lo, hi) if lo <= t <= hi]
    if len(ticks) < 2:
        ticks = [t for t in MaxNLocator(3).tick_values(lo, hi) if lo <= t <= hi]
    return ticks


class WorkingSetView:
    """One working set's sub-problem on ``ax`` (see the module docstring), updated in place by :meth:`update`.

    Parameters
    ----------
    ax : a matplotlib Axes;  k : int, the classes (for the colours);  inner_fraction : float, the solver's (the
    stop line's label);  fontsize : float, the notes' and the strip's size;  legend : draw a legend on ``ax``;
    labelsize : float or None, the title's, the axis labels' and the values' size.
    """

    def __init__(self, ax, k, inner_fraction=0.01, fontsize=9, legend=True, labelsize=None):
        self.ax = ax
        self._colors = np.asarray(class_colors(k))
        self._label = {} if labelsize is None else {"fontsize": labelsize}
        (self.line,) = ax.plot([], [], ls="--", color="#9e9e9e", lw=1.5, zorder=2)
        (self.stop_line,) = ax.plot([], [], ls=":", color=STOP_COLOR, lw=2.0, zorder=1,
                                    label=f"its stop: {100 * inner_fraction:g}% of the first")
        (self.first,) = ax.plot([], [], "o", color=START_COLOR, ms=10, zorder=4, label="first inner epoch")
        (self.last,) = ax.plot([], [], "*", color=END_COLOR, ms=17, zorder=5, label="last inner epoch")
        back = dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85)  # over the lines
        self.first_value = ax.annotate("", xy=(0, 0), xytext=(10, 0), textcoords="offset points", ha="left",
                                       va="center", color=START_COLOR, zorder=6, bbox=back, **self._label)
        self.last_value = ax.annotate("", xy=(0, 0), xytext=(-12, 0), textcoords="offset points", ha="right",
                                      va="center", color=END_COLOR, zorder=6, bbox=back, **self._label)
        # ringed in gold as on the data panel: the same samples
        self.samples = ax.scatter([], [], s=fontsize**2, transform=ax.transAxes, zorder=6, clip_on=False,
                                  edgecolors=RING_COLOR, linewidths=1.5)
        self._indices = []
        self._fontsize = fontsize
        self.note = ax.text(0.5, 0.45, "", transform=ax.transAxes, ha="center", va="center", fontsize=fontsize,
                            color="#636363", zorder=7)
        log10_axis(ax.yaxis, nbins=4)
        ax.set_xticks([1, 2])
        ax.set_xlabel("inner epoch of the sub-problem", **self._label)
        ax.set_ylabel("largest violation (log)", **self._label)
        if legend:
            ax.legend(handles=self.handles(), loc="lower left", fontsize=fontsize, framealpha=0.85)
        self.picture = None

    def handles(self):
        """The markers and the stop line, for a legend elsewhere (the explorer puts one under its figure)."""
        return [self.first, self.last, self.stop_line]

    def _strip(self, p):
        """The chosen samples along the top, in their class colours, each with its index under it."""
        for text in self._indices:
            text.remove()
        self._indices = []
        if p is None:
            self.samples.set_offsets(np.empty((0, 2)))
            return
        x = strip_positions(p.chosen.size)
        y = 1.0 - 0.09
        self.samples.set_offsets(np.column_stack([x, np.full(x.size, y)]))
        self.samples.set_facecolors(self._colors[p.classes])
        if p.chosen.size <= MAX_LABELLED:
            self._indices = [self.ax.text(u, y - 0.075, str(i), transform=self.ax.transAxes, ha="center", va="top",
                                          fontsize=self._fontsize, zorder=6) for u, i in zip(x, p.chosen)]

    def update(self, picture, note="press step: a few samples\nsolved together, and\ntheir largest violation\n"
                                   "before and after"):
        """Draw ``picture`` (a :class:`WorkingSetStepPicture`, or None: ``note`` alone); returns it."""
        p = self.picture = picture
        self._strip(p)
        if p is None or p.solved:
            for line in (self.line, self.stop_line, self.first, self.last):
                line.set_data([], [])
            self.first_value.set_text("")
            self.last_value.set_text("")
            self.note.set_text(note if p is None else
                               f"these {p.chosen.size} samples\nwere already solved:\nno violation to remove")
            self.ax.set_xlim(0.5, 2.5)
            self.ax.set_xticks([1, 2])
            self.ax.set_ylim(-3.0, 0.5)  # an axis as a step draws it: the panels are laid out once, before any step
            self.ax.set_yticks(value_ticks(-3.0, 0.5))
            self.ax.set_title("one working set" if p is None else f"{p.chosen.size} samples: already solved",
                              **self._label)
            return p
        self.note.set_text("")
        E = max(p.inner_epochs, 2)
        stop = math.log10(p.stop)
        top, bottom = math.log10(p.start), log_height(p.end, stop - ZERO_DECADES)
        self.first.set_data([1], [top])
        self.last.set_data([p.inner_epochs], [bottom])
        self.line.set_data([1, p.inner_epochs], [top, bottom])
        self.stop_line.set_data([0, E + 1 + E], [stop, stop])
        self.first_value.xy = (1, top)
        self.first_value.set_text(f"{p.start:.2g}")
        self.last_value.xy = (p.inner_epochs, bottom)
        self.last_value.set_text(f"{p.end:.2g}")
        lo, hi = min(bottom, stop), top
        pad = 0.18 * max(hi - lo, 1.0)  # room for the markers (a star at the bottom, the circle's value)
        lo, hi = lo - pad, hi + pad
        margin = 0.5 + 0.05 * E
        self.ax.set_xlim(1 - margin, E + margin)
        self.ax.set_xticks(sorted({1, p.inner_epochs}))  # the two epochs the step records
        self.ax.set_ylim(lo, hi + (hi - lo) * STRIP / (1.0 - STRIP))  # the strip of samples above the curve
        self.ax.set_yticks(value_ticks(lo, hi))  # none beside the strip, which is no value
        epochs = f"{p.inner_epochs} inner epoch{'s' * (p.inner_epochs != 1)}"
        self.ax.set_title(f"{p.chosen.size} samples: {epochs}, {p.visits} visits", **self._label)
        return p
