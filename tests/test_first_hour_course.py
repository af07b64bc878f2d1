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


# ---- the README -------------------------------------------------------------------------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_section(heading):
    """The README's text from ``heading`` (a whole line) to the next heading of its level or above."""
    level = heading.split(" ")[0]
    start = README.index(f"\n{heading}\n") + 1
    ends = [README.find(f"\n{'#' * n} ", start + 1) for n in range(2, len(level) + 1)]
    return README[start:min([e for e in ends if e > 0], default=len(README))]


def test_teach_with_it_is_the_readmes_first_section_and_its_commands_are_the_set_ups():
    first = re.search(r"^## (.+)$", README, re.MULTILINE).group(1)
    assert first == "Teach with it"
    (block,) = re.findall(r"```bash\n(.*?)```", readme_section("## Teach with it"), re.S)
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["python -m pip install -e .", "svmteach lab", "svmteach lab --solutions"]
    setup = readme_section("## Set up")
    assert "python -m pip install -e . && svmteach lab" in setup  # the same install and command, step by step
    assert "--solutions" in cli_lab_options()
    assert README.index("## What is in it") > README.index("## Set up")  # the solver detail after the set-up


def cli_lab_options():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main(["lab", "--help"])
    return out.getvalue()


#: runs each cell of a JSON list as a notebook does (in one kernel, the last expression's repr shown), the
#: outputs of the cells separated by a line of its own
RUN_CELLS = r'''
import ast, json, sys
namespace = {}
for i, cell in enumerate(json.load(sys.stdin)):
    if i:
        print("\x00-- next cell --")
    tree = ast.parse(cell)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<cell>", "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
        if value is not None:
            print(repr(value))
'''


def test_the_readmes_exercise_transcripts_are_what_the_checker_prints():
    import json
    import subprocess
    import sys

    section = readme_section("### Exercises: write the step, the library says where it is wrong")
    pairs = re.findall(r"```python\n(.*?)```\n```\n(.*?)```", section, re.S)
    assert len(pairs) == 2, "a failing step and the reference solution, each with its transcript"
    cells, transcripts = zip(*pairs)
    ran = subprocess.run([sys.executable, "-c", RUN_CELLS], input=json.dumps(cells), capture_output=True,
                         text=True, timeout=600, cwd=ROOT)  # a fresh process: a fresh kernel's hint tiers
    assert ran.returncode == 0, ran.stderr[-3000:]
    shown = ran.stdout.split("\x00-- next cell --\n")
    assert len(shown) == len(transcripts)
    for printed, transcript in zip(shown, transcripts):
        assert printed == transcript
