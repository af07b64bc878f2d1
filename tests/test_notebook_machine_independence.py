"""The checked cells print what every machine prints, and the test command proves it as a second machine.

nbval compares a cell marked ``NBVAL_CHECK_OUTPUT`` with its committed output character for character.
What another CPU (AVX-512, another BLAS kernel, another numba target) changes must not be printed there:
a count of the steps or epochs a solver took (its last step depends on rounding: 24.5 epochs here, 16.8
on an AVX-512 machine), the size of a rounding error (3e-15 against 4e-15), a timing, an accuracy to three
decimals (on 45 to 540 test points one point moves it: a new visiting order moved notebook 8's 0.965 to 0.967).  These tests read
the committed notebooks, ``.ci/run`` and pyproject.toml; they run nothing (the solutions copy of the course,
tests/test_exercise_solutions.py, runs as the other machine).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: a number of steps taken, "after 24.5 epochs", "68,229 pair steps"; a bound ("within 100 epochs") or a number
#: of steps asked for ("the first 30 steps") is fine
COUNT = re.compile(r"(?:(\w+)[ \t]+)?(?<![\w.,])(\d[\d,]*(?:\.\d+)?)[ \t]+"
                   r"(epochs?|(?:pair |coordinate )?steps|iterations|passes)\b")
BOUNDS = {"within", "than", "under", "below", "most", "least", "max_iter", "first", "the", "all"}
#: a magnitude at the rounding level, 3e-15 or 2.2e-16 (a tolerance, 1e-12, has the mantissa 1)
ROUNDING = re.compile(r"\b(\d(?:\.\d+)?)e-(\d\d)\b")
#: a duration, "0.31 s", "12 ms", "3 seconds"
TIMING = re.compile(r"\b\d+(?:\.\d+)?[ \t]*(?:s|ms|seconds?|minutes?)\b")
#: an accuracy (a fraction of points, "accuracy 0.956", or a table whose heading says accuracy) to three or
#: more decimals: one point of a few hundred moves it; two decimals (of 150 to 600 points) or a comparison is fine
ACCURACY = re.compile(r"accura|error rate", re.IGNORECASE)
FRACTION = re.compile(r"(?<![\w.])(?:0\.\d{3,}|1\.0{3,})(?![\d])")


def checked_outputs(path):
    """(cell index, text) of every NBVAL_CHECK_OUTPUT cell of the notebook: its saved text outputs joined (a
    table's heading and its rows may be separate stream outputs)."""
    nb = nbformat.read(path, as_version=4)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "NBVAL_CHECK_OUTPUT" not in cell.source:
            continue
        texts = []
        for out in cell.get("outputs", []):
            if "text" in out:
                texts.append(out["text"])
            plain = out.get("data", {}).get("text/plain")
            if plain:
                texts.append(plain + "\n")
        if texts:
            yield k, "".join(texts)


def accuracies(text: str) -> list[str]:
    """The fractions to three or more decimals that a checked output prints as accuracies: after the word on
    its line, or in the rows of a table (lines up to a blank one) whose heading line names an accuracy."""
    found, table = [], False
    for line in text.splitlines():
        heading = ACCURACY.search(line)
        if heading:
            after = FRACTION.findall(line[heading.end():])
            found += after
            table = not after and not FRACTION.search(line)
        elif table and line.strip():
            found += FRACTION.findall(line)
        else:
            table = False
    return found


def machine_dependent(text: str) -> list[str]:
    """What in a checked output would differ on another CPU."""
    found = []
    for m in COUNT.finditer(text):
        if (m.group(1) or "").lower() not in BOUNDS:
            found.append(f"a count of steps taken: {m.group(0).strip()!r}")
    for m in ROUNDING.finditer(text):
        if int(m.group(2)) >= 13 and float(m.group(1)) != 1.0:
            found.append(f"a rounding error's size: {m.group(0)!r}")
    found += [f"a timing: {m.group(0)!r}" for m in TIMING.finditer(text)]
    found += [f"an accuracy to three decimals: {value!r}" for value in accuracies(text)]
    return found


def test_the_rules_catch_what_failed_on_an_avx512_machine():
    # the two committed outputs of issue 26 (01 and 02) and notebook 04's pair-step counts
    assert machine_dependent("dual coordinate ascent   reached a relative gap of 1e-6: True, after 24.5 epochs")
    assert machine_dependent("gap identity holds to a relative 3e-15")
    assert machine_dependent("random              : reached a relative gap of 1e-6: True after 68,229 pair steps")
    assert machine_dependent("fit on all of digits: 0.312 s")
    assert machine_dependent("converged in 12 iterations")
    # notebook 8's accuracies on 45 and 540 test points, on a line and in a table
    assert machine_dependent("Crammer-Singer  test accuracy 0.965")
    assert machine_dependent("test accuracy on digits            features x  with (x, 1)\n"
                             "Crammer-Singer (no bias)                0.965        0.967\n")
    assert machine_dependent("M = 1.0: training accuracy 0.978, |W| = 2.610")
    # and leave alone what every machine prints
    for fine in ["reached a relative gap of 1e-6: True, within 100 epochs: True",
                 "for all 120 x 120 pairs, to 1e-12: True", "step  17: pair (28, 23)", "at every one of the 30 steps",
                 "t = 2000  w = [0.489 0.93 ]", "smallest P - D = 2.6e-05 (never negative)", "dual 75.2086\npair steps: a < b",
                 "gaussian, gamma = 2    smallest eigenvalue 1e-12",
                 "each reduction gets at most 3 of the 45 test flowers wrong:     True",
                 "three moons: linear WW accuracy 0.88 (training), 0.82 (600 new points)",
                 "gamma =    0.1: smallest eigenvalue 0.0000, training accuracy of the SVM above 0.85: True",
                 "test accuracy on digits: every model above 0.95: True\nprimal 0.123456 (not an accuracy)"]:
        assert machine_dependent(fine) == [], fine


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checked_cells_print_what_every_machine_prints(path):
    problems = [f"cell {k}: {what}" for k, text in checked_outputs(path) for what in machine_dependent(text)]
    assert problems == [], (f"{path.name}: a checked cell prints what depends on the CPU; print a comparison "
                            f"with a tolerance or a rounded value instead (or show it in an unchecked cell):\n"
                            + "\n".join(problems))


def ci_commands():
    """.ci/run's lines, comments and blank lines left out."""
    text = (ROOT / ".ci" / "run").read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_course_runs_as_another_machine_in_the_readme_command():
    """The README's test command (what CI runs) runs the notebooks natively under nbval, and the solutions copy
    of the course with numba compiling for a generic CPU and OpenBLAS on other kernels than this machine's, so
    that the committed outputs (made with the native ones) are compared with another machine's there."""
    from test_exercise_solutions import ANOTHER_MACHINE

    assert ANOTHER_MACHINE.get("NUMBA_CPU_NAME") == "generic" and ANOTHER_MACHINE.get("OPENBLAS_CORETYPE")
    assert 'python -m pip install -e ".[test]" && python -m pytest -n auto --dist loadgroup' in ci_commands()
    assert 'python -m pip install -e ".[test]" && python -m pytest -n auto --dist loadgroup' in (ROOT / "README.md").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"notebooks"' in re.search(r"testpaths = \[(.*?)\]", pyproject).group(1)
    assert "--nbval-lax" in re.search(r'addopts = "(.*?)"', pyproject).group(1)


def test_the_quick_tier_leaves_out_the_course_runs():
    """``python -m pytest -m "not slow"`` (the README's quick tier) collects no notebook and no solutions copy of
    the course, and keeps the unit tests."""
    paths = ["notebooks/02_lagrangian_dual_kkt.ipynb", "tests/test_exercise_solutions.py", "tests/test_objectives.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-m", "not slow", *paths], cwd=ROOT, capture_output=True, text=True, timeout=600)
    collected = [line for line in run.stdout.splitlines() if "::" in line]
    assert collected and all(line.startswith("tests/test_objectives.py::") for line in collected), run.stdout[-3000:]
