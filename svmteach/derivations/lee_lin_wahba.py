"""The Lee-Lin-Wahba dual: the Lagrangian with a sum-to-zero multiplier, its elimination (W from
row-centred alphas), the box-constrained dual, weak and strong duality, the gradient, the block of
one sample solved exactly (clip at the root of a scalar equation), and the KKT conditions.

The problem (linear, no bias, k classes; Lee, Lin and Wahba 2004, in the form of Dogan, Glasmachers
and Igel 2016):

    min_W 1/2 sum_m ||w_m||^2 + C sum_i sum_{m != y_i} max(0, 1 + w_m' x_i)   s.t.  sum_m w_m = 0

Instance: n = 3 points in the plane, k = 3 classes with labels y = (1, 2, 0) (so that sample and
class indices differ); data, C and the multipliers are free symbols.  W is k x d, as svmteach
stores it (row m is w_m), and the classes are 0..k-1, as everywhere in the course.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import sympy as sp

from . import binary
from .core import FAILED, computed, definition, identity, numeric, real_symbols, shown_line

MODEL = "Lee-Lin-Wahba"
LLW = "Lee, Lin and Wahba (2004)"
DGI = "Dogan, Glasmachers and Igel (2016)"
BLOCK = f"{DGI}, the LLW dual; its block solved as Wang and Scott (2021) solve the Weston-Watkins block"
ON = "on a 3-point, 3-class instance"
INSTANCE = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates, $k = 3$ classes with labels "
            r"$y = (1, 2, 0)$, symbolic $C$, weights $w_m \in \mathbb{R}^2$, $\nu \in \mathbb{R}^2$ and "
            r"multipliers $\alpha_{im}$, $\mu_{im}$, slacks $\xi_{im}$ ($m \ne y_i$)")
n, d, k = 3, 2, 3
labels = (1, 2, 0)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
C = sp.Symbol("C", positive=True)
Wsym = sp.Matrix(k, d, lambda m, c: sp.Symbol(f"w_{m},{c + 1}", real=True))  # row m is w_m, m = 0..k-1
nu = sp.Matrix(real_symbols("nu_1:3"))
free = {(i, m): sp.Symbol(f"alpha_{i + 1},{m}", real=True) for i in range(n) for m in range(k) if m != labels[i]}
xi = {key: sp.Symbol(f"xi_{key[0] + 1},{key[1]}", real=True) for key in free}
beta = {key: sp.Symbol(f"mu_{key[0] + 1},{key[1]}", real=True) for key in free}


def x(i, Xm=X):
    return Xm[i, :].T


def centring(kk=k):
    """:math:`J = I - \\mathbf 1 \\mathbf 1^\\top / k`, which subtracts each row's mean."""
    return sp.eye(kk) - sp.ones(kk, kk) / kk


def alpha_matrix(values=None, lab=labels, kk=k):
    """(n, k) alpha with the label entry 0: :math:`\\alpha_{iy_i}` is not a variable."""
    values = free if values is None else values
    A = sp.zeros(len(lab), kk)
    for (i, m), v in values.items():
        A[i, m] = v
    return A


def weights(A=None, Xm=X):
    """(k, d): :math:`W = -(\\alpha J)^\\top X`, i.e. :math:`w_m = -\\sum_i (\\alpha_{im} - \\bar\\alpha_i) x_i`."""
    A = alpha_matrix() if A is None else A
    return -(A * centring(A.cols)).T * Xm


def dual(A=None, Xm=X):
    """:math:`D(\\alpha) = \\sum_{i, m \\ne y_i} \\alpha_{im} - \\frac12 \\|W(\\alpha)\\|_F^2` (maximised)."""
    A = alpha_matrix() if A is None else A
    W = weights(A, Xm)
    return sum(A) - sp.Rational(1, 2) * sum(v ** 2 for v in W)


def lagrangian():
    L = (sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + (nu.T * Wsym.T * sp.ones(k, 1))[0]
         + sum(C * xi[key] - beta[key] * xi[key]
               + free[key] * (1 + (Wsym[key[1], :] * x(key[0]))[0] - xi[key]) for key in free))
    return L


