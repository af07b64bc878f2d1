"""Where an explorer's matplotlib figure lives: the ipympl canvas (a widget, redrawn in place)
when the notebook uses ``%matplotlib widget``, else an ``Output`` widget re-rendered on each refresh."""

from __future__ import annotations

#: Class colours shared by the explorers (up to eight classes).
PALETTE = ("#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b", "#8c6d31", "#17becf")


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
