"""Issue 42, "the first hour": what a teacher meets first (the teacher's edition's progress, the ignored
solutions folder, the README's first lines and its exercise transcript)."""

from __future__ import annotations

import re

import pytest

from svmteach import cli
from svmteach.exercises import notebooks
from svmteach.exercises.notebooks import course_source


@pytest.fixture
def slow_copy(monkeypatch, capsys):
    """solution_copy replaced by a quick fake that records what had been printed when each notebook was made."""
    printed_before = {}

    def fake_solution_copy(source, dest):
        printed_before[dest.name] = capsys.readouterr().out
        dest.write_text("{}")
        return []

    monkeypatch.setattr(notebooks, "solution_copy", fake_solution_copy)
    return printed_before


def test_lab_solutions_says_which_notebook_it_is_making_before_it_makes_it(tmp_path, capsys, slow_copy):
    names = sorted(p.name for p in course_source().glob("*.ipynb"))
    n = len(names)
    assert cli.main(["lab", "--solutions", "--dir", str(tmp_path / "t"), "--copy-only"]) == 0
    assert sorted(slow_copy) == names
    for i, name in enumerate(names, start=1):  # the line of notebook i was out (flushed) before notebook i was made
        assert f"notebook {i} of {n}: {name}" in slow_copy[name]
    assert "can take minutes" in slow_copy[names[0]]  # the first line says why the first run is slow
    assert "course folder:" in capsys.readouterr().out


def test_lab_solutions_counts_only_the_notebooks_it_writes(tmp_path, capsys, slow_copy):
    names = sorted(p.name for p in course_source().glob("*.ipynb"))
    target = tmp_path / "t"
    target.mkdir()
    (target / names[0]).write_text("my notes")  # kept, and not counted
    cli.main(["lab", "--solutions", "--dir", str(target), "--copy-only"])
    assert f"notebook 1 of {len(names) - 1}: {names[1]}" in slow_copy[names[1]]
    assert names[0] not in slow_copy and (target / names[0]).read_text() == "my notes"


def test_the_students_copy_prints_no_progress(tmp_path, capsys):
    cli.main(["lab", "--dir", str(tmp_path / "c"), "--copy-only"])
    out = capsys.readouterr().out
    assert "teacher's edition" not in out and re.search(r"\d+ notebook\(s\) copied", out)


def test_python_m_exercises_solutions_shows_the_same_progress(tmp_path, capsys, slow_copy):
    from svmteach.exercises.__main__ import main

    names = sorted(p.name for p in course_source().glob("*.ipynb"))
    assert main(["--solutions", str(tmp_path / "s")]) == 0
    assert f"notebook {len(names)} of {len(names)}: {names[-1]}" in slow_copy[names[-1]]


@pytest.mark.parametrize("folder", ["svmteach-course", "svmteach-solutions"])
def test_the_lab_folders_are_ignored_by_git(folder):
    """``svmteach lab``'s default folders in a clone: a teacher's ``git add -A`` never publishes the solutions."""
    import shutil
    import subprocess
    from pathlib import Path

    checkout = Path(__file__).resolve().parent.parent
    if shutil.which("git") is None or not (checkout / ".git").exists():
        pytest.skip("needs git and a clone")
    for path in (f"{folder}/", f"{folder}/04_smo.ipynb"):
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=checkout)
        assert ignored.returncode == 0, f"{path} is not ignored by .gitignore"
