"""The solutions copy of the course (``python -m svmteach.exercises --solutions DIR``) runs top to bottom
under nbval, and in it every exercise check passes: each check cell of the copy asserts its result.

It runs as another machine would (:data:`ANOTHER_MACHINE`): numba compiling for a generic x86-64 CPU (no
AVX2 or FMA; numba caches that code beside the native code, keyed by the CPU name) and OpenBLAS on its
Sandybridge kernels.  nbval compares what the copy prints with the outputs committed from a native run, so
every checked cell of the course must print what every machine prints
(tests/test_notebook_machine_independence.py), while notebooks/ under nbval runs them natively."""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from svmteach import exercises
from svmteach.exercises.notebooks import check_name, course_source, stub_name

#: the settings of another machine than this one (see the module docstring)
ANOTHER_MACHINE = {"NUMBA_CPU_NAME": "generic", "OPENBLAS_CORETYPE": "Sandybridge"}
#: generous: the whole course runs twice in the suite (here and as notebooks/), on two busy cores
DEADLINE = 3600
#: the course's notebooks, each run as its own test
NOTEBOOKS = sorted(p.name for p in course_source().glob("*.ipynb"))


@pytest.fixture(scope="module")
def solutions_course(tmp_path_factory):
    """The solutions copy of the course, written once per test process (``python -m svmteach.exercises --solutions``)."""
    course = tmp_path_factory.mktemp("solutions") / "course"
    cmd = [sys.executable, "-m", "svmteach.exercises", "--solutions", str(course)]
    made = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    assert f"{len(NOTEBOOKS)} notebook(s) written" in made.stdout, made.stdout  # the guide, 00, too
    return course


def test_every_exercise_of_the_solutions_copy_is_solved_and_asserted(solutions_course):
    asserted = []
    for path in sorted(solutions_course.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if stub_name(cell):
                assert "return NotImplemented" not in cell.source, (path.name, cell.source)
            if check_name(cell):
                assert "assert result.passed" in cell.source
                asserted.append(check_name(cell))
    assert sorted(asserted) == sorted(exercises.EXERCISES)


#: what jupyter_client says when a kernel exits before it answers: under parallel tests this is the known race
#: on the ports it picks for the kernel (another process binds one first, jupyter/jupyter_client#154), before
#: any cell of the notebook has run
KERNEL_START_FAILED = "Kernel died before replying to kernel_info"


def run_under_nbval(notebook, cwd, tries=3):
    """Run one notebook under nbval in a fresh process, starting again (at most `tries` times in all) only when
    its kernel died while starting: a failure of the notebook itself is never retried."""
    cmd = [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q",
           "-o", "addopts=", "--rootdir", str(cwd), str(notebook)]
    for _ in range(tries):
        run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=DEADLINE,
                             env={**os.environ, **ANOTHER_MACHINE})
        if KERNEL_START_FAILED not in run.stdout + run.stderr:
            break
    return run


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_solutions_copy_runs_under_nbval_with_every_check_passing(solutions_course, name):
    """One notebook of the copy under nbval, as another machine (one test per notebook, so that a run on
    several cores spreads them)."""
    run = run_under_nbval(solutions_course / name, solutions_course.parent)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " failed" not in run.stdout and " passed" in run.stdout, run.stdout[-3000:]
