"""binder/ really opens the course: its requirements, in a fresh virtual environment, run a notebook.

The requirements are pyproject's dependencies line for line (the first test), so the environment the README's
set-up makes (``readme_environment`` in conftest.py, made once per test process for test_newcomer.py) holds them:
pip confirms that it satisfies requirements.txt, and notebook 1 runs there.  Slow (the environment installs
every dependency), so it runs in CI's full run."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_binder_requires_what_pyproject_declares():
    pyproject = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.S | re.M).group(1)
    declared = re.findall(r'^\s*"([^"]+)"', block, re.M)
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    listed = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert declared and listed == declared


@pytest.mark.slow
@pytest.mark.xdist_group("readme-environment")  # with test_newcomer.py: one worker makes the environment
def test_binder_requirements_run_a_notebook(readme_environment, tmp_path):
    clone, done = readme_environment
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    py = clone / ".venv" / "bin" / "python"
    # what Binder installs (binder/requirements.txt, and the notebook runner it provides) is all there: pip has
    # nothing to add ("Would install" lists what it would)
    wanted = subprocess.run([str(py), "-m", "pip", "install", "--dry-run", "--disable-pip-version-check",
                             "-r", str(ROOT / "binder" / "requirements.txt"), "nbconvert", "ipykernel"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert wanted.returncode == 0 and "Would install" not in wanted.stdout, wanted.stdout[-2000:] + wanted.stderr
    nb = tmp_path / "01_binary_svm.ipynb"
    shutil.copy(ROOT / "notebooks" / "01_binary_svm.ipynb", nb)
    done = subprocess.run([str(py), "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                           "--ExecutePreprocessor.kernel_name=python3", str(nb)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    # it ran in the fresh environment, with svmteach installed there (from the copy, as postBuild installs it)
    where = subprocess.run([str(py), "-I", "-c", "import svmteach, sys; print(svmteach.__file__, sys.prefix)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path).stdout.split()
    assert where[0].startswith(str(clone / "svmteach")) and where[1] == str(clone / ".venv")
    assert not where[0].startswith(str(ROOT)) and sys.prefix != where[1]
