"""Independent oracles for the tests: the SVM duals solved by a general QP solver (Clarabel).

Clarabel is an interior-point conic solver that shares no code with svmteach;
it solves ``min 1/2 x'Px + q'x  s.t.  Ax + s = b, s in K``.
"""

from __future__ import annotations

import clarabel
import numpy as np
from scipy import sparse


def solve_qp(P, q, A_eq=None, b_eq=None, A_ineq=None, b_ineq=None):
    """Minimise ``1/2 x'Px + q'x`` s.t. ``A_eq x = b_eq``, ``A_ineq x <= b_ineq``; returns x."""
    n = len(q)
    P = 0.5 * (P + P.T) + 1e-13 * np.eye(n)
    blocks, rhs, cones = [], [], []
    if A_eq is not None:
        blocks.append(np.atleast_2d(A_eq))
        rhs.append(np.atleast_1d(b_eq))
        cones.append(clarabel.ZeroConeT(len(rhs[-1])))
    if A_ineq is not None:
        blocks.append(A_ineq)
        rhs.append(b_ineq)
        cones.append(clarabel.NonnegativeConeT(len(b_ineq)))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-11
    settings.tol_feas = 1e-11
    settings.max_iter = 500
    solver = clarabel.DefaultSolver(
        sparse.csc_matrix(np.triu(P)), np.asarray(q, float), sparse.csc_matrix(np.vstack(blocks)),
        np.concatenate(rhs).astype(float), cones, settings,
    )
    sol = solver.solve()
    assert str(sol.status) in ("Solved", "AlmostSolved"), sol.status
    return np.array(sol.x)


def binary_dual_optimum(K, y, C, bias):
    """Optimal value of ``max 1'a - 1/2 a'Qa, 0 <= a <= C (, y'a = 0)``, Q = yy' * K."""
    n = len(y)
    Q = (y[:, None] * y[None, :]) * K
    box = np.vstack([np.eye(n), -np.eye(n)])
    box_rhs = np.concatenate([np.full(n, C), np.zeros(n)])
    a = solve_qp(Q, -np.ones(n), y[None, :] if bias else None, [0.0] if bias else None, box, box_rhs)
    a = np.clip(a, 0, C)
    return float(a.sum() - 0.5 * a @ Q @ a), a


def ww_dual_optimum(X, codes, C, M):
    """Optimal value of the Weston-Watkins dual (maximised), over beta_ij, j != y_i.

    alpha = A beta puts alpha_{i y_i} = -sum_j beta_ij; ||W||^2 = M^2 vec(alpha)' (K kron I_k) vec(alpha).
    """
    n, k = len(codes), int(codes.max()) + 1
    A = np.zeros((n * k, n * (k - 1)))
    col = 0
    for i in range(n):
        for j in range(k):
            if j == codes[i]:
                continue
            A[i * k + j, col] = 1.0
            A[i * k + codes[i], col] = -1.0
            col += 1
    H = M * M * np.kron(X @ X.T, np.eye(k))
    P = A.T @ H @ A
    m = n * (k - 1)
    box = np.vstack([np.eye(m), -np.eye(m)])
    beta = solve_qp(P, -np.ones(m), A_ineq=box, b_ineq=np.concatenate([np.full(m, C), np.zeros(m)]))
    return float(beta.sum() - 0.5 * beta @ P @ beta)


def cs_dual_optimum(X, codes, C):
    """Optimal value of the Crammer-Singer dual (maximised): -1/2 a'(K kron I)a - Delta'a."""
    n, k = len(codes), int(codes.max()) + 1
    H = np.kron(X @ X.T, np.eye(k))
    delta = np.ones(n * k)
    upper = np.zeros(n * k)
    for i in range(n):
        delta[i * k + codes[i]] = 0.0
        upper[i * k + codes[i]] = C
    A_eq = np.kron(np.eye(n), np.ones((1, k)))
    a = solve_qp(H, delta, A_eq, np.zeros(n), np.eye(n * k), upper)
    return float(-0.5 * a @ H @ a - delta @ a)


def llw_primal_optimum(X, codes, C):
    """The Lee-Lin-Wahba primal solved as a QP with its sum-to-zero constraint: ``(W*, P(W*))``.

    Variables ``w`` (k*d, row m of W is w_m) and slacks ``xi_im`` (m != y_i):
    ``min 1/2 |w|^2 + C sum xi  s.t.  w_m'x_i - xi_im <= -1,  -xi_im <= 0,  sum_m w_m = 0``.
    The returned value is the primal recomputed from W* with its hinges, not read off the slacks.
    """
    X = np.asarray(X, float)
    n, d = X.shape
    k = int(codes.max()) + 1
    pairs = [(i, m) for i in range(n) for m in range(k) if m != codes[i]]
    nw, nx = k * d, len(pairs)
    P = np.zeros((nw + nx, nw + nx))
    P[:nw, :nw] = np.eye(nw)
    q = np.concatenate([np.zeros(nw), np.full(nx, C)])
    margin = np.zeros((nx, nw + nx))
    for r, (i, m) in enumerate(pairs):
        margin[r, m * d:(m + 1) * d] = X[i]
        margin[r, nw + r] = -1.0
    slack = np.hstack([np.zeros((nx, nw)), -np.eye(nx)])
    A_eq = np.hstack([np.tile(np.eye(d), (1, k)), np.zeros((d, nx))])  # sum_m w_m = 0
    z = solve_qp(P, q, A_eq, np.zeros(d), np.vstack([margin, slack]), np.concatenate([-np.ones(nx), np.zeros(nx)]))
    W = z[:nw].reshape(k, d)
    S = X @ W.T
    hinge = sum(max(0.0, 1.0 + S[i, m]) for i, m in pairs)
    return W, float(0.5 * np.sum(W * W) + C * hinge)


