"""The package's shape, read from its source with ``ast``: no import circle, and compiled code
that numba's on-disk cache can keep correct.

Numba's cache (``@njit(cache=True)``) checks only the file that holds a compiled function: a
compiled function that calls a compiled function (or reads a constant) of another file keeps its
stale machine code when only that other file changes.  So every cached compiled function may
call compiled functions of its own file only; the one test here that runs numba shows that an
edit to such a helper is then seen by a fresh process without deleting any cache file.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import svmteach

PACKAGE = Path(svmteach.__file__).resolve().parent
ROOT = PACKAGE.parent

#: Cached compiled functions that still read compiled functions or constants of another file.
#: Not safe: after editing one of those names, delete numba's cache files (the README says so).
#: Each multiclass loss's compiled epoch lives in its loss module; Weston-Watkins' and
#: Crammer-Singer's call their row solutions ``ww_block_row`` and ``project_simplex_row``, public
#: functions of :mod:`svmteach.projections` (tested there), and ``EPS`` / ``EPOCH_FASTMATH`` /
#: ``box_violation`` (one variable's KKT violation in its box) / ``at_rest`` (shrinking's test of a
#: sample whose block is settled at 0) are shared by the losses from
#: :mod:`svmteach.losses.base`.  (Lee-Lin-Wahba's row solution sits beside its epoch.)  Every epoch
#: reads X through ``row_dot`` / ``row_axpy`` of :mod:`svmteach.rows`, so that one loop serves a dense
#: and a CSR X; so does the binary dual coordinate ascent's linear loop (and nothing else of the package).
#: The kernel methods' loops read the rows of K through ``get_row`` of the bounded row cache,
#: :mod:`svmteach.solvers.numba_kernel_rows` (shared by SMO and dual coordinate ascent).
#: The dict is compared exactly, so a new cross-file read fails the test.
_ROWS = {"svmteach.rows.row_dot", "svmteach.rows.row_axpy"}
_KERNEL_ROWS = {"svmteach.solvers.numba_kernel_rows.get_row"}
_BASE = {"svmteach.losses.base.EPS", "svmteach.losses.base.EPOCH_FASTMATH"}
ALLOWED_CROSS_FILE = {
    "svmteach.losses.crammer_singer._cs_epoch": {"svmteach.projections.project_simplex_row"} | _BASE | _ROWS,
    "svmteach.losses.weston_watkins._ww_exact_epoch": {
        "svmteach.projections.ww_block_row", "svmteach.losses.base.box_violation",
        "svmteach.losses.base.at_rest"} | _BASE | _ROWS,
    "svmteach.losses.lee_lin_wahba._llw_epoch": {
        "svmteach.losses.base.box_violation", "svmteach.losses.base.at_rest"} | _BASE | _ROWS,
    "svmteach.solvers.ww_shark._ww_shark_epoch": {
        "svmteach.losses.base.EPOCH_FASTMATH", "svmteach.losses.base.box_violation",
        "svmteach.losses.base.at_rest"} | _ROWS,
    "svmteach.solvers.numba_dual_cd.steps_linear": _ROWS,
    "svmteach.solvers.numba_dual_cd.steps_gram": _KERNEL_ROWS,
    "svmteach.solvers.numba_smo._select": _KERNEL_ROWS,
    "svmteach.solvers.numba_smo.smo_loop": _KERNEL_ROWS,
}


def _modules():
    """``{dotted name: (path, ast tree)}`` of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = (path, ast.parse(path.read_text(), str(path)))
    return out


MODULES = _modules()


def _package_of(name, path):
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _resolve(name, path, node):
    """The absolute module names an ``import`` / ``from ... import`` node refers to."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = _package_of(name, path).split(".")
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    # "from pkg import sub" imports the submodule pkg.sub when there is one
    return [base] + [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]


def _graph():
    """Import edges between the package's modules, from imports at any depth (inside functions too).

    Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so those are edges too.
    """
    edges = {name: set() for name in MODULES}
    for name, (path, tree) in MODULES.items():
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _resolve(name, path, node):
                parts = target.split(".")
                for k in range(1, len(parts) + 1):
                    dep = ".".join(parts[:k])
                    # a module's own parents are already running when it runs: no edge to them
                    if dep in MODULES and dep != name and not name.startswith(dep + "."):
                        edges[name].add(dep)
    return edges


def _cycle(edges):
    """One import circle as a list of modules, or None."""
    colour = dict.fromkeys(edges, 0)  # 0 unseen, 1 on the stack, 2 done
    stack = []

    def visit(u):
        colour[u] = 1
        stack.append(u)
        for v in sorted(edges[u]):
            if colour[v] == 1:
                return stack[stack.index(v):] + [v]
            if colour[v] == 0 and (found := visit(v)):
                return found
        stack.pop()
        colour[u] = 2
        return None

    for u in sorted(edges):
        if colour[u] == 0 and (found := visit(u)):
            return found
    return None


def test_the_import_graph_is_read_from_the_source():
    """The graph sees what it must (else "no circle" would hold vacuously)."""
    edges = _graph()
    assert "svmteach.solvers.numba_smo" in edges["svmteach.solvers.smo"]  # a module-level relative import
    assert "svmteach.solvers.kernel_scores" in edges["svmteach.solvers.dual_cd"]
    assert "svmteach.estimators" in edges["svmteach.rls"]  # an import inside a function
    assert "svmteach.solvers" in edges["svmteach.estimators.binary"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle():
    assert _cycle(_graph()) is None


def test_compiled_fast_paths_are_leaves():
    """The compiled modules import nothing from the package's solvers (the step paths import them)."""
    edges = _graph()
    leaves = ("svmteach.solvers.numba_smo", "svmteach.solvers.numba_dual_cd", "svmteach.solvers.numba_kernel_rows")
    for leaf in leaves:  # (a leaf may read another leaf: the kernel rows)
        assert not {m for m in edges[leaf] if m.startswith("svmteach.solvers")} - {"svmteach.solvers", *leaves}, leaf
    assert not {m for m in edges["svmteach.solvers.numba_kernel_rows"] if m.startswith("svmteach")}