def steps():
    out = []
    L = lagrangian()
    out.append(definition(
        MODEL, "Lagrangian",
        r"L(W, \xi, \alpha, \mu, \nu) = \frac12\sum_{m=0}^{k-1} \|w_m\|^2 + \sum_{i=1}^n \sum_{m \ne y_i} \Big[C\xi_{im}"
        r" - \mu_{im}\xi_{im} + \alpha_{im}\big(1 + w_m^\top x_i - \xi_{im}\big)\Big] + \nu^\top \sum_{m=0}^{k-1} w_m",
        f"{LLW}; {DGI}, the LLW machine",
        r"One multiplier $\alpha_{im} \ge 0$ for each margin constraint $\xi_{im} \ge 1 + w_m^\top x_i$ "
        r"($m \ne y_i$), one $\mu_{im} \ge 0$ for each $\xi_{im} \ge 0$, and a free $\nu \in \mathbb{R}^d$ for the "
        r"equality $\sum_m w_m = 0$. The label's own class has no constraint: $\alpha_{iy_i}$ is not a variable "
        r"(it is stored as $0$). Lee, Lin and Wahba target $-\frac{1}{k-1}$ for the wrong classes and "
        r"keep a bias; without the bias, their machine is this one with $w_m$ scaled by $k - 1$ and "
        r"$C = \frac{k-1}{n\lambda}$, the margin $1$ of Dogan, Glasmachers and Igel."))
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    W_of_nu = Wsym.subs(sol)
    A = alpha_matrix()
    out.append(identity(
        MODEL, "stationarity in W",
        r"\nabla_{w_m} L = 0 \;\Rightarrow\; w_m = -\sum_{i=1}^n \alpha_{im}\, x_i - \nu",
        W_of_nu, sp.Matrix.vstack(*[-(sum((A[i, m] * x(i).T for i in range(n)), sp.zeros(1, d))) - nu.T
                                    for m in range(k)]),
        f"{LLW}, the multicategory SVM's dual",
        note=r"$L$ is a convex quadratic in $W$; its gradient in $w_m$ is $w_m + \sum_i \alpha_{im} x_i + \nu$ "
             r"(with $\alpha_{iy_i} = 0$).",
        on=ON, instance=INSTANCE, quantity="W", how=r"SymPy solved $\nabla_W L = 0$ for $W$"))
    key0 = next(iter(free))
    out.append(identity(
        MODEL, "stationarity in xi_im",
        r"\frac{\partial L}{\partial \xi_{im}} = C - \mu_{im} - \alpha_{im} = 0 \;\Rightarrow\; 0 \le \alpha_{im} "
        r"\le C",
        sp.diff(L, xi[key0]), C - beta[key0] - free[key0], f"{LLW}, the multicategory SVM's dual",
        note=r"$\mu_{im} = C - \alpha_{im} \ge 0$ gives the upper bound of the box.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial L}{\partial \xi_{1,0}}",
        how=r"SymPy differentiated $L$ in $\xi_{1,0}$"))
    # nu from the equality: sum_m w_m = 0 with w_m = -sum_i alpha_im x_i - nu
    both = sp.solve([sp.diff(L, v) for v in Wsym] + list(Wsym.T * sp.ones(k, 1)), list(Wsym) + list(nu), dict=True)[0]
    abar = [sum(A[i, :]) / k for i in range(n)]
    out.append(identity(
        MODEL, "the multiplier nu",
        r"\sum_{m=0}^{k-1} w_m = 0 \;\Rightarrow\; \nu = -\sum_{i=1}^n \bar\alpha_i\, x_i, \quad \bar\alpha_i = "
        r"\frac1k \sum_{m \ne y_i} \alpha_{im}",
        nu.subs(both), -sum((abar[i] * x(i) for i in range(n)), sp.zeros(d, 1)), f"{DGI}, the LLW machine",
        note=r"Summing $w_m = -\sum_i \alpha_{im} x_i - \nu$ over the $k$ classes gives $0 = -\sum_i k\bar\alpha_i "
             r"x_i - k\nu$. So $\nu$ is a function of $\alpha$ and leaves the dual: no equality constraint on "
             r"$\alpha$ is left, only the box.",
        on=ON, instance=INSTANCE, quantity=r"\nu",
        how=r"SymPy solved $\nabla_W L = 0$ together with $\sum_m w_m = 0$ for $W$ and $\nu$"))
    out.append(identity(
        MODEL, "W from row-centred alphas",
        r"w_m = -\sum_{i=1}^n (\alpha_{im} - \bar\alpha_i)\, x_i, \quad \text{i.e.} \quad W = -(\alpha J)^\top X, "
        r"\quad J = I - \tfrac1k \mathbf{1}\mathbf{1}^\top",
        Wsym.subs(both), weights(), f"{DGI}, the LLW machine",
        note=r"Substituting $\nu$ into $w_m = -\sum_i \alpha_{im} x_i - \nu$; $\alpha J$ subtracts from each row "
             r"$\alpha_i \in \mathbb{R}^k$ (label entry $0$) its mean $\bar\alpha_i$.",
        on=ON, instance=INSTANCE, quantity="W",
        how=r"the $W$ SymPy solved for, against the row-centred form"))
    out.append(identity(
        MODEL, "the weights sum to zero for every alpha",
        r"\sum_{m=0}^{k-1} w_m(\alpha) = -X^\top \alpha J \mathbf{1} = 0",
        weights().T * sp.ones(k, 1), sp.zeros(d, 1), f"{DGI}, the LLW machine",
        note=r"$J\mathbf{1} = 0$: the primal's equality holds at $W(\alpha)$ for any $\alpha$, so $W(\alpha)$ is "
             r"always primal feasible.",
        on=ON, instance=INSTANCE, quantity=r"\sum_m w_m(\alpha)",
        how=r"SymPy summed the rows of $W(\alpha)$"))
    L_dual = L.subs(both).subs({beta[key]: C - free[key] for key in free})
    K = X * X.T
    kernel_form = sum(A) - sp.Rational(1, 2) * sum(
        K[i, s] * ((A[i, :] * A[s, :].T)[0] - sum(A[i, :]) * sum(A[s, :]) / k) for i in range(n) for s in range(n))
    out.append(identity(
        MODEL, "dual objective",
        r"L\Big|_{W(\alpha),\ \nu(\alpha),\ \mu = C - \alpha} = D(\alpha) = \sum_{i}\sum_{m \ne y_i} \alpha_{im} - "
        r"\frac12 \sum_{i,s} x_i^\top x_s \Big(\alpha_i^\top \alpha_s - \frac1k (\mathbf{1}^\top\alpha_i)"
        r"(\mathbf{1}^\top\alpha_s)\Big)",
        sp.expand(L_dual), sp.expand(kernel_form), f"{LLW}; {DGI}, the LLW machine",
        note=r"The $\xi$ terms cancel by $C - \mu_{im} - \alpha_{im} = 0$ and the $\nu$ term by $\sum_m w_m = 0$; "
             r"the quadratic term is $-\frac12\|W(\alpha)\|_F^2 = -\frac12 \mathrm{tr}(J\alpha^\top X X^\top \alpha J)$ "
             r"with $J^2 = J$. The dual maximises $D$ over the box $0 \le \alpha_{im} \le C$ ($m \ne y_i$); "
             r"the solvers minimise $f = -D$.",
        on=ON, instance=INSTANCE, quantity=r"L\big|_{W(\alpha),\ \nu(\alpha),\ \mu = C - \alpha}",
        how=r"SymPy substituted the stationarity conditions and $\nu(\alpha)$ into $L$"))
    out.append(weak_duality())
    out.append(strong_duality())
    W = weights()
    i = 0
    grad = sp.Matrix([sp.diff(-dual(), free[(i, m)]) for m in range(k) if m != labels[i]])
    out.append(identity(
        MODEL, "gradient of the dual",
        r"\frac{\partial f}{\partial \alpha_{im}} = -\big(1 + w_m^\top x_i\big), \quad f = -D",
        grad, sp.Matrix([-(1 + (W[m, :] * x(i))[0]) for m in range(k) if m != labels[i]]),
        f"{DGI}, the LLW machine",
        note=r"$\alpha_{im}$ moves every $w_l$ by $-(\delta_{lm} - \frac1k)x_i$, so the quadratic term changes by "
             r"$-(w_m - \frac1k\sum_l w_l)^\top x_i = -w_m^\top x_i$, because the weights sum to zero.",
        on=ON, instance=INSTANCE, quantity=r"\nabla_{\alpha_1} f",
        how=r"SymPy differentiated $f$ in $\alpha_{1,0}$ and $\alpha_{1,2}$"))
    out.extend(block_steps())
    out.extend(kkt_steps())
    out.extend(numeric_checks())
    return out


