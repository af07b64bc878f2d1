"""Issue 42, "the first hour", the explorers: a press of "to convergence" on a converged run says so, and an
explorer's controls and figure fit together in a 1024 x 768 JupyterLab window (the browser test
tests/browser/test_lab_fit.py measures the page; here what Python can count)."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer, MulticlassExplorer  # noqa: E402
from svmteach.widgets.figure import FIGURE_DPI, LINES_CLOSE, LINES_OPEN, SIZES, StatusLine  # noqa: E402


def binary():
    return BinaryExplorer(*data.overlapping_blobs(40, seed=1), C=1.0, time_budget=math.inf)


def multiclass():
    return MulticlassExplorer(*data.multiclass_blobs(45, k=3, seed=2), C=1.0, time_budget=math.inf)


@pytest.mark.parametrize("make", [binary, multiclass])
def test_to_convergence_on_a_converged_run_says_already_converged_with_the_gap(make):
    ex = make()
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol and "already converged" not in ex.status.text  # it ran
    steps, alpha = int(ex.state.n_iter), np.array(ex.state.alpha)
    ex.buttons["to convergence"].click()  # nothing left to do: no step, and the status line says why
    assert int(ex.state.n_iter) == steps and np.array_equal(np.array(ex.state.alpha), alpha)
    assert f"already converged: gap {ex.state.gap:.2e} \u2264 tol {ex.tol:g}" in ex.status.text
    ex.buttons["step"].click()  # the next action's line replaces the note
    assert "already converged" not in ex.status.text


#: JupyterLab's notebook in a 1024 x 768 window, side bar open: what a cell's output area shows at once (from
#: the first control's top to the bottom of the notebook's view), measured in headless Chromium
VIEW_PX = 648
#: a row of controls (a slider, a dropdown, a button) in JupyterLab: 28 px and a 4 px gap
ROW_PX = 32


def control_rows(ex):
    """The rows of controls above the figure, and the status line's lines (at 1.35 times a 13 px font)."""
    controls = ex.widget.children[0].children
    return len(controls) - 1, controls[-1]


@pytest.mark.parametrize("make, rows", [(binary, 3), (multiclass, 4)])
def test_the_controls_and_the_figure_fit_a_1024_by_768_window(make, rows):
    ex = make()
    n_rows, status = control_rows(ex)
    assert n_rows == rows  # sliders two a row; the click control beside the buttons
    ex.buttons["step"].click()
    ex.fig.canvas.draw()
    figure_px = ex.fig.bbox.height
    assert ex.fig.bbox.width == SIZES["notebook"].width_px
    # the multiclass explorer's note on M takes three lines beside gamma; the status line two, after a step
    note_px = 3 * 16 if make is multiclass else 0
    assert n_rows * ROW_PX + max(0, note_px - ROW_PX) + 2 * 18 + figure_px <= VIEW_PX, figure_px


def test_status_lines_are_a_line_apart_however_they_are_appended_to():
    line = StatusLine()
    line.value = "<b>smo</b> step 3: primal 1.5"
    line.value += " (more)"
    line.value += " (and more)"
    assert line.value.startswith(LINES_OPEN) and line.value.endswith(LINES_CLOSE)
    assert line.value.count(LINES_OPEN) == 1 and line.value.count(LINES_CLOSE) == 1
    assert line.text == "smo step 3: primal 1.5 (more) (and more)"
    line.value = ""
    assert line.value == "" and line.text == ""


def test_the_notebook_sizes_ticks_stay_readable_in_the_smaller_figure():
    ex = binary()
    ex.fig.canvas.draw()
    for ax in ex.fig.axes:
        for label in ax.get_xticklabels() + ax.get_yticklabels():
            if label.get_text():
                assert label.get_fontsize() * FIGURE_DPI / 72 >= 9  # pixels on the page
