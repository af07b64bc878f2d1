"""Where an explorer's matplotlib figure lives, and how an explorer shows itself in a notebook.

The figure is the ipympl canvas (a widget, redrawn in place) when the notebook uses
``%matplotlib widget``, else an ``Output`` widget re-rendered on each refresh.  An explorer's
display is its widget's; its plain-text part (what GitHub, nbviewer or a terminal show for a
cell that has not run in a live kernel) is :data:`HINT` instead of ``VBox(children=...)``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import ipywidgets as w
import traitlets

#: Dots per inch of the explorers' figures: a pixel of the canvas is a pixel of the page
#: (ipympl draws the figure at its size in pixels), and a third fewer pixels for Agg to fill than at 100 dpi
FIGURE_DPI = 80


class FigureSize(NamedTuple):
    """An explorer's figure size: its width in pixels (height: the explorer's aspect) and its fonts in points.

    At :data:`FIGURE_DPI` a font of ``p`` points is ``p * FIGURE_DPI / 72`` pixels high.
    """

    name: str
    width_px: int
    font: float  # titles, axis labels, legends
    ticks: float  # tick labels


#: The named sizes of the ``size=`` option of every explorer.  ipympl draws a canvas at a fixed size
#: in pixels, so each fits a window:
#: ``"notebook"`` (the default): 580 px, inside the notebook column of a 1024 px wide JupyterLab
#: window with its side bar open (592 px there);  ``"classroom"``: for a projector, 840 px wide
#: (a 1024 px window with the side bar closed) with tick labels of 13 pt, 14.4 px;  ``"wide"``:
#: 1400 px, a 1920 px window's notebook column.
SIZES = {
    "notebook": FigureSize("notebook", 580, 9.0, 8.5),
    "classroom": FigureSize("classroom", 840, 14.0, 13.0),
    "wide": FigureSize("wide", 1400, 13.0, 12.0),
}


def check_size(size):
    """The :class:`FigureSize` named ``size`` (one of :data:`SIZES`), or raise a ValueError naming ``size``;
    None: the default of the moment, "notebook", or "classroom" after ``svmteach.classroom()``
    (:func:`svmteach.viz.presentation.classroom`)."""
    if isinstance(size, FigureSize):
        return size
    if size is None:
        from ..viz.presentation import default_size

        size = default_size()
    if not isinstance(size, str) or size not in SIZES:
        raise ValueError(f"size must be one of {tuple(SIZES)}, got {size!r}")
    return SIZES[size]


def figure_inches(size, aspect=0.92):
    """``(width, height)`` in inches of an explorer's figure of ``size``: ``size.width_px`` wide, ``aspect``
    times that high, both whole pixels at :data:`FIGURE_DPI`."""
    return size.width_px / FIGURE_DPI, round(aspect * size.width_px) / FIGURE_DPI


def style_axes(ax, size, title=None, xlabel=None, ylabel=None):
    """Set ``ax``'s tick labels, and its title and axis labels when given, in the fonts of ``size``
    (explicit sizes: a notebook's ``rcParams`` must not change an explorer's fonts)."""
    ax.tick_params(labelsize=size.ticks)
    if title is not None:
        ax.set_title(title, fontsize=size.font)
    if xlabel is not None:
        ax.set_xlabel(xlabel, fontsize=size.font)
    if ylabel is not None:
        ax.set_ylabel(ylabel, fontsize=size.font)

#: The plain-text form of every explorer (and of its ``widget``): what JupyterLab shows for an explorer whose
#: cell has not run in this session (the student is already in ``svmteach lab``: run the cells), and what GitHub
#: or nbviewer show (there is no kernel: open the course with ``svmteach lab``).
HINT = ("Interactive explorer: run the cells above and this one to use it "
        "(reading this on GitHub or nbviewer? open the course with: svmteach lab)")

#: What a number of a status line is wrapped in: a browser may break a line after the "-" of "1.2e-05"
#: or inside "[0.757, 100]"; a number must read as one word.
NOWRAP = '<span style="white-space:nowrap">'
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?(?![\w.])")
_TAG_OR_WRAPPED = re.compile(r"(%s.*?</span>|<[^>]*>)" % re.escape(NOWRAP))


def number_text(token):
    """A number as the status line prints it: a negative zero ("-0", "-0.00e+00") without its sign."""
    try:
        if token.startswith("-") and float(token) == 0.0:
            return token[1:]
    except ValueError:
        pass
    return token


def nowrap_numbers(html):
    """``html`` with every number outside a tag wrapped in :data:`NOWRAP` (once: wrapped ones are kept),
    its negative zeros printed as 0 (:func:`number_text`)."""
    pieces = _TAG_OR_WRAPPED.split(html)
    for k in range(0, len(pieces), 2):  # the text between tags
        pieces[k] = _NUMBER.sub(lambda m: f"{NOWRAP}{number_text(m.group())}</span>", pieces[k])
    return "".join(pieces)


#: What a status line's text is set in: lines 1.35 times the font apart, where JupyterLab's widgets set an HTML
#: widget's lines a control's height (28 px) apart: a status of two lines took the room of two rows of controls
LINES_OPEN, LINES_CLOSE = '<div style="line-height:1.35">', "</div><!--lines-->"


def close_lines(html):
    """``html`` (a status line's or a note's text) set in :data:`LINES_OPEN` ... :data:`LINES_CLOSE`, once: text
    appended after the closing tag (``+=``) is taken inside."""
    html = html.replace(LINES_CLOSE, "")
    if html.startswith(LINES_OPEN):
        html = html[len(LINES_OPEN):]
    return f"{LINES_OPEN}{html}{LINES_CLOSE}" if html else html


class StatusLine(w.HTML):
    """An explorer's status line: an ``HTML`` widget whose numbers never break across lines
    (:func:`nowrap_numbers`, applied to every value set, ``+=`` included) and whose lines are a line apart,
    not a control's height (:func:`close_lines`); ``text`` is what it reads."""

    @traitlets.validate("value")
    def _wrap_numbers(self, proposal):
        return close_lines(nowrap_numbers(proposal["value"]))

    @property
    def text(self):
        """The line as read, without its markup."""
        return re.sub(r"<[^>]*>", "", self.value)