def weak_duality():
    """P - D as a sum of terms that are >= 0 for primal-feasible (W, xi) and alpha in the box."""
    Wf = Wsym.copy()
    Wf[k - 1, :] = -sum((Wsym[m, :] for m in range(k - 1)), sp.zeros(1, d))  # sum_m w_m = 0
    P = sp.Rational(1, 2) * sum(v ** 2 for v in Wf) + C * sum(xi.values())
    Wa = weights()
    terms = (sp.Rational(1, 2) * sum(v ** 2 for v in (Wf - Wa))
             + sum((C - free[key]) * xi[key] + free[key] * (xi[key] - 1 - (Wf[key[1], :] * x(key[0]))[0])
                   for key in free))
    # without the equality the identity fails: the gap then depends on sum_m w_m
    P_any = sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + C * sum(xi.values())
    terms_any = (sp.Rational(1, 2) * sum(v ** 2 for v in (Wsym - Wa))
                 + sum((C - free[key]) * xi[key] + free[key] * (xi[key] - 1 - (Wsym[key[1], :] * x(key[0]))[0])
                       for key in free))
    needs_equality = sp.expand(P_any - dual() - terms_any) != 0
    step = identity(
        MODEL, "weak duality: the gap as a sum of nonnegative terms",
        r"P(W, \xi) - D(\alpha) = \frac12\|W - W(\alpha)\|_F^2 + \sum_{i}\sum_{m \ne y_i} \Big[(C - \alpha_{im})"
        r"\xi_{im} + \alpha_{im}\big(\xi_{im} - 1 - w_m^\top x_i\big)\Big]",
        sp.expand(P - dual()), sp.expand(terms), f"{LLW}, the multicategory SVM's dual",
        note=r"For $W$ with $\sum_m w_m = 0$, slacks $\xi_{im} \ge 0$, $\xi_{im} \ge 1 + w_m^\top x_i$ and "
             r"$0 \le \alpha_{im} \le C$ every term is $\ge 0$, so $P \ge D$. The equality is needed: the cross "
             r"term $\langle W, W(\alpha)\rangle = -\sum_{i,m} \alpha_{im} w_m^\top x_i + \sum_i \bar\alpha_i "
             r"(\sum_m w_m)^\top x_i$ loses its last part only when the weights sum to zero. The gap is $0$ "
             r"exactly when $W = W(\alpha)$ and complementary slackness holds.",
        on=ON, instance=INSTANCE, quantity=r"P - D",
        how=r"SymPy expanded $P - D$ with $w_3 = -w_1 - w_2$ substituted")
    if not needs_equality:  # the note's claim that the equality is needed did not hold
        step.status, step.verdict = FAILED, "the identity holds without the equality, against the note"
    return step


