"""The binary soft-margin SVM: Lagrangian, weak duality, stationarity, the dual, the KKT table,
the hard margin, and the representer form of the MIT 9.520 lecture.

Instance: n = 3 points in the plane with symbolic coordinates, labels in {-1, +1} (every sign
pattern where a check needs y_i^2 = 1), symbolic w, b, xi, alpha, mu, C.
Sources: the CISC 371 notes (eqs. 30.7-30.10), the multiclass dual solvers slides ('Dual Solver -
Formulation') and the MIT 9.520 lecture ('Lagrangian and Dual', 'Interpreting the solution').
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import sympy as sp

from .core import (CAVEAT, computed, counterexample, definition, erratum, identity, numeric, real_symbols,
                   shown_line, sign_cases)

MODEL = "binary soft margin"
ON = "on a 3-point instance"
ON_SIGNS = "on a 3-point instance, all 8 label patterns"
INSTANCE = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates $x_{i1}, x_{i2}$; symbolic "
            r"$w \in \mathbb{R}^2$, $b$, $C$, $\xi_i$, $\alpha_i$, $\mu_i$; labels $y_i$ symbolic, or each of "
            r"the 8 patterns in $\{-1, +1\}^3$ where the check needs $y_i^2 = 1$")
n, d = 3, 2
X = sp.Matrix(n, d, lambda i, j: sp.Symbol(f"x_{i + 1}{j + 1}", real=True))
y = sp.Matrix(real_symbols("y1:4"))
alpha = sp.Matrix(real_symbols("alpha1:4"))
mu = sp.Matrix(real_symbols("mu1:4"))
xi = sp.Matrix(real_symbols("xi1:4"))
w = sp.Matrix(real_symbols("w1:3"))
b, C = real_symbols("b C")
CASES = sign_cases(list(y))
SLIDES = "Multiclass dual solvers slides, 'Dual Solver - Formulation'"
MIT = "MIT 9.520 lecture"
# y_i f(x_i) as the displays write it (f(x) = w'x + b)
f = sp.Function("f")
MARGIN = sp.Symbol("y_i", real=True) * f(sp.Symbol("x_i"))


def x(i):
    return X[i, :].T


def dual_objective():
    """:math:`\\sum_i \\alpha_i - \\frac12 \\sum_{ij} \\alpha_i \\alpha_j y_i y_j x_i^\\top x_j`."""
    return sum(alpha) - sp.Rational(1, 2) * sum(
        alpha[i] * alpha[j] * y[i] * y[j] * (x(i).T * x(j))[0] for i in range(n) for j in range(n))


def lagrangian():
    """:math:`L = \\frac12\\|w\\|^2 + C\\sum\\xi_i - \\sum \\alpha_i g_i - \\sum \\mu_i \\xi_i`, :math:`g_i = y_i f_i - 1 + \\xi_i`."""
    f_ = [(w.T * x(i))[0] + b for i in range(n)]
    primal = sp.Rational(1, 2) * (w.T * w)[0] + C * sum(xi)
    return primal - sum(alpha[i] * (y[i] * f_[i] - 1 + xi[i]) for i in range(n)) - sum(
        mu[i] * xi[i] for i in range(n)), primal


def margin_set(alpha_value, C_value=1):
    """The margins :math:`m = y_i f(x_i)` that the KKT conditions allow at a given :math:`\\alpha_i`.

    Complementary slackness :math:`\\alpha_i g_i = 0`, :math:`\\mu_i \\xi_i = 0` and
    stationarity :math:`C - \\alpha_i - \\mu_i = 0` are solved for :math:`\\mu_i, \\xi_i, m`;
    the inequalities :math:`g_i \\ge 0, \\xi_i \\ge 0, \\mu_i \\ge 0` then give a set of m.
    """
    m, xi_, mu_ = real_symbols("m xi_i mu_i")
    g = m - 1 + xi_  # the margin constraint y_i f(x_i) - 1 + xi_i >= 0
    eqs = [alpha_value * g, mu_ * xi_, C_value - alpha_value - mu_]
    allowed = sp.EmptySet
    for sol in sp.solve(eqs, [mu_, xi_, m], dict=True):
        if m in sol and sol[m].free_symbols:  # m = m(xi): express xi through m
            sol = {**{k: v for k, v in sol.items() if k != m}, xi_: sp.solve(m - sol[m], xi_)[0]}
        conds = [c.subs(sol) for c in (sp.Ge(g, 0), sp.Ge(xi_, 0), sp.Ge(mu_, 0))]
        conds = [c for c in conds if c is not sp.true]
        if any(c is sp.false for c in conds):
            continue
        if m in sol:  # a single margin
            allowed = allowed | sp.FiniteSet(sol[m])
        else:
            allowed = allowed | (sp.reduce_inequalities(conds, m).as_set() if conds else sp.Reals)
    return allowed


def hard_margin(Xn, yn):
    """The hard-margin dual solved exactly (active sets enumerated): ``(alpha, w, b)`` as SymPy numbers."""
    m = len(yn)
    a = list(real_symbols(f"a1:{m + 1}"))
    b_ = sp.Symbol("b", real=True)
    K = Xn * Xn.T
    for size in range(2, m + 1):
        for S in combinations(range(m), size):
            fixed = {a[j]: 0 for j in range(m) if j not in S}
            f_ = [sum(a[j] * yn[j] * K[j, i] for j in range(m)) + b_ for i in range(m)]
            eqs = [yn[i] * f_[i] - 1 for i in S] + [sum(a[j] * yn[j] for j in range(m))]
            sols = sp.solve([e.subs(fixed) for e in eqs], [a[j] for j in S] + [b_], dict=True)
            if len(sols) != 1 or len(sols[0]) != size + 1:
                continue
            sol = {**fixed, **sols[0]}
            al = [sol[v] for v in a]
            if all(v >= 0 for v in al) and all(yn[i] * f_[i].subs(sol) >= 1 for i in range(m)):
                return al, Xn.T * sp.Matrix([al[j] * yn[j] for j in range(m)]), sol[b_]
    raise ValueError("Xn, yn must be linearly separable")


def steps():
    out = []
    L, primal = lagrangian()
    out.append(definition(
        MODEL, "Lagrangian",
        r"L(w, b, \xi, \alpha, \mu) = \frac12\|w\|^2 + C\sum_{i=1}^n \xi_i - \sum_{i=1}^n \alpha_i\big[y_i(w^\top x_i"
        r" + b) - 1 + \xi_i\big] - \sum_{i=1}^n \mu_i \xi_i",
        f"{SLIDES}, Step 1; CISC 371 notes, eq. 30.7",
        r"One multiplier $\alpha_i \ge 0$ for each margin constraint $y_i(w^\top x_i + b) \ge 1 - \xi_i$ and one "
        r"$\mu_i \ge 0$ for each $\xi_i \ge 0$. For a feasible $(w, b, \xi)$ every subtracted term is "
        r"$\ge 0$, so $L \le P$."))
    # weak duality: the gap as a sum of terms that are >= 0 for feasible pairs
    v = sum((alpha[i] * y[i] * x(i) for i in range(n)), sp.zeros(d, 1))
    gap_terms = (sp.Rational(1, 2) * ((w - v).T * (w - v))[0]
                 + sum(alpha[i] * (y[i] * ((w.T * x(i))[0] + b) - 1 + xi[i]) for i in range(n))
                 + sum((C - alpha[i]) * xi[i] for i in range(n)))
    on_plane = {alpha[2]: -y[2] * (alpha[0] * y[0] + alpha[1] * y[1])}  # y'alpha = 0 (y_3^2 = 1)
    out.append(identity(
        MODEL, "weak duality: the gap as a sum of nonnegative terms",
        r"P(w, b, \xi) - D(\alpha) = \frac12\Big\|w - \sum_i \alpha_i y_i x_i\Big\|^2 + \sum_i \alpha_i\big[y_i(w^\top"
        r" x_i + b) - 1 + \xi_i\big] + \sum_i (C - \alpha_i)\,\xi_i",
        (primal - dual_objective()).subs(on_plane), gap_terms.subs(on_plane),
        f"{MIT}, 'Optimality Conditions'; {SLIDES}, Step 3",
        note=r"For $\sum_i \alpha_i y_i = 0$. When $(w, b, \xi)$ is primal feasible and $0 \le \alpha_i \le C$, all "
             r"three terms are $\ge 0$, so $P \ge D$ (weak duality). The gap is $0$ exactly when "
             r"$w = \sum_i \alpha_i y_i x_i$ and both complementary-slackness products vanish: "
             r"$\alpha_i g_i = 0$ and $(C - \alpha_i)\xi_i = 0$.",
        on=ON_SIGNS, instance=INSTANCE, quantity=r"P - D", cases=CASES,
        how=r"$\alpha_3$ eliminated by $\sum_i \alpha_i y_i = 0$"))
    w_star = sp.solve([sp.diff(L, wj) for wj in w], list(w), dict=True)[0]
    out.append(identity(
        MODEL, "stationarity in w",
        r"\frac{\partial L}{\partial w} = 0 \;\Rightarrow\; w = \sum_{i=1}^n \alpha_i y_i x_i",
        sp.Matrix([w_star[wj] for wj in w]), v,
        f"{SLIDES}, eq. (3); CISC 371 notes, eq. 30.9",
        note=r"$L$ is a convex quadratic in $w$; its gradient $w - \sum_i \alpha_i y_i x_i$ vanishes at one point.",
        on=ON, instance=INSTANCE, quantity="w", how=r"SymPy solved $\partial L / \partial w = 0$ for $w$"))
    out.append(identity(
        MODEL, "stationarity in b",
        r"\frac{\partial L}{\partial b} = -\sum_{i=1}^n \alpha_i y_i = 0",
        sp.diff(L, b), -sum(alpha[i] * y[i] for i in range(n)), "CISC 371 notes, eqs. 30.8-30.9",
        note=r"$L$ is linear in $b$: unless $\sum_i \alpha_i y_i = 0$ its infimum over $b$ is $-\infty$, so the "
             r"dual keeps only the $\alpha$ with $\sum_i \alpha_i y_i = 0$.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial L}{\partial b}",
        how=r"SymPy differentiated $L$ in $b$"))
    out.append(identity(
        MODEL, "stationarity in xi_i",
        r"\frac{\partial L}{\partial \xi_i} = C - \alpha_i - \mu_i = 0 \;\Rightarrow\; 0 \le \alpha_i \le C",
        sp.diff(L, xi[0]), C - alpha[0] - mu[0], f"{SLIDES}, eq. (4)",
        note=r"$\mu_i = C - \alpha_i \ge 0$ is the upper end of the box; $\alpha_i \ge 0$ is the lower end.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial L}{\partial \xi_1}",
        how=r"SymPy differentiated $L$ in $\xi_1$"))
    subs = {**{w[j]: v[j] for j in range(d)}, **{mu[i]: C - alpha[i] for i in range(n)}}
    L_sub = sp.expand(L.subs(subs))
    out.append(identity(
        MODEL, "dual objective after substitution",
        r"L\Big|_{w = \sum_i \alpha_i y_i x_i,\ \mu_i = C - \alpha_i} = \sum_i \alpha_i - \frac12 \sum_{i,j} \alpha_i"
        r" \alpha_j y_i y_j\, x_i^\top x_j - b\sum_i \alpha_i y_i",
        L_sub, dual_objective() - b * sum(alpha[i] * y[i] for i in range(n)),
        f"{SLIDES}, Step 4; {MIT}, 'Towards the Dual I'",
        note=r"The $\xi_i$ terms cancel because $C - \alpha_i - \mu_i = 0$; the $b$ term cancels once "
             r"$\sum_i \alpha_i y_i = 0$. What is left is the dual $D(\alpha)$.",
        on=ON, instance=INSTANCE, quantity=r"L", how="SymPy substituted both stationarity conditions into $L$"))
    dL_dC, dLsub_dC = sp.diff(L, C), sp.diff(L_sub, C)
    out.append(computed(
        MODEL, "C cancels from the dual",
        r"\frac{\partial L}{\partial C} = \sum_i \xi_i, \qquad \frac{\partial}{\partial C}\, L\Big|_{w = \sum_i "
        r"\alpha_i y_i x_i,\ \mu_i = C - \alpha_i} = 0",
        f"{SLIDES}, Step 5", sp.simplify(dL_dC - sum(xi)) == 0 and sp.simplify(dLsub_dC) == 0,
        note=r"$C$ enters $L$ through $C \sum_i \xi_i$; after $\mu_i = C - \alpha_i$ it cancels, so $C$ "
             r"survives only in the box $0 \le \alpha_i \le C$.",
        on=ON, instance=INSTANCE,
        check=r"SymPy differentiated $L$ in $C$ before the substitution (giving $\xi_1 + \xi_2 + \xi_3$) and after "
              r"it (giving $0$)",
        shown=shown_line(r"\frac{\partial L}{\partial C} =", dL_dC, r",\quad \frac{\partial L_{\mathrm{sub}}}"
                         r"{\partial C} =", dLsub_dC)))
    Yd = sp.diag(*y)
    mat = -sp.Rational(1, 2) * (alpha.T * Yd * X * X.T * Yd * alpha)[0] + sum(alpha)
    out.append(identity(
        MODEL, "matrix form of the dual",
        r"-\frac12\,\alpha^\top Y X X^\top Y \alpha + \mathbf{1}^\top \alpha = \sum_i \alpha_i - \frac12 \sum_{i,j}"
        r" \alpha_i \alpha_j y_i y_j\, x_i^\top x_j",
        mat, dual_objective(), "CISC 371 notes, eq. 30.10 (second line)",
        note=r"$Y = \operatorname{diag}(y)$ and $X$ has the points as rows, so $(Y X X^\top Y)_{ij} = y_i y_j\, "
             r"x_i^\top x_j$.",
        on=ON, instance=INSTANCE, quantity=r"D(\alpha)"))
    first_line = (sp.Rational(1, 2) * (alpha.T * Yd * X * X.T * Yd * alpha)[0]
                  + (alpha.T * (sp.ones(n, 1) - Yd * X * X.T * Yd * alpha - b * y))[0])
    out.append(identity(
        MODEL, "matrix form, first line",
        r"\frac12\alpha^\top Y X X^\top Y \alpha + \alpha^\top\big[\mathbf{1} - Y X X^\top Y \alpha - b\,y\big] = "
        r"-\frac12\alpha^\top Y X X^\top Y \alpha + \mathbf{1}^\top \alpha - b\, y^\top \alpha",
        first_line, mat - b * (alpha.T * y)[0], "CISC 371 notes, eq. 30.10 (first line)",
        note=r"Equal to the second line once $y^\top \alpha = 0$.",
        on=ON, instance=INSTANCE, quantity=r"L_D(\alpha, b)"))
    # the KKT table, derived from complementary slackness
    for name, value, expected, formula in (
            ("KKT: alpha_i = 0", 0, sp.Interval(1, sp.oo), r"\alpha_i = 0 \;\Rightarrow\; y_i f(x_i) \ge 1"),
            ("KKT: 0 < alpha_i < C", sp.Rational(1, 2), sp.FiniteSet(1),
             r"0 < \alpha_i < C \;\Rightarrow\; y_i f(x_i) = 1"),
            ("KKT: alpha_i = C", 1, sp.Interval(-sp.oo, 1), r"\alpha_i = C \;\Rightarrow\; y_i f(x_i) \le 1")):
        allowed = margin_set(value)
        out.append(computed(
            MODEL, name, formula, f"{MIT}, 'Interpreting the solution'", allowed == expected,
            note=r"With $g_i = y_i f(x_i) - 1 + \xi_i$ and $f(x) = w^\top x + b$: complementary slackness "
                 r"$\alpha_i g_i = 0$ and $\mu_i \xi_i = 0$, stationarity $\mu_i = C - \alpha_i$, and feasibility "
                 r"$g_i \ge 0$, $\xi_i \ge 0$, $\mu_i \ge 0$ leave exactly these margins.",
            on="with C = 1", instance=r"one point, $C = 1$, $\alpha_i = " + sp.latex(value) + r"$; the margin "
                                      r"$y_i f(x_i)$, $\xi_i$ and $\mu_i$ are unknowns",
            check=r"SymPy solved $\alpha_i g_i = 0$, $\mu_i \xi_i = 0$, $C - \alpha_i - \mu_i = 0$ and reduced "
                  r"the inequalities to the set of allowed margins",
            shown=shown_line(MARGIN, r"\in", allowed)))
    # the MIT lecture's two equivalences: alpha = C, xi = 0, mu = 0, y f = 1 satisfies every KKT condition
    yf, a_, xi_, mu_ = real_symbols("m alpha_j xi_j mu_j")
    g = yf - 1 + xi_
    kkt = [sp.Ge(g, 0), sp.Eq(a_ * g, 0), sp.Eq(mu_ * xi_, 0), sp.Eq(C - a_ - mu_, 0), sp.Ge(xi_, 0),
           sp.Ge(mu_, 0), sp.Gt(C, 0)]
    for name, printed_formula, formula, printed, point, point_latex, line in (
            ("alpha_j = C <=> y_j f(x_j) < 1", r"\alpha_j = C \iff y_j f(x_j) < 1",
             r"y_j f(x_j) < 1 \;\Rightarrow\; \alpha_j = C \;\Rightarrow\; y_j f(x_j) \le 1", sp.Lt(yf, 1),
             {a_: 1, C: 1, xi_: 0, mu_: 0, yf: 1},
             r"$\alpha_j = C = 1$, $\xi_j = 0$, $\mu_j = 0$, $y_j f(x_j) = 1$", "third"),
            ("alpha_j = 0 <=> y_j f(x_j) > 1", r"\alpha_j = 0 \iff y_j f(x_j) > 1",
             r"y_j f(x_j) > 1 \;\Rightarrow\; \alpha_j = 0 \;\Rightarrow\; y_j f(x_j) \ge 1", sp.Gt(yf, 1),
             {a_: 0, C: 1, xi_: 0, mu_: 1, yf: 1},
             r"$\alpha_j = 0$, $C = 1$, $\xi_j = 0$, $\mu_j = 1$, $y_j f(x_j) = 1$", "fourth")):
        out.append(counterexample(
            MODEL, name, formula, printed_formula, printed, point, kkt,
            f"{MIT}, 'Interpreting the solution', {line} line",
            note=r"Printed as an equivalence, but only the implication from the margin to $\alpha_j$ holds: a point "
                 r"exactly on the margin ($y_j f(x_j) = 1$) may have any $\alpha_j \in [0, C]$. The lecture's own "
                 r"first, second and fifth lines are the correct one-way statements, so this line is most likely an "
                 r"implication transcribed as an equivalence (a $\Leftarrow$ printed as $\iff$): read it as "
                 r"$y_j f(x_j) < 1 \Rightarrow \alpha_j = C$ (third line) and $y_j f(x_j) > 1 \Rightarrow \alpha_j = 0$ "
                 r"(fourth line), which hold.",
            on="on one point", instance=r"one point with $C = 1$ and margin $m = y_j f(x_j)$; the KKT conditions "
                                        r"$g_j = m - 1 + \xi_j \ge 0$, "
                                        r"$\alpha_j g_j = 0$, $\mu_j \xi_j = 0$, $C - \alpha_j - \mu_j = 0$, "
                                        r"$\xi_j \ge 0$, $\mu_j \ge 0$",
            point_latex=point_latex))
    # the hard margin is reached at a finite C
    Xh = sp.Matrix([[2, 0], [0, 0], [3, 1]])
    yh = [1, -1, 1]
    a_hard, w_hard, b_hard = hard_margin(Xh, yh)
    Cs = sp.Symbol("C", positive=True)
    box = sp.reduce_inequalities([sp.Le(a, Cs) for a in a_hard], Cs).as_set() & sp.Interval.open(0, sp.oo)
    # with xi = 0 and mu_i = C - alpha_i, the soft-margin KKT conditions at the hard-margin solution
    f_hard = [(w_hard.T * Xh[i, :].T)[0] + b_hard for i in range(3)]
    others_hold = all(yh[i] * f_hard[i] >= 1 and a_hard[i] * (yh[i] * f_hard[i] - 1) == 0 and a_hard[i] >= 0
                      for i in range(3)) and sum(a_hard[i] * yh[i] for i in range(3)) == 0
    c_star = max(a_hard)
    out.append(computed(
        MODEL, "hard margin at a finite C",
        r"C \ge C^\star = \max_i \alpha_i^{\mathrm{hard}} \;\Rightarrow\; (w, b)_{C}^{\mathrm{soft}} = "
        r"(w, b)^{\mathrm{hard}}",
        "CISC 371 notes, eq. 30.10 and its constraints", others_hold and box == sp.Interval(c_star, sp.oo),
        note=r"The soft-margin dual is the hard-margin dual with the extra bound $\alpha_i \le C$. Once $C$ is at "
             r"least the largest hard-margin multiplier, the hard-margin solution (with $\xi = 0$, "
             r"$\mu_i = C - \alpha_i$) satisfies every soft-margin KKT condition, so the two solutions coincide "
             r"exactly at a finite $C$, not only in the limit $C \to \infty$.",
        on="on a separable 3-point instance",
        instance=r"$x_1 = (2, 0)$, $x_2 = (0, 0)$, $x_3 = (3, 1)$ with $y = (1, -1, 1)$",
        check=r"SymPy solved the hard-margin dual exactly (every active set tried), checked the remaining KKT "
              r"conditions with $\xi = 0$, and reduced $\alpha_i^{\mathrm{hard}} \le C$ to an interval of $C$",
        shown=shown_line(r"\alpha^{\mathrm{hard}} =", sp.Matrix(a_hard).T, r",\quad C \in", box)))
    # the MIT lecture: 1/n sum V_i + lambda |f|^2 and C sum V_i + 1/2 |f|^2 have the same minimisers
    lam = sp.Symbol("lambda", positive=True)
    N = sp.Symbol("n", positive=True, integer=True)
    i_ = sp.Symbol("i", integer=True)
    hinge_sum = sp.Sum(sp.Function("V")(sp.Indexed("y", i_), f(sp.Indexed("x", i_))), (i_, 1, N))
    norm2 = sp.Symbol(r"\|f\|_{\mathcal{H}}^{2}", nonnegative=True)
    scaled = (hinge_sum / N + lam * norm2) / (2 * lam)
    out.append(identity(
        MODEL, "C = 1/(2 lambda n)",
        r"\frac{1}{2\lambda}\Big(\frac1n \sum_{i=1}^n V_i + \lambda\|f\|_{\mathcal{H}}^2\Big) = C \sum_{i=1}^n V_i + "
        r"\frac12\|f\|_{\mathcal{H}}^2, \quad C = \frac{1}{2\lambda n}",
        scaled, hinge_sum / (2 * lam * N) + norm2 / 2, f"{MIT}, 'SVM Standard Notation'",
        note=r"$V_i = V(y_i, f(x_i)) = (1 - y_i f(x_i))_+$ is the hinge loss of point $i$. Dividing an objective by "
             r"$2\lambda > 0$ does not move its minimisers, so the two formulations agree for $C = 1/(2\lambda n)$.",
        on="for symbolic n and lambda", instance=r"symbolic $n$ and $\lambda > 0$; the losses $V_i = V(y_i, f(x_i))$ and the norm "
                                                        r"$\|f\|_{\mathcal{H}}^2$ enter as symbols",
        quantity=r"\frac{1}{2\lambda}\Big(\frac1n \sum_i V_i + \lambda\|f\|_{\mathcal{H}}^2\Big)"))
    out.append(representer_caveat())
    out.append(nonseparable_primal_erratum())
    out.append(closest_points_erratum())
    out.extend(numeric_checks())
    return out


#: The course's worked example (notebooks 01, 02, 04): x1 = (0, 0), y1 = -1; x2 = (2, 0), x3 = (0, 2), y = +1.
WORKED_X = sp.Matrix([[0, 0], [2, 0], [0, 2]])
WORKED_Y = [-1, 1, 1]
WORKED = (r"the course's three points $x_1 = (0, 0)$, $y_1 = -1$; $x_2 = (2, 0)$, $x_3 = (0, 2)$, "
          r"$y_2 = y_3 = +1$")


def nonseparable_primal_erratum():
    """MIT 9.520 prints the non-separable primal without xi >= 0 (and without C): it is a different problem.

    Minimised over xi for a fixed w, the printed problem is n - w' sum_i y_i x_i + ||w||^2 (each slack sits on
    its constraint, whatever its sign), minimised at w = (1/2) sum_i y_i x_i for every data set.  With
    xi >= 0 restored the problem is 2 times the SVM without bias at C = 1/2.  On the course's three points the
    printed problem gives w = (1, 1), the SVM (1/2, 1/2).
    """
    wv = sp.Matrix(real_symbols("w1:3"))
    ys = WORKED_Y
    printed_obj = sum(1 - ys[i] * (wv.T * WORKED_X[i, :].T)[0] for i in range(3)) + (wv.T * wv)[0]
    sol = sp.solve([sp.diff(printed_obj, v) for v in wv], list(wv), dict=True)[0]
    w_printed = sp.Matrix([sol[v] for v in wv])
    general = sp.Rational(1, 2) * sum((ys[i] * WORKED_X[i, :].T for i in range(3)), sp.zeros(2, 1))
    # with xi >= 0: min 1/2 |w|^2 + (1/2) sum max(0, 1 - y_i w'x_i) (the printed objective halved), no bias.
    # K = diag(0, 4, 4) and Q = K here; the box dual max 1'a - 1/2 a'Qa, 0 <= a <= 1/2, splits by coordinate:
    # a_1 = 1/2 (Q_11 = 0), a_j = min(1/2, 1/4) = 1/4 for j = 2, 3; w = sum_i a_i y_i x_i
    Ch = sp.Rational(1, 2)
    a = [Ch, sp.Min(Ch, sp.Rational(1, 4)), sp.Min(Ch, sp.Rational(1, 4))]
    w_svm = WORKED_X.T * sp.Matrix([a[i] * ys[i] for i in range(3)])
    # the SVM's KKT conditions at w_svm: margins y_i w'x_i and the box conditions on a
    margins = [ys[i] * (w_svm.T * WORKED_X[i, :].T)[0] for i in range(3)]
    kkt_ok = all((a[i] == 0 and margins[i] >= 1) or (a[i] == Ch and margins[i] <= 1)
                 or (0 < a[i] < Ch and margins[i] == 1) for i in range(3))
    printed_value = printed_obj.subs(dict(zip(wv, w_printed)))
    hinge_value = (w_printed.T * w_printed)[0] + sum(sp.Max(0, 1 - ys[i] * (w_printed.T * WORKED_X[i, :].T)[0])
                                                    for i in range(3))
    return erratum(
        MODEL, "MIT 9.520's non-separable primal: xi >= 0 missing",
        r"\min_{w, \xi} \sum_i \xi_i + \|w\|^2 \ \text{s.t.}\ y_i w^\top x_i \ge 1 - \xi_i,\ \xi_i \ge 0"
        r"\quad(\text{the SVM without bias at } C = \tfrac12,\ \text{times } 2)",
        r"\min_{w, \xi} \sum_i \xi_i + \|w\|^2 \ \text{s.t.}\ y_i w^\top x_i \ge 1 - \xi_i",
        w_printed, w_svm, f"{MIT}, 'Maximal Margin Classification, Non-separable case'",
        note=r"Without $\xi_i \ge 0$ a point beyond its margin earns a negative slack, a reward. For a fixed $w$ the "
             r"best slack is $\xi_i = 1 - y_i w^\top x_i$, whatever its sign, and the printed problem becomes "
             r"$n - w^\top \sum_i y_i x_i + \|w\|^2$: bounded, but minimised at $w = \tfrac12 \sum_i y_i x_i$ for "
             r"every data set, the difference of the class sums, with every point weighing the same. That is not "
             r"the SVM, whose solution depends only on its support vectors. The slide also has no $C$: with "
             r"$\xi_i \ge 0$ restored it is twice the SVM without bias at $C = \tfrac12$ (a convention, not an "
             r"error). On the course's three points the printed problem gives $w = (1, 1)$ with objective "
             r"$1$ (negative slacks included); the SVM gives $w = (\tfrac12, \tfrac12)$.",
        on="on the course's three points", instance=WORKED + r"; no bias, as printed",
        also=[(r"SymPy minimised $\sum_i (1 - y_i w^\top x_i) + \|w\|^2$ over $w$ and found "
               r"$\tfrac12 \sum_i y_i x_i$", sp.simplify(w_printed - general) == sp.zeros(2, 1)),
              (r"the SVM's $\alpha = (\tfrac12, \tfrac14, \tfrac14)$ at $C = \tfrac12$ satisfies every KKT "
               r"condition", kkt_ok),
              (r"the printed problem's value at its minimiser ($1$) is below the SVM objective there "
               r"($\|w\|^2 + \sum_i \max(0, 1 - y_i w^\top x_i) = 3$)", printed_value < hinge_value)],
        verdict="the printed problem has a different minimiser: w = (1, 1) against the SVM's (1/2, 1/2)")


def closest_points_erratum():
    """MIT 9.520's 'closest two points' of the two classes: the closest points of their convex hulls.

    On the course's three points the closest pairs of data points, (0, 0)-(2, 0) and (0, 0)-(0, 2), join along
    (2, 0) and (0, 2), neither parallel to the max-margin normal w = (1, 1); the closest points of the hulls,
    (0, 0) and (1, 1), join along (1, 1), and (1, 1) is not a data point.
    """
    a_hard, w_hard, b_hard = hard_margin(WORKED_X, WORKED_Y)
    pos = [WORKED_X[i, :].T for i in range(3) if WORKED_Y[i] > 0]
    neg = [WORKED_X[i, :].T for i in range(3) if WORKED_Y[i] < 0]
    dist2 = {(p, q): ((pos[p] - neg[q]).T * (pos[p] - neg[q]))[0] for p in range(len(pos)) for q in range(len(neg))}
    best = min(dist2.values())
    closest_pairs = [pos[p] - neg[q] for (p, q), v in dist2.items() if v == best]

    def parallel(u, v):
        return sp.simplify(u[0] * v[1] - u[1] * v[0]) == 0

    # the closest point of the positive hull {t x2 + (1 - t) x3, 0 <= t <= 1} to the negative hull {x1}
    t = sp.Symbol("t", real=True)
    p_t = t * pos[0] + (1 - t) * pos[1]
    gap2 = sp.expand(((p_t - neg[0]).T * (p_t - neg[0]))[0])
    t_star = [r for r in sp.solve(sp.diff(gap2, t), t) if 0 <= r <= 1][0]
    hull_p = p_t.subs(t, t_star)
    hull_dir = hull_p - neg[0]
    data_points = [WORKED_X[i, :].T for i in range(3)]
    midpoint = (hull_p + neg[0]) / 2
    on_bisector = sp.simplify((w_hard.T * midpoint)[0] + b_hard) == 0
    printed = sp.Matrix([[v[0], v[1]] for v in closest_pairs])
    derived = sp.Matrix([[hull_dir[0], hull_dir[1]]] * len(closest_pairs))
    step = erratum(
        MODEL, "the closest two points: of the hulls",
        r"w \parallel p^\star - q^\star, \quad (p^\star, q^\star) = \arg\min\{\|p - q\| : p \in "
        r"\operatorname{conv}\{x_i : y_i = +1\},\ q \in \operatorname{conv}\{x_i : y_i = -1\}\}",
        r"w \parallel x_p - x_q, \quad (x_p, x_q) \text{ the closest two points of the two classes}",
        printed, derived, f"{MIT}, 'More Historical Perspective'",
        note=r"The hard-margin dual, with $\sum_{y_i = +1} \alpha_i = \sum_{y_i = -1} \alpha_i$, is the search "
             r"for the closest points of the two convex hulls; the maximum-margin normal joins them, and the "
             r"hyperplane is their perpendicular bisector. Those points are generally not data points. On the "
             r"course's three points both closest pairs of data points, $(0, 0)$-$(2, 0)$ and $(0, 0)$-$(0, 2)$ "
             r"(distance $2$), point along $(2, 0)$ and $(0, 2)$, neither parallel to $w = (1, 1)$; the hulls' closest "
             r"points are $(0, 0)$ and $(1, 1)$, and $(1, 1)$, the middle of the segment from $x_2$ to $x_3$, is not a "
             r"data point.",
        on="on the course's three points", instance=WORKED,
        also=[(r"SymPy solved the hard margin exactly: $w = (1, 1)$, $b = -1$",
               list(w_hard) == [1, 1] and b_hard == -1),
              (r"no closest pair of data points is parallel to $w$",
               not any(parallel(v, w_hard) for v in closest_pairs)),
              (r"the closest point of the positive hull, $(1, 1)$, joins $(0, 0)$ along $w$ and is no data point",
               parallel(hull_dir, w_hard) and list(hull_p) == [1, 1] and hull_p not in data_points),
              (r"the hyperplane $w^\top x + b = 0$ passes through the midpoint $(\tfrac12, \tfrac12)$", on_bisector)],
        verdict="the closest data points join along (2, 0) and (0, 2), the hulls' closest points along w = (1, 1)")
    step.shown = shown_line(r"x_2 - x_1 =", closest_pairs[0].T, r",\ x_3 - x_1 =", closest_pairs[1].T,
                            r";\quad p^\star - q^\star =", hull_dir.T, r",\ w =", w_hard.T)
    return step


def representer_caveat():
    """The MIT lecture's c_i = alpha_i y_i: one solution of K c = K (alpha o y), the only one if K is nonsingular."""
    a1, a2, y1, y2, t = real_symbols("alpha_1 alpha_2 y_1 y_2 t")
    ay = sp.Matrix([a1 * y1, a2 * y2])
    # the stationarity condition itself, for a general symmetric K: dL/dc = K c - K (alpha o y)
    k11, k12, k22 = real_symbols("K_11 K_12 K_22")
    K = sp.Matrix([[k11, k12], [k12, k22]])
    c = sp.Matrix(real_symbols("c_1 c_2"))
    xi2 = sp.Matrix(real_symbols("xi_1 xi_2"))
    L = (C * sum(xi2) + sp.Rational(1, 2) * (c.T * K * c)[0]
         - sum([a1, a2][i] * ([y1, y2][i] * (K[i, :] * c)[0] - 1 + xi2[i]) for i in range(2)))
    grad_ok = all(sp.expand(gc - rc) == 0 for gc, rc in zip([sp.diff(L, ci) for ci in c], K * c - K * ay))
    unique = sp.solve(list(K * c - K * ay), list(c), dict=True) == [{c[0]: a1 * y1, c[1]: a2 * y2}]
    # two identical points: K = [[1, 1], [1, 1]] is singular and c = alpha o y + t (1, -1) also solves it
    K2 = sp.Matrix([[1, 1], [1, 1]])
    c_alt = ay + t * sp.Matrix([1, -1])
    singular = K2.det() == 0 and all(sp.expand(v) == 0 for v in K2 * (c_alt - ay))
    return computed(
        MODEL, "dL/dc = 0 => c_i = alpha_i y_i",
        r"\frac{\partial L}{\partial c} = K c - K(\alpha \circ y) = 0 \;\Rightarrow\; c = \alpha \circ y + u, \quad "
        r"K u = 0",
        f"{MIT}, 'Lagrangian and Dual', (1)", grad_ok and unique and singular, status=CAVEAT,
        printed_formula=r"\frac{\partial L}{\partial c} = 0 \implies c_i = \alpha_i y_i",
        note=r"The lecture's step needs a nonsingular $K$. With a singular $K$ (two identical points give "
             r"$K = \begin{pmatrix} 1 & 1 \\ 1 & 1 \end{pmatrix}$) every $c = \alpha \circ y + t\,(1, -1)$ solves "
             r"$K c = K(\alpha \circ y)$. All of them give the same $f = K c$ and the same $c^\top K c$, so choosing "
             r"$c = \alpha \circ y$ loses nothing; the dual is unchanged.",
        on="on 2-point instances", verdict="c = alpha o y is one solution; the only one when K is nonsingular",
        instance=r"$2$ points: a symbolic symmetric $K$ with $\det K \ne 0$, and $K = \begin{pmatrix} 1 & 1 \\ "
                 r"1 & 1 \end{pmatrix}$",
        check=r"SymPy differentiated $L$ in $c$ (giving $Kc - K(\alpha \circ y)$), solved $Kc = K(\alpha \circ y)$ "
              r"for a symbolic $K$ (the only solution is $c = \alpha \circ y$ where $\det K \ne 0$), and checked that "
              r"$K(\alpha \circ y + t(1, -1)) = K(\alpha \circ y)$ for every $t$ when $K$ is singular",
        shown=shown_line(r"K \big(\alpha \circ y + t\,(1, -1)^\top\big) - K(\alpha \circ y) =",
                         K2 * (c_alt - ay), r"\ \text{for } K =", K2))


def numeric_checks():
    """The dual the solvers report, against the lambdified derivation."""
    from ..objectives import dual as obj_dual
    from ..problems import BinaryProblem

    D = sp.lambdify([list(X), list(y), list(alpha)], dual_objective(), "numpy")
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        yn = rng.permutation([1.0, -1.0, rng.choice([-1.0, 1.0])])
        Cn = rng.uniform(0.5, 5.0)
        an = rng.uniform(0, Cn, n)
        p = BinaryProblem(Xn, yn, C=Cn)
        pairs.append((obj_dual(p, an), D(Xn.ravel(), yn, an)))
    return [numeric(MODEL, "dual objective, objectives.dual",
                    r"D(\alpha) = \sum_i \alpha_i - \frac12 \sum_{i,j} \alpha_i \alpha_j y_i y_j\, x_i^\top x_j",
                    "svmteach.objectives.dual", pairs,
                    note="The dual every binary solver reports, computed by the library from its cached scores.",
                    what=r"$D(\alpha)$ from `svmteach.objectives.dual` against the derived $D(\alpha)$")]
