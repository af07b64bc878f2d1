"""What the two solver explorers share: the step buttons, Play, the run loops, click and drag editing, the figure.

A subclass (:class:`~svmteach.widgets.BinaryExplorer`, :class:`~svmteach.widgets.MulticlassExplorer`)
defines its sliders and dropdowns, ``_make_solver``, ``_problem_on(X, y)`` (the problem of its
controls on that data), ``_rebuild`` (a new problem, then ``reset``), ``add_point`` and ``redraw``; it sets
``size`` (:func:`~svmteach.widgets.figure.check_size`) and calls :meth:`_start` once its controls exist.

The figure is a 2 x 2 grid: the data (``ax_data``), the solver's own step (``ax_step``: the
parabola of dual coordinate ascent, the box of SMO's pair, ... ; with ``step_view=False`` the data
panel takes the whole left column instead), the dual variables (``ax_alpha``) and the primal and
dual curves (``ax_curve``) with the relative gap on its own axis on the right (``ax_gap``), with a legend of
the markers below (:meth:`_figure_legend`), and under the figure one sentence on the step shown (``narration``,
:mod:`~svmteach.widgets.narration`).  A point added by a click keeps the solution shown (a warm
start, the new point's alpha = 0) and is ringed by a black square.  A point dragged (pressed on, moved,
released: :meth:`SolverExplorer._on_press`) moves with the mouse, the fit following from a warm start of the
solution shown (:meth:`SolverExplorer.move_point`); a press released where it was is the click it always was.
Its width and fonts follow ``size``; the sliders are as wide as the figure.
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np

from ..backend import one_blas_thread, to_numpy
from ..solvers.base import check_max_iter
from ..validation import check_positive
from ..viz.regions import data_box, label_text
from .editing import ADD, REMOVE, click_action, nearest_within, with_point_moved, without_nearest
from .narration import narrate
from .figure import (
    FIGURE_DPI,
    Displayed,
    ExplorerBox,
    FigureView,
    StatusLine,
    check_size,
    figure_inches,
    fix_layout,
    paste_legend,
    style_axes,
)

BUTTONS = ("step", "10 steps", "to convergence", "reset")
#: The curves' colours: primal, dual, relative gap.
PRIMAL_COLOR, DUAL_COLOR, GAP_COLOR = "#3182bd", "#e6550d", "#31a354"

#: Seconds of solver work that one press of "to convergence" (or one move of C) may take: a slow
#: method (the subgradient method at C = 1000 needs millions of steps) stops there and says so,
#: and the notebook answers again.  Pressing "to convergence" goes on from where it stopped.
TIME_BUDGET = 3.0

#: The figure's height over its width.  With the controls above it (two rows of sliders, the dropdowns, the
#: buttons with the click control, the status line: 150-190 px) a "notebook" explorer's figure, 580 x 452 px,
#: fits whole under them in the notebook of a 1024 x 768 JupyterLab window (about 650 px high); at 0.92, and
#: a row for each slider and for the click control, its lower panels were out of view while its controls
#: were in view.  (The "classroom" size, for a projector, is taller than such a window at any aspect that
#: keeps its panels readable: it is scrolled.)
ASPECT = 0.78

#: A press at most this many pixels from a point picks it up for a drag (a press farther away is a click).
PICK_RADIUS_PX = 8
#: While a point is dragged, the fit follows at most every DRAG_INTERVAL seconds, each time from a warm start and
#: for at most DRAG_SECONDS of solving; the release solves to ``tol`` within the time budget.
DRAG_INTERVAL, DRAG_SECONDS = 0.15, 0.25

#: The kernels both solver explorers offer (:mod:`svmteach.kernels`' canonical names), in their dropdown's order.
KERNELS = ("linear", "gaussian", "polynomial", "laplacian")


def kernel_controls(kernel, gamma, narrow):
    """``(dropdown, slider)``: the kernel dropdown and gamma's log slider (1e-2..1e2, widened to hold ``gamma``:
    :func:`log_slider_range`) of both solver explorers, one behaviour for both; ``narrow`` the dropdown's
    layout and style.  ``kernel`` may be an alias ("rbf", "poly"): the dropdown shows its canonical name."""
    import ipywidgets as w

    from ..kernels import canonical_kernel_name

    kernel = canonical_kernel_name(kernel)  # "rbf" -> "gaussian", "poly" -> "polynomial"
    gamma, gamma_low, gamma_high = log_slider_range("gamma", gamma, -2, 2)
    return (w.Dropdown(options=KERNELS, value=kernel, description="kernel", **narrow),
            w.FloatLogSlider(value=gamma, base=10, min=gamma_low, max=gamma_high, step=0.05, description="gamma",
                             continuous_update=False))


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

        A row that is a tuple of widgets is laid out as one row of equal shares of the figure's width (two
        sliders side by side); a widget alone is as wide as the figure.  The buttons, Play and the click
        control share the row under them, so that the controls and the whole figure fit in a 1024 x 768
        window (:data:`ASPECT`).
        ``step_view``: the figure has a panel for the solver's step (``ax_step``).
        """
        import ipywidgets as w

        self.size = check_size(self.size)
        self._compiled = set()  # (solver, loss, kernel) whose fast path ran here (_compile_first)
        self.buttons = {name: w.Button(description=name, layout=w.Layout(width="auto")) for name in BUTTONS}
        self.play = w.Play(value=0, min=0, max=10_000, interval=300, description="animate",
                           show_repeat=False,  # play and stop: a repeat button is 40 px of the row for nothing
                           layout=w.Layout(width="auto"))
        self.status = StatusLine(layout=w.Layout(width=f"{self.size.width_px}px"))
        # under the figure: what the step shown did and why, in a sentence (narration.narrate)
        self.narration = StatusLine(layout=w.Layout(width=f"{self.size.width_px}px"))
        for slider in self.sliders.values():  # long sliders: as wide as the figure, or as their share of a row
            slider.layout = w.Layout(width=f"{self.size.width_px}px")
            slider.style = {"description_width": "50px"}
        rows = [self._share_row(row) if isinstance(row, tuple) else row for row in rows]
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
        controls = w.VBox([*rows, w.HBox([*self.buttons.values(), self.play, self.dropdowns["click"]], layout=wrap),
                           self.status])
        self.widget = ExplorerBox([controls, self._figure_view.view, self.narration])

    def _share_row(self, widgets):
        """One row of ``widgets``, each an equal share of the figure's width."""
        import ipywidgets as w

        share = f"{self.size.width_px // len(widgets) - 4}px"  # 4 px: the gap between two widgets
        for widget in widgets:
            widget.layout.width = share
        return w.HBox(list(widgets), layout=w.Layout(width=f"{self.size.width_px}px"))

    # ---- running the solver ------------------------------------------------------------------
    def reset(self, redraw=True):
        """A fresh solver and its starting state (measured), then redraw."""
        self.solver = self._make_solver()
        self.state = self.solver.measure(self.problem, self.solver.init(self.problem))
        self.history = [self._record()]
        if redraw:
            self.redraw()

    def _narrate(self):
        """Set the line under the figure to the state's narration (:func:`~svmteach.widgets.narration.narrate`:
        what its step did and why, the gap and how many samples still violate KKT)."""
        self.narration.value = narrate(self.solver, self.problem, self.state)

    def _record(self):
        s = self.state
        return (s.n_iter, s.primal, s.dual, s.gap)

    def step(self, n=1):
        """Take ``n`` steps of the step-by-step solver (each state measured) and redraw."""
        n = check_max_iter(n, "n")  # a positive integer, or an error naming n
        with one_blas_thread():
            for _ in range(n):
                self.state = self.solver.measure(self.problem, self.solver.step(self.problem, self.state))
                self.history.append(self._record())
            self.redraw()

    def converge(self, max_steps=None, max_seconds=None):
        """Run the fast path, an epoch at a time, until the relative duality gap is at most ``tol``.

        One call does a bounded amount of work: it also stops after ``max_steps`` steps (None: no
        step limit) or once it has run ``max_seconds`` seconds (default: the explorer's
        ``time_budget``), checked after each epoch (the first epoch always runs, so every
        call makes progress however busy the machine), and then the status line says how far it got
        and why it stopped.  Calling it again goes on from there; on a state already within ``tol`` it
        runs nothing and the status line says "already converged" with the gap.  The first run of a
        solver for a loss or kernel compiles its fast path first (:meth:`_compile_first`), outside the
        time budget.
        """
        budget = self.time_budget if max_seconds is None else check_time_budget(max_seconds)
        max_steps = None if max_steps is None else check_max_iter(max_steps, "max_steps")
        if self.state.gap <= self.tol:  # nothing to run: say so, or the press seems to do nothing
            self.redraw()
            self.status.value += (f" <i>(already converged: gap {self.state.gap:.2e} \u2264 tol {self.tol:g}; "
                                  "'step' still takes steps, 'reset' starts again)</i>")
            return
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
    #: the point the last click added (drawn ringed by a black square), or None
    added_point = None

    def _warm_start_on(self, X, y, alpha):
        """Take the data ``(X, y)`` and go on from ``alpha`` (feasible for it): ``solver.warm_start`` on a fresh
        state of the new problem carrying that alpha and the step count (its gradient, or W, recomputed for the
        new data), measured; the curves go on."""
        previous = self.state
        self.X, self.y = X, y
        self.problem = self._problem_on(X, y)
        fresh = self.solver.init(self.problem)
        start = fresh._replace(alpha=self.problem.xp.asarray(alpha), n_iter=previous.n_iter)
        self.state = self.solver.measure(self.problem, self.solver.warm_start(self.problem, start))
        self.history.append(self._record())

    def _add_with_warm_start(self, X, y):
        """Take the data ``(X, y)`` (the old data and one new point, last) and go on from the solution shown.

        The old alpha with alpha = 0 for the new point is feasible for the new problem (the new
        point's dual variable at its lower bound; SMO's y' alpha = 0 unchanged), so the run goes on
        from there (:meth:`_warm_start_on`), and the next steps show how the solver takes the new point in.
        Restarting at alpha = 0 threw the solution away and hid what one point changes.
        """
        n = len(self.y)
        alpha = np.asarray(to_numpy(self.state.alpha), dtype=np.float64)
        alpha = np.concatenate([alpha, np.zeros((len(y) - n, *alpha.shape[1:]))])
        self._warm_start_on(X, y, alpha)
        self.added_point = (float(X[-1, 0]), float(X[-1, 1]))
        self.redraw()
        self.status.value += (f" <i>(point added at ({X[-1, 0]:.2f}, {X[-1, 1]:.2f}), class {label_text(y[-1])}, ringed by a "
                              "black square: warm start from the solution shown, its \u03b1 = 0)</i>")

    def _added_marker(self):
        """The (empty) square that rings the point a click added, on the data panel."""
        return self.ax_data.scatter([], [], marker="s", s=260, facecolors="none", edgecolors="black",
                                    linewidths=1.8, zorder=4)

    def _show_added(self):
        """Ring the point the last click added (none before a click)."""
        at = np.empty((0, 2)) if self.added_point is None else np.array([self.added_point])
        self._added.set_offsets(at)

    @staticmethod
    def _added_handle():
        """The legend's entry of the added point's ring."""
        from matplotlib.lines import Line2D

        return Line2D([], [], ls="none", marker="s", markersize=12, markerfacecolor="none", markeredgecolor="black",
                      markeredgewidth=1.8, label="point added by a click")

    def remove_point(self, x1, x2):
        """Remove the point nearest to ``(x1, x2)`` (never the last of its class) and restart the solver;
        a ValueError naming ``x1, x2`` (and nothing removed) unless both are finite numbers."""
        self.X, self.y, removed = without_nearest(self.X, self.y, x1, x2)
        if removed is None:
            self.status.value = "that point is the last of its class: it stays"
            return
        self.added_point = None
        self._rebuild()

    # ---- dragging a point ----------------------------------------------------------------------
    #: the point held by a drag: ``(index, press event, moved)``, or None
    _drag = None
    #: the data panel's limits held while a point is dragged (the panel must not rescale under the mouse), or None
    _held_box = None
    #: when the fit last followed a drag (``time.perf_counter()``)
    _drag_fit_at = -math.inf
    #: where the mouse was last seen in the data panel while the fit waited (DRAG_INTERVAL), or None
    _pending = None

    def move_point(self, i, x1, x2, max_seconds=None):
        """Move point ``i`` to ``(x1, x2)`` and go on from the solution shown, as a drag does.

        The alpha shown stays feasible (the box [0, C_i], SMO's y' alpha = 0 and each multiclass block's set
        do not depend on where a point is), so the run goes on from it (:meth:`_warm_start_on`: the gradient or
        W recomputed for the moved point), then "to convergence" within ``max_seconds`` (default: the explorer's
        ``time_budget``).  A ValueError naming ``x1, x2`` (and nothing moved) unless both are finite numbers.
        """
        X = with_point_moved(self.X, i, x1, x2)
        if self.added_point is not None and np.array_equal(self.X[i], self.added_point):
            self.added_point = (float(X[i, 0]), float(X[i, 1]))  # the ring follows the point it marks
        self._warm_start_on(X, self.y, np.asarray(to_numpy(self.state.alpha), dtype=np.float64))
        self.converge(max_seconds=max_seconds)
        self.status.value += (f" <i>(point {i} moved to ({X[i, 0]:.2f}, {X[i, 1]:.2f}): warm start from the solution "
                              "shown)</i>")

    def _data_box(self, X, pad):
        """The data panel's ``(xlim, ylim)``: those held by a drag, else :func:`~svmteach.viz.regions.data_box`."""
        return self._held_box if self._held_box is not None else data_box(X, pad)

    def _on_press(self, event):
        """A press on the data panel: with the left button and no key, on a point (within :data:`PICK_RADIUS_PX`
        pixels), pick it up for a drag (:meth:`_on_motion`, :meth:`_on_release`); anywhere else, the click of
        :meth:`_on_click` (add, remove)."""
        if event.inaxes is not self.ax_data or event.xdata is None:
            return
        if event.button == 1 and not event.key:
            i = nearest_within(self.ax_data.transData.transform(self.X), (event.x, event.y), PICK_RADIUS_PX)
            if i is not None:
                self._drag = (i, event, False)
                self._held_box = (self.ax_data.get_xlim(), self.ax_data.get_ylim())
                self._drag_fit_at = -math.inf
                return
        self._on_click(event)

    def _on_motion(self, event):
        """The mouse moved: a point held follows it, and the fit follows from a warm start
        (:meth:`move_point`, within :data:`DRAG_SECONDS`) at most every :data:`DRAG_INTERVAL` seconds, so that
        the events of a quick drag do not queue up behind the fits."""
        if self._drag is None or event.inaxes is not self.ax_data or event.xdata is None:
            return
        i, press, _ = self._drag
        self._drag = (i, press, True)
        if time.perf_counter() - self._drag_fit_at < DRAG_INTERVAL:
            self._pending = (event.xdata, event.ydata)  # the release takes it
            return
        self._pending = None
        self.move_point(i, event.xdata, event.ydata, max_seconds=DRAG_SECONDS)
        self._drag_fit_at = time.perf_counter()

    def _on_release(self, event):
        """The mouse button was released: a point dragged lands where the mouse is (or where it was last in the
        data panel) and the fit goes on to ``tol`` (within the time budget); a press released without a move was
        a click (:meth:`_on_click`)."""
        if self._drag is None:
            return
        (i, press, moved), self._drag = self._drag, None
        try:
            if not moved:
                self._on_click(press)
                return
            if event.inaxes is self.ax_data and event.xdata is not None:
                at = (event.xdata, event.ydata)
            else:
                at = self._pending or tuple(self.X[i])
            if np.array_equal(np.asarray(at, dtype=np.float64), self.X[i]):  # where the last motion's fit left it
                if not self.state.gap <= self.tol:
                    self.converge()
            else:
                self.move_point(i, *at)
        finally:
            self._held_box = None
            self._pending = None

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
        """Primal and dual against steps on ``ax_curve``, the relative gap on its own axis (``ax_gap``, on the
        right, in green): the objectives are absolute values (12.0, 2000), the gap a ratio (1 at the start,
        ``tol`` at the end), and one axis made the gap read as an objective.  Both are log10 on a linear axis
        labelled in powers of ten (a log-scale axis costs more to lay out than the rest of the figure together)."""
        from matplotlib.ticker import MaxNLocator

        from ..viz.log_ticks import log10_axis

        ax, gap_ax = self.ax_curve, self.ax_gap
        gap_ax.clear()
        gap_ax.yaxis.tick_right()  # clear() puts a twin's ticks back on the left
        gap_ax.yaxis.set_label_position("right")
        gap_ax.patch.set_visible(False)
        self._curves = [ax.plot([], [], color=c, lw=1.2, label=label)[0]
                        for c, label in ((PRIMAL_COLOR, "primal"), (DUAL_COLOR, "dual"))]
        self._curves.append(gap_ax.plot([], [], color=GAP_COLOR, lw=1.2, label="relative gap")[0])
        for a in (ax, gap_ax):
            log10_axis(a.yaxis)  # labels that never repeat, whatever span the values cover (viz.log_ticks)
        ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
        # the colours named in the title and the labels: a legend box would cost a tenth of a redraw
        style_axes(ax, self.size, title="primal (blue), dual (orange)", xlabel="steps",
                   ylabel="objective (log scale)")
        style_axes(gap_ax, self.size, title="", ylabel="relative gap (green)")
        gap_ax.yaxis.label.set_color(GAP_COLOR)
        gap_ax.tick_params(axis="y", colors=GAP_COLOR)

    def _update_curves(self):
        h = np.array(self.history, dtype=float)  # (n_iter, primal, dual, gap)
        with np.errstate(divide="ignore", invalid="ignore"):
            for line, column in zip(self._curves, (1, 2, 3)):
                values = h[:, column] if column < 3 else np.maximum(h[:, 3], 1e-16)
                line.set_data(h[:, 0], np.where(values > 0, np.log10(values), np.nan))  # a dual <= 0 is not drawn
        for ax in (self.ax_curve, self.ax_gap):
            ax.relim()
            ax.autoscale_view()
        if h[-1, 0] - h[0, 0] < 1:  # one state: a unit of steps, not a range of -0.03 .. 0.03
            self.ax_curve.set_xlim(h[0, 0] - 0.05, h[0, 0] + 1.05, auto=None)  # auto=None: autoscaling stays on

    def _figure(self, step_view):
        """The figure (2 x 2 panels, see the module docstring), ``size.width_px`` wide."""
        import matplotlib.pyplot as plt

        with plt.ioff():
            self.fig = plt.figure(figsize=figure_inches(self.size, ASPECT), dpi=FIGURE_DPI)
        grid = self.fig.add_gridspec(2, 2, width_ratios=(1.1, 1))
        if step_view:
            self.ax_data, self.ax_step = self.fig.add_subplot(grid[0, 0]), self.fig.add_subplot(grid[0, 1])
            self.ax_alpha = self.fig.add_subplot(grid[1, 0])
        else:
            self.ax_data, self.ax_step = self.fig.add_subplot(grid[:, 0]), None
            self.ax_alpha = self.fig.add_subplot(grid[0, 1])
        self.ax_curve = self.fig.add_subplot(grid[1, 1])
        self.ax_gap = self.ax_curve.twinx()  # the relative gap's own axis (see _init_curves)
        self._legend = None
        self._figure_view = FigureView(self.fig)
        # press, drag and release on the data panel (an Agg canvas never sends these: a test sends them itself)
        for name, handler in (("button_press_event", self._on_press), ("motion_notify_event", self._on_motion),
                              ("button_release_event", self._on_release)):
            self.fig.canvas.mpl_connect(name, handler)

    def _figure_legend(self, handles):
        """A legend of ``handles`` (the markers' meanings) under the panels, replacing the previous one
        (:func:`~svmteach.widgets.figure.paste_legend`)."""
        if self._legend is not None:
            self._legend.remove()
        self._legend = paste_legend(self.fig, handles, self.size)

    def _layout(self):
        """Place the panels once, clear of the legend, then fix them (:func:`~svmteach.widgets.figure.fix_layout`)."""
        fix_layout(self.fig, self._legend)
