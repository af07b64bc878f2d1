"""A real browser: JupyterLab in headless Chromium runs the notebooks of the three kinds of
explorer (3 and 4: binary, 6: multiclass, 5: the RLS path), each up to its explorer (nbval runs the rest),
clicks their buttons and drags their sliders, and their state and plot change, in place, with no errors in the page.  The views of
the solvers' steps (3: the parabola of dual coordinate ascent, 4: SMO's box) are used at a 1024 px
window with JupyterLab's side bar open, where the explorer must not overflow the notebook, and
at 1920 px; their screenshots are saved to test-artifacts/explorers/.

Every wait is for a condition, with a deadline of tens of seconds (the tests pass with both
cores of a small machine busy): the kernel idle, the explorer's status line changed from what it
said before the action, its canvas showing other pixels.  State is read only once all three hold.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package (no browser
download): .ci/run installs both.  Skipped where either is missing.  The screenshot
of each is saved to test-artifacts/.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NOTEBOOKS = ("03_dual_coordinate_ascent.ipynb", "04_smo.ipynb", "05_kernels_rls.ipynb", "06_weston_watkins.ipynb")

#: deadlines (milliseconds): starting JupyterLab's page and running a whole notebook; one action
START_MS, ACTION_MS = 240_000, 90_000

playwright = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


#: JavaScript run in the page before JupyterLab loads: what the tests read, as ``window.probe``.
#: The application object is there because the server runs with ``expose_app_in_browser``.
PROBE = """window.probe = {
  panel() {  // the open notebook (the workspace is reset: it is the only one)
    const app = window.jupyterapp;
    if (!app) return null;
    for (const w of app.shell.widgets('main')) if (w.sessionContext) return w;
    return null;
  },
  kernel() {  // 'idle', 'busy', ... or null before a kernel is connected
    const p = this.panel(), k = p && p.sessionContext.session && p.sessionContext.session.kernel;
    return k ? k.status : null;
  },
  status(pattern) {  // the last widget HTML line matching the pattern (the explorer's status), or null
    // textContent, not innerText: JupyterLab skips rendering the cells out of view (content-visibility), and
    // innerText of an unrendered element is empty
    const re = new RegExp(pattern);
    const lines = [...document.querySelectorAll('.widget-html')].map(e => e.textContent).filter(t => re.test(t));
    return lines.length ? lines[lines.length - 1] : null;
  },
  picture() {  // the pixels of the ipympl canvas, null before it is drawn
    const c = document.querySelector('.jupyter-matplotlib-canvas-div canvas');
    return c && c.width > 0 ? c.toDataURL() : null;
  },
  canvases() { return document.querySelectorAll('.jupyter-matplotlib-canvas-div').length; },
  run(command) {  // run a JupyterLab command; what its promise gives (null: nothing) lands in ran[command]
    this.ran[command] = undefined;
    window.jupyterapp.commands.execute(command).then(r => { this.ran[command] = r === undefined ? null : r; },
                                                     e => { this.ran[command] = 'error: ' + e; });
  },
  ran: {},
};"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def up_to_the_explorer(notebook: dict) -> dict:
    """The notebook with every code cell after its explorer's (the first that turns on ``%matplotlib widget``)
    made a raw cell: the explorer and what it is built from run, nothing after it (the whole notebook runs under
    nbval), and the page keeps its length, so that the explorer scrolls as it does in the course."""
    cells, seen = [], False
    for cell in notebook["cells"]:
        if seen and cell["cell_type"] == "code":
            cell = {"cell_type": "raw", "metadata": {}, "source": cell["source"]}
        seen = seen or (cell["cell_type"] == "code" and "%matplotlib widget" in "".join(cell["source"]))
        cells.append(cell)
    assert seen, "the notebook has no explorer cell (%matplotlib widget)"
    return {**notebook, "cells": cells}


