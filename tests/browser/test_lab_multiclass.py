"""A real browser on the multiclass explorers' views (notebooks 6 and 7), with the machinery of
test_lab.py (its JupyterLab server fixture and its Page, whose every wait is for a condition).

Notebook 6: a step, and the status line reports Shark's moves inside the visited block and how far
they end from the exact block's jump (the panel drawn beside the data); ten steps; the M slider
moved, and the line under it names the problem (1, C M^2) it is; C moved, warm-started.
Notebook 7: a step, and the status line reports the block's projection (its mass z = C ||x_i||
and threshold theta).  Both at 1024 px with JupyterLab's side bar open, where the explorer must stay
inside the notebook's column, then the same page at 1920 px; screenshots in test-artifacts/explorers/.
"""

import re

import test_lab as base

# the server of test_lab serves these notebooks too (its fixture copies base.NOTEBOOKS when it starts)
base.NOTEBOOKS = tuple(dict.fromkeys(base.NOTEBOOKS + ("06_weston_watkins.ipynb", "07_crammer_singer.ipynb")))
lab = base.lab  # the fixture, one server for this module
playwright, Page, STEP = base.playwright, base.Page, base.STEP

SHARK = r"sample (\d+) \((?:Shark's moves|the exact block) ran\): Shark's (\d+) moves end ([0-9.e+-]+) from the exact block"
SIMPLEX = r"sample (\d+): projection onto mass z = ([0-9.e+-]+), threshold \u03b8 = ([0-9.e+-]+)"
M_LINE = r"M rescales C: .* is the problem \(1, C M\u00b2\) = \(1, ([0-9.e+-]+)\)"


def drag_slider(nb, index, dx):
    """Drag the handle of the explorer's slider number ``index`` (0: C, 1: M) ``dx`` pixels to the right."""
    handle = nb.page.locator(".widget-slider .noUi-handle").nth(index)
    handle.scroll_into_view_if_needed(timeout=base.ACTION_MS)
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    nb.page.mouse.move(x, y)
    nb.page.mouse.down()
    for step in range(0, dx + 1 if dx > 0 else dx - 1, 10 if dx > 0 else -10):
        nb.page.mouse.move(x + step, y)
    nb.page.mouse.move(x + dx, y)
    nb.page.mouse.up()


#: 1024 px with the side bar open, then the same page at 1920 px
WINDOWS = ((1024, 1250), (1920, 1300))
stays_in_column = base.stays_in_column


def test_weston_watkins_block_view_and_M_slider(lab):
    (width, height), wide = WINDOWS
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, "06_weston_watkins.ipynb", width, height)
        status, _ = nb.ready(STEP)
        assert int(re.search(STEP, status).group(1)) == 0 and not re.search(SHARK, status)
        assert re.search(M_LINE, nb.page.evaluate("() => window.probe.status('M rescales C')")).group(1) == "1"
        status = nb.act(lambda: nb.click("step"), STEP)
        first = re.search(SHARK, status)
        assert first and int(first.group(2)) >= 1 and float(first.group(3)) < 1e-6, status  # Shark ends at the jump
        status = nb.act(lambda: nb.click("10 steps"), STEP)
        assert int(re.search(STEP, status).group(1)) == 11 and re.search(SHARK, status), status
        # M moved to the left (below 1): the line names the problem (1, C M^2), with C M^2 < 1
        status = nb.act(lambda: drag_slider(nb, 1, -60), STEP)
        line = nb.page.evaluate("() => window.probe.status('M rescales C')")
        assert float(re.search(M_LINE, line).group(1)) < 1.0, line
        assert "warm start" in status, status
        # C moved: warm-started from the solution shown
        status = nb.act(lambda: drag_slider(nb, 0, 40), STEP)
        assert "warm start from the solution at C = 1" in status, status
        stays_in_column(nb)
        nb.shoot(f"explorers/06-{width}px.png", explorer_in_view=True)
        nb.resize(*wide)
        stays_in_column(nb)
        nb.finish(f"explorers/06-{wide[0]}px.png", explorer_in_view=True)


def test_crammer_singer_projection_view(lab):
    (width, height), wide = WINDOWS
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, "07_crammer_singer.ipynb", width, height)
        status, _ = nb.ready(STEP)  # the multiclass explorer's line (the simplex explorer's has no step)
        assert "Crammer-Singer" in status and not re.search(SIMPLEX, status)
        status = nb.act(lambda: nb.click("step"), STEP)
        found = re.search(SIMPLEX, status)
        assert found and float(found.group(2)) > 0, status
        status = nb.act(lambda: nb.click("10 steps"), STEP)
        assert int(re.search(STEP, status).group(1)) == 11 and re.search(SIMPLEX, status), status
        stays_in_column(nb)
        # the multiclass explorer in view (the first slider on the page is the simplex explorer's)
        nb.page.add_style_tag(content=".Toastify { display: none !important; }")
        nb.page.locator(".widget-button").filter(has_text=re.compile("^step$")).first.evaluate(
            "e => e.closest('.widget-vbox').scrollIntoView({block: 'start'})")
        nb.wait("() => window.probe.picture() !== null", base.ACTION_MS, "the canvas after scrolling")
        nb.shoot(f"explorers/07-{width}px.png")
        nb.resize(*wide)
        stays_in_column(nb)
        nb.finish(f"explorers/07-{wide[0]}px.png")
