"""The Newton system of the interior-point method and its solves (dense Cholesky or low-rank Woodbury).

**The linear system**, :math:`N = H + B` with :math:`B = G^\\top D G` block diagonal (one k' x k' block per
sample), two ways (``method``):

- ``"dense"``: N formed and factorised by Cholesky, :math:`O(m^3 / 3)` per step for
  :math:`m = n k'` variables (and :math:`m^2` memory): for :math:`m` up to a few thousand, and the only way
  for a nonlinear kernel;
- ``"low_rank"``: Sherman-Morrison-Woodbury, :math:`N^{-1} = B^{-1} - B^{-1} J^\\top (I + J B^{-1} J^\\top)^{-1} J B^{-1}`,
  with a :math:`kd \\times kd` capacitance matrix: :math:`O(n k^2 d^2 + (kd)^3 / 3)` per step: for many samples
  with few features and classes (linear kernels);
- ``"auto"`` (default) picks the cheaper.  Each solve is followed by two steps of iterative refinement
  against N itself (products with H cost :math:`O(nkd)` in the low-rank form), which recovers the accuracy
  that the Woodbury formula loses when :math:`D` spans many orders of magnitude near the end.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .interior_point_qp import dense_of, hess_times

#: Iterative-refinement rounds after each solve with the factorisation.
REFINE = 2


class NewtonSystem:
    """The factorised Newton matrix N = H + G'DG (see the module docstring) and its solves."""

    def __init__(self, qp, d, method):
        self.qp = qp
        G = qp.G
        self.B = np.einsum("rb,ir,rc->ibc", G, d, G)  # G' diag(d_i) G, one (k', k') block per sample
        m_s, nv = qp.h.shape[0], G.shape[1]
        self.shape = (m_s, nv)
        self.dense = method == "dense"
        if self.dense:
            N = dense_of(qp).copy()
            N4 = N.reshape(m_s, nv, m_s, nv)
            i = np.arange(m_s)
            N4[i, :, i, :] += self.B
            self.factor = cholesky(N)
        else:
            self.Binv = np.linalg.inv(self.B)
            T = np.einsum("iab,ibc,idc->iad", qp.A, self.Binv, qp.A)  # A_i B_i^{-1} A_i'  (m_s, k, k)
            k, dim = T.shape[1], qp.X.shape[1]
            cap = np.eye(k * dim)
            step = max(1, (1 << 22) // max(1, k * k * dim))  # samples per block: bounded memory
            for s in range(0, m_s, step):
                X, Ts = qp.X[s:s + step], T[s:s + step]
                # sum_i T_i[a, b] x_i x_i' as a (k d, k d) matrix: one product with BLAS
                TX = (Ts[:, :, :, None] * X[:, None, None, :]).reshape(len(X), k * k * dim)
                # (X' TX)[c, (a, b, e)] = sum_i x_ic T_i[a, b] x_ie, reordered to [(a, c), (b, e)]
                cap += (X.T @ TX).reshape(dim, k, k, dim).transpose(1, 0, 2, 3).reshape(k * dim, k * dim)
            self.factor = cholesky(0.5 * (cap + cap.T))

    def _solve_once(self, v):
        if self.dense:
            return sla.cho_solve(self.factor, v.ravel()).reshape(v.shape)
        qp = self.qp
        w = np.einsum("ibc,ic->ib", self.Binv, v)  # B^{-1} v
        Y = np.einsum("iab,ib->ia", qp.A, w).T @ qp.X  # J B^{-1} v, (k, d)
        t = sla.cho_solve(self.factor, Y.ravel()).reshape(Y.shape)  # (I + J B^{-1} J')^{-1} J B^{-1} v
        back = np.einsum("iab,ia->ib", qp.A, qp.X @ t.T)  # J' t
        return w - np.einsum("ibc,ic->ib", self.Binv, back)

    def times(self, u):
        """N u = H u + B u."""
        return hess_times(self.qp, u) + np.einsum("ibc,ic->ib", self.B, u)

    def solve(self, v):
        """N^{-1} v, refined ``REFINE`` times against N itself."""
        u = self._solve_once(v)
        for _ in range(REFINE):
            u = u + self._solve_once(v - self.times(u))
        return u


def cholesky(N):
    """Cholesky factor of the symmetric positive definite ``N``; when rounding made it indefinite, of N plus
    a ridge of growing size (iterative refinement against N undoes the ridge's effect)."""
    scale = float(np.max(np.abs(np.diag(N)))) or 1.0
    ridge = 0.0
    for _ in range(12):
        try:
            return sla.cho_factor(N + ridge * np.eye(len(N)) if ridge else N, lower=False, check_finite=True)
        except np.linalg.LinAlgError:
            ridge = scale * 1e-14 if ridge == 0.0 else ridge * 100.0
    raise np.linalg.LinAlgError("the Newton matrix could not be factorised")


def least_squares(M, v):
    """A least-squares solution of the symmetric system M u = v (M may be singular: duplicates), by LAPACK's
    complete orthogonal factorisation, refined ``REFINE`` times against M itself."""
    u = sla.lstsq(M, v, cond=None, check_finite=True, lapack_driver="gelsy")[0]
    for _ in range(REFINE):
        u = u + sla.lstsq(M, v - M @ u, cond=None, check_finite=False, lapack_driver="gelsy")[0]
    return u
