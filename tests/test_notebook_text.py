"""The course's text: every notebook cites real documents, never the development files,
keeps derivation checks short, and writes its mathematics as mathematics.

These tests read the committed notebooks (sources and saved outputs); they run nothing.
The display rules of each derivation step are tested in ``test_derivations.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

#: the development files' names, in any case: "seed 001", "seed001", "seeds/".
DEVELOPMENT_NAMES = re.compile(r"seed ?00|seeds/", re.IGNORECASE)

#: the longest rich output (LaTeX, HTML, Markdown) a cell that calls ``derivations`` may display;
#: what a collapsed <details> element hides is not displayed, its <summary> is
MAX_DERIVATION_OUTPUT = 800
RICH_TYPES = ("text/latex", "text/html", "text/markdown")
DETAILS = re.compile(r"<details[^>]*>(.*?)</details>", re.DOTALL | re.IGNORECASE)
SUMMARY = re.compile(r"<summary[^>]*>.*?</summary>", re.DOTALL | re.IGNORECASE)
TAG = re.compile(r"<[^>]+>")

#: mathematics written as plain text, looked for in Markdown outside $...$, $$...$$ and code
PLAIN_MATH = {
    "a Greek name with a subscript (alpha_i)": re.compile(
        r"\b(alpha|beta|gamma|delta|eta|theta|lambda|mu|xi|sigma|phi|psi|zeta)_\w", re.IGNORECASE),
    "a one-letter name with a subscript (x_i, y_j)": re.compile(r"\b[A-Za-z]_[A-Za-z0-9{]"),
    "a transpose (x_i')": re.compile(r"\b[A-Za-z]_[A-Za-z0-9]+'"),
    "a norm written ||w||": re.compile(r"\|\|"),
    "a sum written sum_i": re.compile(r"\bsum_", re.IGNORECASE),
    "an inequality written <= or >=": re.compile(r"<=|>=|!="),
}

DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
FENCED_CODE = re.compile(r"```.*?```", re.DOTALL)
INLINE_MATH = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$")
INLINE_CODE = re.compile(r"`[^`]*`")
URL = re.compile(r"https?://\S+")


def read(path):
    return nbformat.read(path, as_version=4)


def ids(paths):
    return [p.name for p in paths]


def prose(markdown: str) -> list[str]:
    """The lines of a Markdown cell with its mathematics, code and links removed."""
    text = FENCED_CODE.sub(" ", DISPLAY_MATH.sub(" ", markdown))
    lines = []
    for line in text.splitlines():
        line = URL.sub(" ", INLINE_CODE.sub(" ", INLINE_MATH.sub(" ", line)))
        lines.append(line)
    return lines


def output_texts(cell):
    """Every text a code cell's saved outputs show: (mime type, text)."""
    for out in cell.get("outputs", []):
        if "text" in out:
            yield "stream", out["text"]
        if "traceback" in out:
            yield "error", "\n".join(out["traceback"])
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/") or mime.endswith("json"):
                yield mime, value if isinstance(value, str) else str(value)


# ---- checks (functions, so that they can be tried on any notebook) --------------------------------


def references_problems(nb) -> list[str]:
    """A 'References' section: a Markdown cell that starts with the heading and lists an entry."""
    cells = [c for c in nb.cells if c.cell_type == "markdown" and c.source.lstrip().startswith("## References")]
    if not cells:
        return ["no Markdown cell starts with '## References'"]
    entries = [line for c in cells for line in c.source.splitlines()[1:]
               if re.match(r"\s*(?:[-*+]|\d+\.)\s+\S", line)]
    return [] if entries else ["the References section lists no entry"]


def development_name_problems(nb) -> list[str]:
    """Cells (source or output) that name the development files."""
    found = []
    for k, cell in enumerate(nb.cells):
        texts = [("source", cell.source)] + list(output_texts(cell))
        for where, text in texts:
            m = DEVELOPMENT_NAMES.search(text)
            if m:
                found.append(f"cell {k} ({where}): ...{text[max(0, m.start() - 40):m.end() + 20]!r}...")
    return found


def displayed(mime: str, value: str) -> str:
    """What an output shows before anyone expands it: HTML without its tags and without what
    collapsed <details> hide (their <summary> stays); LaTeX and Markdown as they are."""
    if mime != "text/html":
        return value
    shown = DETAILS.sub(lambda m: " ".join(SUMMARY.findall(m.group(1))), value)
    return TAG.sub("", shown)


