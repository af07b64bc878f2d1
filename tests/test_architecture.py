"""The package's shape, read from its source with ``ast``: no import circle, no upward import
(each part of the package imports only the floors below it, :data:`FLOORS`), and one version string.

Numba's cache staying correct after an edit to a helper of another file is
``tests/test_compiled_cache.py``'s (:mod:`svmteach.compiled_cache`).
"""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

import pytest

import svmteach

PACKAGE = Path(svmteach.__file__).resolve().parent
ROOT = PACKAGE.parent

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
    assert "svmteach.solvers.kernel_scores" in edges["svmteach.solvers.base"]  # an import inside a function
    assert "svmteach.solvers" in edges["svmteach.estimators.binary"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle():
    assert _cycle(_graph()) is None


def test_compiled_fast_paths_are_leaves():
    """The compiled modules import nothing from the package's solvers (the step paths import them)."""
    edges = _graph()
    leaves = ("svmteach.solvers.numba_smo", "svmteach.solvers.numba_dual_cd", "svmteach.solvers.numba_kernel_rows",
              "svmteach.solvers.numba_multiclass", "svmteach.solvers.numba_shark")
    for leaf in leaves:  # (a leaf may read another leaf: the kernel rows)
        assert not {m for m in edges[leaf] if m.startswith("svmteach.solvers")} - {"svmteach.solvers", *leaves}, leaf
    assert not {m for m in edges["svmteach.solvers.numba_kernel_rows"] if m.startswith("svmteach")}


#: The floors of the package, bottom up (the README's data flow):
#: a part (a top-level module, or a subpackage as a whole) imports only parts on floors below its own.
FLOORS = [
    {"backend"},  # the array namespaces: NumPy only
    {"rows", "data", "compiled_cache", "compile_notice"},
    {"kernels", "projections", "validation"},
    {"losses"},
    {"multiclass_model"},  # the multiclass data seam: W (linear) or the training scores S (kernel)
    {"problems", "objectives"},
    {"solvers", "rls", "chunked_problem"},  # chunked_problem: a dask X's row chunks, each a MulticlassProblem or BinaryProblem
    {"estimators", "viz"},
    {"widgets", "derivations", "warm_up", "__init__"},  # __init__: the flat public API; warm_up: the course's fits
    {"exercises"},
    {"cli"},
]


def _part(module):
    """The part of the package a module belongs to: ``svmteach.solvers.smo`` -> ``solvers``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _upward_imports(edges, floors):
    """``(importer, imported)`` pairs whose imported module's part is not on a floor below the importer's."""
    floor = {part: level for level, parts in enumerate(floors) for part in parts}
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if _part(a) != _part(b) and floor[_part(b)] >= floor[_part(a)])


def test_every_part_of_the_package_has_a_floor():
    parts = {_part(name) for name in MODULES}
    assert parts == set().union(*FLOORS), "give each new part of the package its floor in FLOORS"


def test_no_upward_import():
    assert _upward_imports(_graph(), FLOORS) == []


def test_the_upward_scan_finds_an_upward_import():
    """``exercises/__main__`` importing ``cli`` (as it once did) is flagged; so is an import within a floor."""
    edges = {"svmteach.exercises.__main__": {"svmteach.cli", "svmteach.exercises.core"},
             "svmteach.viz.binary": {"svmteach.estimators.binary", "svmteach.solvers"}}
    assert _upward_imports(edges, FLOORS) == [("svmteach.exercises.__main__", "svmteach.cli"),
                                              ("svmteach.viz.binary", "svmteach.estimators.binary")]


def test_one_version_string():
    """pyproject.toml takes its version from ``svmteach.__version__``; the installed metadata says the same."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "svmteach.__version__"}
    assert importlib.metadata.version("svmteach") == svmteach.__version__


def test_an_estimator_that_misses_a_hook_cannot_be_made():
    """DualSVC's hooks are abstract: a subclass without ``store`` is refused when it is made, naming the hook,
    rather than failing inside its first fit."""
    import pytest

    from svmteach.estimators.base import DualSVC

    class Half(DualSVC):
        def make_solver(self, sparse=False):
            return None

        def problem_for(self, X, y, sample_weight=None):
            return None

    with pytest.raises(TypeError, match="store"):
        Half()
