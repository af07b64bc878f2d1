"""Sphinx configuration: the API reference from the numpydoc docstrings, and the course's notebooks
rendered with their committed outputs (myst-nb, never executed here).

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

import re
import shutil
from pathlib import Path

import svmteach

project = "svmteach"
author = "svmteach contributors"
release = version = svmteach.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",  # numpydoc sections
    "sphinx.ext.mathjax",
    "myst_nb",  # Markdown pages and the notebooks
]

exclude_patterns = ["_build", "**/.ipynb_checkpoints", "course/__pycache__"]

autosummary_generate = True
autodoc_default_options = {"members": True}  # a class's own members (not scikit-learn's inherited ones)
autodoc_typehints = "description"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True
templates_path = ["_templates"]  # a class page is the class's own docstring and members, no method tables

nb_execution_mode = "off"  # the notebooks are committed executed; the docs show those outputs
nb_output_stderr = "remove"  # compile-time notes and warnings that a run printed are not the lesson
myst_enable_extensions = ["dollarmath", "amsmath"]

html_theme = "alabaster"
html_title = f"svmteach {release}"

#: MathJax is served with the site, not from a CDN: a site built offline, opened from disk or on a network that blocks
#: the CDN shows formulas, not raw TeX.  mathjax_path is relative to _static; the files are copied there after the
#: build (:func:`_copy_mathjax`): the TeX-and-MathML to HTML component, the TeX extensions it loads on demand, its
#: fonts, its menu and the accessibility parts the menu turns on.
MATHJAX_FILES = ("es5/tex-mml-chtml.js", "es5/input", "es5/output/chtml", "es5/ui", "es5/a11y", "es5/sre", "LICENSE")
mathjax_path = "mathjax/tex-mml-chtml.js"


#: ``coef_`` outside backticks is reStructuredText's reference syntax; the fitted attributes are names here.
_TRAILING_UNDERSCORE = re.compile(r"(?<![\w`\\])([A-Za-z]\w*[A-Za-z0-9])_(?![\w`])")


def _escape_fitted_names(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        parts = line.split("``")  # literals (odd parts) stay as they are
        parts[::2] = [_TRAILING_UNDERSCORE.sub(r"\1\\_", part) for part in parts[::2]]
        lines[i] = "``".join(parts)


def _prose_attributes(app, what, name, obj, options, lines):
    """An Attributes section that lists several attributes a line (``a_ : ...;  b_ : ...``, the estimators')
    is prose, not numpydoc entries: shown as one paragraph under its heading."""
    for i in range(len(lines) - 2):
        if lines[i].strip() == "Attributes" and set(lines[i + 1].strip()) == {"-"}:
            end = next((j for j in range(i + 2, len(lines)) if not lines[j].strip()), len(lines))
            if not any(";  " in line for line in lines[i + 2:end]):
                return
            lines[i:end] = [".. rubric:: Attributes", "", " ".join(line.strip() for line in lines[i + 2:end])]
            return


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Members that scikit-learn's base classes add (``set_fit_request``, ``score``) are scikit-learn's to document."""
    module = getattr(obj, "__module__", None) or ""
    return True if module.startswith("sklearn") else None


def _copy_mathjax(app, exception):
    """Copy :data:`MATHJAX_FILES` into the built site's ``_static/mathjax`` (``es5/`` dropped: the component finds
    its parts next to itself)."""
    if exception is not None or app.builder.format != "html":
        return
    # django-static-mathjax ([docs] extra): MathJax 3.2.2's own files, no dependencies (Django is not needed);
    # imported here, so that the docstring hooks above load (tests/test_docs.py) without the [docs] extra
    import mathjax

    source_root = Path(mathjax.__file__).parent / "static" / "mathjax"
    target = Path(app.outdir) / "_static" / "mathjax"
    for name in MATHJAX_FILES:
        source, dest = source_root / name, target / name.removeprefix("es5/")
        if source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)


def setup(app):
    app.connect("build-finished", _copy_mathjax)
    app.connect("autodoc-process-docstring", _prose_attributes, priority=400)  # before napoleon (500)
    app.connect("autodoc-process-docstring", _escape_fitted_names, priority=600)  # after napoleon (500)
    app.connect("autodoc-skip-member", _skip_foreign_members)