def _is_njit(decorator):
    call = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(call, ast.Name) and call.id == "njit") or (
        isinstance(call, ast.Attribute) and call.attr in ("njit", "jit"))


def _is_cached(decorator):
    return isinstance(decorator, ast.Call) and any(
        k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords)


def _compiled_functions():
    """``{(module, name): (cached, node)}`` of every top-level ``@njit`` function."""
    out = {}
    for name, (_, tree) in MODULES.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                decs = [d for d in node.decorator_list if _is_njit(d)]
                if decs:
                    out[name, node.name] = (any(_is_cached(d) for d in decs), node)
    return out


def _imported_names(name):
    """``{local name: (module, attribute or None)}`` bound by the module's imports of package modules."""
    path, tree = MODULES[name]
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(name, path, node)[0]
            for alias in node.names:
                full = f"{base}.{alias.name}"
                bound[alias.asname or alias.name] = (full, None) if full in MODULES else (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.partition(".")[0]] = (alias.name, None)
    return {k: v for k, v in bound.items() if v[0].startswith("svmteach")}


def _foreign_references(name, func):
    """Names a compiled function reads that come from another module of the package."""
    imported = _imported_names(name)
    found = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in imported:
            module, attr = imported[node.id]
            if attr:  # a name imported from a module (a module itself is read through its attributes)
                found.add(f"{module}.{attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            module, attr = imported[node.value.id]
            if attr is None:  # module.function
                found.add(f"{module}.{node.attr}")
    return found


def test_cached_compiled_code_reads_only_its_own_file():
    """No ``@njit(cache=True)`` function calls a compiled function, or reads a constant, of another file
    (a decorator's argument included), except those listed, with the reason, in ``ALLOWED_CROSS_FILE``."""
    compiled = _compiled_functions()
    assert ("svmteach.solvers.numba_smo", "smo_loop") in compiled  # the scan sees the loops
    offending = {}
    for (name, func), (cached, node) in compiled.items():
        if cached:
            foreign = _foreign_references(name, node)
            if foreign:
                offending[f"{name}.{func}"] = foreign
    assert offending == ALLOWED_CROSS_FILE
    assert all(offending[name] in (_ROWS, _KERNEL_ROWS) for name in offending
               if name.startswith(("svmteach.solvers.numba_", "svmteach.solvers.smo", "svmteach.solvers.dual_cd"))
               )  # the binary fast paths read nothing of another file but X's rows or K's


def test_the_cross_file_scan_finds_a_foreign_call(tmp_path):
    """The scan flags a compiled function that calls another module's compiled function."""
    tree = ast.parse(textwrap.dedent("""
        from ..projections import project_simplex_row
        from .. import projections as pj
        @njit(cache=True)
        def f(v, out):
            project_simplex_row(v, 1.0, out)
            pj.ww_block_row(v, 1.0, out, out, out)
    """))
    MODULES["svmteach.solvers._probe"] = (PACKAGE / "solvers" / "_probe.py", tree)
    try:
        assert _foreign_references("svmteach.solvers._probe", tree.body[2]) == {
            "svmteach.projections.project_simplex_row", "svmteach.projections.ww_block_row"}
    finally:
        del MODULES["svmteach.solvers._probe"]


# ---- numba's cache sees an edit to a compiled helper -------------------------------------------

SOLVE = """
import numpy as np
import svmteach
from svmteach import BinaryProblem
from svmteach.solvers import SMO, DualCoordinateAscent
rng = np.random.default_rng(0)
X = rng.normal(size=(30, 2))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1, -1)
p = BinaryProblem(X, y, C=1.0)
smo, cd = SMO(), DualCoordinateAscent(random_state=0)
print(svmteach.__file__)
print(repr(float(smo.advance(p, smo.init(p), 6).alpha.sum())), repr(float(cd.advance(p, cd.init(p), 20).alpha.sum())))
"""


def _run(root, cache):
    """Six SMO steps and twenty coordinate steps of the compiled loops, in a fresh process."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", SOLVE], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    where, values = out.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(root)  # the copy ran, not the installed package
    return [float(v) for v in values.split()]


def _edit(path, old, new):
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.mark.slow  # tens of seconds: the whole run only (conftest.py's tiers)
def test_an_edited_compiled_helper_is_recompiled(tmp_path):
    """Edit the helpers the cached loops call, run a fresh process: the loops use the new helpers.

    The pair update and the coordinate step each take half their step; no cache file is deleted.
    """
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "svmteach", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    cache = tmp_path / "numba-cache"
    before = _run(root, cache)
    assert any(cache.rglob("*smo_loop*.nbi")) and any(cache.rglob("*steps_linear*.nbi"))  # the cache was written
    assert _run(root, cache) == before  # and a second process reads it
    kernels = root / "svmteach" / "solvers"
    _edit(kernels / "numba_smo.py", "unclipped = aj + slope / eta", "unclipped = aj + 0.5 * slope / eta")
    _edit(kernels / "numba_dual_cd.py", "x = -b / (2.0 * a)", "x = -b / (4.0 * a)")
    after = _run(root, cache)
    assert after[0] != pytest.approx(before[0], rel=1e-6)
    assert after[1] != pytest.approx(before[1], rel=1e-6)