def _box_qp(H, b, upper):
    """Exact minimiser of ``1/2 z'Hz - b'z`` over ``0 <= z <= upper`` (H positive definite, SymPy rationals).

    A guess of the active set from projected gradient in floats, then the exact solve on that set and
    an exact check of every KKT condition; every active set is tried if the guess fails.
    """
    m = len(b)
    Hf, bf = np.array(H, dtype=float), np.array(b, dtype=float).ravel()
    uf = float(upper)
    z = np.zeros(m)
    step = 1.0 / np.linalg.eigvalsh(Hf).max()
    for _ in range(20000):
        z = np.clip(z - step * (Hf @ z - bf), 0.0, uf)
    guess = tuple(0 if v < 1e-9 * uf else (2 if v > uf * (1 - 1e-9) else 1) for v in z)
    for pattern in [guess, *product((0, 1, 2), repeat=m)]:
        fixed = {j: (0 if p == 0 else upper) for j, p in enumerate(pattern) if p != 1}
        F = [j for j in range(m) if j not in fixed]
        sol = sp.zeros(m, 1)
        for j, v in fixed.items():
            sol[j] = v
        if F:
            rhs = sp.Matrix([b[j] - sum(H[j, l] * sol[l] for l in fixed) for j in F])
            sol_F = H.extract(F, F).LUsolve(rhs)
            for a_, j in enumerate(F):
                sol[j] = sol_F[a_]
        g = H * sol - sp.Matrix(b)
        ok = all((0 <= sol[j] <= upper) if j in F else True for j in range(m)) and all(
            (g[j] >= 0 if pattern[j] == 0 else g[j] <= 0) for j in fixed)
        if ok:
            return sol
    raise ValueError("no active set satisfies the KKT conditions")


def strong_duality():
    """On a rational instance: the exact dual optimum's W gives a primal equal to the dual."""
    Xn = sp.Matrix([[2, 0], [0, 1], [-1, -2]])
    Cn = sp.Integer(1)
    A = alpha_matrix()
    keys = list(free)
    f = -dual(A, Xn)
    H = sp.hessian(f, [free[key] for key in keys])
    b = -sp.Matrix([sp.diff(f, free[key]) for key in keys]).subs({free[key]: 0 for key in keys})
    star = _box_qp(H, b, Cn)
    at = {free[key]: star[j] for j, key in enumerate(keys)}
    W_star = weights(A.subs(at), Xn)
    S = Xn * W_star.T
    P = (sp.Rational(1, 2) * sum(v ** 2 for v in W_star)
         + Cn * sum(sp.Max(0, 1 + S[i, m]) for i in range(n) for m in range(k) if m != labels[i]))
    D = dual(A.subs(at), Xn)
    sums_to_zero = W_star.T * sp.ones(k, 1) == sp.zeros(d, 1)
    ok = sp.simplify(P - D) == 0 and sums_to_zero
    return computed(
        MODEL, "strong duality on an instance",
        r"P\big(W(\alpha^\star)\big) = D(\alpha^\star), \quad \alpha^\star = \arg\max_{0 \le \alpha \le C} D(\alpha)",
        f"{LLW}, the multicategory SVM's dual", ok,
        note=r"By weak duality $P(W) \ge D(\alpha)$ for every feasible pair, so a pair with equal values is optimal "
             r"for both problems: the weights of the dual optimum solve the primal, with $\sum_m w_m = 0$.",
        on="on a rational 3-point instance",
        instance=r"$x_1 = (2, 0)$, $x_2 = (0, 1)$, $x_3 = (-1, -2)$ with labels $y = (1, 2, 0)$, $k = 3$, $C = 1$",
        check=r"SymPy solved the dual exactly (the maximiser's active set, with every KKT condition checked in exact "
              r"arithmetic), built $W(\alpha^\star)$, and compared the primal (with its hinges) with the dual",
        verdict="P = D at the exact optimum",
        shown=shown_line(r"\alpha^\star =", A.subs(at), r",\quad P = D =", D))


