"""Syncing the whole course: every lesson notebook's ``## Problems`` section, in place (the integration step).

    from svmteach.exercises.problem_set.course import sync_course
    sync_course()            # notebooks/ of the checkout
    sync_course("copy/")     # any folder of NN_*.ipynb notebooks
"""

from __future__ import annotations

from .cells import sync_problems


def sync_course(folder=None) -> dict:
    """Sync the ``## Problems`` section of every lesson notebook ``NN_*.ipynb`` in ``folder`` (default: the
    course, ``notebooks/`` of the checkout), in place; a notebook is rewritten only when it changes.
    Returns ``{path: names}``."""
    from pathlib import Path

    import nbformat

    from ..notebooks import course_source  # (notebooks imports cells, never this module: no circle)

    folder = course_source() if folder is None else Path(folder)
    done = {}
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        number = int(path.name[:2])
        if not 1 <= number <= 9:
            continue
        before = path.read_text(encoding="utf-8")
        nb = nbformat.reads(before, as_version=4)
        names = sync_problems(nb, number)
        after = nbformat.writes(nb) + "\n"
        if after.rstrip("\n") != before.rstrip("\n"):
            path.write_text(after, encoding="utf-8")
        done[path] = names
    return done
