"""A real browser: JupyterLab in headless Chromium runs the notebooks of the three kinds of
explorer (3: binary, 6: multiclass, 5: the RLS path), clicks their buttons and drags their
sliders, and their state and plot change, in place, with no errors in the page.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package (no browser
download): .ci/run installs both.  Skipped where either is missing.  The screenshot
of each is saved to test-artifacts/.
"""

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
NOTEBOOKS = ("03_dual_coordinate_ascent.ipynb", "05_kernels_rls.ipynb", "06_weston_watkins.ipynb")

playwright = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


#: JavaScript: the explorer's picture, the pixels of its ipympl canvas (None before it is drawn).
PICTURE = """() => { const c = document.querySelector('.jupyter-matplotlib-canvas-div canvas');
  if (!c || c.width === 0) return null; return c.toDataURL(); }"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("lab")
    for name in NOTEBOOKS:
        shutil.copy(ROOT / "notebooks" / name, tmp_path / name)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={tmp_path}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/lab", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


class Page:
    """A Chromium page on one notebook: run it, read the explorer's picture, drag its first slider."""

    def __init__(self, p, lab, notebook):
        self.errors = []
        self.browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        # a workspace of its own, reset: the server's other notebooks stay closed
        page.goto(f"{lab}/lab/workspaces/{notebook.split('_')[0]}/tree/{notebook}?reset")
        try:  # a fresh server asks which kernel to use
            page.locator(".jp-Dialog .jp-mod-accept").click(timeout=15_000)
        except playwright.Error:
            pass
        page.locator(".jp-Notebook").wait_for(timeout=60_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

    def picture(self):
        """The explorer's canvas (ipympl, turned on by the notebook), once drawn."""
        self.page.locator(".jupyter-matplotlib-canvas-div canvas").first.wait_for(timeout=120_000)
        self.page.wait_for_function(f"() => ({PICTURE})() !== null", timeout=30_000)
        return self.page.evaluate(PICTURE)

    def changed(self, before):
        """Wait for the canvas to show something else; it must still be the only canvas."""
        self.page.wait_for_function(f"(b) => ({PICTURE})() !== b", arg=before, timeout=30_000)
        assert self.page.locator(".jupyter-matplotlib-canvas-div").count() == 1  # updated, never re-created
        return self.page.evaluate(PICTURE)

    def drag_first_slider(self, dx=60):
        handle = self.page.locator(".widget-slider .noUi-handle").first
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        for step in range(0, dx + 1, 10):
            self.page.mouse.move(x + step, y)
        self.page.mouse.up()

    def status(self, text):
        return self.page.locator(".widget-html", has_text=text).last

    def finish(self, name):
        artifacts = ROOT / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        self.page.screenshot(path=str(artifacts / name), full_page=True)
        self.browser.close()
        assert not self.errors, self.errors


@pytest.mark.parametrize("notebook, button, steps, dx, screenshot", [
    ("03_dual_coordinate_ascent.ipynb", "step", 1, 60, "lab.png"),  # binary
    ("06_weston_watkins.ipynb", "10 steps", 10, 20, "lab-multiclass.png"),  # C a little: WW is slow at large C
])
def test_solver_explorer_in_jupyterlab(lab, notebook, button, steps, dx, screenshot):
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, notebook)
        nb.status("step 0").wait_for(timeout=120_000)
        before = nb.picture()
        nb.page.get_by_role("button", name=button, exact=True).click()
        nb.status(f"step {steps}").wait_for(timeout=30_000)
        after = nb.changed(before)
        nb.drag_first_slider(dx)  # C
        nb.changed(after)
        text = nb.status("relative gap").inner_text()
        n_iter = int(re.search(r"step (\d+)", text).group(1))
        gap = float(re.search(r"relative gap ([0-9.e+-]+)", text).group(1))
        assert n_iter > steps and gap <= 1e-4  # moving C re-solved, from the start, to the explorer's tol
        nb.finish(screenshot)


def test_rls_path_explorer_in_jupyterlab(lab):
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, "05_kernels_rls.ipynb")
        first = nb.status("lambda = ")
        first.wait_for(timeout=120_000)
        before_text = first.inner_text()
        before = nb.picture()
        nb.drag_first_slider(dx=80)  # lambda: read off the path, nothing solved
        nb.changed(before)
        assert nb.status("lambda = ").inner_text() != before_text
        nb.finish("lab-rls.png")