def _block_objective(i=0):
    """f as a function of the free entries of row i (symbols zeta_m), the other rows symbolic."""
    hat = {key: (sp.Symbol(f"zeta_{key[1]}", real=True) if key[0] == i else v) for key, v in free.items()}
    hs = [hat[key] for key in free if key[0] == i]
    return -dual(alpha_matrix(hat)), hs


def block_steps():
    out = []
    i = 0
    y = labels[i]
    W = weights()
    qi = (x(i).T * x(i))[0]
    s = W * x(i)  # scores s_m = w_m' x_i
    others = [m for m in range(k) if m != y]
    a_i = [free[(i, m)] for m in others]
    delta = list(real_symbols("delta_1:3"))
    moved = alpha_matrix({**free, **{(i, m): free[(i, m)] + dl for m, dl in zip(others, delta)}})
    g = [-(1 + s[m]) for m in others]
    dvec = sp.Matrix(delta)
    change = sp.expand(-dual(moved) + dual())
    claimed = sp.expand(sum(gm * dm for gm, dm in zip(g, delta))
                        + qi / 2 * ((dvec.T * dvec)[0] - sum(delta) ** 2 / k))
    out.append(identity(
        MODEL, "the block of one sample is exact",
        r"f(\alpha + \delta_i) - f(\alpha) = g_i^\top\delta_i + \frac{q}{2}\Big(\|\delta_i\|^2 - \frac1k "
        r"(\mathbf{1}^\top\delta_i)^2\Big), \quad q = \|x_i\|^2",
        change, claimed, BLOCK,
        note=r"$\delta_i$ changes only the free entries of row $i$ ($\delta_{iy_i} = 0$) and moves $w_m$ by "
             r"$-(J\delta_i)_m x_i$; the cross term is $g_i^\top\delta_i$ because $\mathbf{1}^\top W x_i = 0$, and "
             r"$\|J\delta_i\|^2 = \|\delta_i\|^2 - \frac1k(\mathbf{1}^\top\delta_i)^2$. $f$ is quadratic: the "
             r"expansion is exact.",
        on=ON, instance=INSTANCE, quantity=r"f(\alpha + \delta_1) - f(\alpha)",
        how=r"SymPy expanded $f$ at the moved point, row $1$ moved by $\delta_1$, $\delta_2$ in its two free entries"))
    f_beta, hs = _block_objective(i)
    out.append(identity(
        MODEL, "Hessian of the block",
        r"\nabla^2_{\zeta} f = q\Big(I - \frac1k \mathbf{1}\mathbf{1}^\top\Big) \in \mathbb{R}^{(k-1) \times (k-1)}, "
        r"\quad \zeta = (\alpha_{im})_{m \ne y_i}",
        sp.hessian(f_beta, hs), qi * (sp.eye(k - 1) - sp.ones(k - 1, k - 1) / k), BLOCK,
        note=r"Its eigenvalues are $q$ ($k - 2$ times, on vectors with $\mathbf{1}^\top v = 0$) and $q/k$ (on "
             r"$\mathbf{1}$): for $q = \|x_i\|^2 > 0$ the block is strictly convex and its minimiser is unique.",
        on=ON, instance=INSTANCE, quantity=r"\nabla^2_{\zeta} f",
        how=r"SymPy computed the Hessian of $f$ in the free entries $\zeta_0$, $\zeta_2$ of row $1$"))
    eig_ok = all(sp.Matrix(sp.eye(kk - 1) - sp.ones(kk - 1, kk - 1) / kk).eigenvals()
                 == ({sp.Integer(1): kk - 2, sp.Rational(1, kk): 1} if kk > 2 else {sp.Rational(1, kk): 1})
                 for kk in range(2, 8))
    out.append(computed(
        MODEL, "the block is strictly convex",
        r"\operatorname{eig}\Big(I - \frac1k \mathbf{1}\mathbf{1}^\top\Big)_{(k-1) \times (k-1)} = \Big\{1, \frac1k\Big\}",
        BLOCK, eig_ok,
        note=r"$1$ with multiplicity $k - 2$ and $1/k$ once: the block's Hessian $q(I - \frac1k\mathbf{1}"
             r"\mathbf{1}^\top)$ is positive definite whenever $q = \|x_i\|^2 > 0$.",
        on="for k = 2 to 7", instance=r"the $(k-1) \times (k-1)$ matrix for each $k = 2, \dots, 7$",
        check=r"SymPy computed the eigenvalues and their multiplicities exactly"))
    abar_i = sum(a_i) / k
    cvec = [1 + s[m] + qi * (free[(i, m)] - abar_i) for m in others]
    Tb = sum(hs)
    out.append(identity(
        MODEL, "the block's gradient",
        r"\frac{\partial f}{\partial \zeta_m} = q\Big(\zeta_m - \frac{c_m}{q} - \frac{T}{k}\Big), \quad c_m = 1 + s_m "
        r"+ q\big(\alpha_{im} - \bar\alpha_i\big), \quad T = \mathbf{1}^\top\zeta",
        sp.Matrix([sp.diff(f_beta, h) for h in hs]),
        sp.Matrix([qi * (h - cm / qi - Tb / k) for h, cm in zip(hs, cvec)]), BLOCK,
        note=r"$s = W x_i$ are the scores at the current $\alpha$ (row $i$ equal to $\alpha_i$), $\bar\alpha_i = "
             r"\frac1k\mathbf{1}^\top\alpha_i$ its mean, and $\zeta$ the new free entries of row $i$. Setting the "
             r"gradient to $0$ where $\zeta_m$ is strictly inside the box gives $\zeta_m = c_m/q + T/k$.",
        on=ON, instance=INSTANCE, quantity=r"\nabla_{\zeta} f",
        how=r"SymPy differentiated $f$ with row $1$ replaced by $\zeta$"))
    out.append(block_solution())
    return out


