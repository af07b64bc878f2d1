"""Where an explorer's matplotlib figure lives, and how an explorer shows itself in a notebook.

The figure is the ipympl canvas (a widget, redrawn in place) when the notebook uses
``%matplotlib widget``, else an ``Output`` widget re-rendered on each refresh.  An explorer's
display is its widget's; its plain-text part (what GitHub, nbviewer or a terminal show for a
cell that has not run in a live kernel) is :data:`HINT` instead of ``VBox(children=...)``.
"""

from __future__ import annotations

import ipywidgets as w

#: 840 x 280 pixels for the explorers' 10.5 x 3.5 inch figures: a notebook's width, and a
#: third fewer pixels for Agg to fill than at 100 dpi
FIGURE_DPI = 80

#: The plain-text form of every explorer (and of its ``widget``).
HINT = "Interactive explorer: run this notebook in JupyterLab (svmteach lab) to use it"


def with_hint(bundle):
    """A display bundle with its text/plain part replaced by :data:`HINT`."""
    if bundle is None:
        return None
    return {**bundle, "text/plain": HINT}


class ExplorerBox(w.VBox):
    """The ``VBox`` an explorer is laid out in; it displays as the box does, with :data:`HINT` as its plain text."""

    def _repr_mimebundle_(self, **kwargs):
        return with_hint(super()._repr_mimebundle_(**kwargs))


class Displayed:
    """Mixin: an explorer displays as its ``widget`` (a notebook cell may end with the explorer itself)."""

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class FigureView:
    """``view`` is the widget to put in the layout; :meth:`refresh` shows the figure's current state."""

    def __init__(self, fig):
        self.fig = fig
        self.live = isinstance(fig.canvas, w.DOMWidget)  # ipympl
        self.view = fig.canvas if self.live else w.Output()
        if self.live:  # the explorer's controls say what the figure is: no "Figure 1" header
            fig.canvas.header_visible = False
        else:
            # the Output widget shows the figure: pyplot must forget it, or the next plt.show()
            # of an inline notebook prints a stray copy under some later cell.  Closing leaves the
            # figure a bare canvas: an Agg canvas renders it from then on.
            import matplotlib.pyplot as plt
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            plt.close(fig)
            FigureCanvasAgg(fig)

    def refresh(self):
        if self.live:
            self.fig.canvas.draw_idle()
            return
        from IPython.display import display

        self.view.clear_output(wait=True)
        with self.view:
            display(self.fig)