def long_derivation_output_problems(nb) -> list[str]:
    """Rich outputs that display more than MAX_DERIVATION_OUTPUT characters in cells that call
    ``derivations`` (each check is one collapsed line; the full derivation is in the prose)."""
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "derivations" not in cell.source:
            continue
        for out in cell.get("outputs", []):
            for mime in RICH_TYPES:
                value = out.get("data", {}).get(mime)
                if value is None:
                    continue
                shown = displayed(mime, value if isinstance(value, str) else "".join(value))
                if len(shown) > MAX_DERIVATION_OUTPUT:
                    found.append(f"cell {k}: a {mime} output showing {len(shown)} characters")
    return found


def plain_math_problems(nb) -> list[str]:
    """Markdown lines with mathematics written as plain text."""
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for line in prose(cell.source):
            for what, pattern in PLAIN_MATH.items():
                m = pattern.search(line)
                if m:
                    found.append(f"cell {k}: {what}: {line.strip()[:100]!r}")
    return found


# ---- tests -----------------------------------------------------------------------------------------


def test_the_course_is_there():
    assert len(NOTEBOOKS) >= 8, [p.name for p in NOTEBOOKS]


#: Each rule a notebook's text must meet: a function from a notebook to the list of its problems.
RULES = {
    "ends with references": references_problems,
    "never names the development files": development_name_problems,
    "derivation checks display short": long_derivation_output_problems,
    "no plain-text mathematics": plain_math_problems,
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_notebook_text_rule(path, rule):
    problems = RULES[rule](read(path))
    assert not problems, "\n".join(problems)


def test_notebook_02_points_to_the_course_notation():
    """Notebook 02 keeps no conventions table of its own (its Crammer-Singer row gave the simplex mass as C where
    notebook 07 projects onto C ||x_i||); it points to the one notation table, docs/notation.md (issue 28)."""
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("02_")]
    markdown = [c.source for c in read(path).cells if c.cell_type == "markdown"]
    assert not any(s.lstrip().startswith("## Conventions used throughout the course") for s in markdown)
    assert any("docs/notation.md" in s for s in markdown)


# ---- the checks themselves find what they are for ------------------------------------------------


def _notebook(markdown=(), code=()):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(s) for s in markdown]
    for source, outputs in code:
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.from_dict(o) for o in outputs]
        nb.cells.append(cell)
    return nb


def test_checks_catch_what_they_are_for():
    assert references_problems(_notebook(["# Title", "Text with ## References inside"]))
    assert references_problems(_notebook(["## References\n\nnothing listed"]))
    assert not references_problems(_notebook(["## References\n\n- Platt (1998)"]))

    assert development_name_problems(_notebook(["*Sources: Seed 001*"]))
    assert development_name_problems(_notebook(code=[("print(1)", [{"output_type": "stream", "name": "stdout",
                                                                    "text": "seed002, eq. 3"}])]))
    assert development_name_problems(_notebook(["see shared/seeds/README"]))
    assert not development_name_problems(_notebook(code=[("data.moons(seed=0)", [])]))

    long = {"output_type": "display_data", "metadata": {}, "data": {"text/markdown": "$$" + "x" * 900 + "$$"}}
    assert long_derivation_output_problems(_notebook(code=[('derivations.show("binary")', [long])]))
    assert not long_derivation_output_problems(_notebook(code=[("plot()", [long])]))
    folded = {"output_type": "display_data", "metadata": {}, "data": {"text/html": (
        "<details><summary>checked: holds</summary>" + "<div>$$" + "x" * 2000 + "$$</div></details>")}}
    assert not long_derivation_output_problems(_notebook(code=[('derivations.check("binary", "x")', [folded])]))
    unfolded = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<div>" + "x" * 900 + "</div>"}}
    assert long_derivation_output_problems(_notebook(code=[('derivations.check("binary", "x")', [unfolded])]))

    for bad in ["where alpha_i = 0", "the margin 2 / ||w||", "with x_i' w", "for y_j f(x_j) < 1",
                "sum_i y_i", "when 0 <= a"]:
        assert plain_math_problems(_notebook([bad])), bad
    for good in [r"where $\alpha_i = 0$", r"$$\|w\|^2 \le C$$", "call `model.alpha_` or `x_i`",
                 "see 05_kernels_rls.ipynb, Platt's rule", "$$\nx_i' y\n$$"]:
        assert not plain_math_problems(_notebook([good])), good