def _clip(v, lo, hi):
    return sp.Min(sp.Max(v, lo), hi)


def block_solution():
    """The exact block minimiser is clip(c/q + T/k, 0, C) at the unique root T of the sum equation."""
    rng = np.random.default_rng(11)
    ok_clip, ok_root, shown = True, True, ""
    for trial in range(6):
        kk = 3 + trial % 3
        Cn = sp.Rational(int(rng.integers(1, 6)), int(rng.integers(1, 4)))
        qn = sp.Rational(int(rng.integers(1, 9)), int(rng.integers(1, 5)))
        cn = [sp.Rational(int(rng.integers(-12, 13)), int(rng.integers(1, 5))) for _ in range(kk - 1)]
        H = qn * (sp.eye(kk - 1) - sp.ones(kk - 1, kk - 1) / kk)
        opt = _box_qp(H, sp.Matrix(cn), Cn)
        Tn = sum(opt)
        ok_clip &= all(opt[m] == _clip(cn[m] / qn + Tn / kk, 0, Cn) for m in range(kk - 1))
        # psi(T) = T - sum_m clip(c_m/q + T/k, 0, C) is piecewise linear: check it at its kinks
        def psi(t):
            return t - sum(_clip(cm / qn + t / kk, 0, Cn) for cm in cn)

        kinks = sorted({sp.Integer(0), (kk - 1) * Cn, *[-kk * cm / qn for cm in cn],
                        *[kk * (Cn - cm / qn) for cm in cn]})
        values = [psi(t) for t in kinks]
        increasing = all(b_ > a_ for a_, b_ in zip(values, values[1:]))
        ok_root &= increasing and psi(sp.Integer(0)) <= 0 <= psi((kk - 1) * Cn) and psi(Tn) == 0
        if trial == 0:
            shown = shown_line(r"c =", sp.Matrix(cn).T, r",\ q =", qn, r",\ C =", Cn, r":\ \zeta^\star =", opt.T,
                               r",\ T =", Tn)
    return computed(
        MODEL, "the block's solution: clip at the root",
        r"\zeta_m = \mathrm{clip}\Big(\frac{c_m}{q} + \frac{T}{k},\, 0,\, C\Big), \quad T = \sum_{m \ne y_i} "
        r"\mathrm{clip}\Big(\frac{c_m}{q} + \frac{T}{k},\, 0,\, C\Big), \quad T \in [0, (k-1)C]",
        BLOCK, ok_clip and ok_root,
        note=r"The box's KKT conditions with the block's gradient $q(\zeta_m - c_m/q - T/k)$: $\zeta_m = 0$ needs "
             r"$c_m/q + T/k \le 0$, $\zeta_m = C$ needs $c_m/q + T/k \ge C$, and a free $\zeta_m$ equals "
             r"$c_m/q + T/k$. So $T = \mathbf{1}^\top\zeta$ solves a scalar equation whose right side has slope at "
             r"most $(k-1)/k < 1$: the left minus the right side rises strictly, from $\le 0$ at $T = 0$ to "
             r"$\ge 0$ at $T = (k-1)C$, so the root is unique.",
        on="on 6 rational blocks, k = 3 to 5",
        instance=r"$6$ blocks with rational $c \in \mathbb{Q}^{k-1}$, $q > 0$, $C > 0$, $k = 3, 4, 5$",
        check=r"SymPy found each block's exact minimiser of $\frac12 \zeta^\top q(I - \frac1k\mathbf{1}\mathbf{1}"
              r"^\top)\zeta - c^\top\zeta$ over $[0, C]^{k-1}$ (its active set, every KKT condition checked exactly), "
              r"compared it with the clip at $T = \mathbf{1}^\top\zeta$, and evaluated $T$ minus the sum at every kink "
              r"(strictly increasing, $\le 0$ at $0$, $\ge 0$ at $(k-1)C$, $0$ at the minimiser's $T$)",
        shown=shown)


