"""Grouping for a run on several cores (pytest-xdist, ``--dist loadgroup``): a notebook's cells share one kernel
and run in order on one worker, and each browser module keeps its one JupyterLab; every other test goes where
there is room.  Here at the root, not in tests/, so that it holds for a run that names notebooks only."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one worker (pytest-xdist)")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path).resolve()
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
        if path.suffix == ".ipynb" or where.startswith("tests/browser/"):
            item.add_marker(pytest.mark.xdist_group(where))
