"""The root conftest.py's grouping, tried on a small project of its own with two workers: every test of a group
runs on one worker, whatever the installed pytest and pytest-xdist do with their private fields, and a group
that ran on two workers fails the run by name (the guard that the whole suite's run relies on)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("xdist")

GROUPED = '''
import os, pytest
pytestmark = pytest.mark.xdist_group("{name}")

@pytest.mark.parametrize("i", range(12))
def test_member(i, record):
    record("{name}", i)
'''

LOOSE = '''
import pytest

@pytest.mark.parametrize("i", range(24))
def test_loose(i, record):
    record("loose", i)
'''

RECORDER = '''
import os, pytest

@pytest.fixture
def record():
    def write(group, i):
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(os.environ["GROUPING_LOG"], f"{group}-{i}"), "w") as f:
            f.write(worker)
    return write
'''


def run(project, *args):
    # only pytest-xdist among the installed plugins: the others cost seconds a process to load and play no part
    env = dict(os.environ, GROUPING_LOG=str(project / "log"), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist", "-p", "no:cacheprovider", "-q", *args], cwd=project,
                          env=env, capture_output=True, text=True, timeout=600)


def workers_by_group(project):
    seen = {}
    for path in (project / "log").iterdir():
        group = path.name.rsplit("-", 1)[0]
        seen.setdefault(group, set()).add(path.read_text())
    return seen


@pytest.fixture
def project(tmp_path):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "tests" / "browser").mkdir(parents=True)
    (tmp_path / "tests" / "conftest.py").write_text(RECORDER)
    (tmp_path / "tests" / "test_a.py").write_text(GROUPED.format(name="alpha"))
    (tmp_path / "tests" / "test_b.py").write_text(GROUPED.format(name="beta"))
    (tmp_path / "tests" / "test_loose.py").write_text(LOOSE)
    # a browser module: grouped by its path, with no mark of its own
    (tmp_path / "tests" / "browser" / "test_page.py").write_text(LOOSE.replace('"loose"', '"browser"'))
    (tmp_path / "log").mkdir()
    return tmp_path


def test_each_group_runs_on_one_worker(project):
    done = run(project, "-n", "2", "--dist", "loadgroup", "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    seen = workers_by_group(project)
    assert {"alpha", "beta", "browser", "loose"} <= set(seen)
    for group in ("alpha", "beta", "browser"):
        assert len(seen[group]) == 1, f"group {group} ran on workers {sorted(seen[group])}"
    # the loose tests are dealt out: both workers ran some (else this test would not see a split if there was one)
    assert len(seen["loose"] | seen["alpha"] | seen["beta"] | seen["browser"]) == 2


def test_a_split_group_fails_the_run_by_name(project):
    """Break the grouping on purpose (every test its own scope, as xdist's plain load scheduling): the guard
    names the group and the run fails though every test passed."""
    (project / "conftest.py").write_text((project / "conftest.py").read_text().replace(
        'return nodeid if group is None else f"group:{group}"', "return nodeid"))
    done = run(project, "-n", "2", "--dist", "loadgroup", "tests")
    seen = workers_by_group(project)
    split = [group for group in ("alpha", "beta", "browser") if len(seen[group]) > 1]
    assert split, "the broken scheduler happened to keep every group together: the guard was not exercised"
    assert done.returncode == 1, done.stdout + done.stderr
    assert "tests of one group ran on several workers" in done.stdout
    for group in split:
        assert f"{group if group != 'browser' else 'tests/browser/test_page.py'}: on gw" in done.stdout