def kkt_steps():
    """The KKT table, from the binary one: the constraint 1 + w_m'x_i <= xi_im is the binary one with margin
    -w_m'x_i, so :func:`binary.margin_set` (which solves complementary slackness) gives the allowed scores."""
    out = []
    msym = sp.Symbol("m", real=True)
    score = sp.Symbol("s_im", real=True)
    for name, value, expected, formula in (
            ("KKT: alpha_im = 0", 0, sp.Interval(-sp.oo, -1), r"\alpha_{im} = 0 \;\Rightarrow\; w_m^\top x_i \le -1"),
            ("KKT: 0 < alpha_im < C", sp.Rational(1, 2), sp.FiniteSet(-1),
             r"0 < \alpha_{im} < C \;\Rightarrow\; w_m^\top x_i = -1"),
            ("KKT: alpha_im = C", 1, sp.Interval(-1, sp.oo), r"\alpha_{im} = C \;\Rightarrow\; w_m^\top x_i \ge -1")):
        margins = binary.margin_set(value)
        allowed = sp.imageset(sp.Lambda(msym, -msym), margins)
        out.append(computed(
            MODEL, name, formula, f"{LLW}, the multicategory SVM's dual", allowed == expected,
            note=r"With $g_{im} = \xi_{im} - 1 - w_m^\top x_i$: complementary slackness $\alpha_{im} g_{im} = 0$ and "
                 r"$\mu_{im}\xi_{im} = 0$, stationarity $\mu_{im} = C - \alpha_{im}$, and feasibility "
                 r"$g_{im} \ge 0$, $\xi_{im} \ge 0$, $\mu_{im} \ge 0$ leave exactly these scores. A point "
                 r"outside the margin of class $m$ ($w_m^\top x_i < -1$) has $\alpha_{im} = 0$; one inside it "
                 r"($w_m^\top x_i > -1$) has $\alpha_{im} = C$. Because the dual is a box, these are also the "
                 r"signs of the dual gradient $-(1 + w_m^\top x_i)$ at the bounds.",
            on="with C = 1", instance=r"one pair $(i, m)$, $C = 1$, $\alpha_{im} = " + sp.latex(value) + r"$; the "
                                      r"score $s_{im} = w_m^\top x_i$, $\xi_{im}$ and $\mu_{im}$ are unknowns",
            check=r"SymPy solved $\alpha_{im} g_{im} = 0$, $\mu_{im}\xi_{im} = 0$, $C - \alpha_{im} - \mu_{im} = 0$ "
                  r"and reduced the inequalities to the set of allowed scores $s_{im}$",
            shown=shown_line(score, r"\in", allowed)))
    return out


