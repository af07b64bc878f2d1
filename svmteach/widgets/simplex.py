"""SimplexProjectionExplorer: the projection onto {beta >= 0, sum beta = z} that a Crammer-Singer
block update performs (seed 002, 'Simplex' and 'Sorting'), with a slider for z.

The entries of beta_hat are drawn sorted, with their projection beside them and the threshold
theta: beta = max(beta_hat - theta, 0), theta chosen so that the projection sums to z.
"""

from __future__ import annotations

import numpy as np

from ..projections import project_simplex_sort
from .figure import Displayed, ExplorerBox, FigureView


class SimplexProjectionExplorer(Displayed):
    """Explore the simplex projection of ``beta_hat`` as z changes.

    Attributes
    ----------
    widget : what to display;  sliders : {"z"};  buttons : {"random point"};
    state : dict with ``beta_hat``, ``z``, ``beta`` (the projection), ``theta`` and ``support``.
    """

    def __init__(self, beta_hat=(2.5, 1.8, 0.9, 0.4, -0.3), z=4.0, seed=0):
        import ipywidgets as w
        import matplotlib.pyplot as plt

        self.beta_hat = np.asarray(beta_hat, dtype=np.float64)
        if self.beta_hat.ndim != 1 or self.beta_hat.size < 2:
            raise ValueError(f"beta_hat must be a 1-D vector of at least 2 entries, got shape {self.beta_hat.shape}")
        self._rng = np.random.default_rng(seed)
        self.sliders = {"z": w.FloatSlider(value=float(z), min=0.1, max=10.0, step=0.1, description="z",
                                           continuous_update=False)}
        self.buttons = {"random point": w.Button(description="random point")}
        self.status = w.HTML()
        with plt.ioff():
            self.fig, self.ax = plt.subplots(figsize=(6, 3.5))
        self._figure_view = FigureView(self.fig)
        self.sliders["z"].observe(lambda ch: self.update(), names="value")
        self.buttons["random point"].on_click(lambda _: self.new_point())
        self._artists = None
        self.update()
        self.widget = ExplorerBox([w.HBox([self.sliders["z"], self.buttons["random point"]]), self.status, self._figure_view.view])

    def new_point(self):
        """A fresh beta_hat (normal entries, scaled by 2) of the same length."""
        self.beta_hat = 2.0 * self._rng.normal(size=self.beta_hat.size)
        self._artists = None
        self.update()

    def update(self):
        z = float(self.sliders["z"].value)
        beta = project_simplex_sort(self.beta_hat[None, :], z)[0]
        support = beta > 0
        theta = float((self.beta_hat[support] - beta[support]).mean())
        self.state = {"beta_hat": self.beta_hat.copy(), "z": z, "beta": beta, "theta": theta, "support": support}
        order = np.argsort(-self.beta_hat)
        k = self.beta_hat.size
        if self._artists is None:  # create once per point, then update in place
            self.ax.clear()
            hat = self.ax.bar(np.arange(k) - 0.2, self.beta_hat[order], 0.4, color="#9ecae1", label="beta_hat, sorted")
            proj = self.ax.bar(np.arange(k) + 0.2, beta[order], 0.4, color="#e6550d", label="projection")
            line = self.ax.axhline(theta, color="k", ls="--", label="theta")
            self.ax.axhline(0, color="gray", lw=0.5)
            self.ax.legend(fontsize=7, loc="upper right")
            self._artists = (hat, proj, line)
        _, proj, line = self._artists
        for bar, height in zip(proj, beta[order]):
            bar.set_height(height)
        line.set_ydata([theta, theta])
        lo = min(0.0, self.beta_hat.min(), theta) - 0.3
        hi = max(self.beta_hat.max(), beta.max(), theta) + 0.3
        self.ax.set_ylim(lo, hi)
        self.ax.set_title(f"z = {z:.2f}: theta = {theta:.3f}, {int(support.sum())} of {k} entries kept")
        self.status.value = f"sum of the projection = {beta.sum():.4f} (= z)"
        self._figure_view.refresh()
