"""Two faster ways to the regularization path that were tried against the RLS issue's target (the
path for 100 lambdas within 5x one Cholesky solve) and did not reach it; kept so the claim in
RESULTS.md can be checked.

    python benchmarks/rls_alternatives.py           # n = 2000, as benchmarks/rls.py
    python benchmarks/rls_alternatives.py --quick   # n = 500

Every path is the same formula, c(lambda) = Q (B + lambda I)^{-1} Q'Y with K = Q B Q', and each
is checked here against a direct Cholesky solve for every lambda.  What changes is B and how
it is reached:

* ``svmteach.rls.regularization_path`` (the library's): B tridiagonal, LAPACK ``dsytrd``.
  Half of ``dsytrd``'s 4/3 n^3 flops are matrix-vector products, which wait on memory.
* ``band_path``: the first stage of a two-stage reduction.  B is a band of half-width b, reached
  panel by panel: a QR of the panel below the band, then the two-sided update of the trailing
  matrix as one ``dsymm`` and one ``dsyr2k`` (all matrix-matrix work, done in place through
  SciPy's Cython BLAS, since SciPy's Python wrappers would copy the trailing block every
  panel).  Each lambda is then a band Cholesky (``dpbtrf``, O(n b^2)).
* ``mixed_path``: ``ssytrd`` in float32 (half the memory traffic of ``dsytrd``), then float64
  iterative refinement of every lambda's solution with float32 Q, stopped by LAPACK
  ``dsposv``'s rule (residual below sqrt(n) * eps * |K + lambda I| * |c|, infinity norms).
  How many rounds it needs depends on how well K + lambda I is conditioned.

The floor under all of them: an orthogonal reduction of a symmetric matrix costs at least
4/3 n^3 flops, four times the Cholesky's 1/3 n^3.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
from numba.extending import get_cython_function_address
from scipy import linalg
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import best_of, machine, table  # noqa: E402
from rls import problem  # noqa: E402

from svmteach.kernels import Kernel, gram  # noqa: E402
from svmteach.rls import regularization_path, solve_dual  # noqa: E402


def _blas(name):
    """A BLAS routine from scipy.linalg.cython_blas, every argument passed by address (Fortran)."""
    address = get_cython_function_address("scipy.linalg.cython_blas", name)
    return ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 12)(address)


_DSYMM, _DSYR2K = _blas("dsymm"), _blas("dsyr2k")


def _int(v):
    return ctypes.byref(ctypes.c_int(v))


def _real(v):
    return ctypes.byref(ctypes.c_double(v))


def _at(A, i, j):
    """Address of A[i, j] in a Fortran-ordered float64 array."""
    return ctypes.c_void_p(A.ctypes.data + 8 * (i + j * A.shape[0]))


def _wy(V, tau):
    """T with H_1 ... H_k = I - V T V' (LAPACK dlarft, forward, columnwise)."""
    k = len(tau)
    T, VtV = np.zeros((k, k)), V.T @ V
    for i in range(k):
        T[i, i] = tau[i]
        T[:i, i] = -tau[i] * (T[:i, :i] @ VtV[:i, i])
    return T


def band_reduce(K, b):
    """K = Q B Q' with B banded (half-width b); returns B in LAPACK lower band storage and Q as
    a list of blocks (row offset, V, T), Q_block = I - V T V'."""
    A = np.array(K, dtype=np.float64, order="F")
    n = A.shape[0]
    blocks = []
    lower, plain = ctypes.c_char_p(b"L"), ctypes.c_char_p(b"N")
    for j in range(0, n - b - 1, b):
        i0 = j + b
        m = n - i0
        (qr, tau), _ = linalg.qr(A[i0:, j : j + b], mode="raw")
        k = len(tau)
        V = np.asfortranarray(np.tril(qr[:, :k], -1) + np.eye(m, k))
        T = _wy(V, tau)
        A[i0:, j : j + b] = np.triu(qr)  # R sits in the band; the rest is outside it
        # trailing block A22 <- Q' A22 Q = A22 - V Y' - Y V', Y = X - V (T' V' X) / 2, X = A22 V T
        X = np.empty((m, k), order="F")
        _DSYMM(lower, lower, _int(m), _int(k), _real(1.0), _at(A, i0, i0), _int(n),
               _at(V, 0, 0), _int(m), _real(0.0), _at(X, 0, 0), _int(m))
        X = X @ T
        Y = np.asfortranarray(X - 0.5 * V @ (T.T @ (V.T @ X)))
        _DSYR2K(lower, plain, _int(m), _int(k), _real(-1.0), _at(V, 0, 0), _int(m),
                _at(Y, 0, 0), _int(m), _real(1.0), _at(A, i0, i0), _int(n))
        blocks.append((i0, V, T))
    kd = min(b, n - 1)
    band = np.zeros((kd + 1, n), order="F")
    for r in range(kd + 1):
        band[r, : n - r] = np.diagonal(A, -r)
    return band, blocks


def _apply_blocks(blocks, Z, transpose):
    Z = np.array(Z, dtype=np.float64, order="F")
    for i0, V, T in blocks if transpose else blocks[::-1]:
        Z[i0:] -= V @ ((T.T if transpose else T) @ (V.T @ Z[i0:]))
    return Z