def numeric_checks():
    """The library's LLW weights, gradient, dual, primal and block solution against the derivation."""
    from ..losses import get_loss
    from ..losses.lee_lin_wahba import block_row
    from ..problems import MulticlassProblem

    loss = get_loss("llw")
    keys = list(free)
    args = [list(X), [free[key] for key in keys]]
    W_fn = sp.lambdify(args, weights(), "numpy")
    D_fn = sp.lambdify(args, dual(), "numpy")
    grad_fn = sp.lambdify(args, sp.Matrix(n, k, lambda r, c: sp.diff(-dual(), free[(r, c)]) if c != labels[r]
                                          else sp.Integer(0)), "numpy")
    Wp = sp.Matrix(k, d, lambda m, c: sp.Symbol(f"w_{m},{c + 1}", real=True))
    hinge = sum(sp.Max(0, 1 + (Wp[m, :] * x(i))[0]) for i in range(n) for m in range(k) if m != labels[i])
    P_fn = sp.lambdify([list(X), list(Wp), C], sp.Rational(1, 2) * sum(v ** 2 for v in Wp) + C * hinge, "numpy")
    # the block: f in the free entries beta of row 0 is 1/2 beta'H beta - c'beta + const; c = -(df/dbeta at 0)
    i = 0
    f_beta, hs = _block_objective(i)
    c_fn = sp.lambdify(args, sp.Matrix([-sp.diff(f_beta, h) for h in hs]).subs({h: 0 for h in hs}), "numpy")
    rng = np.random.default_rng(7)
    Ws, grads, duals, primals, blocks = [], [], [], [], []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        Cn = float(rng.uniform(0.3, 3.0))
        p = MulticlassProblem(Xn, np.array(labels), C=Cn, loss="llw")
        vals = rng.uniform(0, Cn, len(keys))
        An = np.array(alpha_matrix(dict(zip(keys, vals))), dtype=float)
        Wn = np.asarray(loss.weights(p, An), dtype=float)
        Ws.append((Wn, np.asarray(W_fn(Xn.ravel(), vals), dtype=float)))
        grads.append((np.asarray(loss.gradient(p, Xn @ Wn.T), dtype=float),
                      np.asarray(grad_fn(Xn.ravel(), vals), dtype=float)))
        duals.append((loss.dual(p, An, Wn), float(D_fn(Xn.ravel(), vals))))
        Wr = rng.normal(size=(k, d))
        primals.append((loss.primal(p, Wr), float(P_fn(Xn.ravel(), Wr.ravel(), Cn))))
        # the block of sample 0, its exact minimiser by enumerating active sets
        qn = float(Xn[i] @ Xn[i])
        cn = np.asarray(c_fn(Xn.ravel(), vals), dtype=float).ravel()
        solution = np.empty(k - 1)
        block_row(cn / qn, Cn, k, solution, np.empty(2 * k))
        blocks.append((solution, _float_box_qp(qn, cn, Cn, k)))
    formula_W = r"W = -(\alpha J)^\top X, \quad J = I - \tfrac1k \mathbf{1}\mathbf{1}^\top"
    return [
        numeric(MODEL, "get_loss('llw').weights", formula_W, "svmteach.losses.get_loss('llw').weights", Ws,
                note="The weights every Lee-Lin-Wahba solver keeps, from the row-centred alphas.",
                what=r"the library's $(k, d)$ weights"),
        numeric(MODEL, "get_loss('llw').gradient",
                r"\frac{\partial f}{\partial \alpha_{im}} = -\big(1 + w_m^\top x_i\big)",
                "svmteach.losses.get_loss('llw').gradient", grads,
                note=r"The gradient behind the KKT violation, from the scores $S = X W^\top$ ($0$ in the label "
                     r"column, which is not a variable).",
                what=r"the library's $(n, k)$ gradient"),
        numeric(MODEL, "get_loss('llw').dual",
                r"D(\alpha) = \sum_{i}\sum_{m \ne y_i} \alpha_{im} - \frac12\|W(\alpha)\|_F^2",
                "svmteach.losses.get_loss('llw').dual", duals,
                note="The dual every Lee-Lin-Wahba solver reports.", what=r"the library's $D(\alpha)$"),
        numeric(MODEL, "get_loss('llw').primal",
                r"P(W) = \frac12\|W\|_F^2 + C\sum_i\sum_{m \ne y_i} \max\big(0, 1 + w_m^\top x_i\big)",
                "svmteach.losses.get_loss('llw').primal", primals,
                note=r"The primal at random weights (the hinge terms of the derivation's $P$).",
                what=r"the library's $P(W)$"),
        numeric(MODEL, "lee_lin_wahba.block_row",
                r"\zeta_m = \mathrm{clip}\Big(\frac{c_m}{q} + \frac{T}{k},\, 0,\, C\Big), \quad T = \mathbf{1}^\top\zeta",
                "svmteach.losses.lee_lin_wahba.block_row", blocks,
                note=r"$c$ is read off the derived $f$ as minus its gradient in the block's free entries $\zeta$ at "
                     r"$\zeta = 0$, and the library's compiled one-row solver (the one its block kernel calls) is "
                     r"given $u = c/q$; the block's exact minimiser is found by trying every active set of the box.",
                what=r"the library's block solution $\zeta$"),
    ]


def _float_box_qp(qn, cn, Cn, kk):
    """Minimiser of ``q/2 (|b|^2 - (1'b)^2/k) - c'b`` over ``[0, C]^(k-1)``: every active set tried, in floats."""
    m = kk - 1
    H = qn * (np.eye(m) - np.ones((m, m)) / kk)
    best, best_val = None, np.inf
    for pattern in product((0, 1, 2), repeat=m):
        z = np.where(np.array(pattern) == 2, Cn, 0.0)
        F = [j for j in range(m) if pattern[j] == 1]
        if F:
            B = [j for j in range(m) if pattern[j] != 1]
            z[F] = np.linalg.solve(H[np.ix_(F, F)], cn[F] - H[np.ix_(F, B)] @ z[B])
        if np.any(z < -1e-12) or np.any(z > Cn + 1e-12):
            continue
        val = 0.5 * z @ H @ z - cn @ z
        if val < best_val:
            best, best_val = np.clip(z, 0.0, Cn), val
    return best