def test_up_to_the_explorer_runs_the_explorer_and_nothing_after():
    def code(src):
        return {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
    nb = {"cells": [code("x = 1"), code("%matplotlib widget\nexplorer"), code("late()")], "metadata": {}}
    kept = up_to_the_explorer(nb)["cells"]
    assert [c["cell_type"] for c in kept] == ["code", "code", "raw"] and kept[2]["source"] == "late()"
    with pytest.raises(AssertionError, match="no explorer cell"):
        up_to_the_explorer({"cells": [code("x = 1")], "metadata": {}})


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("lab")
    for name in NOTEBOOKS:
        notebook = json.loads((ROOT / "notebooks" / name).read_text())
        (tmp_path / name).write_text(json.dumps(up_to_the_explorer(notebook)))
    port = free_port()
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={tmp_path}",
         "--LabApp.expose_app_in_browser=True",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_MS / 1000
    while True:  # poll until the server answers (or dies, or the deadline passes)
        try:
            urllib.request.urlopen(f"{url}/lab", timeout=5)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    yield url
    proc.terminate()
    proc.wait(timeout=60)
    log.close()


class Page:
    """A Chromium page on one notebook, run up to its explorer (the server's copy: :func:`up_to_the_explorer`);
    actions on its explorer that wait for their effect."""

    def __init__(self, p, lab, notebook, width=1400, height=1000):
        self.errors = []
        self.browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = self.page = self.browser.new_page(viewport={"width": width, "height": height})
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        # a server error names its URL (the console only says "Failed to load resource": a 500 seen once under load)
        page.on("response", lambda r: self.errors.append(f"HTTP {r.status} from {r.request.method} {r.url}")
                if r.status >= 500 else None)
        page.add_init_script(PROBE)
        # a workspace of its own, reset: the server's other notebooks stay closed
        page.goto(f"{lab}/lab/workspaces/{notebook.split('_')[0]}/tree/{notebook}?reset")
        # the kernel up and idle; a fresh server may first ask which kernel to use
        dialog = ".jp-Dialog .jp-mod-accept"
        while self.wait(f"() => document.querySelector('{dialog}') ? 'dialog' : window.probe.kernel() === 'idle'",
                        START_MS, "the notebook's kernel to start") is not True:
            page.locator(dialog).first.click(timeout=ACTION_MS)
        # the copy's saved outputs cleared, so that all the explorer shows comes from the live kernel
        self.command("notebook:clear-all-cell-outputs")
        self.wait("() => document.querySelectorAll('.widget-html, .jupyter-matplotlib-canvas-div').length === 0",
                  ACTION_MS, "the saved outputs to be cleared")
        ran = self.command("notebook:run-all-cells", START_MS)
        errors = page.evaluate("() => [...document.querySelectorAll("
                               "'.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]')]"
                               ".map(e => e.innerText)")
        assert ran is True, f"a cell of {notebook} failed: {errors}"
        self.wait("() => window.probe.kernel() === 'idle'", ACTION_MS, "the kernel to be idle")

    def wait(self, predicate, timeout, what, arg=None):
        """Wait until the JavaScript ``predicate`` is truthy, failing with ``what`` was waited for; its value."""
        try:
            return self.page.wait_for_function(predicate, arg=arg, timeout=timeout).json_value()
        except playwright.TimeoutError:
            pytest.fail(f"waited {timeout / 1000:.0f} s for {what}; the page's errors: {self.errors}")

    def command(self, name, timeout=ACTION_MS):
        """Run a JupyterLab command, wait until it has finished, and return what it gave (for run-all:
        true when every cell ran and none failed)."""
        self.page.evaluate("(c) => window.probe.run(c)", name)
        return self.wait("(c) => window.probe.ran[c] !== undefined && [window.probe.ran[c]]", timeout,
                         f"JupyterLab's {name!r}", arg=name)[0]

    def ready(self, pattern):
        """Wait for the kernel to be idle, the status line to match ``pattern`` and the canvas to be drawn;
        return ``(status, picture)``."""
        return self.wait("(p) => window.probe.kernel() === 'idle' && window.probe.status(p) !== null"
                         " && window.probe.picture() !== null && [window.probe.status(p), window.probe.picture()]",
                         ACTION_MS, f"an idle kernel, a drawn canvas and a status line matching {pattern!r}",
                         arg=pattern)

    def act(self, action, pattern):
        """Do ``action`` on a settled explorer and wait for its whole effect: the status line (the last one
        matching ``pattern``) says something else, the canvas shows other pixels, the kernel is idle again.
        Return the status line then."""
        status, picture = self.ready(pattern)
        action()
        self.wait("([p, s]) => { const t = window.probe.status(p); return t !== null && t !== s; }", ACTION_MS,
                  f"the status line to change from {status!r}", arg=[pattern, status])
        self.wait("(b) => { const c = window.probe.picture(); return c !== null && c !== b; }", ACTION_MS,
                  "the canvas to be redrawn", arg=picture)
        assert self.page.evaluate("() => window.probe.canvases()") == 1  # updated in place, never re-created
        return self.ready(pattern)[0]

    def click(self, button):
        """Click the explorer's button labelled ``button``."""
        self.page.locator(".widget-button").filter(has_text=re.compile(f"^{re.escape(button)}$")).first.click(
            timeout=ACTION_MS)

    def drag_first_slider(self, dx):
        """Drag the first slider's handle ``dx`` pixels to the right."""
        handle = self.page.locator(".widget-slider .noUi-handle").first
        # scrolled into view, JupyterLab renders the cells around it (content-visibility), which moves it: read
        # its box until two reads agree (the layout has settled), within the action's deadline
        deadline, box = time.monotonic() + ACTION_MS / 1000, None
        while True:
            handle.scroll_into_view_if_needed(timeout=ACTION_MS)
            previous, box = box, handle.bounding_box()
            if (box is not None and box == previous) or time.monotonic() > deadline:
                break
            self.page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        for step in range(0, dx + 1, 10):
            self.page.mouse.move(x + step, y)
        self.page.mouse.up()

    def shoot(self, name, explorer_in_view=False):
        """Save a screenshot under test-artifacts/ (``name`` may hold a folder).

        ``explorer_in_view``: scroll the notebook so that the explorer's first slider is at the top."""
        path = ROOT / "test-artifacts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if explorer_in_view:
            self.page.add_style_tag(content=".Toastify { display: none !important; }")  # JupyterLab's news toast
            self.page.locator(".widget-slider").first.evaluate("e => e.scrollIntoView({block: 'start'})")
            self.wait("() => window.probe.picture() !== null", ACTION_MS, "the canvas after scrolling")
        self.page.screenshot(path=str(path), full_page=True)

    def resize(self, width, height):
        """The window resized to ``width`` x ``height``; wait until the canvas is drawn again."""
        self.page.set_viewport_size({"width": width, "height": height})
        self.wait("(w) => window.innerWidth === w && window.probe.picture() !== null", ACTION_MS,
                  f"the window at {width} px", arg=width)

    def finish(self, name, explorer_in_view=False):
        """Save a screenshot (:meth:`shoot`), shut the kernel down, close, fail on page errors."""
        self.shoot(name, explorer_in_view)
        errors = list(self.errors)
        # the notebook's kernel shut down: a later test of the same notebook starts from a fresh kernel,
        # with none of this one's widgets
        self.command("kernelmenu:shutdown")
        self.wait("() => window.probe.kernel() === null || window.probe.kernel() === 'dead'", ACTION_MS,
                  "the kernel to shut down")
        self.browser.close()
        assert not errors, errors

    def extent(self, selector):
        """``[left, right]`` in pixels of the first element matching ``selector`` (None if there is none)."""
        return self.page.evaluate("(s) => { const e = document.querySelector(s); if (!e) return null;"
                                  " const r = e.getBoundingClientRect(); return [r.left, r.right]; }", selector)


#: the solver explorers' status line: "... step <n>: ... relative gap <gap> ..."
STEP = r"\bstep (\d+)\b"
#: presses of "to convergence" allowed after a move of C (each one goes on for the explorer's time budget)
MAX_PRESSES = 20


def gap(status):
    return float(re.search(r"relative gap ([0-9.e+-]+)", status).group(1))


@pytest.mark.parametrize("notebook, button, steps, dx, screenshot", [
    ("03_dual_coordinate_ascent.ipynb", "step", 1, 60, "lab.png"),  # binary
    ("06_weston_watkins.ipynb", "10 steps", 10, 20, "lab-multiclass.png"),  # C a little: WW is slow at large C
])
def test_solver_explorer_in_jupyterlab(lab, notebook, button, steps, dx, screenshot):
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, notebook)
        status, _ = nb.ready(STEP)
        assert int(re.search(STEP, status).group(1)) == 0
        status = nb.act(lambda: nb.click(button), STEP)
        assert int(re.search(STEP, status).group(1)) == steps
        status = nb.act(lambda: nb.drag_first_slider(dx), STEP)  # C: re-solved from the start
        assert int(re.search(STEP, status).group(1)) > steps, status
        # ... to the explorer's tol, or as far as its time budget allows (on a loaded machine it may
        # not): then each press of "to convergence" goes on, as the status line says
        for _ in range(MAX_PRESSES):
            if gap(status) <= 1e-4:
                break
            status = nb.act(lambda: nb.click("to convergence"), STEP)
        assert gap(status) <= 1e-4, status
        nb.finish(screenshot)


