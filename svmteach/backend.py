"""Array namespaces: one code path for NumPy, CuPy and any array-API library.

The solvers call standard array-API functions on ``xp = array_namespace(arrays)``;
:func:`namespace_for_device` maps ``device="cpu" | "gpu" | "auto"`` to a namespace, and
:func:`to_numpy` brings any array back to the host.
"""

from __future__ import annotations

from functools import cache

import numpy as np

DEVICES = ("cpu", "gpu", "auto")


def array_namespace(*arrays):
    """Return the array-API namespace shared by ``arrays`` (NumPy by default).

    CuPy arrays get array-api-compat's CuPy namespace; Python scalars and lists count as NumPy.
    """
    found = None
    for a in arrays:
        if _is_cupy(a):  # CuPy's own namespace lags the standard; array-api-compat wraps it
            from array_api_compat import array_namespace as compat_namespace

            xp = compat_namespace(a)
        else:
            get = getattr(a, "__array_namespace__", None)
            if get is None:
                continue
            xp = get()
        if found is None:
            found = xp
        elif xp is not found:
            raise TypeError(
                f"arrays from different libraries were mixed: {found.__name__} and {xp.__name__}"
            )
    return np if found is None else found


def _is_cupy(a) -> bool:
    return type(a).__module__.startswith("cupy")


def is_numpy(xp) -> bool:
    """True when ``xp`` is NumPy itself (the compiled fast paths need it)."""
    return xp is np


def takes_index_writes(xp) -> bool:
    """True when ``xp``'s arrays take assignment by integer arrays, ``a[rows] = v`` (beyond the array-API standard):
    NumPy's, and array-api-compat's wrappers' (CuPy's on a GPU, NumPy's on the dry run's code path)."""
    return is_numpy(xp) or xp.__name__.startswith("array_api_compat.")


def cupy_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy
    except Exception:  # ImportError, or a CUDA library that fails to load
        return False
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def namespace_for_device(device: str = "cpu"):
    """The namespace for ``device``: ``"cpu"`` (NumPy), ``"gpu"`` (CuPy) or ``"auto"``.

    ``"auto"``: the GPU when CuPy sees a CUDA device, else the CPU.
    """
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if device == "cpu" or (device == "auto" and not cupy_available()):
        return np
    if not cupy_available():
        raise ValueError(
            "device='gpu' needs CuPy and a CUDA GPU; install svmteach[gpu] "
            "or use device='cpu' / 'auto'"
        )
    import array_api_compat.cupy as cupy_namespace

    return cupy_namespace


def to_device(a, device):
    """``a`` on ``device`` (see :func:`namespace_for_device`); ``None`` leaves it where it is.

    "cpu" brings arrays of any library to NumPy; "gpu" (and "auto" with a GPU) copies them to CuPy.
    Lists pass through, to be validated by :func:`svmteach.validation.check_X`.
    """
    if device is None:
        return a
    xp = namespace_for_device(device)
    if is_numpy(xp):
        return to_numpy(a) if hasattr(a, "__array_namespace__") or _is_cupy(a) else a
    if _is_cupy(a):
        return a
    host = to_numpy(a) if hasattr(a, "__array_namespace__") else np.asarray(a)
    return xp.asarray(host)


def to_numpy(a) -> np.ndarray:
    """Copy an array of any supported library to a NumPy array (no copy for NumPy)."""
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "get") and _is_cupy(a):
        return a.get()
    if hasattr(a, "__dlpack__"):
        try:
            return np.from_dlpack(a)
        except (TypeError, RuntimeError, BufferError):
            pass
    return np.asarray(a)


def concat(xp, arrays, axis: int = 0):
    """``arrays`` joined along ``axis``: the standard's ``concat``, or NumPy/CuPy's ``concatenate``."""
    f = getattr(xp, "concat", None)
    return f(arrays, axis=axis) if f is not None else xp.concatenate(arrays, axis=axis)


def cumulative_sum(xp, a, axis: int):
    """Cumulative sum along ``axis``: the standard's ``cumulative_sum``, or NumPy/CuPy's ``cumsum``."""
    f = getattr(xp, "cumulative_sum", None)
    return f(a, axis=axis) if f is not None else xp.cumsum(a, axis=axis)


@cache
def _blas_controller():
    from threadpoolctl import ThreadpoolController  # a dependency of scikit-learn

    return ThreadpoolController()


def one_blas_thread():
    """A context with BLAS on one thread.

    The solvers multiply small blocks, and OpenBLAS's second thread, woken for each product, only spins
    while it waits.  Every fit and explorer runs under it (CuPy is not limited).
    """
    return _blas_controller().limit(limits=1, user_api="blas")
