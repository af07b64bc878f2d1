"""What the two solver explorers share: the step buttons, Play, the run loops, click editing, the figure.

A subclass (:class:`~svmteach.widgets.BinaryExplorer`, :class:`~svmteach.widgets.MulticlassExplorer`)
defines its sliders and dropdowns, ``_make_solver``, ``_problem_on(X, y)`` (the problem of its
controls on that data), ``_rebuild`` (a new problem, then ``reset``), ``add_point`` and ``redraw``; it sets
``size`` (:func:`~svmteach.widgets.figure.check_size`) and calls :meth:`_start` once its controls exist.

The figure is a 2 x 2 grid: the data (``ax_data``), the solver's own step (``ax_step``: the
parabola of dual coordinate ascent, the box of SMO's pair, ... ; with ``step_view=False`` the data
panel takes the whole left column instead), the dual variables (``ax_alpha``) and the primal,
dual and gap curves (``ax_curve``), with a legend of the markers below (:meth:`_figure_legend`).
Its width and fonts follow ``size``; the sliders are as wide as the figure.
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np

from ..backend import one_blas_thread
from ..validation import check_positive
from .editing import ADD, REMOVE, click_action, without_nearest
from .figure import (
    FIGURE_DPI,
    Displayed,
    ExplorerBox,
    FigureView,
    check_size,
    figure_inches,
    fix_layout,
    paste_legend,
    style_axes,
)

BUTTONS = ("step", "10 steps", "to convergence", "reset")

#: Seconds of solver work that one press of "to convergence" (or one move of C) may take: a slow
#: method (the subgradient method at C = 1000 needs millions of steps) stops there and says so,
#: and the notebook answers again.  Pressing "to convergence" goes on from where it stopped.
TIME_BUDGET = 3.0


def check_time_budget(value):
    """A positive number of seconds (``math.inf``: no limit), or raise naming ``time_budget``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"time_budget must be a positive number of seconds, got {type(value).__name__} {value!r}")
    if not value > 0:  # also refuses NaN
        raise ValueError(f"time_budget must be a positive number of seconds, got {value!r}")
    return float(value)


def log_slider_range(name, value, low, high):
    """``(value, low, high)``: ``value`` as a positive finite float (else a TypeError / ValueError naming
    ``name``) and the exponents of a log slider's range ``[10**low, 10**high]`` widened to hold it: the
    slider would otherwise clamp it without a word (C = 1e6 to 1000)."""
    value = check_positive(value, name)
    exponent = math.log10(value)
    low, high = min(low, math.floor(exponent)), max(high, math.ceil(exponent))
    if 10.0 ** low > value:  # log10 and pow round: keep the value inside
        low -= 1
    if 10.0 ** high < value:
        high += 1
    return value, low, high


