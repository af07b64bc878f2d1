"""Issue 42, "the first hour": the course's figures are readable where a student sees them, in the notebook
column of a 1024 px JupyterLab window with the side bar open (592 px; JupyterLab shrinks a wider image to it).
A 16-inch figure of 12-point text showed 6 px letters there."""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: the notebook column of a 1024 px JupyterLab window with the side bar open (svmteach.widgets.figure.SIZES)
COLUMN_PX = 592
#: the smallest letters allowed there: the explorers' tick labels at their "notebook" size (8.5 pt at 80 dpi)
MIN_TEXT_PX = 9.0
#: the widest figure allowed: the library's smallest figure text, 11 points, is 9 px at 592 px from 10 inches
MAX_WIDTH_IN = 10.0


def figure_widths(source):
    """The widths in inches of the ``figsize=(w, h)`` of a cell's source (numbers only)."""
    widths = []
    for node in ast.walk(ast.parse(re.sub(r"^\s*[%!].*$", "", source, flags=re.MULTILINE))):
        if isinstance(node, ast.keyword) and node.arg == "figsize" and isinstance(node.value, ast.Tuple):
            first = node.value.elts[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, (int, float)):
                widths.append(float(first.value))
    return widths


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_course_figure_is_wider_than_ten_inches(path):
    """A wider figure is shrunk to the column, and its text with it: a row of four panels becomes two rows of two."""
    wide = [(cell.get("id"), w) for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
            for w in figure_widths(cell.source) if w > MAX_WIDTH_IN]
    assert not wide, f"figures wider than {MAX_WIDTH_IN} in (cell id, width): {wide}"


def run_until(path, cell_id):
    """Run the code cells of the notebook in this process (its magics and explorers left out) up to the cell
    ``cell_id``, and return the figures that cell made."""
    from IPython.display import display

    namespace = {"display": display}
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or "Explorer" in cell.source or "snapshot()" in cell.source:
            continue
        before = set(plt.get_fignums())
        source = re.sub(r"^\s*[%!].*$", "", cell.source, flags=re.MULTILINE)
        exec(compile(source.replace("plt.show()", "pass"), f"{path.name}:{cell.get('id')}", "exec"), namespace)
        if cell.get("id") == cell_id:
            return [plt.figure(n) for n in plt.get_fignums() if n not in before]
        for n in set(plt.get_fignums()) - before:
            plt.close(n)
    raise LookupError(f"no cell {cell_id} in {path.name}")


def smallest_text_px(fig):
    """The smallest text of ``fig`` in pixels on the page: saved as the notebook saves it (tight, at its dpi),
    then shrunk to the column if it is wider."""
    from matplotlib.text import Text
    from PIL import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")  # what the inline backend does
    width_px = Image.open(io.BytesIO(buffer.getvalue())).size[0]
    shrink = min(1.0, COLUMN_PX / width_px)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * fig.dpi / 72 * shrink


@pytest.mark.slow
@pytest.mark.parametrize("notebook, cell_id", [
    ("01_binary_svm", "f21be2c5"),  # the convex hulls, two panels
    ("09_kernel_multiclass", "e9244b6b"),  # the three losses and one-vs-one on two data sets: eight panels
])
def test_the_wide_figures_text_is_readable_in_the_column(notebook, cell_id):
    (fig,) = run_until(ROOT / "notebooks" / f"{notebook}.ipynb", cell_id)
    try:
        assert smallest_text_px(fig) >= MIN_TEXT_PX
    finally:
        plt.close("all")
