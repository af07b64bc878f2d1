"""First use: what numba's compiling costs a newcomer, with and without ``svmteach.warm_up`` run first.

Two measures, each on an empty numba cache (``NUMBA_CACHE_DIR`` a new folder, so nothing of an earlier run is
reused):

- per input type: a fresh process makes one ``MulticlassSVC`` / ``BinarySVC`` fit of a small problem (dense
  float64, float32, CSR, a gaussian kernel), timed as a whole (process start to exit) and by its CPU seconds;
  once cold, once after the warm-up has filled the cache;
- per notebook: the course's notebooks executed top to bottom (nbconvert), each timed, and the number of numba
  cache entries (``*.nbc``) it wrote: an entry a notebook writes after the warm-up is a signature the warm-up
  missed.

- after an edit to a loss's docstring (``--docstring-edit``): a copy of the package fits WW, CS and LLW on a cold
  cache, again on the warm one, then again after the first line of ``losses/crammer_singer.py``'s docstring changed
  (what an edit that changes no code costs).

    python benchmarks/first_use.py [--notebooks 06 08 09] [--skip-types] [--types "BinarySVC, dense float64" ...]
    python benchmarks/first_use.py --skip-types --notebooks --docstring-edit
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TYPES = {
    "MulticlassSVC, dense float64": "X, y = data.multiclass_blobs(n=60, k=3, seed=0); MulticlassSVC().fit(X, y)",
    "MulticlassSVC, dense float32": "X, y = data.multiclass_blobs(n=60, k=3, seed=0); "
                                    "MulticlassSVC().fit(X.astype('float32'), y)",
    "MulticlassSVC, CSR": "X, y = data.multiclass_blobs(n=60, k=3, seed=0); "
                          "MulticlassSVC().fit(sparse.csr_matrix(X), y)",
    "MulticlassSVC, gaussian kernel": "X, y = data.multiclass_blobs(n=60, k=3, seed=0); "
                                      "MulticlassSVC(kernel='rbf', gamma=1.0).fit(X, y)",
    "BinarySVC, dense float64": "X, y = data.overlapping_blobs(n=60, seed=0); BinarySVC().fit(X, y)",
    "BinarySVC, gaussian kernel": "X, y = data.overlapping_blobs(n=60, seed=0); "
                                  "BinarySVC(kernel='rbf', gamma=1.0).fit(X, y)",
}
PRELUDE = "from scipy import sparse; from svmteach import BinarySVC, MulticlassSVC, data; "


def entries(cache: Path) -> int:
    return sum(1 for _ in cache.rglob("*.nbc"))


def timed(cmd, env, cwd=None):
    """(wall seconds, CPU seconds of the children) of one command."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed:\n{done.stderr[-3000:]}")
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def environment(cache: Path) -> dict:
    return dict(os.environ, NUMBA_CACHE_DIR=str(cache), SVMTEACH_COMPILE_NOTICE="0")


def warm(env):
    return timed([sys.executable, "-m", "svmteach.warm_up"], env)


def per_type(names):
    print("| first fit | cold: wall / CPU s | after the warm-up: wall / CPU s |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as warmed:
        env_warm = environment(Path(warmed))
        wall, cpu = warm(env_warm)
        print(f"(the warm-up itself: {wall:.0f} s wall, {cpu:.0f} s CPU)", file=sys.stderr)
        for name, code in ((name, TYPES[name]) for name in names):
            with tempfile.TemporaryDirectory() as cold:
                c = timed([sys.executable, "-c", PRELUDE + code], environment(Path(cold)))
            w = timed([sys.executable, "-c", PRELUDE + code], env_warm)
            print(f"| {name} | {c[0]:.1f} / {c[1]:.1f} | {w[0]:.1f} / {w[1]:.1f} |", flush=True)


def per_notebook(numbers):
    notebooks = [next(ROOT.glob(f"notebooks/{n}_*.ipynb")) for n in numbers]
    print("| notebook | cold: s (cache entries written) | after the warm-up: s (entries written) |\n|---|---|---|")
    rows = {nb.name: [] for nb in notebooks}
    for warmed in (False, True):
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            env = environment(Path(cache))
            if warmed:
                warm(env)
            for nb in notebooks:  # in course order, one cache: a later notebook reuses an earlier one's code
                before = entries(Path(cache))
                wall, _ = timed([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                                 "--output-dir", out, str(nb)], env, cwd=nb.parent)
                rows[nb.name].append(f"{wall:.0f} ({entries(Path(cache)) - before})")
    for name, cells in rows.items():
        print(f"| {name} | {cells[0]} | {cells[1]} |", flush=True)


def docstring_edit():
    fit = ("from svmteach import MulticlassSVC, data; X, y = data.multiclass_blobs(n=60, k=3, seed=0); "
           "[MulticlassSVC(loss=loss).fit(X, y) for loss in ('ww', 'cs', 'llw')]")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "src"
        shutil.copytree(ROOT / "svmteach", root / "svmteach",
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
        env = dict(environment(Path(tmp) / "cache"), PYTHONPATH=str(root))
        for label in ("cold", "warm", "after a docstring edit to losses/crammer_singer.py"):
            if label.startswith("after"):
                loss = root / "svmteach" / "losses" / "crammer_singer.py"
                loss.write_text(loss.read_text().replace('"""The Crammer-Singer loss', '"""The Crammer-Singer loss (edited)', 1))
            wall, cpu = timed([sys.executable, "-c", fit], env, cwd=root)
            print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="*", default=["06", "08", "09"])
    parser.add_argument("--skip-types", action="store_true")
    parser.add_argument("--docstring-edit", action="store_true", help="time a fit after a docstring edit")
    parser.add_argument("--types", nargs="*", default=list(TYPES), choices=list(TYPES), metavar="TYPE",
                        help="the first fits to time (default: all)")
    args = parser.parse_args(argv)
    if not args.skip_types:
        per_type(args.types)
    if args.notebooks:
        per_notebook(args.notebooks)
    if args.docstring_edit:
        docstring_edit()


if __name__ == "__main__":
    main()
