"""The certificate on a device: the measures are whole-array reductions read to the host in one transfer, and a
float32 X is converted a block of rows at a time (never whole) in float64 products.

array-api-strict stands in for a GPU's namespace: every read of one of its arrays to the host (``float()``,
``bool()``, ``int()``, a NumPy or DLPack view) is counted, as each would wait for a device.
"""

from __future__ import annotations

import numpy as np
import pytest
import array_api_strict as xps
from array_api_strict._array_object import Array

from svmteach import objectives as obj
from svmteach import rows
from svmteach.backend import cupy_available
from svmteach.problems import MulticlassProblem
from svmteach.solvers.parallel_block import ParallelBlock

from test_multiclass import random_multiclass

READS = ("__float__", "__bool__", "__int__", "__index__", "__array__", "__dlpack__")


@pytest.fixture
def reads(monkeypatch):
    """A counter of the host reads of array-api-strict arrays (``reads["n"]``)."""
    count = {"n": 0}
    for name in READS:
        original = getattr(Array, name, None)
        if original is None:
            continue

        def counted(self, *args, _original=original, **kwargs):
            count["n"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Array, name, counted)
    return count


def pair(loss, dtype=np.float64, n=12_000, d=40, k=4, bias=1.0, device=None):
    """The same problem on NumPy and on array-api-strict, and a feasible alpha off the optimum (a few
    parallel steps on NumPy), which on the host spans several of :data:`svmteach.rows.BLOCK_BYTES`'s blocks."""
    X, y = random_multiclass(n=n, d=d, k=k, seed=3)
    X = X.astype(dtype)
    plain = MulticlassProblem(X, y, loss=loss, bias=bias)
    strict = (MulticlassProblem(xps.asarray(X), y, loss=loss, bias=bias) if device is None else
              MulticlassProblem(X, y, loss=loss, bias=bias, device=device))
    solver = ParallelBlock()
    state = solver.init(plain)
    for _ in range(3):
        state = solver.step(plain, state)
    assert len(list(obj.multiclass_row_blocks(plain))) >= 3  # the host's blocks: the device's one replaces them
    return plain, strict, state.alpha


@pytest.mark.parametrize("loss", ["ww", "cs", "llw", "mmr"])
def test_measures_are_read_once_and_equal_the_hosts(loss, reads):
    plain, strict, alpha = pair(loss)
    W = obj.multiclass_weights(plain, alpha)
    alpha_s, W_s = xps.asarray(alpha), xps.asarray(W)
    reads["n"] = 0
    got = obj.multiclass_measures(strict, alpha_s, W_s)
    assert reads["n"] == 1
    reads["n"] = 0
    bound = obj.multiclass_gap_rounding(strict, alpha_s, W_s)
    assert reads["n"] == 1
    want = obj.multiclass_measures(plain, alpha, W)
    # the host adds its blocks' sums, the device sums the whole: the same numbers to rounding
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * abs(want[0]))
    assert bound == pytest.approx(obj.multiclass_gap_rounding(plain, alpha, W), rel=1e-9)


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_solvers_measure_is_read_once(loss, reads):
    plain, strict, _ = pair(loss)
    solver = ParallelBlock()
    state = solver.step(strict, solver.init(strict))
    reads["n"] = 0
    measured = solver.measure(strict, state._replace(exact=True))
    assert reads["n"] == 1
    host = solver.measure(plain, solver.step(plain, solver.init(plain))._replace(exact=True))
    assert measured.gap == pytest.approx(host.gap, rel=1e-9, abs=1e-12)
    assert measured.kkt == pytest.approx(host.kkt, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("sparse_blocks", [False, True])
def test_float32_products_on_a_device_are_float64_a_block_at_a_time(sparse_blocks, monkeypatch):
    """``times`` / ``transpose_times`` of a float32 X on a non-NumPy namespace: float64 arithmetic on X's float64
    values, in blocks of :func:`svmteach.rows.block_bytes` (shrunk here to force several), no whole copy of X."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 30)).astype(np.float32)
    B, A = rng.standard_normal((30, 4)), rng.standard_normal((700, 4))
    if sparse_blocks:
        monkeypatch.setattr(rows, "DEVICE_BLOCK_BYTES", 8 * 30 * 64)  # 64 rows a block: 11 blocks
    assert len(rows.row_blocks(xps.asarray(X))) == (11 if sparse_blocks else 1)
    copies = []
    astype = xps.astype

    def watched(x, dtype, **kwargs):
        if x.dtype == xps.float32:  # a conversion of X's values
            copies.append(x.shape[0])
        return astype(x, dtype, **kwargs)

    monkeypatch.setattr(xps, "astype", watched)
    got = np.asarray(rows.times(xps.asarray(X), xps.asarray(B), xps))
    got_t = np.asarray(rows.transpose_times(xps.asarray(X), xps.asarray(A), xps))
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(got, X64 @ B, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got_t, X64.T @ A, rtol=1e-13, atol=1e-12)
    assert max(copies) == (64 if sparse_blocks else 700)  # X's rows converted a block at a time


@pytest.mark.gpu
@pytest.mark.skipif(not cupy_available(), reason="needs CuPy and a CUDA GPU")
@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_measures_on_a_gpu_equal_the_hosts(loss):
    """The same on CuPy, a float32 X kept float32 on the device (its rows converted in the products)."""
    import cupy

    plain, gpu, alpha = pair(loss, dtype=np.float32, device="gpu")
    assert isinstance(gpu.X, cupy.ndarray) and gpu.X.dtype == cupy.float32
    W = obj.multiclass_weights(plain, alpha)
    got = obj.multiclass_measures(gpu, cupy.asarray(alpha), cupy.asarray(W))
    want = obj.multiclass_measures(plain, alpha, W)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * abs(want[0]))
    bound = obj.multiclass_gap_rounding(gpu, cupy.asarray(alpha), cupy.asarray(W))
    assert bound == pytest.approx(obj.multiclass_gap_rounding(plain, alpha, W), rel=1e-9)
