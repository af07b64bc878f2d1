"""``svmteach lab`` compiles the course's solvers in the background (svmteach.warm_up) while JupyterLab starts,
says so, and stops the warm-up when JupyterLab ends; the warm-up itself runs every part and says when it is done.
(The root conftest.py turns the warm-up off for the rest of the suite; these tests turn it on.)"""

import subprocess
import sys

import pytest

from svmteach import cli, warm_up


class FakeProcess:
    """Stands in for subprocess.Popen: records the command; JupyterLab 'runs' until wait() returns."""

    started = []

    def __init__(self, cmd, **kwargs):
        self.cmd, self.terminated = cmd, False
        self.pid = -1
        FakeProcess.started.append(self)

    def poll(self):
        return None if not self.terminated else -15

    def wait(self):
        return 0

    def terminate(self):
        self.terminated = True


@pytest.fixture
def fake_popen(monkeypatch):
    FakeProcess.started = []
    monkeypatch.setattr(cli.subprocess, "Popen", FakeProcess)
    monkeypatch.setattr(cli, "announce_url", lambda proc: None)
    return FakeProcess.started


def test_lab_starts_the_warm_up_first_and_stops_it_with_jupyterlab(tmp_path, monkeypatch, fake_popen, capsys):
    monkeypatch.setenv("SVMTEACH_WARM_UP", "1")
    assert cli.main(["lab", "--dir", str(tmp_path / "course"), "--no-browser"]) == 0
    warm, server = fake_popen
    assert warm.cmd == [sys.executable, "-m", "svmteach.warm_up", "--background"]
    assert server.cmd[1:3] == ["-m", "jupyterlab"]
    assert warm.terminated  # JupyterLab ended first: the warm-up does not outlive svmteach lab
    assert "compiling the course's solvers in the background" in capsys.readouterr().out


def test_the_environment_variable_skips_the_warm_up(tmp_path, monkeypatch, fake_popen, capsys):
    monkeypatch.setenv("SVMTEACH_WARM_UP", "0")
    assert cli.main(["lab", "--dir", str(tmp_path / "course"), "--no-browser"]) == 0
    (server,) = fake_popen
    assert server.cmd[1:3] == ["-m", "jupyterlab"]
    assert "in the background" not in capsys.readouterr().out


def test_the_parts_follow_the_course():
    """Every part names what it compiles and is callable; the binary solvers come first, as in the course."""
    assert [what for what, _ in warm_up.PARTS][0] == "the binary solvers"
    assert all(callable(part) and what.startswith("the ") for what, part in warm_up.PARTS)


@pytest.mark.slow  # compiles whatever numba's cache does not hold yet: the whole run only (conftest.py's tiers)
def test_the_background_warm_up_runs_every_part_and_says_when_it_is_done():
    done = subprocess.run([sys.executable, "-m", "svmteach.warm_up", "--background"], capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith("svmteach: the course's solvers are compiled (")
    assert "svmteach: compiling" not in done.stderr  # the per-fit notices are off in the background
