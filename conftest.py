"""Grouping for a run on several cores (pytest-xdist, ``--dist loadgroup``): a notebook's cells share one kernel
and run in order on one worker, each browser module keeps its one JupyterLab, and tests marked
``xdist_group(name)`` share one worker; every other test goes where there is room.  Here at the root, not in
tests/, so that it holds for a run that names notebooks only.

The grouping is the project's own (:class:`GroupScheduling`), not xdist's: xdist's loadgroup tells the controller
a test's group by rewriting pytest's private ``item._nodeid``, which pytest 9.2 stopped reading, so one
notebook's cells were dealt to two workers without a word.  Here each worker writes the group of each of its
tests to a file the controller reads (through xdist's public ``workerinput``), and the controller checks after the
run that no group ran on two workers: a dependency that breaks the grouping again fails the run by name."""

import json
import os
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

# One BLAS thread for each process of the run: pytest -n auto starts a worker a core, and BLAS threads beside them
# (in the workers, the notebooks' kernels, the browser's JupyterLab) spin against each other (benchmarks/RESULTS.md,
# the test suite's time).  Set here, before the workers and the kernels they start inherit the environment; a
# value set outside the run is kept.
_SET_HERE = [name for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if name not in os.environ]
for _name in _SET_HERE:
    os.environ[_name] = "1"

# The first-use compile notice (svmteach.compile_notice) off for the whole run, workers and notebook kernels
# included: a notebook's checked outputs must not depend on whether its process compiled or loaded the code.
os.environ.setdefault("SVMTEACH_COMPILE_NOTICE", "0")
# `svmteach lab`'s background warm-up off too: the tests that start JupyterLab (a newcomer's fresh environment
# among them) would each compile every solver beside the suite (tests/test_warm_up.py turns it on)
os.environ.setdefault("SVMTEACH_WARM_UP", "0")

_GROUPS_KEY = "svmteach_groups_dir"  # workerinput: the folder where each worker writes its tests' groups


def test_group(item):
    """The group whose tests must share one worker: a notebook's path, a browser module's path, the names of
    the test's ``xdist_group`` marks (joined, as xdist joins them), or None for a test that goes anywhere."""
    path = Path(item.path).resolve()
    where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
    if path.suffix == ".ipynb" or where.startswith("tests/browser/"):
        return where
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) or None


def _grouping(config):
    """True in a run that deals tests to workers by group (``--dist loadgroup``)."""
    return config.pluginmanager.hasplugin("xdist") and config.getoption("dist", "no") == "loadgroup"


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one worker (pytest-xdist)")
    if "OPENBLAS_NUM_THREADS" in _SET_HERE:  # this process's BLAS too, where NumPy was loaded before (no workers)
        from threadpoolctl import threadpool_limits

        config._blas_limit = threadpool_limits(limits=1, user_api="blas")
    if _grouping(config) and not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        config._svmteach_groups = GroupRecord(Path(tempfile.mkdtemp(prefix="svmteach-groups-")))
        config.pluginmanager.register(config._svmteach_groups, "svmteach-groups")


def pytest_unconfigure(config):
    record = getattr(config, "_svmteach_groups", None)
    if record is not None:
        shutil.rmtree(record.folder, ignore_errors=True)


class GroupRecord:
    """The controller's side: hands the workers the folder for their groups, makes the scheduler that reads
    them, and after the run names every group whose tests ran on more than one worker (and fails the run)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._groups = None
        self.workers = defaultdict(set)  # group -> the workers its tests ran on

    def groups(self):
        """{node id: group} as the workers wrote it (read once, after every worker has collected)."""
        if self._groups is None:
            self._groups = {}
            for path in sorted(self.folder.glob("*.json")):
                self._groups.update(json.loads(path.read_text()))
        return self._groups

    def pytest_configure_node(self, node):
        node.workerinput[_GROUPS_KEY] = str(self.folder)

    @pytest.hookimpl(tryfirst=True)  # before xdist's own loadgroup scheduler
    def pytest_xdist_make_scheduler(self, config, log):
        from xdist.scheduler import LoadScopeScheduling

        record = self

        class GroupScheduling(LoadScopeScheduling):
            """LoadScope scheduling whose scope is the project's group (one test alone when it has none)."""

            def _split_scope(self, nodeid):
                group = record.groups().get(nodeid)
                return nodeid if group is None else f"group:{group}"

        return GroupScheduling(config, log)

    def pytest_runtest_logreport(self, report):
        node = getattr(report, "node", None)  # the worker that ran it (xdist sets it on the controller)
        group = self.groups().get(report.nodeid)
        if node is not None and group is not None:
            self.workers[group].add(node.gateway.id)

    def split(self):
        return {group: sorted(ids) for group, ids in self.workers.items() if len(ids) > 1}

    def pytest_sessionfinish(self, session):
        if self.split():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        split = self.split()
        if split:
            terminalreporter.write_sep("=", "tests of one group ran on several workers", red=True)
            for group, ids in sorted(split.items()):
                terminalreporter.write_line(f"{group}: on {', '.join(ids)} (its tests must share one worker)")
            terminalreporter.write_line("the run fails: conftest.py's grouping no longer holds with these versions "
                                        "of pytest and pytest-xdist")


@pytest.hookimpl(tryfirst=True)  # before -m selects, and before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        group = test_group(item)
        if group is not None and not list(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(tryfirst=True)  # before the worker sends its collection to the controller
def pytest_collection_finish(session):
    folder = getattr(session.config, "workerinput", {}).get(_GROUPS_KEY)
    if folder is None:
        return
    groups = {item.nodeid: test_group(item) for item in session.items if test_group(item) is not None}
    worker = session.config.workerinput.get("workerid", "worker")
    tmp = Path(folder) / f".{worker}.tmp"
    tmp.write_text(json.dumps(groups))
    tmp.replace(Path(folder) / f"{worker}.json")  # whole or absent: the controller never reads half a file
