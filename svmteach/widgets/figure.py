"""Where an explorer's matplotlib figure lives: the ipympl canvas (a widget, redrawn in place)
when the notebook uses ``%matplotlib widget``, else an ``Output`` widget re-rendered on each refresh."""

from __future__ import annotations

#: Class colours shared by the explorers (up to eight classes).
PALETTE = ("#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b", "#8c6d31", "#17becf")


#: 840 x 280 pixels for the explorers' 10.5 x 3.5 inch figures: a notebook's width, and a
#: third fewer pixels for Agg to fill than at 100 dpi
FIGURE_DPI = 80


def plot_grid(X, pad, resolution):
    """``(xlim, ylim, (xx, yy, points))``: the box around 2-D points ``X`` (with ``pad``) and a
    ``resolution x resolution`` grid over it, its points as rows (for decision functions)."""
    import numpy as np

    X = np.asarray(X)
    xlim = (X[:, 0].min() - pad, X[:, 0].max() + pad)
    ylim = (X[:, 1].min() - pad, X[:, 1].max() + pad)
    xx, yy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    return xlim, ylim, (xx, yy, np.column_stack([xx.ravel(), yy.ravel()]))


class FigureView:
    """``view`` is the widget to put in the layout; :meth:`refresh` shows the figure's current state."""

    def __init__(self, fig):
        import ipywidgets as w

        self.fig = fig
        self.live = isinstance(fig.canvas, w.DOMWidget)  # ipympl
        self.view = fig.canvas if self.live else w.Output()
        if self.live:  # the explorer's controls say what the figure is: no "Figure 1" header
            fig.canvas.header_visible = False

    def refresh(self):
        if self.live:
            self.fig.canvas.draw_idle()
            return
        from IPython.display import display

        self.view.clear_output(wait=True)
        with self.view:
            display(self.fig)
