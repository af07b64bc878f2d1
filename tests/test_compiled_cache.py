"""Numba's on-disk cache sees an edit to a file that cached compiled code reads (svmteach.compiled_cache).

The oracle is a fresh process that has never cached anything: after the edit, the process that reuses
the cache must print what that one prints.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import svmteach
from svmteach.compiled_cache import sources_digest

PACKAGE = Path(svmteach.__file__).resolve().parent

# Twenty coordinate steps of dual coordinate ascent's compiled linear loop, which reads X through
# ``row_dot`` / ``row_axpy`` of svmteach/rows.py, another file.
SOLVE = """
import numpy as np
import svmteach
from svmteach import BinaryProblem
from svmteach.solvers import DualCoordinateAscent
rng = np.random.default_rng(0)
X = rng.normal(size=(30, 2))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1, -1)
p = BinaryProblem(X, y, C=1.0)
cd = DualCoordinateAscent(random_state=0, shrinking=False)
print(svmteach.__file__)
print(repr(float(cd.advance(p, cd.init(p), 20).alpha.sum())))
"""


def _run(root, cache, script=SOLVE):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    where, value = out.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(root)  # the copy ran, not the installed package
    return float(value)


@pytest.mark.slow  # three fresh processes that compile: the whole run only (conftest.py's tiers)
def test_an_edit_to_another_files_compiled_helper_reaches_the_cached_loop(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "svmteach", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    cache = tmp_path / "numba-cache"
    before = _run(root, cache)
    assert any(cache.rglob("*steps_linear*.nbi"))  # the loop was cached
    rows = root / "svmteach" / "rows.py"
    text = rows.read_text()
    old = "            acc += v[t] * X[i, t]\n"
    assert text.count(old) == 1
    rows.write_text(text.replace(old, "            acc += 0.5 * v[t] * X[i, t]\n"))  # a dense row's dot halved
    after = _run(root, cache)
    folders = list(cache.rglob("svmteach-*"))
    assert folders and len({f.parent for f in folders}) == len(folders)  # the older digest's folders deleted
    fresh = _run(root, tmp_path / "empty-cache")  # nothing cached: certainly the edited helper
    assert after == fresh
    assert after != pytest.approx(before, rel=1e-6)  # and the edit changes the run


# Dual coordinate ascent's kernel loop, which takes the row cache, a NamedTuple of the package, as an argument:
# numba's index of that loop names its type.
SOLVE_GRAM = SOLVE.replace("BinaryProblem(X, y, C=1.0)", "BinaryProblem(X, y, C=1.0, kernel='rbf')")


@pytest.mark.slow  # three fresh processes that compile: the whole run only (conftest.py's tiers)
def test_a_renamed_type_in_a_cached_signature_is_no_crash(tmp_path):
    """Numba unpickles a cache index before it checks its stamp: an index naming a class the package has since
    renamed would raise AttributeError in every later process.  The digest's folder is never such an index."""
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "svmteach", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    cache = tmp_path / "numba-cache"
    before = _run(root, cache, SOLVE_GRAM)
    assert any(cache.rglob("*steps_gram*.nbi"))
    renamed = 0
    for path in (root / "svmteach").rglob("*.py"):
        text = path.read_text()
        if "KernelRowCache" in text:
            path.write_text(text.replace("KernelRowCache", "RenamedRowCache"))
            renamed += 1
    assert renamed
    assert _run(root, cache, SOLVE_GRAM) == before  # the same computation, from a fresh folder


def test_only_the_package_s_functions_carry_the_stamp(tmp_path):
    """A cached function of the package is cached in a folder named by the sources' digest; one outside it keeps numba's own
    locator (the package changes nothing for a user's compiled code)."""
    from numba import njit

    from svmteach.solvers import numba_dual_cd

    ours = numba_dual_cd.maximize_parabola._cache._impl.locator
    assert type(ours).__name__.startswith("Stamped")
    assert Path(ours.get_cache_path()).name == f"svmteach-{sources_digest()[:16]}"
    module = tmp_path / "user_module.py"
    module.write_text("def twice(x):\n    return 2 * x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import user_module

        theirs = njit(cache=True)(user_module.twice)._cache._impl.locator
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_module", None)
    assert not type(theirs).__name__.startswith("Stamped")



def test_a_docstring_or_comment_edit_keeps_the_digest_and_a_code_edit_changes_it(tmp_path):
    """The folder's digest reads the code of the compiled files and what they import, not their docstrings: an edit
    to a loss's docstring recompiles only that file's functions (numba's own stamp), not the other losses' kernels
    and the drivers; an edit to its code recompiles every function that may have inlined it."""
    from svmteach.compiled_cache import digest_of

    root = tmp_path / "svmteach"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    before = digest_of(root)
    assert before == sources_digest()
    loss = root / "losses" / "crammer_singer.py"
    text = loss.read_text()
    marker = '"""The Crammer-Singer loss: primal'
    assert text.count(marker) == 1
    loss.write_text(text.replace(marker, '"""An edited docstring.\n\nThe Crammer-Singer loss: primal') + "\n# a comment\n")
    assert digest_of(root) == before
    code = "AT_C = 4 * EPS\n"
    assert text.count(code) == 1
    loss.write_text(text.replace(code, "AT_C = 8 * EPS\n"))
    assert digest_of(root) != before