def test_rls_path_explorer_in_jupyterlab(lab):
    lam = r"\blambda = ([0-9.e+-]+)"
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, "05_kernels_rls.ipynb")
        before, _ = nb.ready(lam)
        after = nb.act(lambda: nb.drag_first_slider(dx=80), lam)  # lambda: read off the path, nothing solved
        assert float(re.search(lam, after).group(1)) != float(re.search(lam, before).group(1))
        nb.finish("lab-rls.png")


#: what the status line says of the step just taken, by notebook: dual coordinate ascent's coordinate
#: (alpha_i before and after, the vertex, "clipped to [0, C]" when it was) and SMO's pair (alpha_j before
#: and after, the unclipped value when it was clipped, L and H)
STEP_VIEW = {
    "03_dual_coordinate_ascent.ipynb": r"coordinate (\d+): \u03b1\u1d62 ([0-9.e+-]+) \u2192 ([0-9.e+-]+) "
                                       r"\(vertex ([0-9.e+-]+)(, clipped to \[0, C\])?\)",
    "04_smo.ipynb": r"pair \((\d+), (\d+)\): \u03b1\u2c7c ([0-9.e+-]+) \u2192 ([0-9.e+-]+) "
                    r"\((?:unclipped ([0-9.e+-]+), clipped to|inside) \[L, H\] = \[([0-9.e+-]+), ([0-9.e+-]+)\]\)",
}


