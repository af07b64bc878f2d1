"""MulticlassExplorer: watch the multiclass solvers on 2-D data with a few classes.

Controls: a log-scale C slider, Weston-Watkins' margin scale M (a log-scale slider, with a line
saying what it does: (M, C) is the problem (1, C M^2), and W = V / M), the kernel and gamma (the binary
explorer's controls, :func:`svmteach.widgets.explorer.kernel_controls`), the loss (every loss of
:mod:`svmteach.losses`) and its solver
(the registry's choices for that loss and kernel, :func:`offered_solvers`), buttons "step", "10 steps", "to
convergence", "reset", a Play widget, and what a click on the plot does (add a point of
the chosen class, or remove the nearest point; shift-click or right-click adds a point
of the next class, ctrl-click removes; dragging a point moves it, the fit following from a warm start).  The
figure shows the class regions (argmax of
the scores, in the class palette of :mod:`svmteach.viz.palette`; with a kernel the scores of a grid point
z are :math:`s_m(z) = \\sum_i A_{im} k(z, x_i)` over the support vectors, from the state through
:func:`svmteach.multiclass_model.point_scores`, so the regions curve), the lines where the two
largest scores tie (:func:`svmteach.viz.regions.draw_score_boundaries`), the samples the last
step visited, ringed in gold (one for the solvers that visit one sample a step; the working set just solved for
``solver="working_set"``, made with :data:`WORKING_SET` samples a step),
the last step as its solver sees it (Weston-Watkins: Shark's moves inside the block as a path
beside the exact block's one jump, :mod:`svmteach.viz.shark_path`; Crammer-Singer: the block's
projection onto the simplex, :mod:`svmteach.viz.simplex`; the working set: its sub-problem's largest violation
in its first and last inner epoch and its samples, :mod:`svmteach.viz.working_set`), each sample's dual weight as a bar,
and the primal and dual on a log scale with the relative gap on its own axis; a legend of the markers under the figure.

Moving C (or M) warm-starts from the solution shown: alpha scaled by C_new / C_old (every loss's
set of feasible blocks is C times a fixed set, so the scaled point is feasible, and the samples
at their bound stay there) and put through ``solver.warm_start``, then re-solved to ``tol``
within the time budget.  At C = 1000 on notebook 6's data that takes some 60 000 sample visits
where a start from the old alpha as it is took 4.8 million (``benchmarks/widgets.py``).  A new kernel or
gamma restarts the run from alpha = 0 (a new problem, a new solver and its kernel-row cache), as in the binary
explorer.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..backend import to_numpy
from ..kernels import canonical_kernel_name
from ..losses import LOSSES, get_loss
from ..losses.crammer_singer import CSBlock
from ..losses.maximum_margin_regression import MMRBlock
from ..losses.weston_watkins import WWBlock
from ..multiclass_model import point_scores
from ..problems import MulticlassProblem
from ..solvers import (MULTICLASS_SOLVERS, MulticlassState, WorkingSetState, make_multiclass_solver,
                       multiclass_solver_names)
from ..solvers.base import check_tol
from ..viz import class_colors, draw_class_regions
from ..viz.palette import MAX_CLASSES
from ..viz.regions import cell_grid, draw_score_boundaries
from ..viz.parabola import ParabolaView
from ..viz.shark_path import STILL, SharkPathView, block_movement
from ..viz.simplex import SimplexView, block_picture
from ..viz.working_set import WorkingSetView, working_set_picture
from .editing import with_point
from .explorer import TIME_BUDGET, SolverExplorer, check_time_budget, kernel_controls, log_slider_range
from .figure import close_lines, style_axes


def offered_solvers(loss: str, kernel: str = "linear") -> tuple:
    """The solvers offered for the loss named ``loss`` and the kernel ``kernel``, the loss's default first: the
    registry's solvers of that loss that take the kernel (``kernels``: the parallel solver takes the linear one
    only) and whose steps can be watched (``explorable``: not the interior-point method's Newton steps)."""
    kernel = canonical_kernel_name(kernel)
    return tuple(name for name in multiclass_solver_names(get_loss(loss))
                 if MULTICLASS_SOLVERS[name].explorable and kernel in MULTICLASS_SOLVERS[name].kernels)


GRID = 70  # points per side of the grid the regions are drawn on
#: The longest "loss (solver)" the data panel's one-line title holds beside the step, C, M and gamma ("Weston-Watkins
#: (parallel)", 25); a longer one ("maximum-margin regression (exact)", whose one line reached the figure's edge;
#: "Weston-Watkins (working_set)", 28, whose one line lost its first letter at the classroom size) takes two lines.
TITLE_HEAD = 26
#: The step panel's view for each loss's block picture (a loss without one gets a note that says so).
STEP_VIEWS = {WWBlock: SharkPathView, CSBlock: SimplexView, MMRBlock: ParabolaView}
#: Samples the working-set solver solves together in the explorer: its default of 256 is every point of a 2-D data
#: set of tens of points in one step, which shows nothing; 8 a step is a few steps an epoch, each a few rings.
WORKING_SET = 8
#: The parameters the explorer gives a solver, by name, beyond the loss, kernel and seed (the rest its defaults).
SOLVER_PARAMS = {"working_set": {"working_set": WORKING_SET}}


class MulticlassExplorer(SolverExplorer):
    """An interactive explorer of the multiclass solvers.

    Parameters
    ----------
    X, y : 2-D points and their labels (2 to 8 classes).
    C : positive float (one outside the slider's 1e-3..1e3 widens its range rather than being clamped);
    loss : {"ww", "cs", "llw", "mmr"};  solver : a solver of that loss (see :func:`offered_solvers`);
    M : float, WW's margin scale (0.1 to 10 on its slider);  kernel : {"linear", "gaussian", "polynomial",
    "laplacian"} (or "rbf", "poly"), with ``degree=3, coef0=1`` as in the binary explorer;  gamma : positive float
    (1e-2..1e2 on its slider, widened to hold it; greyed out with the linear kernel, which has none);
    tol : positive, the relative gap "to convergence" stops at;
    random_state : int;  time_budget : seconds one press of "to convergence" or one move of C
    may run before it stops short (and says so);  size : {"notebook", "classroom", "wide"} or None (None: "notebook", or
    "classroom" after ``svmteach.classroom()``), the
    figure's width and fonts (:data:`svmteach.widgets.figure.SIZES`).

    Attributes
    ----------
    widget : what to display.  sliders, buttons, dropdowns : dicts of the controls by name.
    play : the ipywidgets.Play driving animation.  state : the solver state shown (measured).
    problem : the MulticlassProblem being solved.  history : list of (n_iter, primal, dual, gap).
    narration : the line under the figure (:func:`~svmteach.widgets.narration.narrate` of the state shown).
    m_text : the HTML line under the M slider.  step_view : the picture of the last step in ``ax_step``
    (a SharkPathView, a SimplexView, a ParabolaView, a WorkingSetView, or None where the solver's step has no
    picture here).
    """

    def __init__(self, X, y, C=1.0, loss="ww", solver=None, M=1.0, kernel="linear", gamma=1.0, tol=1e-4,
                 random_state=0, time_budget=TIME_BUDGET, size=None):
        import ipywidgets as w

        self.X = np.array(X, dtype=np.float64)
        self.y = np.asarray(y)
        if self.X.ndim != 2 or self.X.shape[1] != 2:
            raise ValueError(f"X must hold 2-D points (shape (n, 2)) to be drawn, got shape {self.X.shape}")
        get_loss(loss)  # a ValueError naming loss
        narrow = dict(layout=w.Layout(width="auto"), style={"description_width": "initial"})
        kernel_dropdown, gamma_slider = kernel_controls(kernel, gamma, narrow)  # ValueErrors naming kernel, gamma
        choices = offered_solvers(loss, kernel_dropdown.value)
        solver = solver if solver is not None else choices[0]
        if solver not in choices:
            raise ValueError(f"solver must be one of {choices} for loss {loss!r} and kernel "
                             f"{kernel_dropdown.value!r}, got {solver!r}")
        self.labels = np.unique(self.y)
        if not 2 <= len(self.labels) <= MAX_CLASSES:
            raise ValueError(f"y must have 2 to {MAX_CLASSES} classes to be drawn, got {len(self.labels)}")
        if isinstance(M, bool) or not isinstance(M, (int, float, np.integer, np.floating)) or not 0.1 <= M <= 10:
            raise ValueError(f"M must be a number between 0.1 and 10 (the M slider's range), got {M!r}")
        self.tol, self.random_state = check_tol(tol, "tol", positive=True), random_state
        self.time_budget = check_time_budget(time_budget)
        self.size = size
        self._switching = False
        C, C_low, C_high = log_slider_range("C", C, -3, 3)
        self.sliders = {"C": w.FloatLogSlider(value=C, base=10, min=C_low, max=C_high, step=0.05, description="C",
                                              continuous_update=False),
                        "M": w.FloatLogSlider(value=M, base=10, min=-1, max=1, step=0.05, description="M",
                                              continuous_update=False),
                        "gamma": gamma_slider}
        self.m_text = w.HTML()  # set in lines a line apart (figure.close_lines), beside gamma
        self.dropdowns = {
            "kernel": kernel_dropdown,
            "loss": w.Dropdown(options=tuple(LOSSES), value=loss, description="loss"),
            "solver": w.Dropdown(options=choices, value=solver, description="solver"),
            "click": w.Dropdown(options=[f"add {c}" for c in self.labels] + ["remove"],
                                value=f"add {self.labels[0]}", description="click"),
        }
        for name in ("loss", "solver", "click"):
            self.dropdowns[name].layout, self.dropdowns[name].style = w.Layout(width="auto"), narrow["style"]
        # C and M side by side, and under M what M does, beside gamma
        self._start([(self.sliders["C"], self.sliders["M"]), (self.sliders["gamma"], self.m_text),
                     w.HBox([self.dropdowns[name] for name in ("kernel", "loss", "solver")],
                            layout=w.Layout(flex_flow="row wrap"))],
                    step_view=True)
        self.sliders["C"].observe(lambda ch: self._on_C(ch["old"]), names="value")
        self.sliders["M"].observe(lambda ch: self._on_C(self.problem.C), names="value")
        self.dropdowns["loss"].observe(lambda ch: self._on_loss(), names="value")
        self.dropdowns["kernel"].observe(lambda ch: self._on_loss(keep=True), names="value")
        self.sliders["gamma"].observe(lambda ch: self._rebuild(), names="value")
        self.dropdowns["solver"].observe(lambda ch: None if self._switching else self._rebuild(), names="value")

    # ---- model -------------------------------------------------------------------------------
    def _make_solver(self):
        name = self.dropdowns["solver"].value
        return make_multiclass_solver(name, get_loss(self.dropdowns["loss"].value), self.random_state,
                                      kernel=self.dropdowns["kernel"].value, **SOLVER_PARAMS.get(name, {}))

    @property
    def M(self):
        """Weston-Watkins' margin scale, the M slider's value."""
        return float(self.sliders["M"].value)

    def _problem_on(self, X, y):
        """The problem of the controls (C, loss, M, kernel, gamma) on the data ``(X, y)``: the course's problem,
        without an intercept (no bias column, no :math:`B^2` added to the kernel)."""
        return MulticlassProblem(X, y, C=self.sliders["C"].value, loss=self.dropdowns["loss"].value, M=self.M,
                                 kernel=self.dropdowns["kernel"].value, gamma=self.sliders["gamma"].value,
                                 degree=3, coef0=1.0)

    def _new_problem(self):
        return self._problem_on(self.X, self.y)

    def _rebuild(self, redraw=True):
        self.problem = self._new_problem()
        self._describe_M()
        self.sliders["gamma"].disabled = self.problem.kernel.is_linear  # the linear kernel has no gamma
        self.reset(redraw)

    def _describe_M(self):
        """The line under the M slider: what M does (Weston-Watkins only)."""
        if not self.problem.loss_object.uses_M:
            self.sliders["M"].disabled = True
            self.m_text.value = close_lines(f"<small>M is Weston-Watkins' margin scale; the "
                                            f"{self.problem.loss_object.title} loss has none.</small>")
            return
        self.sliders["M"].disabled = False
        M, C = self.problem.M, self.problem.C
        self.m_text.value = close_lines(f"<small>M rescales C: with V = M W the problem (M, C) = ({M:.3g}, {C:.3g}) "
                                        f"is the problem (1, C M²) = (1, {C * M * M:.3g}); the same classifier, "
                                        f"with W = V / M.</small>")

    def _on_loss(self, keep=False):
        """A new loss brings its own solvers; the first one is chosen.  A new kernel (``keep``) keeps the solver
        shown if it takes the kernel (the parallel solver takes the linear one only), else the first.  Then a
        fresh run: a new kernel is a new problem with its own kernel-row cache, so the run restarts at alpha = 0."""
        self._switching = True  # the solver list changes its value: rebuild once, below
        try:
            shown = self.dropdowns["solver"].value
            choices = offered_solvers(self.dropdowns["loss"].value, self.dropdowns["kernel"].value)
            self.dropdowns["solver"].options = choices
            self.dropdowns["solver"].value = shown if keep and shown in choices else choices[0]
        finally:
            self._switching = False
        self._rebuild()

    def _on_C(self, old_C):
        """A new C or M: warm-start from the solution shown, re-solve to ``tol`` and redraw once.

        The dual is scaled into the new box, alpha C_new / C_old (every loss's feasible set of a block is
        C times a fixed set, so this stays feasible and keeps the samples at their bound there), then
        ``solver.warm_start`` checks it and recomputes W; the curves start again there.  At a fixed C
        (a move of M) alpha stays: (M, C) is (1, C M^2) with alpha' = M^2 alpha, so the same rule
        applied to C M^2 and undone leaves alpha as it was.
        """
        old_C = float(old_C)
        self.problem = self._new_problem()
        self._describe_M()
        alpha = self.state.alpha * (self.problem.C / old_C)
        self.state = self.solver.warm_start(self.problem, self.state._replace(alpha=alpha))
        self.history = [self._record()]
        start = int(self.state.n_iter)
        self.converge()
        self.status.value += f" <i>(warm start from the solution at C = {old_C:.3g}, alpha scaled by {self.problem.C / old_C:.3g})</i>"
        if not self.state.gap <= self.tol:
            epochs = (int(self.state.n_iter) - start) / self.problem.n_samples
            self.status.value += (f" <i>Not converged: {epochs:.0f} epochs closed the gap to {self.state.gap:.1e} within "
                                  f"the time budget; a large C widens the box [0, C], and the coordinate steps need "
                                  f"more epochs to settle the samples that are not at a bound.</i>")

    def _add_clicked(self, x1, x2, mode, other):
        """The class chosen under "click" (the first in "remove" mode), or the next one for a shift/right click."""
        index = 0 if mode == "remove" else [f"add {c}" for c in self.labels].index(mode)
        self.add_point(x1, x2, self.labels[(index + 1) % len(self.labels)] if other else self.labels[index])

    def add_point(self, x1, x2, label):
        """Add a training point of class ``label`` (one of the labels present) and go on from the solution
        shown (:meth:`_add_with_warm_start`); the point is ringed by a black square."""
        if label not in self.labels:
            raise ValueError(f"label must be one of the classes {list(self.labels)}, got {label!r}")
        self._add_with_warm_start(*with_point(self.X, self.y, x1, x2, label))

    # ---- drawing -------------------------------------------------------------------------------
    def _init_artists(self):
        """Create the artists once per data set and solver; :meth:`redraw` only updates them.  New data for the same
        solver and loss (a point added, removed or dragged) keeps the legend and the panels' places: its markers and
        titles are those already laid out (a drag redraws many times a second)."""
        X, codes, k = self.X, to_numpy(self.problem.codes), self.problem.k
        same_kind = getattr(self, "_artists_for", (None, None, None))[1:] == (type(self.solver), self.problem.loss)
        self._xlim, self._ylim = self._data_box(X, 0.7)
        self._grid = cell_grid(self._xlim, self._ylim, GRID)
        for ax in (self.ax_data, self.ax_step, self.ax_alpha, self.ax_curve):
            ax.clear()
        self._lines = []
        self._regions = draw_class_regions(self.ax_data, np.zeros((GRID, GRID), dtype=int),
                                           (*self._xlim, *self._ylim), k)
        colors = np.asarray(class_colors(k))[codes]
        self._points = self.ax_data.scatter(X[:, 0], X[:, 1], c=colors, s=40, zorder=3, edgecolors="none")
        self._visited = self.ax_data.scatter([], [], s=220, facecolors="none", edgecolors="gold", linewidths=2.5,
                                             zorder=4)
        self._added = self._added_marker()
        self.ax_data.set_xlim(self._xlim)
        self.ax_data.set_ylim(self._ylim)
        self.ax_data.set_aspect("equal")
        self.ax_data.set_xticks([])  # as in svm-toy: the plane needs no coordinates
        self.ax_data.set_yticks([])
        style_axes(self.ax_data, self.size, xlabel="x\u2081", ylabel="x\u2082")
        self._bars = self.ax_alpha.bar(np.arange(len(codes)), np.zeros(len(codes)), color=colors)
        self._C_line = self.ax_alpha.axhline(self.problem.C, color="red", lw=0.8, ls="--")
        self.ax_alpha.set_xticks([])
        style_axes(self.ax_alpha, self.size, title="each sample's dual weight (dashed: its bound)",
                   xlabel="sample i", ylabel="dual weight")
        self._init_curves()
        self._init_step_view()
        if not (same_kind and self._legend is not None):
            self._figure_legend(self._legend_handles())
        self._artists_for = (self.X, type(self.solver), self.problem.loss)
        # a new step view after the first layout: the panels are placed again once this redraw has set
        # their titles (the first layout is _start's)
        self._relayout = hasattr(self, "widget") and not same_kind

    def _init_step_view(self):
        """The panel of the last step: Weston-Watkins' block (Shark's path and the exact jump), the
        Crammer-Singer block's simplex projection, maximum-margin regression's parabola (:data:`STEP_VIEWS`), the
        working set's sub-problem (:mod:`svmteach.viz.working_set`), or a note saying that the step has no picture
        here."""
        ax, font = self.ax_step, self.size.font - 1
        loss = self.problem.loss_object
        View = STEP_VIEWS.get(loss.Block) if isinstance(self.state, MulticlassState) else None
        if isinstance(self.state, WorkingSetState):  # b samples a step: their sub-problem, whatever the loss
            self.step_view = WorkingSetView(ax, self.problem.k, inner_fraction=self.solver.inner_fraction,
                                            fontsize=font, legend=False, labelsize=self.size.font)
        elif View is not None:  # the view of the loss's block picture
            self.step_view = View(ax, fontsize=font, legend=False, labelsize=self.size.font)
            if View is ParabolaView:
                ax.set_xlabel("\u03b1 of the sample at its class", fontsize=self.size.font)
        else:
            self.step_view = None
            what = ("the parallel solver moves\nevery block at once:\nsee the bars below"
                    if not isinstance(self.state, MulticlassState) else
                    f"{loss.title}: each step\nsolves one sample's block\nexactly (no picture of it here)")
            ax.text(0.5, 0.5, what, transform=ax.transAxes, ha="center", va="center", fontsize=self.size.font,
                    color="#636363")
            ax.set_xticks([])
            ax.set_yticks([])
        style_axes(ax, self.size)

    def _legend_handles(self):
        """The markers' meanings: the classes, support vectors, the visited sample, and the step view's."""
        from matplotlib.lines import Line2D

        k = self.problem.k
        handles = [Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor=c, markeredgecolor="none",
                          label=f"class {label}") for c, label in zip(class_colors(k), self.labels)]
        handles.append(Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor="#bdbdbd",
                              markeredgecolor="black", markeredgewidth=1.5, label="support vector"))
        ring = ("sample just visited" if isinstance(self.state, MulticlassState) else
                "working set just solved" if isinstance(self.state, WorkingSetState) else None)
        if ring is not None:
            handles.append(Line2D([], [], ls="none", marker="o", markersize=13, markerfacecolor="none",
                                  markeredgecolor="gold", markeredgewidth=2.5, label=ring))
        return handles + (self.step_view.handles() if self.step_view is not None else []) + [self._added_handle()]

    def scores_of(self, Z, alpha=None, W=None):
        """(len(Z), k) scores of the points ``Z`` under the state shown (or ``alpha`` and its model ``W``, the
        solver's ``coefficients``): :func:`svmteach.multiclass_model.point_scores`, :math:`w_m^\\top z`, or with a
        kernel :math:`\\sum_i A_{im} k(z, x_i)` over the support vectors (the state keeps S, not W)."""
        if alpha is None:
            alpha, W = self.solver.coefficients(self.problem, self.state)
        return point_scores(self.problem, alpha, W, Z)

    def sample_weights(self, alpha=None):
        """(n,) each sample's dual weight, as the loss defines it (``dual_weights``): :math:`\\sum_{j \\ne y_i}
        \\alpha_{ij}` (WW, LLW) or :math:`\\alpha_i^{y_i}` (CS), between 0 and the loss's ``dual_weight_bound``;
        0 for a sample that is not a support vector."""
        if alpha is None:
            alpha = self.solver.coefficients(self.problem, self.state)[0]
        return to_numpy(self.problem.loss_object.dual_weights(self.problem, self.problem.xp.asarray(alpha)))

    def visited(self):
        """The samples the last step visited, as a list of indices: the solvers that visit one sample a step
        document it as their state's ``i`` (-1 before the first step: none); the working-set solver's are its
        state's ``chosen`` (empty before the first step); ParallelBlock updates every sample at once and
        highlights none."""
        if isinstance(self.state, WorkingSetState):
            return [int(i) for i in self.state.chosen]
        if not isinstance(self.state, MulticlassState):  # ParallelBlock moves every sample at once
            return []
        i = self.state.i
        return [int(i)] if i is not None and i >= 0 else []

    def redraw(self):
        """Update the figure in place: regions, the visited sample, bars, the gap curve, the status."""
        drawn = getattr(self, "_artists_for", (None, None, None))
        if drawn[0] is not self.X or drawn[1] is not type(self.solver) or drawn[2] != self.problem.loss:
            self._init_artists()  # new data (self.X is replaced by an edit), solver or loss; not a move of C
        s = self.state
        alpha, W = self.solver.coefficients(self.problem, s)  # the solver's own (n, k) duals and (k, 2) weights or S
        xx, yy, grid = self._grid
        scores = self.scores_of(grid, alpha, W)  # the region of z is argmax_m s_m(z)
        region = np.argmax(scores, axis=1).reshape(xx.shape)
        self._regions.set_data(region)
        for artist in self._lines:
            artist.remove()
        # the boundaries from the scores (where the two largest tie), not a contour of the class numbers
        self._lines = draw_score_boundaries(self.ax_data, xx, yy, scores)
        weights = self.sample_weights(alpha)
        support = weights > 1e-12
        self._points.set_edgecolors(np.where(support, "black", "none"))
        self._points.set_linewidths(np.where(support, 1.5, 0.0))
        self._show_added()
        i = self.visited()
        self._visited.set_offsets(self.X[i] if i else np.empty((0, 2)))
        name = self.dropdowns["solver"].value
        M = f", M = {self.problem.M:.3g}" if self.problem.loss_object.uses_M else ""
        gamma = "" if self.problem.kernel.is_linear else f", \u03b3 = {self.problem.kernel.gamma:.3g}"
        head = f"{self.problem.loss_object.title} ({name})"
        # a long loss title (maximum-margin regression's) puts the step on a line of its own, the same at every step
        # so that the panels, placed once, stay clear of it
        sep = ",\n" if len(head) > TITLE_HEAD else ", "
        self.ax_data.set_title(f"{head}{sep}step {s.n_iter}: C = {self.problem.C:.3g}{M}{gamma}", fontsize=self.size.font)
        for bar, height in zip(self._bars, weights):
            bar.set_height(height)
        top = self.problem.loss_object.dual_weight_bound(self.problem)
        self._C_line.set_ydata([top, top])
        self.ax_alpha.set_ylim(0, 1.05 * top)
        self._update_curves()
        self._update_step_view()
        self.status.value = (f"<b>{self.problem.loss_object.title}, {name}</b> step {s.n_iter}: primal {s.primal:.5g}, "
                             f"dual {s.dual:.5g}, relative gap {s.gap:.2e}, KKT violation {s.kkt:.2e}, "
                             f"{int(support.sum())} support vectors{self.step_text()}")
        self._narrate()
        if getattr(self, "_relayout", False):
            self._relayout = False
            self._layout()
        self._figure_view.refresh()

    def _update_step_view(self):
        if isinstance(self.step_view, WorkingSetView):
            b = self.solver.block_size(self.problem)
            self.step_view.update(working_set_picture(self.problem, self.state, self.solver),
                                  note=f"press step: {b} samples\nsolved together, and\ntheir largest violation\n"
                                       "before and after")
        elif isinstance(self.step_view, SharkPathView):
            self.step_view.update(self.problem, self.state)
        elif isinstance(self.step_view, SimplexView):
            block = self.state.block
            picture = block_picture(block)
            note = ("press step: the visited\nsample's block, projected\nonto the simplex" if self.state.i < 0 else
                    "block skipped:\nalready optimal" if block.skipped else "a zero row:\nnothing projected")
            title = (f"sample {self.state.i}: z = {picture.z:.3g}, \u03b8 = {picture.theta:.3g}, "
                     f"{picture.kept} of {picture.beta.size} kept" if picture is not None else None)
            self.step_view.update(picture, title=title, note="" if picture is not None else note)
        elif isinstance(self.step_view, ParabolaView):  # a one-variable block: the dual along alpha_{i y_i}
            i = int(self.state.i)
            C = float(to_numpy(self.problem.C_i)[i]) if i >= 0 else float(self.problem.C)
            self.step_view.update(SimpleNamespace(i=i, **self.state.block._asdict()), C)

    def step_text(self):
        """What the last step did, in words (for the status line), from the step view's picture."""
        p = getattr(self.step_view, "picture", None)
        if p is None:
            return ""
        if isinstance(self.step_view, WorkingSetView):
            if p.solved:
                return f"; working set of {p.chosen.size} samples: already solved (no violation)"
            epochs = f"{p.inner_epochs} inner epoch{'s' * (p.inner_epochs != 1)}"
            cap = "" if p.reached else f", its cap, short of its stop at {p.stop:.2g}"
            return (f"; working set of {p.chosen.size} samples: its largest violation {p.start:.2g} \u2192 {p.end:.2g} "
                    f"in {epochs} ({p.visits} block visits{cap})")
        if isinstance(self.step_view, SharkPathView):
            gap = float(np.abs(p.shark_after - p.exact_after).max())
            ran = "Shark's moves ran" if p.ran == "shark" else "the exact block ran"
            if block_movement(p) <= STILL * p.C:
                return f"; sample {p.i} ({ran}): this block is already optimal (neither solver moves it)"
            return (f"; sample {p.i} ({ran}): Shark's {len(p.moves_j)} moves end {gap:.1e} from the exact "
                    f"block (largest entry)")
        if isinstance(self.step_view, ParabolaView):
            return f"; sample {p.i}: its multiplier \u03b1_iy {p.old:.3g} \u2192 {p.clipped:.3g}"
        return f"; sample {self.state.i}: projection onto mass z = {p.z:.3g}, threshold \u03b8 = {p.theta:.3g}"