class SolverExplorer(Displayed):
    """Base of the solver explorers (see the module docstring)."""

    #: the figure size by name (``"notebook"``, ``"classroom"``, ``"wide"``); a subclass sets it from its ``size=``
    size = "notebook"

    def _start(self, rows, step_view=False):
        """Create the buttons, Play, status and figure, build the problem, and lay out ``rows`` above them.

        ``step_view``: the figure has a panel for the solver's step (``ax_step``).
        """
        import ipywidgets as w

        self.size = check_size(self.size)
        self._compiled = set()  # (solver, loss, kernel) whose fast path ran here (_compile_first)
        self.buttons = {name: w.Button(description=name, layout=w.Layout(width="auto")) for name in BUTTONS}
        self.play = w.Play(value=0, min=0, max=10_000, interval=300, description="animate")
        self.status = w.HTML(layout=w.Layout(width=f"{self.size.width_px}px"))
        for slider in self.sliders.values():  # long sliders: one a row, as wide as the figure
            slider.layout = w.Layout(width=f"{self.size.width_px}px")
            slider.style = {"description_width": "60px"}
        self._figure(step_view)
        self._rebuild()
        self._layout()  # once the first artists (titles, labels, legend) exist
        self._figure_view.refresh()
        self.buttons["step"].on_click(lambda _: self.step(1))
        self.buttons["10 steps"].on_click(lambda _: self.step(10))
        self.buttons["to convergence"].on_click(lambda _: self.converge())
        self.buttons["reset"].on_click(lambda _: self.reset())
        self.play.observe(lambda ch: self.step(1) if ch["new"] else None, names="value")
        wrap = w.Layout(flex_flow="row wrap", width=f"{self.size.width_px}px")
        controls = w.VBox([*rows, w.HBox([*self.buttons.values(), self.play], layout=wrap), self.dropdowns["click"],
                           self.status])
        self.widget = ExplorerBox([controls, self._figure_view.view])

    # ---- running the solver ------------------------------------------------------------------
    def reset(self, redraw=True):
        """A fresh solver and its starting state (measured), then redraw."""
        self.solver = self._make_solver()
        self.state = self.solver.measure(self.problem, self.solver.init(self.problem))
        self.history = [self._record()]
        if redraw:
            self.redraw()

    def _record(self):
        s = self.state
        return (s.n_iter, s.primal, s.dual, s.gap)

    def step(self, n=1):
        """Take ``n`` steps of the step-by-step solver (each state measured) and redraw."""
        with one_blas_thread():
            for _ in range(int(n)):
                self.state = self.solver.measure(self.problem, self.solver.step(self.problem, self.state))
                self.history.append(self._record())
            self.redraw()

    def converge(self, max_steps=None, max_seconds=None):
        """Run the fast path, an epoch at a time, until the relative duality gap is at most ``tol``.

        One call does a bounded amount of work: it also stops after ``max_steps`` steps (None: no
        step limit) or once it has run ``max_seconds`` seconds (default: the explorer's
        ``time_budget``), checked after each epoch (the first epoch always runs, so every
        call makes progress however busy the machine), and then the status line says how far it got
        and why it stopped.  Calling it again goes on from there.  The first run of a solver for a loss
        or kernel compiles its fast path first (:meth:`_compile_first`), outside the time budget.
        """
        budget = self.time_budget if max_seconds is None else check_time_budget(max_seconds)
        compiled = self._compile_first()
        start, t0, why = int(self.state.n_iter), time.perf_counter(), None
        with one_blas_thread():
            while not self.state.gap <= self.tol:
                taken = int(self.state.n_iter) - start
                if math.isnan(self.state.gap):
                    why = "the gap is NaN"
                elif max_steps is not None and taken >= max_steps:
                    why = f"the step limit of {max_steps}"
                elif taken > 0 and time.perf_counter() - t0 >= budget:  # every press makes progress
                    why = f"the time budget of {budget:g} s"
                if why:
                    break
                chunk = self.solver.steps_between_measures(self.problem)
                if max_steps is not None:
                    chunk = min(chunk, max_steps - taken)
                self.state = self.solver.measure(self.problem,
                                                 self.solver.advance(self.problem, self.state, chunk, self.tol))
                self.history.append(self._record())
            self.redraw()
        if why:
            self.status.value += (f" <i>(stopped at {why}, {int(self.state.n_iter) - start} steps this time, short "
                                  f"of the gap {self.tol:g}: press 'to convergence' to go on)</i>")
        if compiled >= 0.5:
            self.status.value += (f" <i>(the fast path was compiled first, {compiled:.0f} s, not counted in the "
                                  "time budget)</i>")

    def _compile_first(self) -> float:
        """Run the solver's fast path once on a tiny problem of the same kind (two points of each class),
        before the clock of the time budget starts, and return the seconds it took.

        Numba compiles a solver's epoch for each loss (or kernel) on its first call, which takes seconds:
        that must not be counted as solving, nor leave the notebook silent, so the status line says
        "compiling" meanwhile.  Once per solver and loss or kernel in this explorer (a later run is
        quick: numba keeps what it compiled).
        """
        key = (type(self.solver), getattr(self.problem, "loss", None),
               getattr(getattr(self.problem, "kernel", None), "name", None))
        if key in self._compiled:
            return 0.0
        self.status.value = (f"<b>compiling</b> the fast path of {type(self.solver).__name__} for this problem "
                             "(its first run in this session: some seconds; not counted in the time budget) ...")
        t0 = time.perf_counter()
        labels = np.unique(self.y)
        keep = np.concatenate([np.flatnonzero(self.y == label)[:2] for label in labels])
        tiny = self._problem_on(self.X[keep], self.y[keep])
        state = self.solver.advance(tiny, self.solver.init(tiny), 2 * self.solver.steps_between_measures(tiny),
                                    self.tol)
        self.solver.measure(tiny, state)
        self._compiled.add(key)
        return time.perf_counter() - t0

    # ---- editing the data by clicking --------------------------------------------------------
    def remove_point(self, x1, x2):
        """Remove the point nearest to ``(x1, x2)`` (never the last of its class) and restart the solver;
        a ValueError naming ``x1, x2`` (and nothing removed) unless both are finite numbers."""
        self.X, self.y, removed = without_nearest(self.X, self.y, x1, x2)
        if removed is None:
            self.status.value = "that point is the last of its class: it stays"
            return
        self._rebuild()

    def _on_click(self, event):
        """Add or remove a point where the data panel was clicked (see :func:`editing.click_action`)."""
        if event.inaxes is not self.ax_data or event.xdata is None:
            return
        mode = self.dropdowns["click"].value
        action, other = click_action(event, (REMOVE, None) if mode == "remove" else (ADD, False))
        if action == REMOVE:
            self.remove_point(event.xdata, event.ydata)
        else:
            self._add_clicked(event.xdata, event.ydata, mode, bool(other))

    # ---- the figure ------------------------------------------------------------------------------
    def _init_curves(self):
        """Primal, dual and relative gap against steps, as log10 on a linear axis labelled in powers
        of ten (a log-scale axis costs more to lay out than the rest of the figure together)."""
        from matplotlib.ticker import FuncFormatter, MaxNLocator

        ax = self.ax_curve
        self._curves = [ax.plot([], [], color=c, lw=1.2, label=label)[0]
                        for c, label in (("#3182bd", "primal"), ("#e6550d", "dual"), ("#31a354", "relative gap"))]
        ax.yaxis.set_major_locator(MaxNLocator(5, integer=True))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"1e{int(round(v))}"))
        ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
        # the colours named in the title: a legend box would cost a tenth of a redraw
        style_axes(ax, self.size, title="primal (blue), dual (orange), gap (green)", xlabel="steps",
                   ylabel="log scale")

    def _update_curves(self):
        h = np.array(self.history, dtype=float)  # (n_iter, primal, dual, gap)
        with np.errstate(divide="ignore", invalid="ignore"):
            for line, column in zip(self._curves, (1, 2, 3)):
                values = h[:, column] if column < 3 else np.maximum(h[:, 3], 1e-16)
                line.set_data(h[:, 0], np.where(values > 0, np.log10(values), np.nan))  # a dual <= 0 is not drawn
        self.ax_curve.relim()
        self.ax_curve.autoscale_view()
        if h[-1, 0] - h[0, 0] < 1:  # one state: a unit of steps, not a range of -0.03 .. 0.03
            self.ax_curve.set_xlim(h[0, 0] - 0.05, h[0, 0] + 1.05, auto=None)  # auto=None: autoscaling stays on

    def _figure(self, step_view):
        """The figure (2 x 2 panels, see the module docstring), ``size.width_px`` wide."""
        import matplotlib.pyplot as plt

        with plt.ioff():
            self.fig = plt.figure(figsize=figure_inches(self.size), dpi=FIGURE_DPI)
        grid = self.fig.add_gridspec(2, 2, width_ratios=(1.1, 1))
        if step_view:
            self.ax_data, self.ax_step = self.fig.add_subplot(grid[0, 0]), self.fig.add_subplot(grid[0, 1])
            self.ax_alpha = self.fig.add_subplot(grid[1, 0])
        else:
            self.ax_data, self.ax_step = self.fig.add_subplot(grid[:, 0]), None
            self.ax_alpha = self.fig.add_subplot(grid[0, 1])
        self.ax_curve = self.fig.add_subplot(grid[1, 1])
        self._legend = None
        self._figure_view = FigureView(self.fig)
        if self._figure_view.live:
            self.fig.canvas.mpl_connect("button_press_event", self._on_click)

    def _figure_legend(self, handles):
        """A legend of ``handles`` (the markers' meanings) under the panels, replacing the previous one
        (:func:`~svmteach.widgets.figure.paste_legend`)."""
        if self._legend is not None:
            self._legend.remove()
        self._legend = paste_legend(self.fig, handles, self.size)

    def _layout(self):
        """Place the panels once, clear of the legend, then fix them (:func:`~svmteach.widgets.figure.fix_layout`)."""
        fix_layout(self.fig, self._legend)
