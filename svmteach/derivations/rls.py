"""Regularized least squares, the representer argument, and what the ECE 532 notes call "the dual".

Instance: n = 3 with a general symmetric kernel matrix K (or points in the plane where the
linear kernel matters), symbolic targets Y and lambda > 0.  Sources: the MIT 9.520 lecture
('The RLS problem', 'RLS Regularization Path', 'The Linear Case') and the ECE 532 notes.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import CAVEAT, ERRATUM, erratum, identity, numeric, real_symbols

MODEL = "regularized least squares"
MIT = "MIT 9.520 lecture"
ECE = "ECE 532 notes"
ON_K = "for a general symmetric 3x3 kernel matrix"
INSTANCE_K = (r"$n = 3$ with a symbolic symmetric kernel matrix $K$ (entries $K_{11}, K_{12}, \dots, K_{33}$), "
              r"symbolic targets $Y$, coefficients $c$ and $\lambda > 0$")
ON_X = "on a 3-point instance in the plane"
INSTANCE_X = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates (the rows of $X$), the linear "
              r"kernel $K = XX^\top$, symbolic targets $y$ and $\lambda > 0$")
n, d = 3, 2
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
Kg = sp.Matrix(n, n, lambda r, c: sp.Symbol(f"K_{min(r, c) + 1}{max(r, c) + 1}", real=True))
Y = sp.Matrix(real_symbols("y1:4"))
c = sp.Matrix(real_symbols("c1:4"))
alpha = sp.Matrix(real_symbols("alpha1:4"))
lam = sp.Symbol("lambda", positive=True)


def steps():
    out = []
    objective = sp.Rational(1, 2) * ((Y - Kg * c).T * (Y - Kg * c))[0] + lam / 2 * (c.T * Kg * c)[0]
    grad = sp.Matrix([sp.diff(objective, v) for v in c])
    out.append(identity(
        MODEL, "gradient of the RLS objective",
        r"\nabla_c\Big(\frac12\|Y - Kc\|^2 + \frac{\lambda}{2} c^\top K c\Big) = -K(Y - Kc) + \lambda K c",
        grad, -Kg * (Y - Kg * c) + lam * Kg * c, f"{MIT}, 'The RLS problem'",
        note=r"By the representer theorem $f = \sum_j c_j K(x_j, \cdot)$, so $f(x_i) = (Kc)_i$ and "
             r"$\|f\|_{\mathcal{H}}^2 = c^\top K c$; $K$ is symmetric.",
        on=ON_K, instance=INSTANCE_K, quantity=r"\nabla_c", how="SymPy differentiated the objective in $c$"))
    out.append(identity(
        MODEL, "(K + lambda I) c = Y is stationary",
        r"-K(Y - Kc) + \lambda K c = K\big((K + \lambda I)c - Y\big)",
        grad, Kg * ((Kg + lam * sp.eye(n)) * c - Y), f"{MIT}, 'The RLS problem'; {ECE}, the dual RLS solution",
        note=r"So $c = (K + \lambda I)^{-1} Y$ (which exists for $\lambda > 0$) makes the gradient $0$ and "
             r"minimises the convex objective. When $K$ is singular every $c + u$ with $Ku = 0$ is also a minimiser; "
             r"all of them give the same $f = Kc$.",
        on=ON_K, instance=INSTANCE_K, quantity=r"\nabla_c"))
    out.append(identity(
        MODEL, "push-through identity",
        r"(X^\top X + \lambda I)\,X^\top = X^\top(XX^\top + \lambda I) \;\Rightarrow\; X^\top(XX^\top + \lambda I)^{-1}"
        r" = (X^\top X + \lambda I)^{-1} X^\top",
        (X.T * X + lam * sp.eye(d)) * X.T, X.T * (X * X.T + lam * sp.eye(n)),
        f"{ECE}, the recovery of w from alpha",
        note=r"Both inverses exist for $\lambda > 0$; multiplying the identity by them on both sides gives "
             r"$w = X^\top(K + \lambda I)^{-1} y = (X^\top X + \lambda I)^{-1} X^\top y$: the $n \times n$ and the "
             r"$d \times d$ systems give the same $w$.",
        on=ON_X, instance=INSTANCE_X, quantity=r"(X^\top X + \lambda I)\,X^\top"))
    w = sp.Matrix(real_symbols("w1:3"))
    primal = sp.Rational(1, 2) * ((Y - X * w).T * (Y - X * w))[0] + lam / 2 * (w.T * w)[0]
    out.append(identity(
        MODEL, "primal stationarity",
        r"\nabla_w\Big(\frac12\|Y - Xw\|^2 + \frac{\lambda}{2}\|w\|^2\Big) = X^\top X w - X^\top Y + \lambda w",
        sp.Matrix([sp.diff(primal, v) for v in w]), X.T * X * w - X.T * Y + lam * w, f"{MIT}, 'The Linear Case'",
        note=r"With the linear kernel the problem can be solved in $w \in \mathbb{R}^d$: $w = (X^\top X + \lambda I)"
             r"^{-1} X^\top Y$, a $d \times d$ system.",
        on=ON_X, instance=INSTANCE_X, quantity=r"\nabla_w", how="SymPy differentiated the objective in $w$"))
    out.append(orthogonal_component())
    out.append(dual_naming_erratum())
    out.append(l2_naming_erratum())
    # regularization path by eigendecomposition: K = Q diag(l) Q'
    th = sp.Symbol("theta", real=True)
    Qr = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    l1, l2 = real_symbols("l1 l2", nonnegative=True)
    K2 = Qr * sp.diag(l1, l2) * Qr.T
    Y2 = sp.Matrix(real_symbols("y1 y2"))
    path = Qr * sp.diag(1 / (l1 + lam), 1 / (l2 + lam)) * Qr.T * Y2
    out.append(identity(
        MODEL, "path from one eigendecomposition",
        r"(K + \lambda I)^{-1} Y = Q(\Lambda + \lambda I)^{-1} Q^\top Y \quad \text{for } K = Q\Lambda Q^\top",
        ((K2 + lam * sp.eye(2)) * path).applyfunc(sp.trigsimp), Y2, f"{MIT}, 'RLS Regularization Path'",
        note=r"$K + \lambda I = Q(\Lambda + \lambda I)Q^\top$ with $Q$ orthogonal, so once $Q$ and $\Lambda$ are known "
             r"each $c(\lambda)$ costs $O(n^2)$: a diagonal solve and two products.",
        on="for a general symmetric 2x2 kernel matrix",
        instance=r"$K = Q \Lambda Q^\top$ with $Q$ the rotation by a symbolic angle $\theta$ and $\Lambda = "
                 r"\operatorname{diag}(l_1, l_2)$, $l_i \ge 0$; symbolic $Y$ and $\lambda > 0$",
        quantity=r"(K + \lambda I)\,Q(\Lambda + \lambda I)^{-1} Q^\top Y",
        how=r"SymPy multiplied $(K + \lambda I)$ by the claimed inverse applied to $Y$"))
    # the SVM through the representer theorem: f = K c with c_i = alpha_i y_i
    cs = sp.Matrix([alpha[i] * Y[i] for i in range(n)])
    out.append(identity(
        MODEL, "SVM via the representer theorem",
        r"c^\top K c = \sum_{i,j} \alpha_i \alpha_j y_i y_j K_{ij} \quad \text{for } c_i = \alpha_i y_i",
        (cs.T * Kg * cs)[0], sum(alpha[i] * alpha[j] * Y[i] * Y[j] * Kg[i, j] for i in range(n) for j in range(n)),
        f"{MIT}, 'Towards the Dual I'",
        note=r"With $c_i = \alpha_i y_i$, the RKHS norm $c^\top K c$ becomes the quadratic term of the SVM dual, "
             r"$\alpha^\top \operatorname{diag}(y) K \operatorname{diag}(y)\,\alpha$ (labels $y_i = \pm 1$).",
        on=ON_K, instance=INSTANCE_K + r" and labels $y_i$", quantity=r"c^\top K c"))
    out.extend(numeric_checks())
    return out


def orthogonal_component():
    """The representer argument: a component orthogonal to every x_i only adds lambda |p|^2."""
    X3 = sp.Matrix(2, 3, lambda r, q: sp.Symbol(f"x_{r + 1}{q + 1}", real=True))
    t = sp.Symbol("t", real=True)
    p = X3[0, :].T.cross(X3[1, :].T) * t  # orthogonal to both points
    al = sp.Matrix(real_symbols("alpha1:3"))
    Y3 = sp.Matrix(real_symbols("y1:3"))
    w0 = X3.T * al

    def loss(w):
        return ((Y3 - X3 * w).T * (Y3 - X3 * w))[0] + lam * (w.T * w)[0]

    return identity(
        MODEL, "the orthogonal component only costs",
        r"\ell(w_0 + p) = \ell(w_0) + \lambda\|p\|^2 \quad \text{for } w_0 = X^\top\alpha,\ Xp = 0",
        loss(w0 + p), loss(w0) + lam * (p.T * p)[0], f"{ECE}, the proof that the optimal weights are a combination of the features",
        note=r"$\ell(w) = \|Xw - y\|^2 + \lambda\|w\|^2$. A component $p$ orthogonal to every $x_i$ leaves every "
             r"prediction $x_i^\top w$ unchanged and only adds $\lambda\|p\|^2 \ge 0$, so the minimiser has $p = 0$: "
             r"$w = X^\top\alpha$ for some $\alpha$.",
        on="on 2 points in 3 dimensions",
        instance=r"$2$ points $x_1, x_2 \in \mathbb{R}^3$ with symbolic coordinates, $p = t\,(x_1 \times x_2)$ "
                 r"(orthogonal to both), symbolic $\alpha$, $y$, $t$ and $\lambda > 0$",
        quantity=r"\ell(w_0 + p)")


def dual_naming_erratum():
    """The ECE 532 notes call the representer rewrite of ridge regression 'the dual', in their own sense of the word.

    A convention, not an error (a caveat): the notes define "dual" as an equivalent reformulation; in the Lagrange
    sense of this course the rewrite is the primal in new variables.  SymPy shows how the two differ."""
    K = X * X.T
    w = sp.Matrix(real_symbols("w1:3"))
    r = sp.Matrix(real_symbols("r1:4"))
    nu = sp.Matrix(real_symbols("nu1:4"))
    # ridge with the residual as a variable: min |r|^2 + lambda |w|^2 s.t. r = Xw - y; multiplier nu
    Lag = (r.T * r)[0] + lam * (w.T * w)[0] + (nu.T * (X * w - Y - r))[0]
    stat = sp.solve([sp.diff(Lag, v) for v in list(w) + list(r)], list(w) + list(r), dict=True)[0]
    lagrange_dual = sp.expand(Lag.subs(stat).subs({nu[i]: -2 * lam * alpha[i] for i in range(n)}))  # nu = -2 lambda a
    rewrite = (((K * alpha - Y).T * (K * alpha - Y))[0] + lam * (alpha.T * K * alpha)[0])
    primal_at = sp.expand((((X * (X.T * alpha)) - Y).T * ((X * (X.T * alpha)) - Y))[0]
                          + lam * ((X.T * alpha).T * (X.T * alpha))[0])
    residual = (K + lam * sp.eye(n)) * alpha - Y
    claimed_dual = 2 * lam * (alpha.T * Y)[0] - lam * (alpha.T * (K + lam * sp.eye(n)) * alpha)[0]
    gap_ok = sp.expand(rewrite - lagrange_dual - (residual.T * residual)[0]) == 0
    dual_ok = sp.expand(lagrange_dual - claimed_dual) == 0
    same_primal = sp.expand(rewrite - primal_at) == 0
    step = erratum(
        MODEL, "the representer rewrite is not the dual",
        r"D(\alpha) = 2\lambda\,\alpha^\top y - \lambda\,\alpha^\top(K + \lambda I)\,\alpha, \qquad R(\alpha) - "
        r"D(\alpha) = \big\|(K + \lambda I)\alpha - y\big\|^2",
        r"\min_\alpha\, R(\alpha) = \|K\alpha - y\|^2 + \lambda\,\alpha^\top K\alpha \quad \text{(``the dual'')}",
        rewrite, lagrange_dual, f"{ECE}, 'This is called the dual formulation' and '(ii) ... (the dual)'",
        note=r"Not an error but a convention: the notes open with “the dual of an optimization problem can mean "
             r"many things ... in the context of classification problems, it means an alternate formulation that "
             r"is equivalent (same result)”, and in that sense $R(\alpha)$ is a dual. It is not the *Lagrange* "
             r"dual of this course: $R(\alpha)$ is the primal $\|Xw - y\|^2 + \lambda\|w\|^2$ at $w = X^\top\alpha$, "
             r"still minimised, and $R(\alpha) \ge$ the optimum for every $\alpha$. The Lagrange dual $D$ (from "
             r"$\min \|r\|^2 + \lambda\|w\|^2$ subject to $r = Xw - y$, multiplier $\nu = -2\lambda\alpha$) is "
             r"maximised and bounds the optimum from below. They differ by the squared residual of "
             r"$(K + \lambda I)\alpha = y$, so both are optimal at the same $\alpha$, where they meet.",
        on="on a 3-point instance in the plane", instance=INSTANCE_X,
        also=[(r"SymPy derived $D$ by minimising the Lagrangian over $w$ and $r$", dual_ok),
              (r"$R(\alpha)$ equals the primal at $w = X^\top\alpha$", same_primal),
              (r"$R(\alpha) - D(\alpha)$ simplified to $\|(K + \lambda I)\alpha - y\|^2$", gap_ok)],
        verdict="the notes' 'dual' is the primal in new variables; the Lagrange dual is a different function")
    if step.status == ERRATUM:  # the notes define their sense of "dual": a convention, not an error
        step.status = CAVEAT
    return step


def l2_naming_erratum():
    """The ECE 532 notes call the rewritten problem, with penalty lambda alpha' K alpha, 'L2-regularized in alpha'.

    A caveat about words, not an error: the notes print the penalty lambda alpha' K alpha correctly; read literally,
    "L2 in alpha" would be lambda |alpha|^2, which differs unless K = I."""
    K = X * X.T
    step = erratum(
        MODEL, "the penalty on alpha is not L2",
        r"\lambda\,\alpha^\top K\alpha = \lambda\,\|X^\top\alpha\|^2 = \lambda\,\|w\|^2",
        r"\lambda\,\alpha^\top K\alpha \quad \text{(``also an } L_2\text{-regularized SVM, but this time in } \alpha\text{'')}",
        lam * (alpha.T * alpha)[0], lam * (alpha.T * K * alpha)[0],
        f"{ECE}, the kernelized SVM ('also an L2-regularized SVM, but this time in alpha')",
        note=r"The notes print the penalty correctly, $\lambda\,\alpha^\top K\alpha$; only the words “an "
             r"$L_2$-regularized SVM, but this time in $\alpha$” can mislead. $\alpha^\top K\alpha$ is the "
             r"$K$-weighted norm of $\alpha$ (the RKHS norm of $f$, the $L_2$ norm of $w = X^\top\alpha$), not the "
             r"Euclidean norm $\|\alpha\|_2^2$ that “$L_2$ in $\alpha$” suggests; the two agree only when $K = I$. "
             r"The check compares the two readings. (The rewritten loss $(1 - y_i (K\alpha)_i)_+$ is not the "
             r"SVM's $(1 - y_i \alpha_i)_+$ either.)",
        on="on a 3-point instance in the plane", instance=INSTANCE_X,
        also=[(r"$\alpha^\top K\alpha = \|X^\top\alpha\|^2$ simplified to an identity",
               sp.expand((alpha.T * K * alpha)[0] - ((X.T * alpha).T * (X.T * alpha))[0]) == 0)])
    if step.status == ERRATUM:  # the formula the notes print is right: a wording caveat
        step.status = CAVEAT
        step.verdict = "read literally, 'L2 in alpha' (lambda |alpha|^2) is not the printed lambda alpha'K alpha"
    return step


def numeric_checks():
    """svmteach.rls's solvers against the lambdified derivation."""
    from .. import rls

    system = sp.lambdify([list(X), lam], X * X.T + lam * sp.eye(n), "numpy")  # the derived system matrix
    rng = np.random.default_rng(6)
    duals, primals = [], []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        Yn = rng.normal(size=n)
        lamn = rng.uniform(0.05, 2.0)
        derived = np.linalg.solve(np.asarray(system(Xn.ravel(), lamn), dtype=float), Yn)
        duals.append((rls.solve_dual(Xn @ Xn.T, Yn, lamn).ravel(), derived))
        primals.append((rls.solve_primal(Xn, Yn, lamn).ravel(), Xn.T @ derived))
    return [numeric(MODEL, "rls.solve_dual", r"c = (K + \lambda I)^{-1} Y", "svmteach.rls.solve_dual", duals,
                    note="The coefficients every RLS classifier of the course uses.",
                    what=r"the library's $c$"),
            numeric(MODEL, "rls.solve_primal (push-through)", r"w = (X^\top X + \lambda I)^{-1} X^\top Y = X^\top c",
                    "svmteach.rls.solve_primal", primals,
                    note=r"The $d \times d$ solve against $X^\top$ times the $n \times n$ one.",
                    what=r"the library's $w$")]
