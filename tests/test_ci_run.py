""".ci/run runs the README's test command in a fresh virtual environment, as a new machine would: nothing a
machine installed before is reused, so CI sees today's releases of every dependency (pytest 9.2 once broke the
notebooks' grouping on every fresh install while a machine that kept its older pytest stayed green)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_COMMAND = 'python -m pip install -e ".[test]" && python -m pytest -n auto --dist loadgroup'


def commands():
    text = (ROOT / ".ci" / "run").read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_readme_command_runs_in_a_new_virtual_environment():
    lines = commands()
    test = lines.index(README_COMMAND)
    made = [i for i, line in enumerate(lines) if "-m venv" in line and "bin/activate" in line]
    assert made and made[0] < test, "a fresh environment is made and activated before the README's command"
    assert any("mktemp -d" in line for line in lines[:made[0]]), "in a new folder, never one a run left behind"
    assert README_COMMAND in (ROOT / "README.md").read_text()
