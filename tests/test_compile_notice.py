"""The first-use compile notice: a compilation of the package's numba code inside a fit says so at once (and how
long it took), a load from numba's cache or someone else's compilation says nothing, and nested blocks say it
once.  The suite runs with the notice off (the root conftest.py); these tests turn it on."""

import io
import os
import subprocess
import sys

import numba
import pytest

from svmteach.compile_notice import compile_notice


@pytest.fixture(autouse=True)
def notice_on(monkeypatch):
    monkeypatch.setenv("SVMTEACH_COMPILE_NOTICE", "1")


def compiled_in(module):
    """A fresh numba function whose Python source claims ``module``: it compiles at its first call."""
    def twice(x):
        return 2 * x
    twice.__module__ = module
    return numba.njit(twice)


def test_a_compilation_of_the_package_says_so_once_with_its_time():
    out = io.StringIO()
    first, second = compiled_in("svmteach.probe"), compiled_in("svmteach.probe")
    with compile_notice("the probe", out=out):
        with compile_notice("an inner block"):  # an estimator's fit calls solve: one notice, the outer one's
            assert first(3.0) == 6.0
            assert second(3) == 6
    lines = out.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("svmteach: compiling the probe for this input type (first use")
    assert lines[1].startswith("svmteach: compiled in ") and lines[1].endswith(" s")


def test_compiled_code_and_other_packages_compile_silently():
    out = io.StringIO()
    ours, theirs = compiled_in("svmteach.probe"), compiled_in("someone_else")
    ours(1.0)  # compiled before the block
    with compile_notice("the probe", out=out):
        assert ours(2.0) == 4.0 and theirs(2.0) == 4.0
    assert out.getvalue() == ""


def test_the_environment_variable_silences_it(monkeypatch):
    monkeypatch.setenv("SVMTEACH_COMPILE_NOTICE", "0")
    out = io.StringIO()
    with compile_notice("the probe", out=out):
        compiled_in("svmteach.probe")(1.0)
    assert out.getvalue() == ""


FIT = "import numpy as np; from svmteach import BinarySVC, data; X, y = data.overlapping_blobs(n=40, seed=0); " \
      "BinarySVC(solver='dual_cd').fit(X, y)"


def test_a_first_fit_says_it_compiles_and_a_second_process_does_not(tmp_path):
    """Real fits in fresh processes sharing an empty numba cache: the first compiles and says so on stderr, the
    second loads the cache and is silent."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), SVMTEACH_COMPILE_NOTICE="1")
    runs = [subprocess.run([sys.executable, "-c", FIT], env=env, capture_output=True, text=True, timeout=600)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    assert "svmteach: compiling BinarySVC's dual_cd solver for this input type" in runs[0].stderr
    assert "svmteach: compiled in" in runs[0].stderr
    assert "svmteach: compiling" not in runs[1].stderr, runs[1].stderr