def with_hint(bundle):
    """A display bundle with its text/plain part replaced by :data:`HINT`."""
    if bundle is None:
        return None
    return {**bundle, "text/plain": HINT}


def paste_legend(fig, handles, size, ncol=3):
    """Draw a legend of ``handles`` once, into an image pasted at the bottom centre of ``fig``; return the
    ``FigureImage`` (``remove()`` it to replace the legend).

    An explorer's legend never changes while it runs: pasting an image (``figimage``) costs nothing
    at a redraw, where a legend box laid out and drawn again cost a fifth of a move of C.
    """
    from io import BytesIO

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.image import imread

    sheet = Figure(dpi=FIGURE_DPI)
    FigureCanvasAgg(sheet)
    sheet.legend(handles=handles, loc="center", ncol=ncol, fontsize=size.font - 0.5, frameon=False,
                 handletextpad=0.3, columnspacing=1.0)
    buffer = BytesIO()
    sheet.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight", pad_inches=0.02, facecolor="white")
    buffer.seek(0)
    image = imread(buffer)
    left = max(0.0, (fig.bbox.width - image.shape[1]) / 2)
    return fig.figimage(image, xo=left, yo=2, origin="upper", zorder=5)


def fix_layout(fig, legend=None):
    """Place ``fig``'s panels once by matplotlib's constrained layout, above ``legend`` (a pasted image,
    or None), then switch the layout off: a redraw lays out nothing (titles and tick labels that
    change while the explorer runs keep the room they had)."""
    legend_height = 0.0 if legend is None else (legend.get_array().shape[0] + 4) / fig.bbox.height
    fig.set_layout_engine("constrained", h_pad=0.04, w_pad=0.04, hspace=0.06, wspace=0.04,
                          rect=(0.0, legend_height, 1.0, 1.0 - legend_height))
    fig.get_layout_engine().execute(fig)
    fig.set_layout_engine("none")


class ExplorerBox(w.VBox):
    """The ``VBox`` an explorer is laid out in; it displays as the box does, with :data:`HINT` as its plain text."""

    def _repr_mimebundle_(self, **kwargs):
        return with_hint(super()._repr_mimebundle_(**kwargs))


class Displayed:
    """Mixin: an explorer displays as its ``widget`` (a notebook cell may end with the explorer itself)."""

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def snapshot_png(self):
        """The explorer's figure as it is now, as PNG bytes (at :data:`FIGURE_DPI`: the size it has on the page)."""
        from io import BytesIO

        buffer = BytesIO()
        self.fig.savefig(buffer, format="png", dpi=FIGURE_DPI)
        return buffer.getvalue()

    def snapshot(self):
        """The figure as it is now, as an ``IPython.display.Image``.

        A committed notebook shows a widget only in a live kernel: GitHub and nbviewer show its
        plain text.  A cell ``explorer.snapshot()`` under the explorer's cell keeps its first
        picture in the notebook for those readers.
        """
        from IPython.display import Image

        return Image(data=self.snapshot_png(), format="png")


class FigureView:
    """``view`` is the widget to put in the layout; :meth:`refresh` shows the figure's current state."""

    def __init__(self, fig):
        self.fig = fig
        self.live = isinstance(fig.canvas, w.DOMWidget)  # ipympl
        self.view = fig.canvas if self.live else w.Output()
        if self.live:  # the explorer's controls say what the figure is: no "Figure 1" header, and no
            # toolbar (pan, zoom: nothing an explorer needs), whose column beside the canvas took 40 px
            fig.canvas.header_visible = False
            fig.canvas.toolbar_visible = False
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
