"""The quadratic programme the interior-point method solves, built from the problem and its loss.

**The quadratic programme.**  Every dual here is, written as a minimisation over the free entries
:math:`\\beta` of its dual variables (one block :math:`\\beta_i \\in \\mathbb R^{k'}` per sample),

.. math::

    \\min_\\beta \\; \\tfrac12 \\beta^\\top H \\beta - \\mathbf 1^\\top \\beta
    \\quad \\text{s.t.} \\quad G \\beta_i \\le C_i h \\;\\; (\\text{every } i), \\qquad a^\\top \\beta = 0,

with

- binary (:math:`k' = 1`, :math:`\\beta_i = \\alpha_i`): :math:`H = Q`, the box :math:`0 \\le \\beta_i \\le C_i`,
  and, with a bias (``bias=True``, as SMO), the equality :math:`y^\\top \\alpha = 0`;
- multiclass (:math:`k' = k - 1`, the off-label entries, or :math:`k' = 1`, the label entry alone): as the loss
  declares (``loss.embedding``, a :class:`~svmteach.losses.base.Embedding`): :math:`\\alpha_{ij} = \\pm\\beta_{ij}`,
  the label entry a multiple of :math:`\\mathbf 1^\\top \\beta_i`, and :math:`\\beta_i` in the box :math:`[0, C_i]^{k'}` (Weston-Watkins,
  Lee-Lin-Wahba) or the simplex :math:`\\beta_i \\ge 0, \\mathbf 1^\\top \\beta_i \\le C_i` (Crammer-Singer).

In each case the linear term of the (maximised) dual is :math:`\\mathbf 1^\\top \\beta` and its weights are
linear in :math:`\\beta`: :math:`W = \\sum_i (A_i \\beta_i) x_i^\\top` with the (k, k') matrix :math:`A_i`
read off the loss's own ``weight_rows``, so :math:`H = J^\\top J` for the map :math:`J: \\beta \\mapsto W`,
:math:`H_{(i,\\cdot),(j,\\cdot)} = K_{ij} A_i^\\top A_j`, of rank at most :math:`kd`.  A sample with
:math:`C_i = 0` has all its variables fixed at 0 and is left out of the programme.

**Scaling.**  The programme is solved over :math:`x` with :math:`\\beta_i = d_i x_i`, :math:`d_i` the power of two
nearest :math:`\\min(C_i, 1/q_i)` (:math:`q_i` sample i's largest Hessian diagonal entry, so :math:`1/q_i` is the
size of its unconstrained solution), and the objective divided by :math:`\\sigma = \\max_i d_i`: the Hessian's
diagonal is then at most 1, the linear term :math:`c_i = d_i / \\sigma` at most 1 and each box
:math:`C_i / d_i \\ge 1`, whatever the features' and C's scales (powers of two: the scaling is exact).  What is
left is :math:`C q_i`: where it is 1e9 or more and samples sit at their bound, their scores are sums of terms
:math:`C q` that cancel to O(1), and neither the steps nor the package's objectives are accurate below about
:math:`10^{-16} C q` (gaps of 1e-7 at :math:`Cq = 10^9`, 1e-4 at :math:`10^{12}`).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from ..backend import to_numpy

#: The scaled boxes C_i q_i are capped here (4.5e15): an iterate stops at RESOLVABLE first, and a box of 1e100
#: would only spoil the Newton systems.
BOX_CAP = 2.0**52


class QP(NamedTuple):
    """The programme of one problem (host arrays, float64), over the scaled x (module docstring).

    keep : (m_s,) indices of the samples with C_i > 0;  A : (m_s, k, k') weight-row maps, scaled:
    d_i A_i / sqrt(sigma);  X : (m_s, d) their rows (None for a nonlinear kernel);  H : (m, m) dense
    scaled Hessian or None;  G : (r, k') one sample's inequality rows;  h : (m_s, r) their right-hand
    sides C_i h / d_i (with a bias, C_i at most the other class's total box, which y'alpha = 0 implies);
    c : (m_s, 1) the linear term d_i / sigma;  d : (m_s,) the scales d_i;
    eq : (m_s, k') the equality's coefficients d_i a_i / sigma (at most 1: no underflow at C = 1e-300), or None;
    kind : "box" or "simplex";
    embed : (sign_off, sign_label, entries) alpha's off-label entries are sign_off * beta (``entries`` "off"; 0
    for "label"), its label entry sign_label * 1'beta (multiclass), None for binary;  others : (n, k-1) the off-label columns;
    q : (m_s,) each sample's largest Hessian diagonal entry (unscaled: K_ii |A_i e_c|^2).
    """

    keep: np.ndarray
    A: np.ndarray
    X: object
    H: object
    G: np.ndarray
    h: np.ndarray
    c: np.ndarray
    d: np.ndarray
    eq: object
    kind: str
    embed: object
    others: object
    q: object = None


_QP_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def is_binary(problem) -> bool:
    return getattr(problem, "loss_object", None) is None


def _box_rows(nv):
    """``(G, h)`` of the box 0 <= beta <= C: rows beta <= C (upper) then -beta <= 0 (lower)."""
    eye = np.eye(nv)
    return np.vstack([eye, -eye]), np.concatenate([np.ones(nv), np.zeros(nv)])


def _simplex_rows(nv):
    """``(G, h)`` of beta >= 0, 1'beta <= C: rows -beta <= 0 (lower) then 1'beta <= C (sum)."""
    return np.vstack([-np.eye(nv), np.ones((1, nv))]), np.concatenate([np.zeros(nv), [1.0]])


def alpha_of(problem, qp, x):
    """The package's alpha (NumPy) of the scaled QP variables ``x`` (m_s, k'): beta_i = d_i x_i."""
    n = problem.n_samples
    beta = qp.d[:, None] * x
    if qp.embed is None:
        alpha = np.zeros(n)
        alpha[qp.keep] = beta[:, 0]
        return alpha
    sign_off, sign_label, entries = qp.embed
    codes = to_numpy(problem.codes)
    alpha = np.zeros((n, problem.k))
    if entries == "off":
        alpha[qp.keep[:, None], qp.others[qp.keep]] = sign_off * beta
    alpha[qp.keep, codes[qp.keep]] = sign_label * beta.sum(axis=1)  # "label": beta_i is the label entry alone
    return alpha


def build_qp(problem, bias: bool = True) -> QP:
    """The quadratic programme of ``problem`` (cached per problem object and ``bias``)."""
    cached = _QP_CACHE.get(problem, {})
    if bias in cached:
        return cached[bias]
    C_i = np.asarray(to_numpy(problem.C_i), dtype=np.float64)
    keep = np.flatnonzero(C_i > 0)
    if is_binary(problem):
        y = np.asarray(to_numpy(problem.y), dtype=np.float64)[keep]
        if bias and (np.all(y > 0) or np.all(y < 0)):
            keep = keep[:0]  # one class left: y'alpha = 0 with alpha >= 0 leaves only alpha = 0
            y = y[:0]
        A = y[:, None, None]  # w = sum_i (y_i alpha_i) phi(x_i): k = k' = 1
        G, h = _box_rows(1)
        eq = y[:, None] if bias else None
        embed, others, kind = None, None, "box"
        linear = problem.kernel.is_linear
    else:
        loss, k = problem.loss_object, problem.k
        embedding = loss.embedding  # which entries are beta, their signs, box or simplex
        embed, kind = (float(embedding.off), float(embedding.label), embedding.entries), embedding.set
        if kind not in ("box", "simplex"):
            raise ValueError(f"loss: the {loss.title or loss.name} loss's embedding.set must be 'box' or 'simplex', "
                             f"got {kind!r}")
        if embedding.entries not in ("off", "label"):
            raise ValueError(f"loss: the {loss.title or loss.name} loss's embedding.entries must be 'off' or "
                             f"'label', got {embedding.entries!r}")
        codes = np.asarray(to_numpy(problem.codes))
        j = np.arange(k - 1)[None, :]
        others = j + (j >= codes[:, None])  # the off-label columns of each row, in order
        nv = k - 1 if embedding.entries == "off" else 1
        G, h = _box_rows(nv) if kind == "box" else _simplex_rows(nv)
        qp0 = QP(keep=np.arange(problem.n_samples), A=None, X=None, H=None, G=G, h=None, c=None,
                 d=np.ones(problem.n_samples), eq=None, kind=kind, embed=embed, others=others)
        # A_i column c: the weight row of the alpha whose every sample has beta = e_c (the loss's own map)
        cols = []
        for c in range(nv):
            unit = np.zeros((problem.n_samples, nv))
            unit[:, c] = 1.0
            alpha_c = problem.xp.asarray(alpha_of(problem, qp0, unit))
            cols.append(np.asarray(to_numpy(loss.weight_rows(problem, alpha_c)), dtype=np.float64))
            # the programme's linear term is 1'beta: the loss's dual_linear must agree (n at beta_i = e_c)
            if not np.isclose(loss.dual_linear(problem, alpha_c), problem.n_samples, rtol=1e-12, atol=0.0):
                raise ValueError(f"loss: the {loss.title or loss.name} loss's embedding does not match its dual: "
                                 "dual_linear is not 1'beta at the alpha its embedding makes of beta")
        A = np.stack(cols, axis=2)[keep]
        eq, linear = None, problem.kernel.is_linear
    X = np.asarray(to_numpy(problem.X), dtype=np.float64)[keep] if linear else None
    K = None if linear else np.asarray(to_numpy(problem.gram), dtype=np.float64)[np.ix_(keep, keep)]
    # the scales (module docstring): q_i the largest Hessian diagonal entry of sample i, d_i ~ min(C_i, 1/q_i)
    K_ii = np.einsum("ij,ij->i", X, X) if linear else np.diag(K).copy()
    q = K_ii * np.einsum("iac,iac->ic", A, A).max(axis=1, initial=0.0)
    C = C_i[keep]
    if eq is not None and keep.size:
        # y'alpha = 0 with alpha >= 0: a class's total equals the other's, so alpha_i <= the other class's total
        # box, a bound the programme already implies; with it the scales d_i follow the room alpha_i really has
        # (a class weight of 1e-200 leaves the other class 1e-200 of room, not C: the equality then spans 1e200)
        other = np.where(y > 0, float(np.sum(C[y < 0])), float(np.sum(C[y > 0])))
        C = np.minimum(C, other)
    d = _power_of_two(np.where(q * C > 1.0, 1.0 / np.where(q > 0, q, 1.0), C))
    sigma = float(np.max(d)) if d.size else 1.0
    root = _power_of_two(np.sqrt(sigma))  # sigma = root^2 exactly: the scaled objective is the true one / sigma
    sigma = root * root
    A = A * (d / root)[:, None, None]  # J x = sum_i (A_i d_i x_i) x_i' / sqrt(sigma)
    qp = QP(keep=keep, A=A, X=X, H=None, G=G, h=np.minimum(C / d, BOX_CAP)[:, None] * h[None, :],
            c=(d / sigma)[:, None], d=d, eq=None if eq is None else eq * (d / sigma)[:, None], kind=kind, embed=embed, others=others, q=q)
    if not linear:  # a nonlinear kernel: H = Q restricted to the samples kept
        qp = qp._replace(H=_dense_hessian(qp, K))
    _QP_CACHE.setdefault(problem, {})[bias] = qp
    return qp


def _power_of_two(v):
    """The power of two nearest ``v`` > 0 (in log scale): scaling by it is exact in floating point."""
    return np.exp2(np.round(np.log2(v)))


def _dense_hessian(qp, K):
    """:math:`H_{(i,b),(j,c)} = K_{ij} (A_i^\\top A_j)_{bc}`, shape (m, m)."""
    m_s, _, nv = qp.A.shape
    AA = np.einsum("iab,jac->ibjc", qp.A, qp.A)  # (A_i' A_j)_{bc}
    H = (K[:, None, :, None] * AA).reshape(m_s * nv, m_s * nv)
    return 0.5 * (H + H.T)


def dense_of(qp):
    """The dense Hessian of ``qp``: its own (a nonlinear kernel), or formed from X once and cached."""
    if qp.H is not None:
        return qp.H
    key = id(qp.X)
    found = _DENSE_CACHE.get(key)
    if found is None or found[0] is not qp.X:
        found = (qp.X, _dense_hessian(qp, qp.X @ qp.X.T))
        _DENSE_CACHE.clear()  # one at a time: it may be large
        _DENSE_CACHE[key] = found
    return found[1]


_DENSE_CACHE: dict = {}


def hess_times(qp, v):
    """H v for v of shape (m_s, k'): dense, or J'(J v) through the weights (O(m_s k d))."""
    if qp.H is not None:
        return (qp.H @ v.ravel()).reshape(v.shape)
    W = np.einsum("iab,ib->ia", qp.A, v).T @ qp.X  # J v = sum_i (A_i v_i) x_i'  (k, d)
    S = qp.X @ W.T  # (m_s, k) scores
    return np.einsum("iab,ia->ib", qp.A, S)  # (J' W)_i = A_i' W x_i


def g_times(G, v):
    """G v_i for every sample: (m_s, k') -> (m_s, r)."""
    return v @ G.T


def gt_times(G, z):
    """G' z_i for every sample: (m_s, r) -> (m_s, k')."""
    return z @ G
