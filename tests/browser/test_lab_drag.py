"""A real browser drags a point of notebook 4's SMO explorer (issue 46, section 3: drag a point, the fit
following by warm start), with the machinery of test_lab.py (its JupyterLab server and its Page).

Only the cells the explorer needs run: notebook 4's imports, its moons and its explorer cell, copied into a
notebook of their own (uploaded to the server), and one cell of this test's that records, each time the
explorer's status line changes, the explorer's data, alpha, bias and step count to a JSON file the test reads,
with where on its figure (fractions of the canvas) the point to drag and its target lie.  Chromium presses on
that point, moves the mouse and releases it; then:

- the explorer moved that point, and only it, to where the mouse was released (within 20 pixels, see below);
- the fit went on from the solution shown (a warm start: its step count did not start again from 0, and the
  status line says so) to the explorer's tolerance;
- its decision function is that of scikit-learn's SVC (LIBSVM) fitted on the moved data, an independent solver
  of the same problem; and it differs from the fit before the drag (the drag mattered).

Skipped where chromium or playwright is missing, as the other browser tests.
"""

import http.cookiejar
import json
import re
import time
import urllib.request

import numpy as np
import test_lab as base
from sklearn.svm import SVC

lab = base.lab  # the fixture, one server for this module
playwright, Page, STEP = base.playwright, base.Page, base.STEP
NB04 = base.ROOT / "notebooks" / "04_smo.ipynb"
NAME = "drag_04_smo.ipynb"
#: the explorer of notebook 4: the moons, a gaussian kernel, gamma 2, C 10
GAMMA, C = 2.0, 10.0

#: the test's cell: pick a support vector alone in its neighbourhood and a target across the panel, and write
#: the explorer's state to RECORD whenever its status line changes
RECORDER = '''import json
import numpy as np
ex = smo_explorer
ex.converge()  # the solution shown before the drag: to tol
alpha0 = np.asarray(ex.state.alpha, dtype=float)
pix = ex.ax_data.transData.transform(ex.X)
dist = np.sqrt(((pix[:, None] - pix[None]) ** 2).sum(-1)) + 1e9 * np.eye(len(pix))
support = np.flatnonzero(alpha0 > 0)
i = int(support[np.argmax(dist[support].min(axis=1))])  # a support vector no other point is near
(x0, x1), (y0, y1) = ex.ax_data.get_xlim(), ex.ax_data.get_ylim()
target = [x0 + 0.8 * (x1 - x0) if ex.X[i, 0] < (x0 + x1) / 2 else x0 + 0.2 * (x1 - x0),
          y0 + 0.8 * (y1 - y0) if ex.X[i, 1] < (y0 + y1) / 2 else y0 + 0.2 * (y1 - y0)]
W, H = ex.fig.canvas.get_width_height()

def fraction(xy):  # where a data point lies on the canvas: fractions of its width and height, from the top left
    px, py = ex.ax_data.transData.transform(np.asarray(xy, dtype=float))
    return [float(px / W), float(1 - py / H)]

def record(_=None):
    alpha, b = ex.solver.coefficients(ex.problem, ex.state)
    with open(RECORD, "w") as f:
        json.dump({"i": i, "at": fraction(ex.X[i]), "target": target, "to": fraction(target), "X": ex.X.tolist(),
                   "y": np.asarray(ex.y).tolist(), "alpha": np.asarray(alpha, float).tolist(), "b": float(b),
                   "n_iter": int(ex.state.n_iter), "gap": float(ex.state.gap), "tol": float(ex.tol),
                   "status": ex.status.value, "pixel": float(abs(x1 - x0) / W), "aspect": W / H}, f)

record()
ex.status.observe(record, names="value")
print("recording")'''


