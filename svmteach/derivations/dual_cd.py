"""Dual coordinate ascent: the one-dimensional parabola, its maximiser, the gradient update.

Instance: n = 3 with a general symmetric Q (Q_ij = y_i y_j K_ij) and symbolic alpha; the
coordinate moved is i = 1.  Source: the multiclass dual solvers slides, 'Dual Solver -
Algorithm' (Algorithm 2); Hsieh et al. (2008) for the same method on the linear SVM.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import identity, numeric, real_symbols

MODEL = "dual coordinate ascent"
ON = "for a general symmetric 3x3 matrix Q"
INSTANCE = (r"$n = 3$ with a symbolic symmetric matrix $Q$ (entries $Q_{11}, Q_{12}, \dots, Q_{33}$, "
            r"$Q_{ij} = y_i y_j K_{ij}$) and symbolic $\alpha_1, \alpha_2, \alpha_3$; the coordinate moved is $i = 1$")
ALG2 = "Multiclass dual solvers slides, Algorithm 2"
n = 3
Q = sp.Matrix(n, n, lambda r, c: sp.Symbol(f"Q_{min(r, c) + 1}{max(r, c) + 1}", real=True))
alpha = sp.Matrix(real_symbols("alpha1:4"))
x, Delta = real_symbols("x Delta")


def dual(al):
    return sum(al) - sp.Rational(1, 2) * (al.T * Q * al)[0]


def gradient(al):
    return sp.ones(n, 1) - Q * al


def coefficients(i=0):
    """``(a, b)`` of :math:`D(\\alpha + (x - \\alpha_i) e_i) = a x^2 + b x + c`."""
    g = gradient(alpha)
    return -Q[i, i] / 2, g[i] + Q[i, i] * alpha[i]


def steps():
    out = []
    i = 0
    al_x = alpha.copy()
    al_x[i] = x
    poly = sp.Poly(sp.expand(dual(al_x)), x)
    a_, b_ = coefficients()
    out.append(identity(
        MODEL, "gradient of the dual",
        r"\nabla D(\alpha) = \mathbf{1} - Q\alpha, \quad Q_{ij} = y_i y_j\, x_i^\top x_j",
        sp.Matrix([sp.diff(dual(alpha), v) for v in alpha]), gradient(alpha), f"{ALG2}, line 2",
        note=r"$D(\alpha) = \mathbf{1}^\top\alpha - \frac12 \alpha^\top Q \alpha$ with $Q$ symmetric, so its "
             r"gradient is $\mathbf{1} - Q\alpha$. The algorithm keeps it cached as $g$.",
        on=ON, instance=INSTANCE, quantity=r"\nabla D(\alpha)", how="SymPy differentiated $D$ in each $\\alpha_k$"))
    out.append(identity(
        MODEL, "coefficient a of x^2",
        r"D(\alpha + (x - \alpha_i) e_i) = a x^2 + b x + \mathrm{const}, \quad a = -\frac12 Q_{ii}",
        poly.coeff_monomial(x ** 2), a_, f"{ALG2}, line 5",
        note=r"Here $x$ is the new value of $\alpha_i$, the others fixed; $a$ and $b$ are the slides' coefficients "
             r"of the parabola (this $b$ is not a bias).",
        on=ON, instance=INSTANCE, quantity="a", how=r"SymPy expanded $D$ as a polynomial in $x$"))
    out.append(identity(
        MODEL, "coefficient b of x",
        r"b = g_i + Q_{ii}\,\alpha_i, \quad g = \nabla D(\alpha)",
        poly.coeff_monomial(x), b_, f"{ALG2}, line 5",
        note=r"The linear coefficient comes from the cached gradient in $O(1)$.",
        on=ON, instance=INSTANCE, quantity="b", how=r"SymPy expanded $D$ as a polynomial in $x$"))
    vertex = sp.solve(sp.diff(a_ * x ** 2 + b_ * x, x), x)[0]
    out.append(identity(
        MODEL, "unconstrained maximiser",
        r"-\frac{b}{2a} = \alpha_i + \frac{g_i}{Q_{ii}}, \quad \alpha_i^{\mathrm{new}} = \min\Big(\max\Big(\alpha_i "
        r"+ \frac{g_i}{Q_{ii}},\, 0\Big),\, C\Big)",
        vertex, alpha[i] + gradient(alpha)[i] / Q[i, i], f"{ALG2}, line 6",
        note=r"For $Q_{ii} > 0$ the parabola opens downwards ($a < 0$), so its maximum over $[0, C]$ is its vertex "
             r"clipped to the interval.",
        on=ON, instance=INSTANCE, quantity=r"\arg\max_x\,(a x^2 + b x)",
        how=r"SymPy solved $2 a x + b = 0$"))
    moved = alpha.copy()
    moved[i] = alpha[i] + Delta
    out.append(identity(
        MODEL, "gradient update",
        r"\nabla D(\alpha + \Delta\, e_i) = \nabla D(\alpha) - \Delta\, Q e_i",
        gradient(moved), gradient(alpha) - Delta * Q[:, i], f"{ALG2}, line 9",
        note=r"The gradient is affine in $\alpha$; moving one coordinate by $\Delta$ changes it by $-\Delta$ times "
             r"column $i$ of $Q$, an $O(n)$ update.",
        on=ON, instance=INSTANCE, quantity=r"\nabla D(\alpha + \Delta e_1)"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """The coefficients and step of DualCoordinateAscent against the lambdified derivation."""
    from ..problems import BinaryProblem
    from ..solvers import DualCoordinateAscent

    rng = np.random.default_rng(2)
    ab_pairs, grad_pairs = [], []
    for seed in range(5):
        Xn = rng.normal(size=(n, 2))
        yn = rng.permutation([1.0, -1.0, rng.choice([-1.0, 1.0])])
        p = BinaryProblem(Xn, yn, C=10.0)
        solver = DualCoordinateAscent(init="uniform", random_state=seed, shrinking=False)
        state = solver.init(p)
        new = solver.step(p, state)
        i = new.i
        a_, b_ = coefficients(i)
        before = {**{Q[r, c]: p.Q[r, c] for r in range(n) for c in range(n)}, **dict(zip(alpha, state.alpha))}
        after = {**before, alpha[i]: new.alpha[i]}
        ab_pairs.append(([new.a, new.b], [float(a_.subs(before)), float(b_.subs(before))]))
        grad_pairs.append((new.grad, np.array(gradient(alpha).subs(after), dtype=float).ravel()))
    return [numeric(MODEL, "DualCoordinateAscent.step: a, b",
                    r"a = -\frac12 Q_{ii}, \quad b = g_i + Q_{ii}\,\alpha_i", "svmteach.solvers.dual_cd", ab_pairs,
                    note="The parabola the solver maximises in its first step from a random start.",
                    what=r"the solver's coefficients $a, b$"),
            numeric(MODEL, "DualCoordinateAscent.step: gradient after the step",
                    r"g^{\mathrm{new}} = \mathbf{1} - Q\alpha^{\mathrm{new}}", "svmteach.solvers.dual_cd", grad_pairs,
                    note="The solver updates its cached gradient in $O(n)$; the derivation recomputes it in full.",
                    what=r"the solver's cached gradient after one step")]
