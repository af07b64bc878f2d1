"""Numba's on-disk cache for the package's compiled code, invalidated by an edit to any file it reads.

Numba (``@njit(cache=True)``) stamps a cached function with its own file only, so a compiled function
that calls a compiled helper of another file, or reads a constant imported from one, would keep stale
machine code after that other file changes; and an index that names a type the package has since moved
or renamed fails to load at all (numba unpickles it before it checks its stamp).  :func:`install` keeps
the package's cached code in a folder named by a digest of its compiled sources, inside the one numba
uses (``__pycache__``, or ``NUMBA_CACHE_DIR``): the code of each file that compiles with numba and of each
package file it imports from (that covers the helpers it calls, the constants it reads, the row kernels a
driver inlines). An edit to the code of any of them (not to a docstring or a comment) gives a new folder, so
the next process recompiles the package's cached functions and never reads an older index; that process
deletes the older folders beside it.

Functions outside the package keep numba's own locators.  ``svmteach/__init__.py`` installs this
before any compiled module is imported (a locator is chosen when ``@njit(cache=True)`` decorates).
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import re
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: A module that imports numba (a docstring that only mentions it does not count).
_COMPILES = re.compile(r"^\s*(?:from numba\b|import numba\b)", re.MULTILINE)
#: A class defined at a module's top level.
_CLASSES = re.compile(r"^class (\w+)", re.MULTILINE)


def _imported_files(path: Path, tree: ast.Module, package: Path = PACKAGE) -> set[Path]:
    """The package's files that ``path`` imports from (relative or ``svmteach.`` imports)."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            parts = node.module.split(".") if node.module else []
        elif node.module and node.module.split(".")[0] == package.name:
            base, parts = package, node.module.split(".")[1:]
        else:
            continue
        target = base.joinpath(*parts)
        candidates = [target.with_suffix(".py"), target / "__init__.py"]
        # ``from . import rows`` names modules, not attributes
        candidates += [target / f"{alias.name}.py" for alias in node.names]
        found.update(c for c in candidates if c.is_file())
    return found


def code_of(text: str) -> bytes:
    """What of a module's source can change compiled code: its syntax tree without docstrings (comments, blank
    lines and line numbers are not in the tree), so that editing a docstring recompiles nothing but the functions
    of that file (numba's own stamp, the file's time and size)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


def digest_of(package: Path) -> str:
    """A hash of the code (:func:`code_of`) of every file of ``package`` that compiles with numba and of each
    package file those import from, and of the names of every module's classes."""
    files = set()
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        # every module's classes by name: an index pickles the types of a signature by module and name, and one
        # whose class was renamed or moved fails to load (the class may live in a file no compiled file imports)
        digest.update(f"{path.relative_to(package)}:{' '.join(_CLASSES.findall(text))}".encode())
        if _COMPILES.search(text):
            files.add(path)
            files |= _imported_files(path, ast.parse(text), package)
    for path in sorted(files):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(code_of(path.read_text(encoding="utf-8")))
    return digest.hexdigest()


@lru_cache(maxsize=1)
def sources_digest() -> str:
    """:func:`digest_of` the installed package: the name of its cache folder."""
    return digest_of(PACKAGE)


def _in_package(py_file) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, ValueError):
        return False


_CLEANED: set = set()


def _remove_older_folders(parent: str) -> None:
    """Delete, once a process, the folders of older digests beside this one in ``parent``: they hold code of
    sources this folder no longer has (numba's parent folder is one per source folder), never read again."""
    if parent in _CLEANED:
        return
    _CLEANED.add(parent)
    current = f"svmteach-{sources_digest()[:16]}"
    for old in Path(parent).glob("svmteach-*"):
        if old.name != current and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def _stamped(locator_class):
    """``locator_class`` for the package's functions, its cache folder inside one named by :func:`sources_digest`."""

    def get_cache_path(self):
        return os.path.join(locator_class.get_cache_path(self), f"svmteach-{sources_digest()[:16]}")

    def ensure_cache_path(self):
        locator_class.ensure_cache_path(self)
        _remove_older_folders(os.path.dirname(self.get_cache_path()))

    def from_function(cls, py_func, py_file):
        if not _in_package(py_file):
            return None
        return super(stamped, cls).from_function(py_func, py_file)

    stamped = type(f"Stamped{locator_class.__name__}", (locator_class,),
                   {"get_cache_path": get_cache_path, "ensure_cache_path": ensure_cache_path,
                    "from_function": classmethod(from_function),
                    "__module__": __name__})
    return stamped


def install() -> None:
    """Put the stamped locators before numba's own (once; numba 0.60 and later keep them in
    ``CacheImpl._locator_classes``)."""
    from numba.core import caching

    classes = caching.CacheImpl._locator_classes
    if any(getattr(cls, "__module__", "") == __name__ for cls in classes):
        return
    source_backed = [cls for cls in classes if issubclass(cls, caching._SourceFileBackedLocatorMixin)]
    classes[:0] = [_stamped(cls) for cls in source_backed]