def band_path(K, Y, lams, b=32):
    band, blocks = band_reduce(K, b)
    QtY = _apply_blocks(blocks, Y, transpose=True)
    n, t = Y.shape
    Z = np.empty((n, len(lams) * t), order="F")
    for j, lam in enumerate(lams):
        shifted = band.copy()
        shifted[0] += lam
        factor, info = lapack.dpbtrf(shifted, lower=1, overwrite_ab=1)
        if info != 0:
            raise ValueError(f"K + lam I is not positive definite (lam = {lam:g})")
        Z[:, j * t : (j + 1) * t] = lapack.dpbtrs(factor, QtY, lower=1)[0]
    return _apply_blocks(blocks, Z, transpose=False).reshape(n, len(lams), t).transpose(1, 0, 2)


def mixed_path(K, Y, lams, max_rounds=30):
    """Returns the path and the number of refinement rounds each lambda took (max_rounds + 1: not
    converged)."""
    n, t = Y.shape
    lw = int(lapack.ssytrd_lwork(n, lower=1)[0])
    A, diag, off, tau, _ = lapack.ssytrd(np.asfortranarray(K, dtype=np.float32), lower=1, lwork=lw,
                                         overwrite_a=1)
    reflectors, diag, off = A[1:, : n - 1], diag.astype(np.float64), off.astype(np.float64)

    def apply_q(Z, trans):
        Z = np.asfortranarray(Z, dtype=np.float32)
        lwork = int(lapack.sormqr("L", trans, reflectors, tau, Z[1:], -1)[1][0])
        Z[1:] = lapack.sormqr("L", trans, reflectors, tau, Z[1:], lwork, overwrite_c=1)[0]
        return Z.astype(np.float64)

    def approximate_inverse(R, shifts):
        W = apply_q(R, "T")
        for j, lam in enumerate(shifts):
            W[:, j] = lapack.dptsv(diag + lam, off.copy(), W[:, j])[2]
        return apply_q(W, "N")

    shifts = np.repeat(lams, t)
    targets = np.tile(Y, (1, len(lams)))
    C = approximate_inverse(targets, shifts)
    norm_K, eps = np.abs(K).sum(axis=1).max(), np.finfo(np.float64).eps
    rounds = np.full(len(shifts), max_rounds + 1)
    active = np.arange(len(shifts))
    for r in range(max_rounds + 1):
        Ca = C[:, active]
        R = targets[:, active] - K @ Ca - Ca * shifts[active]
        done = np.abs(R).max(axis=0) <= np.sqrt(n) * eps * np.abs(Ca).max(axis=0) * (norm_K + shifts[active])
        rounds[active[done]] = r
        active = active[~done]
        if active.size == 0 or r == max_rounds:
            break
        C[:, active] += approximate_inverse(R[:, ~done], shifts[active])
    return C.reshape(n, len(lams), t).transpose(1, 0, 2), rounds.reshape(len(lams), t).max(axis=1)


def _largest_relative_error(path, K, Y, lams):
    exact = [solve_dual(K, Y, lam) for lam in lams]
    return f"{max(np.linalg.norm(c - e) / np.linalg.norm(e) for c, e in zip(path, exact)):.1e}"


def _refinement_note(rounds):
    note = f"rounds: median {np.median(rounds):g}, max {rounds.max()}"
    if rounds.max() > 30:
        note += f", {np.sum(rounds > 30)} lambdas not converged"
    return note


def main(argv=None):
    X, Y, lams = problem(argv, __doc__)
    n = X.shape[0]
    rows = []
    for gamma in (0.1, 0.01):  # 0.1: benchmarks/rls.py's kernel; 0.01: smallest eigenvalue ~ 1e-9
        K = gram(X, None, Kernel("gaussian", gamma))

        def error(path, K=K):
            return _largest_relative_error(path, K, Y, lams), ""

        with threadpool_limits(1):
            t_one, _ = best_of(lambda: solve_dual(K, Y, 1.0), repeat=5)
            # (name, run, what to report of its last result: (max relative error, note))
            runs = [("dsytrd (the library's path)", lambda: regularization_path(K, Y, lams), error),
                    ("two-stage, stage 1 only (b = 32)", lambda: band_reduce(K, 32), lambda _: ("", "")),
                    ("two-stage path (b = 32)", lambda: band_path(K, Y, lams), error),
                    ("float32 ssytrd + float64 refinement", lambda: mixed_path(K, Y, lams),
                     lambda out: (error(out[0])[0], _refinement_note(out[1])))]
            for name, run, report in runs:
                seconds, out = best_of(run, repeat=5)
                rows.append([gamma, name, f"{seconds:.3f} s", f"{seconds / t_one:.1f}", *report(out)])
            rows.append([gamma, "one Cholesky solve", f"{t_one:.3f} s", "1.0", "", ""])
    print(machine())
    print(f"\nn = {n}, gaussian kernels, one target column, 100 lambdas in [1e-3, 1e2]\n")
    print(table(rows, ["gamma", "computation", "time", "in Cholesky solves", "max relative error", "note"]))


if __name__ == "__main__":
    main()
