"""Every lesson notebook of the course opens with what the student will learn and what they need, and closes
with a summary and where to go next (issue 28: a teaching layer above the derivations).

Right after the title cell: one markdown cell with ``## Learning objectives`` (at least three bullets) and
``## Prerequisites`` (at least one).  At the end, after every other section and before ``## References``
(and a teacher's appendix, if any): one markdown cell with ``## Summary`` (at least three bullets) and
``## What next``.  The guide, ``00_guide.ipynb``, is not a lesson and is exempt.
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("00"))
AFTER_SUMMARY = ("## References", "## For the teacher")


def markdown_cells(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def section(text, heading):
    """The lines under ``heading`` in a markdown cell, up to the next heading of the same or a higher level."""
    lines = text.splitlines()
    try:
        start = next(k for k, line in enumerate(lines) if line.strip() == heading)
    except StopIteration:
        return None
    body = []
    for line in lines[start + 1:]:
        if re.match(r"#{1,2} ", line):
            break
        body.append(line)
    return body


def bullets(lines):
    return [line for line in lines if re.match(r"\s*([-*]|\d+\.) \S", line)]


def test_the_course_has_its_lessons():
    assert len(LESSONS) >= 8, [p.name for p in LESSONS]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_a_lesson_opens_with_objectives_and_prerequisites(path):
    cells = markdown_cells(path)
    assert cells[0][1].lstrip().startswith("# "), f"{path.name}: the first cell is the title"
    index, text = cells[1]
    assert index == 1, f"{path.name}: the objectives come right after the title cell"
    objectives = section(text, "## Learning objectives")
    prerequisites = section(text, "## Prerequisites")
    assert objectives is not None, f"{path.name}: no '## Learning objectives' after the title"
    assert len(bullets(objectives)) >= 3, f"{path.name}: at least three learning objectives, as bullets"
    assert prerequisites is not None, f"{path.name}: no '## Prerequisites' after the title"
    assert len(bullets(prerequisites)) >= 1, f"{path.name}: the prerequisites, as bullets"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_a_lesson_closes_with_a_summary_and_what_next(path):
    cells = markdown_cells(path)
    found = [(i, text) for i, text in cells if section(text, "## Summary") is not None]
    assert len(found) == 1, f"{path.name}: one cell with '## Summary'"
    index, text = found[0]
    assert len(bullets(section(text, "## Summary"))) >= 3, f"{path.name}: at least three summary bullets"
    what_next = section(text, "## What next")
    assert what_next is not None and " ".join(what_next).strip(), f"{path.name}: '## What next' with text"
    later = [line for i, t in cells if i > index for line in t.splitlines() if re.match(r"## \S", line)]
    stray = [h for h in later if not h.startswith(AFTER_SUMMARY)]
    assert not stray, f"{path.name}: sections after the summary (only References or a teacher's appendix): {stray}"