def mmr_primal_optimum(X, codes, C, sample_C=None):
    """The maximum-margin regression primal solved as a QP with its sum-to-zero constraint: ``(W*, P(W*))``.

    Variables ``w`` (k*d, row m of W is w_m) and one slack ``xi_i`` per sample (bound ``C_i``, C or ``sample_C``):
    ``min 1/2 |w|^2 + sum C_i xi_i  s.t.  -w_{y_i}'x_i - xi_i <= -1,  -xi_i <= 0,  sum_m w_m = 0``.
    The returned value is the primal recomputed from W* with its hinges, not read off the slacks.
    """
    X = np.asarray(X, float)
    n, d = X.shape
    k = int(codes.max()) + 1
    C_i = np.full(n, float(C)) if sample_C is None else np.asarray(sample_C, float)
    nw = k * d
    P = np.zeros((nw + n, nw + n))
    P[:nw, :nw] = np.eye(nw)
    q = np.concatenate([np.zeros(nw), C_i])
    margin = np.zeros((n, nw + n))
    for i in range(n):
        margin[i, codes[i] * d:(codes[i] + 1) * d] = -X[i]
        margin[i, nw + i] = -1.0
    slack = np.hstack([np.zeros((n, nw)), -np.eye(n)])
    A_eq = np.hstack([np.tile(np.eye(d), (1, k)), np.zeros((d, n))])  # sum_m w_m = 0
    z = solve_qp(P, q, A_eq, np.zeros(d), np.vstack([margin, slack]), np.concatenate([-np.ones(n), np.zeros(n)]))
    W = z[:nw].reshape(k, d)
    s_y = np.einsum("ij,ij->i", X, W[codes])
    return W, float(0.5 * np.sum(W * W) + np.sum(C_i * np.maximum(1.0 - s_y, 0.0)))


def mmr_kernel_dual_optimum(K, codes, C):
    """``(D*, beta*)``: the maximum-margin regression dual with a kernel, ``max 1'beta - 1/2 beta'Q beta`` on
    ``[0, C]^n`` with ``Q_ij = K_ij ([y_i = y_j] - 1/k)`` (the kernel matrix of the centred class indicators)."""
    n, k = len(codes), int(codes.max()) + 1
    Q = np.asarray(K, float) * ((codes[:, None] == codes[None, :]) - 1.0 / k)
    box = np.vstack([np.eye(n), -np.eye(n)])
    beta = np.clip(solve_qp(Q, -np.ones(n), A_ineq=box, b_ineq=np.concatenate([np.full(n, C), np.zeros(n)])), 0, C)
    return float(beta.sum() - 0.5 * beta @ Q @ beta), beta


def multiclass_dual_optimum(problem):
    """``(D*, alpha*)``: the dual of a linear multiclass problem (NumPy, dense X) maximised by Clarabel, the
    programme read off its loss object, whatever the loss: ``D(alpha) = ell(alpha) - 1/2 ||A(alpha)'X||_F^2``
    with the linear maps ``ell`` (``dual_linear``) and ``A`` (``weight_rows``) probed one unit alpha at a time,
    alpha in the loss's box (``bounds``, an entry with equal bounds fixed) and on its block equality
    ``alpha_{iy_i} = (label / off) sum_{j != y_i} alpha_ij`` (its ``embedding``).

    It shares no code with the solvers; that the loss's pieces describe its primal is what a zero gap between
    ``D*`` and the loss's primal at ``A(alpha*)'X`` certifies (strong duality)."""
    loss = problem.loss_object
    X = np.asarray(problem.X, dtype=np.float64)
    n, k = problem.n_samples, problem.k
    m = n * k
    T, ell = np.zeros((m, m)), np.zeros(m)
    for e in range(m):  # alpha = e-th unit (row-major (i, class)): column e of the linear maps
        unit = np.zeros(m)
        unit[e] = 1.0
        T[:, e] = np.asarray(loss.weight_rows(problem, unit.reshape(n, k)), dtype=np.float64).ravel()
        ell[e] = loss.dual_linear(problem, unit.reshape(n, k))
    P = T.T @ np.kron(X @ X.T, np.eye(k)) @ T  # ||W||^2 = vec(A)' (K kron I_k) vec(A), vec(A) = T alpha
    lower, upper = (np.asarray(b, dtype=np.float64).ravel() for b in loss.bounds(problem))
    codes = np.asarray(problem.codes)
    eq = np.zeros((n, m))
    if loss.embedding.entries == "off":  # the label entry a multiple of the others' sum (else it is free, alone)
        ratio = loss.embedding.label / loss.embedding.off
        for i in range(n):
            eq[i, i * k:(i + 1) * k] = -ratio
            eq[i, i * k + codes[i]] = 1.0
    else:
        eq = eq[:0]
    fixed = lower == upper
    E = np.vstack([eq, np.eye(m)[fixed]])
    rows = [(np.eye(m)[j], upper[j]) for j in np.flatnonzero(np.isfinite(upper) & ~fixed)]
    rows += [(-np.eye(m)[j], -lower[j]) for j in np.flatnonzero(np.isfinite(lower) & ~fixed)]
    alpha = solve_qp(P, -ell, E, np.concatenate([np.zeros(len(eq)), lower[fixed]]),
                     np.array([r for r, _ in rows]), np.array([b for _, b in rows]))
    return float(ell @ alpha - 0.5 * alpha @ P @ alpha), alpha.reshape(n, k)
