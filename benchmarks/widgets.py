"""How fast the BinaryExplorer answers a move of the C slider (re-solve to gap 1e-4 and redraw).

    python benchmarks/widgets.py

Target of the course issue: 200 points, median under 100 ms.  The explorer is put on
its ipympl path (artists updated in place, then one render by ``draw_idle``, which Agg does at once: the
rendering ipympl also does before it sends the image); the browser's display is not timed.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).parent))
from common import machine  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer  # noqa: E402


def main():
    rows = []
    for kernel in ("linear", "gaussian"):
        X, y = data.overlapping_blobs(200, seed=0)
        ex = BinaryExplorer(X, y, kernel=kernel, tol=1e-4)
        ex._figure_view.live = True  # the ipympl path: redraw updates artists, the canvas renders once
        ex.sliders["C"].value = 0.5  # compile and warm up
        times = []
        for C in [0.01, 0.1, 1.0, 10.0, 0.03, 0.3, 3.0, 30.0] * 2:
            t0 = time.perf_counter()
            ex.sliders["C"].value = C  # re-solve and redraw (draw_idle renders at once on Agg)
            times.append(time.perf_counter() - t0)
            assert ex.state.gap <= 1e-4
        rows.append((kernel, statistics.median(times), max(times)))
    print(machine())
    print("\n| kernel | median | max |\n|---|---|---|")
    for kernel, med, mx in rows:
        print(f"| {kernel} | {1000 * med:.0f} ms | {1000 * mx:.0f} ms |")


if __name__ == "__main__":
    main()
