"""A primal-dual interior-point method (Mehrotra's predictor-corrector) for every dual of the package.

Coordinate methods stall on an ill-conditioned dual (features of very different scales); a Newton
method's step count does not depend on the conditioning, only its cost on the problem's size.  The
programme is built from the loss in :mod:`~svmteach.solvers.interior_point_qp`, its Newton system
in :mod:`~svmteach.solvers.newton_system`.

**The step** (Mehrotra 1992; Nocedal and Wright, section 16.6).  With slacks :math:`s = h - G\\beta \\ge 0`,
multipliers :math:`z \\ge 0` of the inequalities and :math:`\\nu` of the equality, the central path is
:math:`H\\beta - \\mathbf 1 + G^\\top z + a \\nu = 0`, :math:`s \\circ z = \\mu \\mathbf 1`.  Each step linearises
it once; eliminating the slacks and multipliers leaves the Newton system

.. math::

    (H + G^\\top D G)\\, \\Delta\\beta + a\\, \\Delta\\nu = r, \\qquad a^\\top \\Delta\\beta = 0, \\qquad D = Z S^{-1},

solved twice with one factorisation: the affine (predictor) direction, which aims at :math:`\\mu = 0`, tells
how far the centre can be given up, :math:`\\sigma = (\\mu_{\\text{aff}} / \\mu)^3`; the corrector aims at
:math:`\\sigma \\mu` with the second-order term :math:`\\Delta s_{\\text{aff}} \\circ \\Delta z_{\\text{aff}}`.  The step
goes 0.99 of the way to the boundary.  The start is strictly feasible (:math:`\\beta` at a centre of its set,
on :math:`a^\\top\\beta = 0`), and a step keeps the equalities, so **every iterate is feasible**: alpha in
its box, on its equality, and the gap of every state is a true certificate.

**What is reported.**  Near the optimum the state's ``alpha`` is the iterate with the entries the
complementarity pairs call active (:math:`z_j > s_j`) put exactly on their bound (the polish), when
that point is feasible and its gap no larger; else the iterate.  Its objectives, gap and KKT
violation are the package's, recomputed at every step, so ``measure`` has nothing to add.  The binary
bias minimises the primal for alpha's weights (a weighted median of :math:`y_i - f_i`).  The
arithmetic is float64 NumPy / LAPACK on the host; ``alpha`` and ``W`` return in the problem's library.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..losses import MulticlassLoss
from ..problems import Problem
from ..backend import to_numpy
from ..rows import is_sparse
from .base import Solver, check_choice, check_flag, check_random_state, check_state
from .interior_point_qp import BOX_CAP, alpha_of, build_qp, g_times, gt_times, hess_times, is_binary
from .newton_system import NewtonSystem, least_squares
from .state import ThreePartState

METHODS = ("auto", "dense", "low_rank")

#: The step goes this fraction of the way to the boundary of the positive orthant (s, z > 0).
TO_BOUNDARY = 0.99
#: Steps become null steps once the complementarity s'z is below this fraction of the
#: objective's size: the Newton system then only sees rounding.
MU_FLOOR = 1e-15
#: Near the end (gap below ``POLISH_BELOW``), a step whose gap grows this many times is a null step when
#: it follows a polished state or its dual residual grew as much (the Newton system's rounding; a step
#: whose residual falls is kept, as wide boxes make the gap rise on the way down).
GAP_SPOILED = 10.0
#: The dense method is refused above this many variables (its matrix alone would take 8 m^2 bytes);
#: the low-rank one above this size of its capacitance matrix, kd.
MAX_DENSE = 12_000
MAX_RANK = 6_000
#: The active-set polish solves for at most this many free entries (a dense least-squares problem).
MAX_POLISH = 2_000
#: The polish is tried once the iterate's relative gap is below this (its active set is then settled).
POLISH_BELOW = 1e-3
#: The polish moves the entries its solution pushed out of their set to the active ones at most this often.
POLISH_ROUNDS = 4
#: The start's multipliers make s_j z_j at most this many times the gradient's size (see ``init``).
FAR = 1e8
#: float64 cannot resolve a margin once a sample's own term in its score, alpha_i q_i (q_i its largest Hessian
#: diagonal entry, K_ii for a binary problem), is this large: that term alone is rounded by 1/8 or more.
RESOLVABLE = 2.0**50

class Float64RangeError(ValueError):
    """The solution has a sample whose term C_i K_ii float64 rounds by more than a margin
    (:data:`RESOLVABLE`): C or the features too large for data not separable at that C."""


class InteriorPointIterate(NamedTuple):
    """What the interior-point method has computed after ``n_iter`` Newton steps.

    Attributes
    ----------
    n_iter : int, Newton steps taken (null steps included).
    alpha : (n,) binary or (n, k) multiclass dual variables, feasible (see the module docstring).
    b : float, the binary bias (the primal's best for alpha; 0.0 without a bias and for multiclass).
    W : (k, d) float64 weights W(alpha) (multiclass), None for a binary problem.
    snapped : bool, whether ``alpha`` is the polished iterate.
    primal, dual, gap, kkt : float, the package's measures at alpha.
    """

    n_iter: int
    alpha: object
    b: float
    W: object
    snapped: bool
    primal: float
    dual: float
    gap: float
    kkt: float


class NewtonPicture(NamedTuple):
    """The last Newton step.

    Attributes
    ----------
    sigma, mu_affine : float, its centring parameter and its predictor's complementarity (NaN before a step).
    step_size : float, the fraction of the direction taken (NaN before a step; 0 for a null step).
    residual : float, ||H beta - 1 + G'z + a nu||_inf / (1 + ||H beta||_inf) after it.
    """

    sigma: float
    mu_affine: float
    step_size: float
    residual: float


class NewtonVariables(NamedTuple):
    """The Newton iteration's own variables, in :mod:`.interior_point_qp`'s scaled QP.

    Attributes
    ----------
    beta : (m_s, k') float64, the iterate x (the m_s samples with C_i > 0).
    s, z : (m_s, r) float64, the slacks of each sample's r inequalities and their multipliers, > 0.
    nu : float, the equality's multiplier (0 without one);  mu : float, the mean s'z / (m_s r).
    """

    beta: np.ndarray
    s: np.ndarray
    z: np.ndarray
    nu: float
    mu: float


class InteriorPointState(ThreePartState):
    """State of :class:`InteriorPoint` after ``n_iter`` Newton steps: ``iterate`` (:class:`InteriorPointIterate`),
    ``picture`` (:class:`NewtonPicture`), ``engine`` (:class:`NewtonVariables`).  Every field is also read by
    its name."""

    __slots__ = ()
    Iterate, Picture, Engine = InteriorPointIterate, NewtonPicture, NewtonVariables


def _max_step(v, dv):
    """The largest t <= 1 with v + t dv >= 0 (v > 0)."""
    neg = dv < 0
    if not np.any(neg):
        return 1.0
    with np.errstate(over="ignore"):  # a far bound (a slack of 1e300) overflows to inf: no limit, as it should
        return min(1.0, float(np.min(-v[neg] / dv[neg])))


def _named(problem) -> str:
    """The arguments that set the scale of the problem's terms C_i K_ii."""
    if getattr(problem, "bias", None) is not None:
        return f"C, X and intercept_scaling (the bias column's value, {float(problem.bias):.3g})"
    return "C and X"


def _check_resolvable(problem, qp, x):
    """Raise :class:`Float64RangeError`, naming C and X, when an iterate ``x`` (scaled) has a sample with
    :math:`\\alpha_i q_i \\ge` :data:`RESOLVABLE`: no answer near it can be represented."""
    if not x.size:
        return
    own = qp.d * np.max(np.abs(x), axis=1) * qp.q  # alpha_i q_i
    i = int(np.argmax(own))
    if own[i] >= RESOLVABLE:
        C_i = np.asarray(to_numpy(problem.C_i), dtype=np.float64)[qp.keep]
        raise Float64RangeError(
            f"{_named(problem)}: float64 cannot represent this problem's solution: the data are not separable at this C, "
            f"and a sample's dual variable heads for its bound C_i = {C_i[i]:.3g}, where its own term in its "
            f"score, alpha_i ||x_i||^2 (here {own[i]:.3g}; C_i ||x_i||^2 = {C_i[i] * qp.q[i]:.3g}), rounds by more "
            "than the margin 1. Use a smaller C (C ||x||^2 below about 1e12), or scale the features "
            "(e.g. StandardScaler)")


def _stalled(problem, qp, null):
    """``null``, or :class:`Float64RangeError` when the steps stall with a gap above ``POLISH_BELOW`` and
    boxes beyond :data:`BOX_CAP` (data not separable at that C: the optimum is out of float64's reach)."""
    big = np.asarray(to_numpy(problem.C_i), dtype=np.float64)[qp.keep] * qp.q
    if null.gap > POLISH_BELOW and big.size and float(np.max(big)) > BOX_CAP:
        raise Float64RangeError(
            f"{_named(problem)}: float64 cannot represent this problem's solution: C_i ||x_i||^2 reaches "
            f"{float(np.max(big)):.3g} (C up to {float(np.max(to_numpy(problem.C_i))):.3g}), beyond float64's "
            f"{BOX_CAP:.3g}, and the interior-point steps stalled at a relative gap of {null.gap:.3g}: the data are "
            "not separable at this C, and the samples at their bound C_i have scores that float64 rounds by more "
            "than the margin 1. Use a smaller C (C ||x||^2 below about 1e12), or scale the features "
            "(e.g. StandardScaler)")
    return null


def best_intercept(y, f, weights):
    """The b minimising :math:`\\sum_i w_i \\max(0, 1 - y_i (f_i + b))`: a weighted median of the breakpoints
    :math:`t_i = y_i - f_i` (the slope in b is :math:`-W_+` below all of them and grows by :math:`w_i` past each)."""
    if len(y) == 0:
        return 0.0
    t = y - f
    order = np.argsort(t, kind="stable")
    need = float(np.sum(weights[y > 0]))  # W_+: the slope is -W_+ + (weights passed)
    passed = np.cumsum(weights[order])
    i = int(np.searchsorted(passed, need))  # first breakpoint where the slope turns >= 0
    return float(t[order[min(i, len(t) - 1)]])


class InteriorPoint(Solver):
    """Mehrotra's predictor-corrector interior-point method for the binary and multiclass duals: one step is
    one Newton iteration (see the module docstring).

    For small problems: a dense step costs :math:`O((nk')^3)` and :math:`8 (nk')^2` bytes, a low-rank one
    :math:`O(n k^2 d^2 + (kd)^3)`; few steps reach a relative gap of 1e-8 on any scaling of the data.

    Parameters
    ----------
    bias : bool
        Binary problems: the dual with the bias's equality :math:`y^\\top\\alpha = 0` (True, as SMO), or the
        box-constrained dual without a bias (False, as dual coordinate ascent).  Multiclass problems have
        no bias and ignore it.
    method : {"auto", "dense", "low_rank"}
        How the Newton system is solved (:mod:`.newton_system`); "auto" picks the cheaper per step.
    random_state : None
        Accepted for the registries' uniform construction; the method draws nothing.
    """

    name = "interior_point"
    State = InteriorPointState
    still_is_fixed_point = True
    binary = True
    multiclass = True
    bias_options = (True, False)
    explorable = False  # a Newton step moves every alpha at once

    def __init__(self, bias: bool = True, method: str = "auto",
                 random_state: int | np.random.Generator | np.random.RandomState | None = None) -> None:
        self.bias = check_flag("bias", bias)
        self.method = check_choice("method", method, METHODS)
        check_random_state(random_state)
        self.random_state = random_state

    @classmethod
    def solves(cls, loss: MulticlassLoss) -> bool:
        """Every loss that declares its dual as this programme (``loss.embedding``, a
        :class:`~svmteach.losses.base.Embedding`)."""
        return getattr(loss, "embedding", None) is not None

    def steps_per_epoch(self, problem: Problem) -> int:
        """1: a Newton step reads all the data (more than an epoch of the coordinate methods)."""
        return 1

    # ---- the programme ------------------------------------------------------------------------
    def _qp(self, problem):
        if is_sparse(problem.X):
            raise TypeError("X is sparse, which the interior-point solver does not take (it is for small dense "
                            "problems): pass X.toarray(), or use a coordinate solver for sparse data")
        if not is_binary(problem) and not self.solves(problem.loss_object):
            raise ValueError(f"solver 'interior_point' does not solve the {problem.loss!r} loss")
        self._check_size(problem)
        return build_qp(problem, self.bias and is_binary(problem))

    def _check_size(self, problem):
        """Refuse, before anything of its size is built, m = n k' variables above ``MAX_DENSE`` and,
        for the low-rank method (linear kernels), k d above ``MAX_RANK``."""
        binary = is_binary(problem)
        k = 1 if binary else problem.k
        per_sample = 1 if binary or problem.loss_object.embedding.entries == "label" else k - 1
        m = int(np.count_nonzero(np.asarray(to_numpy(problem.C_i)) > 0)) * per_sample
        linear = problem.kernel.is_linear
        rank = k * problem.n_features
        dense_ok = m <= MAX_DENSE and self.method != "low_rank"
        low_rank_ok = linear and rank <= MAX_RANK and self.method != "dense"
        if not (dense_ok or low_rank_ok):
            why = (f"{m} dual variables (n (k - 1) for most multiclass losses) are more than the dense method's "
                   f"MAX_DENSE = {MAX_DENSE}")
            if linear and self.method != "dense":
                why += f", and k d = {rank} is more than the low-rank method's MAX_RANK = {MAX_RANK}"
            elif not linear:
                why += " (a nonlinear kernel needs the dense method)"
            raise ValueError(f"problem: too large for the interior-point solver: {why}; use a coordinate solver "
                             "(SMO, dual coordinate ascent, the exact block solvers) for large problems")

    def _method(self, qp) -> str:
        m_s, nv = qp.h.shape[0], qp.G.shape[1]
        m = m_s * nv
        if qp.H is not None:
            method = "dense"
        elif self.method != "auto":
            method = self.method
        else:
            k, d = qp.A.shape[1], qp.X.shape[1]
            dense_cost = m ** 3 / 3 + m * m * k
            low_rank_cost = m_s * k * k * d * d + (k * d) ** 3 / 3 + 4 * m_s * k * d * nv
            method = "dense" if dense_cost <= low_rank_cost else "low_rank"
        if method == "dense" and m > MAX_DENSE:
            raise ValueError(f"problem: {m} variables are too many for the dense interior-point method (at most "
                             f"{MAX_DENSE}); use a coordinate solver (SMO, dual coordinate ascent, the exact block "
                             "solvers) for large problems")
        if method == "low_rank" and qp.A.shape[1] * qp.X.shape[1] > MAX_RANK:
            raise ValueError(f"problem: k d = {qp.A.shape[1] * qp.X.shape[1]} is too large for the low-rank "
                             f"interior-point method (at most {MAX_RANK}); use a coordinate solver")
        return method

    # ---- the contract -------------------------------------------------------------------------
    def init(self, problem: Problem) -> InteriorPointState:
        """The start in the scaled variables (:mod:`.interior_point_qp`): x at the middle of each sample's room
        :math:`u_i = \\min(C_i / d_i, 1)` (Crammer-Singer: :math:`u_i / (2k')` each; with a bias scaled per class
        onto :math:`y^\\top\\alpha = 0`), and every multiplier :math:`z_j = \\max(1, \\|H x - c\\|_\\infty)`, divided by
        :math:`s_j / 10^8` for a bound farther than :data:`FAR`."""
        qp = self._qp(problem)
        self._method(qp)
        nv = qp.G.shape[1]
        # u_i: the data's own solution (1 / q_i) or the box, whichever is smaller, so the start's
        # objective is of the optimum's size, not C^2 ||x||^2 (which float64 may not come back from)
        u = np.minimum(qp.h.max(axis=1), 1.0)
        if qp.kind == "simplex":
            x = np.repeat(u[:, None] / (2 * nv), nv, axis=1)
        elif qp.eq is not None:  # binary with bias: the classes' totals sum_i d_i x_i are equal
            a = qp.eq[:, 0] * u
            plus, minus = float(np.sum(a[a > 0])), -float(np.sum(a[a < 0]))
            total = 0.5 * min(plus, minus)
            x = (u * total / np.where(a > 0, plus, minus))[:, None]
        else:
            x = 0.5 * np.repeat(u[:, None], nv, axis=1)
        s = qp.h - g_times(qp.G, x)
        grad = hess_times(qp, x) - qp.c
        # z_j of the gradient's size, but s_j z_j at most FAR times that for a far bound (a complementarity
        # of 1e100 the steps could not bring down)
        z = max(1.0, float(np.max(np.abs(grad), initial=0.0))) * np.minimum(1.0, FAR / s)
        return self._state(problem, qp, 0, x, s, z, 0.0, math.nan, math.nan, math.nan)

    def warm_start(self, problem: Problem, state: InteriorPointState) -> InteriorPointState:
        """A fresh start at the centre, the step count carried on: an interior-point method must start far
        from the boundary, where another run's answer is not (it gains little from one)."""
        check_state(self, state)
        return self.init(problem)._replace(n_iter=int(state.n_iter))

    def step(self, problem: Problem, state: InteriorPointState) -> InteriorPointState:
        """One Newton iteration of Mehrotra's predictor-corrector (module docstring); a null step (only
        ``n_iter`` moves) once the complementarity is at rounding level or the system cannot be solved."""
        qp = self._qp(problem)
        beta, s, z, nu = state.beta, state.s, state.z, state.nu
        null = state._replace(n_iter=state.n_iter + 1, step_size=0.0)
        p = s.size
        if p == 0:
            return null
        G, eq = qp.G, qp.eq
        Hb = hess_times(qp, beta)
        scale = 1.0 + abs(float(np.sum(beta * Hb))) + float(np.sum(qp.c * beta))  # the (scaled) objective's size
        mu = float(np.sum(s * z)) / p
        if not float(np.sum(s * z)) > MU_FLOOR * scale:
            return _stalled(problem, qp, null)
        # residuals: dual r_d = H beta - 1 + G'z + a nu; inequality r_i = G beta + s - h; equality r_e = a'beta
        r_d = Hb - qp.c + gt_times(G, z) + (nu * eq if eq is not None else 0.0)
        r_i = g_times(G, beta) + s - qp.h
        r_e = float(np.sum(eq * beta)) if eq is not None else 0.0
        try:
            newton = NewtonSystem(qp, z / s, self._method(qp))
            Na = newton.solve(eq) if eq is not None else None  # N^{-1} a, for the equality's Schur complement
        except (np.linalg.LinAlgError, FloatingPointError):
            return _stalled(problem, qp, null)
        if eq is not None and not float(np.sum(eq * Na)) > 0:  # a'N^{-1}a > 0 for N positive definite
            return _stalled(problem, qp, null)

        def direction(r_c):
            # Delta z = S^{-1}(Z r_i - r_c) + D G Delta beta;  (H + G'DG) Delta beta + a Delta nu = rhs
            rhs = -r_d - gt_times(G, (z * r_i - r_c) / s)
            u = newton.solve(rhs)
            dnu = 0.0
            if eq is not None:  # a'Delta beta = -r_e:  Delta nu = (a'N^{-1}rhs + r_e) / (a'N^{-1}a)
                dnu = (float(np.sum(eq * u)) + r_e) / float(np.sum(eq * Na))
                u = u - dnu * Na
            Gu = g_times(G, u)
            ds = -r_i - Gu
            dz = (z * r_i - r_c) / s + (z / s) * Gu
            return u, ds, dz, dnu

        # predictor: aim at mu = 0
        u, ds, dz, dnu = direction(s * z)
        t_aff = min(_max_step(s, ds), _max_step(z, dz))
        mu_aff = float(np.sum((s + t_aff * ds) * (z + t_aff * dz))) / p
        sigma = min(1.0, (mu_aff / mu) ** 3)
        # corrector: aim at sigma mu, with the predictor's second-order term
        u, ds, dz, dnu = direction(s * z + ds * dz - sigma * mu)
        t = TO_BOUNDARY * min(_max_step(s, ds), _max_step(z, dz))
        t = min(t, 1.0)
        if not (t > 0 and np.all(np.isfinite(u)) and np.all(np.isfinite(dz))):
            return _stalled(problem, qp, null)
        beta_new, s_new, z = beta + t * u, s + t * ds, z + t * dz
        if not (np.all(s_new > 0) and np.all(z > 0)) or np.array_equal(beta_new, beta):
            return _stalled(problem, qp, null)
        beta = beta_new
        _check_resolvable(problem, qp, beta)
        new = self._state(problem, qp, state.n_iter + 1, beta, s_new, z, nu + t * dnu, sigma, mu_aff, t,
                          previous=state.alpha)
        if not (math.isfinite(new.primal) and math.isfinite(new.dual)):  # C_i hinge_i overflowed
            return _stalled(problem, qp, null._replace(gap=math.inf))
        spoiled = state.gap <= POLISH_BELOW and not new.gap <= GAP_SPOILED * max(state.gap, 1e-14)
        if spoiled and (state.snapped or not new.residual <= GAP_SPOILED * max(state.residual, 1e-15)):
            return null  # the step has met the rounding of the Newton system (its residual jumped)
        return new

    def coefficients(self, problem: Problem, state: InteriorPointState) -> tuple[np.ndarray, float | np.ndarray]:
        """``(alpha, b)`` (binary) or ``(alpha, W)`` (multiclass) as NumPy arrays (b a float)."""
        alpha = to_numpy(state.alpha)
        return (alpha, float(state.b)) if state.W is None else (alpha, to_numpy(state.W))

    # ---- what a state reports -----------------------------------------------------------------
    def _state(self, problem, qp, n_iter, beta, s, z, nu, sigma, mu_aff, t, previous=None):
        """A state at the iterate, measured: alpha the snapped point when its gap is smaller and it differs
        from ``previous`` (so an unchanged alpha means a null step, which :func:`~svmteach.solvers.solve`
        reads as the end)."""
        iterate = self._measured(problem, qp, self._feasible(qp, beta))
        snapped = self._snap(qp, beta, s, z) if iterate["gap"] <= POLISH_BELOW else None
        if snapped is not None:
            other = self._measured(problem, qp, snapped)
            same = previous is not None and np.array_equal(to_numpy(other["alpha"]), to_numpy(previous))
            if other["gap"] < iterate["gap"] and not same:
                iterate = dict(other, snapped=True)
        p = max(s.size, 1)
        Hb = hess_times(qp, beta) if s.size else beta
        r_d = Hb - qp.c + gt_times(qp.G, z) + (nu * qp.eq if qp.eq is not None else 0.0)
        residual = float(np.max(np.abs(r_d), initial=0.0)) / (1.0 + float(np.max(np.abs(Hb), initial=0.0)))
        return InteriorPointState.of(n_iter=int(n_iter), alpha=iterate["alpha"], b=iterate["b"], W=iterate["W"],
                                  beta=beta, s=s, z=z, nu=float(nu), mu=float(np.sum(s * z)) / p,
                                  sigma=float(sigma), mu_affine=float(mu_aff), step_size=float(t), residual=residual,
                                  snapped=bool(iterate.get("snapped", False)), primal=iterate["primal"],
                                  dual=iterate["dual"], gap=iterate["gap"], kkt=iterate["kkt"])

    @staticmethod
    def _feasible(qp, beta):
        """``beta`` exactly in its set (rounding can put an entry an ulp outside): clipped to [0, C_i], and a
        simplex block scaled back to 1'beta <= C_i."""
        C = qp.h.max(axis=1)[:, None] if qp.h.size else np.zeros((0, 1))
        beta = np.maximum(beta, 0.0)
        if qp.kind == "box":
            return np.minimum(beta, C)
        total = beta.sum(axis=1, keepdims=True)
        return np.where(total > C, beta * (C / np.where(total > 0, total, 1.0)), beta)

    def _snap(self, qp, beta, s, z):
        """The active-set polish: the entries whose inequality the iterate says is active (:math:`z_j > s_j`)
        put on their bound, and the free entries solved for exactly, the equality-constrained programme

        .. math::

            \\begin{pmatrix} H_{FF} & E_F^\\top \\\\ E_F & 0 \\end{pmatrix}
            \\begin{pmatrix} \\beta_F \\\\ \\lambda \\end{pmatrix} =
            \\begin{pmatrix} \\mathbf 1 - H_{FA} \\beta_A \\\\ e - E_A \\beta_A \\end{pmatrix}

        (E: a Crammer-Singer block's active sum row :math:`\\mathbf 1^\\top\\beta_i = C_i`, the binary equality
        :math:`y^\\top\\alpha = 0`), by least squares (a singular :math:`H_{FF}`, duplicates, has many solutions).
        It matters on raw data, where a tiny entry put to 0 moves the scores by it times :math:`\\|x\\|^2`.
        None when the result is not feasible or there are more than ``MAX_POLISH`` free entries."""
        if s.size == 0:
            return None
        # a row is active when its multiplier, in units of the sample's linear term c_i, is larger than its
        # slack in units of the row's length (h_ij for a row beta <= C_i, the room min(h_i, 1) for beta >= 0):
        # scale-free, where z > s would read an entry 1e-9 of C below a bound of 1e12 as free
        room = np.minimum(qp.h.max(axis=1, keepdims=True), 1.0)
        length = np.where(qp.h > 0, qp.h, room)
        active = z * length > s * qp.c
        for _ in range(POLISH_ROUNDS):
            beta_new, out, wrong = self._polish(qp, active)
            if beta_new is None:
                return None
            if not (out.any() or wrong.any()):
                return self._feasible(qp, beta_new)
            # an entry that left its set joins the active ones; a row whose multiplier has the wrong sign
            # (the objective would fall by leaving its bound) is released: solve again
            active = (active | out) & ~wrong
        return None

    @staticmethod
    def _polish(qp, active):
        """``(beta, out)``: the polish for the active rows ``active`` (m_s, r), and the rows its result
        violates (m_s, r); ``(None, None)`` when it cannot be solved."""
        m_s, nv = qp.h.shape[0], qp.G.shape[1]
        C = qp.h.max(axis=1)[:, None]
        if qp.kind == "box":
            upper, lower = active[:, :nv], active[:, nv:]
            fixed = np.where(lower, 0.0, np.where(upper, np.broadcast_to(C, (m_s, nv)), 0.0))
            free = ~(upper | lower)
            sums = np.zeros(m_s, dtype=bool)
        else:
            lower, sums = active[:, :nv], active[:, nv]
            fixed = np.zeros((m_s, nv))
            free = ~lower
            sums = sums & free.any(axis=1)
        rows, cols = np.nonzero(free)
        n_free = len(rows)
        if n_free > MAX_POLISH:
            return None, None, None
        # equality rows over the free entries: E_F beta_F = rhs
        eq_rows, eq_rhs = [], []
        for i in np.flatnonzero(sums):
            eq_rows.append((rows == i).astype(np.float64))
            eq_rhs.append(float(C[i, 0]))
        if qp.eq is not None:
            eq_rows.append(qp.eq[rows, cols])
            eq_rhs.append(-float(np.sum(qp.eq * fixed)))
        if n_free == 0:
            H_FF = np.zeros((0, 0))
        elif qp.H is not None:
            H_FF = qp.H[np.ix_(rows * nv + cols, rows * nv + cols)]
        else:  # J_F: the columns of J for the free entries, vec((A_i e_c) x_i') each
            J_F = (qp.A[rows, :, cols][:, :, None] * qp.X[rows][:, None, :]).reshape(n_free, -1)
            H_FF = J_F @ J_F.T
        n_eq = len(eq_rows)
        KKT = np.zeros((n_free + n_eq, n_free + n_eq))
        KKT[:n_free, :n_free] = H_FF
        if n_eq:
            E = np.array(eq_rows)
            KKT[n_free:, :n_free] = E
            KKT[:n_free, n_free:] = E.T
        rhs = np.concatenate([(qp.c - hess_times(qp, fixed))[rows, cols], eq_rhs])
        try:
            solution = least_squares(KKT, rhs)
        except (np.linalg.LinAlgError, ValueError):
            return None, None, None
        beta = fixed.copy()
        beta[rows, cols] = solution[:n_free]
        if qp.eq is not None and abs(float(np.sum(qp.eq * beta))) > 1e-12 * float(np.sum(np.abs(qp.eq * beta))):
            return None, None, None  # the equality cannot hold on this active set (too few free entries)
        # an active sum row holds exactly: a label entry a few ulps below C_i would read as free, and its
        # gradient as a KKT violation
        total = beta.sum(axis=1)
        exact = sums & (total > 0)
        beta[exact] *= (C[exact, 0] / total[exact])[:, None]
        # rounding allowed outside a bound: relative to C_i for a row at C_i, to the room min(C_i, 1) for a
        # row at 0 (1e-12 C_i is no rounding when other boxes are 1e-6: clipping it would break y'alpha = 0)
        slack, low = 1e-12 * C, 1e-12 * np.minimum(C, 1.0)
        # the multipliers of the active rows, from stationarity grad f + E' lambda + G_act' z_act = 0,
        # grad f = H beta - 1 (+ nu a for the binary equality; lambda of the sum rows from the solution)
        grad = hess_times(qp, beta) - qp.c
        if qp.eq is not None:
            grad = grad + solution[-1] * qp.eq
        lam = np.zeros(m_s)
        lam[np.flatnonzero(sums)] = solution[n_free:n_free + int(np.sum(sums))]
        if qp.kind == "box":  # z_upper = -grad at C, z_lower = grad at 0, each >= 0
            out = np.hstack([beta > C + slack, beta < -low])
            wrong = np.hstack([upper & (grad > 0), lower & (grad < 0)])
        else:  # z_lower = grad + lambda_i at 0, lambda_i >= 0 for an active sum row
            out = np.hstack([beta < -low, beta.sum(axis=1, keepdims=True) > C + slack])
            wrong = np.hstack([lower & (grad + lam[:, None] < 0), (sums & (lam < 0))[:, None]])
        # an active row holds by construction (up to the rounding _feasible removes)
        return beta, out & ~active, wrong

    def _measured(self, problem, qp, beta):
        """The package's objectives at the alpha of ``beta``: a dict of alpha, b, W, primal, dual, gap, kkt."""
        with np.errstate(over="ignore", invalid="ignore"):  # C = 1e300 away from the optimum: P = inf (the gap says so)
            return self._measured_values(problem, qp, beta)

    def _measured_values(self, problem, qp, beta):
        xp = problem.xp
        alpha_np = alpha_of(problem, qp, beta)
        alpha = xp.asarray(alpha_np)
        if is_binary(problem):
            f = obj.scores(problem, alpha)
            b = 0.0
            if qp.eq is not None:
                C_i = np.asarray(to_numpy(problem.C_i), dtype=np.float64)
                b = best_intercept(np.asarray(to_numpy(problem.y), dtype=np.float64),
                                   np.asarray(to_numpy(f), dtype=np.float64), C_i)
            P, D = obj.primal(problem, alpha, b, f), obj.dual(problem, alpha, f)
            kkt = obj.kkt_violation(problem, alpha, f, bias=qp.eq is not None or self.bias)
            return dict(alpha=alpha, b=float(b), W=None, primal=P, dual=D, gap=obj.relative_gap(P, D), kkt=kkt)
        W = obj.multiclass_weights(problem, alpha)  # S = K A on a kernel problem
        P, D, kkt = obj.multiclass_measures(problem, alpha, W)
        return dict(alpha=alpha, b=0.0, W=W, primal=P, dual=D, gap=obj.relative_gap(P, D), kkt=kkt)

