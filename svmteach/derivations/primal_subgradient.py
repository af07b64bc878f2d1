"""The primal subgradient of the binary SVM without bias, and the step of Algorithm 1 of the slides.

Instance: n = 3 points in the plane with symbolic coordinates and labels, w symbolic; points
1 and 3 have margin below 1 and point 2 above it.  Source: the multiclass dual solvers slides,
'Binary Classification Primal Solver - Algorithm' (Algorithm 1).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import identity, numeric, real_symbols

MODEL = "primal subgradient"
ALG1 = "Multiclass dual solvers slides, Algorithm 1"
n, d = 3, 2
w = sp.Matrix(real_symbols("w1:3"))
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
y = real_symbols("y1:4")
C = sp.Symbol("C", positive=True)
s = real_symbols("s1:4")  # s_i = 1 if y_i w'x_i < 1 (the hinge is active), else 0


def primal_where_differentiable(active):
    """:math:`P(w)` where no margin equals 1: the hinge is :math:`1 - y_i w^\\top x_i` or 0."""
    return sp.Rational(1, 2) * (w.T * w)[0] + C * sum(active[k] * (1 - y[k] * (w.T * X[k, :].T)[0])
                                                        for k in range(n))


def subgradient():
    """:math:`w - C \\sum_i s_i y_i x_i`, the formula of Algorithm 1, lines 5-10."""
    return w - C * sum((s[k] * y[k] * X[k, :].T for k in range(n)), sp.zeros(d, 1))


def steps():
    active = [1, 0, 1]  # margins of points 1 and 3 below 1, point 2 above
    P = primal_where_differentiable(active)
    out = [identity(
        MODEL, "subgradient of the primal",
        r"\nabla P(w) = w - C \sum_{i:\, y_i w^\top x_i < 1} y_i x_i \quad \text{(no margin equal to 1)}",
        sp.Matrix([sp.diff(P, v) for v in w]), subgradient().subs(dict(zip(s, active))), f"{ALG1}, lines 5-10",
        note=r"$P(w) = \frac12\|w\|^2 + C\sum_i \max(0, 1 - y_i w^\top x_i)$. Where no margin equals $1$, each hinge "
             r"is either $1 - y_i w^\top x_i$ or $0$ near $w$, so $P$ is differentiable there with this gradient; "
             r"at a kink the same formula gives one subgradient. The slides title the algorithm 'stochastic', but "
             r"every iteration sums over all points: it is full-batch subgradient descent.",
        on="on a 3-point instance", quantity=r"\nabla P(w)",
        instance=r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates and labels; points $1$ and $3$ "
                 r"have margin $y_i w^\top x_i < 1$, point $2$ has margin $> 1$",
        how=r"SymPy differentiated $P$ in $w$ on that region")]
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """One step of ``PrimalSubgradient`` against ``w - eta (w - C sum_{m_i < 1} y_i x_i)``."""
    from ..problems import BinaryProblem
    from ..solvers import PrimalSubgradient

    grad = sp.lambdify([list(w), list(X), list(y), list(s), C], subgradient(), "numpy")
    rng = np.random.default_rng(7)
    pairs = []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        yn = rng.permutation([1.0, -1.0, rng.choice([-1.0, 1.0])])
        Cn = rng.uniform(0.2, 3.0)
        p = BinaryProblem(Xn, yn, C=Cn)
        solver = PrimalSubgradient(step_size="constant", learning_rate=0.3)
        state = solver.step(p, solver.step(p, solver.init(p)))  # two steps in: w is not 0
        new = solver.step(p, state)
        wn = np.asarray(state.w, dtype=float)
        active = (yn * (Xn @ wn) < 1.0).astype(float)
        derived = wn - new.step_size * np.asarray(grad(wn, Xn.ravel(), yn, active, Cn), dtype=float).ravel()
        pairs.append((np.asarray(new.w, dtype=float), derived))
    return [numeric(MODEL, "PrimalSubgradient.step",
                    r"w^{\mathrm{new}} = w - \eta\,\Big(w - C\sum_{i:\, y_i w^\top x_i < 1} y_i x_i\Big)",
                    "svmteach.solvers.primal_subgradient", pairs,
                    note=r"The solver keeps $w = \sum_i \alpha_i y_i x_i$ through $\alpha$; its third step is "
                         r"compared with the derived gradient step from the same $w$.",
                    what=r"the solver's $w$ after one step")]
