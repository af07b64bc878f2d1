"""The row kernels on numba's CUDA target (svmteach.solvers.cuda_targets): the same source, one thread a sample.

Without a GPU, under numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, in a fresh process: it must be set before numba
is imported), every package loss's kernel, retargeted with the functions it calls, gives the CPU kernel's rows
(to the rounding: the CPU kernels reassociate sums); on a GPU (``-m gpu``, ``benchmarks/gpu.py --check``) the same,
with CuPy arrays read in place."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from svmteach.backend import cupy_available
from svmteach.losses import PACKAGE_LOSSES
from svmteach.losses.row_kernels import NOTHING_ASIDE, params, scratch

sys.path.insert(0, str(Path(__file__).parent))
from test_row_kernel_twins import random_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def cpu_rows(loss, problem, alpha, S):
    """The CPU kernel on every row, as a sequential visit calls it (nothing set aside)."""
    k, out = problem.k, alpha.copy()
    for i in range(problem.n_samples):
        loss.kernels.block(S[i].copy(), out[i], int(problem.codes[i]), float(problem.sqnorm[i]), float(problem.C_i[i]),
                           params(problem.M), NOTHING_ASIDE, np.ones(k, dtype=bool), scratch(k), np.empty((0, k)))
    return out


SIMULATED = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from numba import config
assert config.ENABLE_CUDASIM  # the simulator, not a device
from svmteach.losses import PACKAGE_LOSSES
from svmteach.losses.row_kernels import params
from svmteach.solvers import cuda_targets
from test_cuda_targets import cpu_rows, random_state
report = []
for loss in PACKAGE_LOSSES:
    for seed in (0, 1, 2):
        problem, alpha, S = random_state(loss.name, seed, n=24, k=4 + seed)
        gpu = cuda_targets.launch(loss.kernels, np.ascontiguousarray(S), alpha, np.asarray(problem.codes),
                                  np.asarray(problem.sqnorm), np.asarray(problem.C_i), params(problem.M))
        cpu = cpu_rows(loss, problem, alpha, S)
        report.append(dict(loss=loss.name, seed=seed, C=float(problem.C), moved=float(np.abs(cpu - alpha).max()),
                           diff=float(np.abs(gpu - cpu).max())))
print(json.dumps(report))
"""


def test_every_losss_kernel_on_the_cuda_simulator_is_the_cpu_kernel():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", SIMULATED.format(tests=str(ROOT / "tests"))], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert {r["loss"] for r in report} == {loss.name for loss in PACKAGE_LOSSES}
    for r in report:
        assert r["moved"] > 0, r  # the blocks moved: a launch that wrote alpha back unchanged would not pass
        assert r["diff"] <= 1e-12 * max(1.0, r["C"]), r


SIMULATED_SOLVER = """
import json, sys
import numpy as np
from numba import config
assert config.ENABLE_CUDASIM
import array_api_compat.numpy as compat
from svmteach import MulticlassProblem, backend
from svmteach.losses import PACKAGE_LOSSES
from svmteach.solvers import ParallelBlock, cuda_targets, parallel_block
from svmteach.solvers import numba_multiclass as nm
# NumPy arrays through CuPy's code path (array-api-compat's NumPy namespace), with numba's CUDA target "available"
backend._is_cupy = lambda a: isinstance(a, np.ndarray)
parallel_block.on_cuda = lambda xp: xp is compat
launches = []
real_launch = cuda_targets.launch
def checked(kernels, S, alpha, codes, sqnorm, C_i, params, xp):
    out = real_launch(kernels, S, alpha, codes, sqnorm, C_i, params, xp=xp)
    drivers, cpu = nm.drivers(kernels), np.empty(alpha.shape)
    drivers.targets(drivers.code, S, alpha, codes, sqnorm, C_i, params, cpu)
    launches.append(dict(moved=float(np.abs(cpu - alpha).max()), diff=float(np.abs(np.asarray(out) - cpu).max())))
    return out
cuda_targets.launch = checked
rng = np.random.default_rng(5)
X = rng.normal(size=(16, 3))
y = np.arange(16) % 3
report = []
for loss in PACKAGE_LOSSES:
    problem = MulticlassProblem(X, y, C=2.0, loss=loss.name, bias=1.0)
    solver = ParallelBlock()
    states = [solver.init(problem)]
    for _ in range(12):
        states.append(solver.step(problem, states[-1]))
    report.append(dict(loss=loss.name, namespace=problem.xp is compat, launches=launches[:],
                       duals=[solver.measure(problem, s).dual for s in states]))
    launches.clear()
print(json.dumps(report))
"""


def test_on_the_cuda_simulator_the_parallel_solver_on_cupys_code_path_launches_the_kernels_it_checked():
    """The wiring of the GPU path: a problem in CuPy's namespace, where numba's CUDA target runs, takes each step's
    block targets from :func:`cuda_targets.launch`, which give the CPU kernel's targets on the step's own state,
    and its dual rises step by step.  (Whole runs are not compared: the plane's choice is a comparison that the
    kernels' last-bit differences can flip, after which the two runs take other, equally right, paths.)"""
    pytest.importorskip("array_api_compat")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", SIMULATED_SOLVER], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert {r["loss"] for r in report} == {loss.name for loss in PACKAGE_LOSSES}
    for r in report:
        assert r["namespace"] and len(r["launches"]) == 12, r
        assert r["launches"][0]["moved"] > 0 and all(s["diff"] <= 1e-12 * 2.0 for s in r["launches"]), r
        duals = r["duals"]
        assert all(b >= a - 1e-12 * abs(a) for a, b in zip(duals, duals[1:])) and duals[-1] > duals[0], r


@pytest.mark.gpu
@pytest.mark.skipif(not cupy_available(), reason="needs CuPy and a CUDA GPU")
@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
def test_on_a_gpu_the_kernels_read_cupy_arrays_in_place_and_give_the_cpu_rows(loss):
    import cupy as cp

    from svmteach.losses import get_loss
    from svmteach.solvers import cuda_targets

    problem, alpha, S = random_state(loss, 3, n=500, k=6)
    rows = [cp.asarray(np.ascontiguousarray(a)) for a in (S, alpha, problem.codes, problem.sqnorm, problem.C_i)]
    gpu = cuda_targets.launch(get_loss(loss).kernels, *rows, params(problem.M), xp=cp)
    assert type(gpu).__module__.startswith("cupy")
    np.testing.assert_allclose(cp.asnumpy(gpu), cpu_rows(get_loss(loss), problem, alpha, S), rtol=0,
                               atol=1e-12 * max(1.0, float(problem.C)))


@pytest.mark.parametrize("n", [0, 1, 5, 64, 65, 200])
def test_the_kernels_sort_is_numpys_sort(n):
    """The sort that replaces NumPy's in the kernels (insertion up to 64 entries, heapsort beyond), ties included."""
    from svmteach.losses.row_kernels import sort_small

    rng = np.random.default_rng(n)
    for values in (rng.integers(0, max(n // 3, 1), size=n).astype(float), rng.normal(size=n)):  # many ties, none
        expected = np.sort(values)
        sort_small(values)
        np.testing.assert_array_equal(values, expected)