def check_step(notebook, status, C):
    """The numbers of the status line's step agree with each other: the clipped value is the vertex
    clipped to the box [0, C] (dual coordinate ascent), or lies in [L, H], at an end when clipped (SMO)."""
    found = re.search(STEP_VIEW[notebook], status)
    assert found, status
    if notebook.startswith("03"):
        new, vertex, clipped = float(found.group(3)), float(found.group(4)), found.group(5) is not None
        assert new == pytest.approx(min(max(vertex, 0.0), C), rel=2e-3, abs=1e-3), status
        assert clipped == (not 0.0 <= vertex <= C), status
    else:
        new, unclipped, L, H = float(found.group(4)), found.group(5), float(found.group(6)), float(found.group(7))
        assert 0.0 <= L <= new + 1e-3 and new <= H + 1e-3 <= C + 2e-3, status
        if unclipped is not None:  # clipped: at the end of [L, H] nearer the unclipped value
            assert new == pytest.approx(H if float(unclipped) > H else L, rel=2e-3, abs=1e-3), status
    return found


#: the windows the step views are checked in: 1024 px with JupyterLab's side bar open (the explorer must
#: not overflow the notebook's column), then the same page at 1920 px
WINDOWS = ((1024, 1150), (1920, 1200))


def stays_in_column(nb):
    """The canvas, the sliders and the status line lie inside the notebook's column, side bar open."""
    left_stack = nb.extent("#jp-left-stack")
    assert left_stack is not None and left_stack[1] - left_stack[0] > 200  # the side bar is open
    column = nb.extent(".jp-Notebook")
    for selector in (".jupyter-matplotlib-canvas-div", ".widget-slider", ".widget-html"):
        left, right = nb.extent(selector)
        assert column[0] <= left and right <= column[1], (selector, left, right, column)


@pytest.mark.parametrize("notebook, C", [("03_dual_coordinate_ascent.ipynb", 1.0), ("04_smo.ipynb", 10.0)])
def test_step_views_in_jupyterlab(lab, notebook, C):
    """Step, and the step's panel and the status line show the step taken; ten steps, and they show the
    last; a move of C starts from the solution shown; at 1024 px with the side bar open, and then at
    1920 px, the explorer stays inside the notebook's column.  (The windows are tall enough for the whole
    explorer to be in the screenshot.)"""
    (width, height), wide = WINDOWS[0], WINDOWS[1]
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, notebook, width, height)
        status, _ = nb.ready(STEP)
        assert int(re.search(STEP, status).group(1)) == 0 and not re.search(STEP_VIEW[notebook], status)
        status = nb.act(lambda: nb.click("step"), STEP)
        first = check_step(notebook, status, C)
        status = nb.act(lambda: nb.click("10 steps"), STEP)
        assert int(re.search(STEP, status).group(1)) == 11
        last = check_step(notebook, status, C)
        assert last.group(0) != first.group(0)  # the view moved on with the steps
        status = nb.act(lambda: nb.drag_first_slider(40), STEP)  # C: warm-started from the solution shown
        assert f"warm start from the solution at C = {C:g}" in status, status
        stays_in_column(nb)
        name = f"explorers/{notebook.split('_')[0]}"
        nb.shoot(f"{name}-{width}px.png", explorer_in_view=True)
        nb.resize(*wide)
        stays_in_column(nb)
        nb.finish(f"{name}-{wide[0]}px.png", explorer_in_view=True)