def drag_notebook(record):
    """Notebook 4's imports, moons and explorer cells, and the recorder (writing to ``record``)."""
    cells = json.loads(NB04.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    needed = [code[0]]                                                     # the imports
    needed += [m.group(0) for s in code for m in [re.search(r"^Xg, yg = data\.moons\(.*\)$", s, re.M)] if m][:1]
    needed += [s for s in code if "smo_explorer = BinaryExplorer(" in s]
    assert len(needed) == 3, "notebook 4's imports, moons (its data line only) and explorer cells"
    needed.append(f"RECORD = {str(record)!r}\n" + RECORDER)
    return {"cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
                      for s in needed],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": 4}


def upload(lab, name, notebook):
    """PUT the notebook into the server's folder (its contents API), with the XSRF cookie a page would send."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{lab}/lab", timeout=60).close()  # the server sets its _xsrf cookie
    xsrf = next(c.value for c in jar if c.name == "_xsrf")
    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode()
    request = urllib.request.Request(f"{lab}/api/contents/{name}", data=body, method="PUT",
                                     headers={"Content-Type": "application/json", "X-XSRFToken": xsrf})
    opener.open(request, timeout=60).close()


def landed(record, before, timeout):
    """The recorder's state once the dragged point is most of the way to the release (a fifth of its distance left,
    as the test asks) and the fit at tol, or at the deadline (the test's assertions then say where it is)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            after = json.loads(record.read_text())
        except json.JSONDecodeError:  # read while the recorder was writing it
            time.sleep(0.2)
            continue
        start, target = np.array(before["X"][before["i"]]), np.array(before["target"])
        near = np.linalg.norm(np.array(after["X"][before["i"]]) - target) < 0.2 * np.linalg.norm(start - target)
        if (near and after["gap"] <= after["tol"]) or time.monotonic() > deadline:
            return after
        time.sleep(0.2)


def decision(X, y, alpha, b, Z):
    K = np.exp(-GAMMA * ((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return K @ (np.asarray(alpha) * y) + b


def test_dragging_a_point_in_the_smo_explorer_moves_it_and_the_fit_follows(lab, tmp_path):
    record = tmp_path / "explorer.json"
    upload(lab, NAME, drag_notebook(record))
    with playwright.sync_playwright() as p:
        nb = Page(p, lab, NAME)  # runs the four cells
        before = json.loads(record.read_text())
        assert before["gap"] <= before["tol"], before["status"]
        canvas = nb.page.locator(".jupyter-matplotlib-canvas-div canvas").first
        canvas.scroll_into_view_if_needed(timeout=base.ACTION_MS)
        box = canvas.bounding_box()
        # the figure from the canvas's top left corner, at the scale of its height (the canvas element may be wider)
        width = box["height"] * before["aspect"]
        at = [box["x"] + before["at"][0] * width, box["y"] + before["at"][1] * box["height"]]
        to = [box["x"] + before["to"][0] * width, box["y"] + before["to"][1] * box["height"]]

        def drag():
            nb.page.mouse.move(*at)
            nb.page.mouse.down()
            for t in np.linspace(0.1, 1.0, 10):  # a drag, in ten motions
                nb.page.mouse.move(at[0] + t * (to[0] - at[0]), at[1] + t * (to[1] - at[1]))
            nb.page.mouse.up()

        status = nb.act(drag, STEP)
        # the release's own fit: on a busy machine the kernel may be idle between a motion's fit and the release
        # (its event still on the way), so wait, with a deadline, for the point to be near where the mouse let go
        after = landed(record, before, base.ACTION_MS / 1000)
        status = after["status"]
        nb.finish("explorers/04-drag.png")

    i = before["i"]
    X0, X, y = np.array(before["X"]), np.array(after["X"]), np.array(after["y"], dtype=float)
    status = re.sub(r"<[^>]+>", "", status)  # the recorded line is the widget's HTML
    assert f"point {i} moved to" in status and "warm start from the solution shown" in status, status
    keep = np.arange(len(X)) != i
    np.testing.assert_array_equal(X[keep], X0[keep])              # only the dragged point moved
    # most of the way to where the mouse let go: in headless Chromium the events ipympl reports land some pixels off
    # where the page's mouse was (12 px to the left; up to 50 px up on some pages: not explained, and not the
    # explorer's: it moves the point to the release event's position), so no tighter than a fifth of the way
    assert np.linalg.norm(X[i] - before["target"]) < 0.2 * np.linalg.norm(X0[i] - before["target"]), (X0[i], X[i])
    assert after["n_iter"] >= before["n_iter"]                   # went on from the solution shown, not from 0
    assert after["gap"] <= after["tol"], after["status"]
    # the model the explorer shows is LIBSVM's on the moved data
    svc = SVC(C=C, kernel="rbf", gamma=GAMMA, tol=1e-10).fit(X, y)
    lo, hi = X.min(axis=0), X.max(axis=0)
    grid = np.column_stack([a.ravel() for a in np.meshgrid(np.linspace(lo[0], hi[0], 40),
                                                           np.linspace(lo[1], hi[1], 40))])
    shown = decision(X, y, after["alpha"], after["b"], grid)
    libsvm = svc.decision_function(grid)
    scale = np.max(np.abs(libsvm))
    assert np.max(np.abs(shown - libsvm)) <= 0.05 * scale, np.max(np.abs(shown - libsvm)) / scale
    away = np.abs(libsvm) > 0.05 * scale
    np.testing.assert_array_equal(np.sign(shown[away]), np.sign(libsvm[away]))
    previous = decision(X0, y, before["alpha"], before["b"], grid)
    assert np.any(np.sign(previous[away]) != np.sign(libsvm[away]))  # the drag changed the classifier
