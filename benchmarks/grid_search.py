"""GridSearchCV over MulticlassSVC: one process (n_jobs=1) against two worker processes (n_jobs=2).

Issue 20 measured n_jobs=2 three times slower than n_jobs=1 (12.7 s against 4.3 s).  The causes found:
each new worker process imports NumPy, scikit-learn, numba and svmteach and loads the compiled code
(seconds on a busy 2-core machine), and OpenBLAS's second thread, woken for every small product,
contended with the solver (the fits now run on one BLAS thread, ``backend.one_blas_thread``).

Each repeat runs in a fresh Python process (so the first n_jobs=2 search starts fresh workers, as a
user's first search does) and times, in this order: n_jobs=1, n_jobs=2 (fresh workers), n_jobs=2 again
(loky keeps its workers).  The numba cache is warm (a fit runs first in the parent process).

    python benchmarks/grid_search.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import json, time
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV
    from svmteach import MulticlassSVC

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    MulticlassSVC().fit(X[:200], y[:200])  # the compiled code loaded (or compiled) in this process
    grid = {"C": [0.1, 1.0, 10.0]}
    out = {}
    for label, n_jobs in (("n_jobs=1", 1), ("n_jobs=2, fresh workers", 2), ("n_jobs=2, workers reused", 2)):
        t = time.perf_counter()
        GridSearchCV(MulticlassSVC(random_state=0), grid, cv=3, n_jobs=n_jobs).fit(X, y)
        out[label] = time.perf_counter() - t
    print(json.dumps(out))
""")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeat):
        done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True,
                              env=dict(os.environ))
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"GridSearchCV(MulticlassSVC(), C in (0.1, 1, 10), cv=3) on digits / 16; {args.repeat} fresh processes")
    for label in runs[0]:
        times = sorted(r[label] for r in runs)
        print(f"{label:26s} median {times[len(times) // 2]:6.2f} s  (range {times[0]:.2f}-{times[-1]:.2f})")


if __name__ == "__main__":
    main()
