"""A real browser on the first hour's window, 1024 x 768 with JupyterLab's side bar open (issue 42): scrolled so that
an explorer's first control is at the top of the notebook, its lower panels are in view too (a student can move a
slider and watch the curves and the dual variables at once).  With the machinery of test_lab.py (its JupyterLab
server fixture and its Page); screenshots in test-artifacts/explorers/."""

import test_lab as base

base.NOTEBOOKS = tuple(dict.fromkeys(base.NOTEBOOKS + ("06_weston_watkins.ipynb",)))
lab = base.lab  # the fixture, one server for this module
playwright, Page, STEP = base.playwright, base.Page, base.STEP

#: the legend pasted under the panels (three rows of the figure's font): it may be cut, the panels may not
LEGEND_PX = 52

#: where the explorer lies on the page with its first slider scrolled to the top of the notebook
PLACE = """() => {
  const canvas = document.querySelector('.jupyter-matplotlib-canvas-div');
  const output = canvas.closest('.jp-OutputArea-output');
  const slider = output.querySelector('.widget-slider');
  slider.scrollIntoView({block: 'start'});
  const view = document.querySelector('.jp-WindowedPanel-outer') || document.querySelector('.jp-Notebook');
  const r = e => e.getBoundingClientRect();
  return {slider: r(slider).top, canvasTop: r(canvas).top, canvasBottom: r(canvas).bottom, viewTop: r(view).top,
          viewBottom: Math.min(r(view).bottom, window.innerHeight)};
}"""


def test_an_explorer_and_its_lower_panels_fit_a_1024_by_768_window(lab):
    for notebook in ("03_dual_coordinate_ascent.ipynb", "06_weston_watkins.ipynb"):
        with playwright.sync_playwright() as p:
            nb = Page(p, lab, notebook, 1024, 768)
            nb.act(lambda: nb.click("step"), STEP)  # a status line of two lines, as while a student works
            nb.page.add_style_tag(content=".Toastify { display: none !important; }")
            nb.page.evaluate(PLACE)  # scrolled: JupyterLab renders the cells around it, which may move it
            nb.wait("() => window.probe.picture() !== null", base.ACTION_MS, "the canvas after scrolling")
            place = nb.page.evaluate(PLACE)
            assert place["slider"] >= place["viewTop"] - 1, place
            assert place["canvasBottom"] - LEGEND_PX <= place["viewBottom"], (notebook, place)
            nb.finish(f"explorers/{notebook.split('_')[0]}-1024x768.png")
