"""Issue 42, "the first hour", the documentation site: its front page counts the course right, each notebook is one
entry of the course's table of contents, and formulas render without a network (MathJax is served with the site).
The build itself (about a minute) is the slow test; it runs where the [docs] extra is installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LESSONS = [p for p in NOTEBOOKS if not p.name.startswith("00_")]
WORDS = {8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


def test_the_front_page_counts_the_lessons_and_the_guide():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert f"{WORDS[len(LESSONS)]} lessons" in index and "course/00_guide" in index
    assert not re.search(r"\b(eight|ten) Jupyter notebooks\b", index)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_has_one_top_level_heading_its_title(path):
    """A second ``# `` heading (notebook 2's "Part I", "Part II") is a second entry of the course in the docs'
    table of contents and sidebar."""
    cells = nbformat.read(path, as_version=4).cells
    titles = [line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines()
              if re.match(r"# \S", line)]
    assert len(titles) == 1 and cells[0].source.lstrip().startswith(titles[0]), titles


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site: the one .ci/run has just built (``SVMTEACH_DOCS_BUILD``: it runs this file after its docs
    build, where the [docs] extra is installed), else a build of its own."""
    if os.environ.get("SVMTEACH_DOCS_BUILD"):
        return Path(os.environ["SVMTEACH_DOCS_BUILD"])
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    pytest.importorskip("mathjax", reason="django-static-mathjax, of the [docs] extra")
    out = tmp_path_factory.mktemp("docs") / "html"
    built = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stderr[-3000:]
    return out


SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"([^\"]+)\"", re.IGNORECASE)


@pytest.mark.slow
def test_the_site_serves_mathjax_itself(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > len(NOTEBOOKS)
    math_pages = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        mathjax = [s for s in SCRIPT.findall(html) if "mathjax" in s.lower()]
        assert not [s for s in mathjax if re.match(r"(https?:)?//", s)], (page.name, mathjax)  # none from a CDN
        if 'class="math' in html:
            math_pages += 1
            assert mathjax, f"{page.name} has formulas and no MathJax"
        for src in mathjax:
            assert (page.parent / src.split("?")[0]).is_file(), (page.name, src)
    assert math_pages >= len(LESSONS)
    # (the pages with widgets still load require.js and the widgets' HTML manager from CDNs, for the widgets' saved
    # state: the formulas do not depend on them)
    mathjax_dir = site / "_static" / "mathjax"
    fonts = list((mathjax_dir / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert fonts and (mathjax_dir / "input" / "tex" / "extensions").is_dir()  # what the component loads itself


@pytest.mark.slow
def test_each_notebook_is_one_entry_of_the_course(site):
    course = (site / "course.html").read_text(encoding="utf-8")
    body = course[course.index('<div class="toctree-wrapper'):]
    body = body[:body.index("</div>")]
    entries = re.findall(r'<li class="toctree-l1"><a class="reference internal" href="([^"]+)"', body)
    assert entries == [f"course/{p.stem}.html" for p in NOTEBOOKS]
