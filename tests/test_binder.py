"""binder/ really opens the course: its requirements, installed into a fresh virtual
environment, run a notebook.  Slow (it installs packages), so it runs in CI's full run."""

import re
import shutil
import subprocess
import sys
import venv
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
def test_binder_requirements_run_a_notebook(tmp_path):
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    py = env / "bin" / "python"
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run(pip + ["-r", str(ROOT / "binder" / "requirements.txt"), "nbconvert", "ipykernel"], check=True,
                   timeout=1200)
    subprocess.run(pip + ["--no-deps", str(ROOT)], check=True, timeout=600)  # what postBuild does, not editable
    nb = tmp_path / "01_binary_svm.ipynb"
    shutil.copy(ROOT / "notebooks" / "01_binary_svm.ipynb", nb)
    done = subprocess.run([str(py), "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                           "--ExecutePreprocessor.kernel_name=python3", str(nb)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    # it ran in the fresh environment, with svmteach installed there
    where = subprocess.run([str(py), "-c", "import svmteach, sys; print(svmteach.__file__)"], capture_output=True,
                           text=True, check=True, cwd=tmp_path).stdout  # not from the source tree
    assert str(env) in where and sys.prefix not in where
