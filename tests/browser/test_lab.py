"""A real browser: JupyterLab in headless Chromium runs notebook 3, moves the C slider,
clicks "step", and the explorer's state and plot change with no errors in the page.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package (no browser
download): .ci/run installs both.  Skipped where either is missing.  The screenshot
is saved to test-artifacts/lab.png.
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
NOTEBOOK = "03_dual_coordinate_ascent.ipynb"

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


@pytest.fixture
def lab(tmp_path):
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, tmp_path / NOTEBOOK)
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


def test_explorer_in_jupyterlab(lab):
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    errors = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{lab}/lab/tree/{NOTEBOOK}")
        try:  # a fresh server asks which kernel to use
            page.locator(".jp-Dialog .jp-mod-accept").click(timeout=15_000)
        except playwright.Error:
            pass
        page.locator(".jp-Notebook").wait_for(timeout=60_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        status = page.locator(".widget-html", has_text="step 0")
        status.wait_for(timeout=120_000)
        step = page.get_by_role("button", name="step", exact=True)
        # the notebook turns on ipympl: the explorer's figure is a live canvas, redrawn in place
        canvas = page.locator(".jupyter-matplotlib-canvas-div canvas").first
        canvas.wait_for(timeout=60_000)
        page.wait_for_function(f"() => ({PICTURE})() !== null", timeout=30_000)
        before = page.evaluate(PICTURE)
        step.click()
        page.locator(".widget-html", has_text="step 1").wait_for(timeout=30_000)
        page.wait_for_function(f"(b) => ({PICTURE})() !== b", arg=before, timeout=30_000)
        after_step = page.evaluate(PICTURE)
        assert after_step != before  # the plot changed, on the same canvas
        # move the C slider (the first slider of the explorer) to the right
        handle = page.locator(".widget-slider .noUi-handle").first
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for dx in range(0, 61, 10):
            page.mouse.move(x + dx, y)
        page.mouse.up()
        page.wait_for_function(f"(b) => ({PICTURE})() !== b", arg=after_step, timeout=30_000)
        assert page.locator(".jupyter-matplotlib-canvas-div").count() == 1  # updated, never re-created
        text = page.locator(".widget-html", has_text="relative gap").last.inner_text()
        n_iter = int(re.search(r"step (\d+)", text).group(1))
        gap = float(re.search(r"relative gap ([0-9.e+-]+)", text).group(1))
        assert n_iter > 1 and gap <= 1e-4  # moving C re-solved, from the start, to the explorer's tol
        page.screenshot(path=str(artifacts / "lab.png"), full_page=True)
        browser.close()
    assert not errors, errors
