"""SimplexProjectionExplorer: the projection onto {beta >= 0, sum beta = z} that a Crammer-Singer
block update performs (Blondel, Fujino and Ueda 2014), with a slider for z.

The entries of beta_hat are drawn sorted, with their projection beside them and the threshold
theta: beta = max(beta_hat - theta, 0), theta chosen so that the projection sums to z.  The
picture is :class:`~svmteach.viz.simplex.SimplexView`, the one the multiclass explorer draws for
each Crammer-Singer block step.
"""

from __future__ import annotations

import numpy as np

from ..projections import project_simplex_sort
from ..viz.simplex import SimplexView, simplex_picture
from .narration import simplex_sentence
from .figure import (FIGURE_DPI, Displayed, ExplorerBox, FigureView, StatusLine, check_size, figure_inches, fix_layout,
                     style_axes)

#: The figure's height over its width (one panel of bars, its title, its legend and its x label).
ASPECT = 0.6


class SimplexProjectionExplorer(Displayed):
    """Explore the simplex projection of ``beta_hat`` as z changes.

    Parameters
    ----------
    beta_hat : the point projected (at least 2 entries);  z : the simplex's mass (0.1 to 10 on the slider);
    seed : of the "random point" button;  size : {"notebook", "classroom", "wide"} or None (None: "notebook", or
    "classroom" after ``svmteach.classroom()``), the figure's width and
    fonts (:data:`svmteach.widgets.figure.SIZES`), as for the other explorers.

    Attributes
    ----------
    widget : what to display;  sliders : {"z"};  buttons : {"random point"};  narration : the line under the
    figure (:func:`~svmteach.widgets.narration.simplex_sentence`);
    state : dict with ``beta_hat``, ``z``, ``beta`` (the projection), ``theta`` and ``support``.
    """

    def __init__(self, beta_hat=(2.5, 1.8, 0.9, 0.4, -0.3), z=4.0, seed=0, size=None):
        import ipywidgets as w
        import matplotlib.pyplot as plt

        self.beta_hat = np.asarray(beta_hat, dtype=np.float64)
        if self.beta_hat.ndim != 1 or self.beta_hat.size < 2:
            raise ValueError(f"beta_hat must be a 1-D vector of at least 2 entries, got shape {self.beta_hat.shape}")
        self._rng = np.random.default_rng(seed)
        self.size = check_size(size)
        wide = w.Layout(width=f"{self.size.width_px}px")
        self.sliders = {"z": w.FloatSlider(value=float(z), min=0.1, max=10.0, step=0.1, description="z",
                                           continuous_update=False)}
        self.buttons = {"random point": w.Button(description="random point")}
        self.status = StatusLine(layout=wide)
        self.narration = StatusLine(layout=wide)  # under the figure: the projection in a sentence
        with plt.ioff():  # its size in pixels and its fonts those of the other explorers (the x label was cut)
            self.fig, self.ax = plt.subplots(figsize=figure_inches(self.size, ASPECT), dpi=FIGURE_DPI)
        self._figure_view = FigureView(self.fig)
        self.view = SimplexView(self.ax, fontsize=self.size.font - 1, labelsize=self.size.font)
        style_axes(self.ax, self.size)
        self.sliders["z"].observe(lambda ch: self.update(), names="value")
        self.buttons["random point"].on_click(lambda _: self.new_point())
        self.update(refresh=False)
        fix_layout(self.fig)  # once, with the first title and labels in place
        self._figure_view.refresh()
        self.widget = ExplorerBox([w.HBox([self.sliders["z"], self.buttons["random point"]]), self.status, self._figure_view.view,
                                   self.narration])

    @property
    def _artists(self):
        """``(beta_hat bars, projection bars, theta line)`` as drawn (created once per length, updated in place)."""
        return self.view._hat, self.view._beta, self.view.theta_line

    def new_point(self):
        """A fresh beta_hat (normal entries, scaled by 2) of the same length."""
        self.beta_hat = 2.0 * self._rng.normal(size=self.beta_hat.size)
        self.update()

    def update(self, refresh=True):
        """Project ``beta_hat`` onto the simplex of mass z (the slider's) and redraw."""
        z = float(self.sliders["z"].value)
        beta = project_simplex_sort(self.beta_hat[None, :], z)[0]
        support = beta > 0
        theta = float((self.beta_hat[support] - beta[support]).mean())
        self.state = {"beta_hat": self.beta_hat.copy(), "z": z, "beta": beta, "theta": theta, "support": support}
        self.view.update(simplex_picture(self.beta_hat, z, beta, theta))
        self.status.value = f"sum of the projection = {beta.sum():.4f} (= z)"
        self.narration.value = simplex_sentence(self.state)
        if refresh:
            self._figure_view.refresh()
