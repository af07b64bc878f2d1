"""The parallel solver's block targets on a GPU: every loss's row kernel, the same source, on numba's CUDA target.

The row kernels (:mod:`svmteach.losses.row_kernels`) are written in what numba's CPU and CUDA targets share
(scratch passed in, nothing allocated, no NumPy sort), so the CUDA target compiles them as they are:
:func:`device_function` recompiles a kernel's Python source as a CUDA device function, every compiled
function it calls retargeted the same way, and :func:`targets_kernel` launches it one thread per sample,
each with its own rows of scratch (:func:`launch`), as :func:`~svmteach.solvers.numba_multiclass.targets`
runs it on the CPU.  Arrays may be NumPy (copied to the device by numba) or CuPy (read in place through
``__cuda_array_interface__``).

Without a GPU the same launch runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, set before
numba is imported): each thread the kernel's Python source, on the simulator's arrays; the tests hold it to
the CPU kernel row for row (``tests/test_cuda_targets.py``), so the first run on a GPU runs code already checked.
"""

from __future__ import annotations

import math
import types

import numpy as np
from numba import cuda
from numba.core.dispatcher import Dispatcher

#: Threads per block of a launch.
THREADS = 128

_DEVICE: dict = {}
_KERNELS: dict = {}


def device_function(func):
    """The numba-compiled ``func`` as a CUDA device function of the same source, every numba-compiled function
    it calls (a global of its module) retargeted as well (once each; the CPU functions are not touched)."""
    if func not in _DEVICE:
        py = func.py_func
        namespace = dict(py.__globals__)
        for name in py.__code__.co_names:
            if isinstance(namespace.get(name), Dispatcher):
                namespace[name] = device_function(namespace[name])
        copy = types.FunctionType(py.__code__, namespace, py.__name__, py.__defaults__, py.__closure__)
        _DEVICE[func] = cuda.jit(device=True)(copy)
    return _DEVICE[func]


def targets_kernel(kernels):
    """The CUDA kernel that solves every sample's block alone with ``kernels.block`` (a
    :class:`~svmteach.losses.row_kernels.RowKernels`): thread i writes row i of ``out`` from ``alpha``, the
    scores ``S``, ``codes``, ``sqnorm`` and ``C_i``, nothing set aside."""
    if kernels not in _KERNELS:
        block = device_function(kernels.block)

        @cuda.jit
        def kernel(S, alpha, codes, sqnorm, C_i, params, look, work, iwork, record, picture, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                for m in range(out.shape[1]):
                    out[i, m] = alpha[i, m]
                    look[i, m] = True
                block(S[i], out[i], codes[i], sqnorm[i], C_i[i], params, (math.inf, False, False), look[i],
                      (work[i], iwork[i], record), picture)

        _KERNELS[kernels] = kernel
    return _KERNELS[kernels]


def launch(kernels, S, alpha, codes, sqnorm, C_i, params, xp=np):
    """Every sample's block target (n, k), as :func:`~svmteach.solvers.numba_multiclass.targets` computes it on the
    CPU: ``kernels``' block on the CUDA target, one thread a sample.  CuPy's arrays are read in place; NumPy's are
    copied to the device.  The result is ``xp``'s: a NumPy array copied back, or one made by ``xp.empty``.  The
    scratch is allocated here on the device, once for all threads (the kernels allocate nothing)."""
    n, k = alpha.shape
    # a NumPy input is copied to the device, never back (a problem's arrays are read-only)
    inputs = [cuda.In(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a for a in (S, alpha, codes, sqnorm, C_i)]
    empty = cuda.device_array if xp is np else xp.empty
    out = empty((n, k), dtype=np.float64)
    look = empty((n, k), dtype=np.bool_)
    work = empty((n, 5, 2 * k), dtype=np.float64)
    iwork = empty((n, 3 * k), dtype=np.int64)
    record, picture = empty((0, k + 3), dtype=np.float64), empty((0, k), dtype=np.float64)
    blocks = max(1, (n + THREADS - 1) // THREADS)
    targets_kernel(kernels)[blocks, THREADS](*inputs, params, look, work, iwork, record, picture, out)
    return out.copy_to_host() if xp is np else out
