"""A newcomer's first hour: the README's set-up, run as written, starts the course.

In a copy of the checkout (what ``git clone`` gives), the README's lines make a fresh virtual
environment, install svmteach with the README's command, and start ``svmteach lab`` as whoever
runs the tests (root in CI) on a free port; the page answers and serves the course.  Slow (it
installs every dependency into the new environment, from pip's cache when it can), so it runs in
CI's full run.  The environment is made once per test process (``readme_environment`` in
conftest.py) and ``test_binder.py`` runs Binder's notebook in it: the two tests share an xdist
group, so that one worker makes it."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import test_cli  # running_lab, check_lab, free_port (imported as a module: its tests are not collected twice)

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
#: what a clone does not have: local environments, builds, caches, a course folder made earlier
NOT_CLONED = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                    ".hypothesis", "test-artifacts", "svmteach-course", ".ipynb_checkpoints")


def setup_blocks():
    """The fenced ``bash`` blocks of the README's "Set up" section, each as a list of lines."""
    section = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return [block.strip().splitlines() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def newcomer_env():
    """The user's environment, minus anything that would point Python at another installation."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_the_readme_says_where_the_code_is_and_how_to_test_it():
    get_code, open_course, run_tests = setup_blocks()
    badge = re.search(r"mybinder\.org/v2/gh/([\w-]+/[\w-]+)/", README).group(1)
    assert get_code[0] == f"git clone https://github.com/{badge}.git && cd {badge.split('/')[1]}"
    assert get_code[1] == "python3 -m venv .venv && . .venv/bin/activate"
    assert open_course == ["python -m pip install -e . && svmteach lab"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert len(run_tests) == 1 and run_tests[0] in ci.splitlines()  # the test command is exactly what CI runs


def readme_setup(tmp_path):
    """The README's set-up lines, as written, in a copy of the checkout under ``tmp_path``: a fresh virtual
    environment, ``.venv`` in the copy, with svmteach installed there.  Return the copy and the finished install
    (its return code is the tests' to check)."""
    get_code, (open_course,), _ = setup_blocks()
    clone = tmp_path / "svmteach"
    shutil.copytree(ROOT, clone, ignore=NOT_CLONED)  # `git clone ... && cd svmteach`, without the network
    install = open_course.split(" && ")[0]
    done = subprocess.run(["bash", "-c", f"set -e; {get_code[1]}; {install}"], cwd=clone, env=newcomer_env(),
                          capture_output=True, text=True, timeout=1500)
    return clone, done


@pytest.mark.slow
@pytest.mark.xdist_group("readme-environment")  # with test_binder.py's notebook: one worker makes the environment
def test_a_newcomer_opens_the_course(readme_environment, tmp_path):
    _, (open_course,), _ = setup_blocks()
    clone, done = readme_environment
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    start = open_course.split(" && ")[1]
    env = newcomer_env()
    venv = clone / ".venv"
    where = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", "import svmteach; print(svmteach.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path, env=env).stdout
    assert where.startswith(str(clone / "svmteach"))  # the clone's code, installed in the new environment

    port = test_cli.free_port()
    cmd = ["bash", "-c", f'. .venv/bin/activate && exec {start} --no-browser --port {port} --ip 127.0.0.1']
    with test_cli.running_lab(cmd, clone, env=env) as (url, log):
        test_cli.check_lab(url, clone / "svmteach-course", log)
        assert str(venv) in log()  # JupyterLab from the new environment, not the one running the tests
    assert "Running as root is not recommended" not in log()
