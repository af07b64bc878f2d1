"""The binary soft-margin SVM: Lagrangian, stationarity, dual, KKT table, hard margin, matrix form.

Sizes n = 3, d = 2; the data, labels and multipliers are free symbols (labels in {-1, +1}).
Sources: seed 001 (matrix form, eqs. 30.7-30.10), seed 002 ('Dual Solver - Formulation'),
seed 003 ('Lagrangian and Dual', 'Optimality Conditions', 'Interpreting the solution').
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, counterexample, erratum, holds, numeric, real_symbols, sign_cases

MODEL = "binary soft margin"
n, d = 3, 2
X = sp.Matrix(n, d, lambda i, j: sp.Symbol(f"x_{i + 1}{j + 1}", real=True))
y = sp.Matrix(real_symbols("y1:4"))
alpha = sp.Matrix(real_symbols("alpha1:4"))
beta = sp.Matrix(real_symbols("beta1:4"))
xi = sp.Matrix(real_symbols("xi1:4"))
w = sp.Matrix(real_symbols("w1:3"))
b, C, lam = real_symbols("b C lambda")
CASES = sign_cases(list(y))


def x(i):
    return X[i, :].T


def dual_objective():
    """:math:`\\sum_i \\alpha_i - \\frac12 \\sum_{ij} \\alpha_i \\alpha_j y_i y_j x_i^\\top x_j`."""
    return sum(alpha) - sp.Rational(1, 2) * sum(
        alpha[i] * alpha[j] * y[i] * y[j] * (x(i).T * x(j))[0] for i in range(n) for j in range(n))


def steps():
    out = []
    f = [(w.T * x(i))[0] + b for i in range(n)]
    primal = sp.Rational(1, 2) * (w.T * w)[0] + C * sum(xi)
    L = primal - sum(alpha[i] * (y[i] * f[i] - 1 + xi[i]) for i in range(n)) - sum(beta[i] * xi[i] for i in range(n))
    out.append(holds(MODEL, "Lagrangian", sp.Eq(sp.Symbol("L"), L), True,
                     "seed 002, 'Step 1: Lagrangian Form'; seed 001, eq. 30.7",
                     "the definition: alpha_i >= 0 for the margin constraints, beta_i >= 0 for xi_i >= 0"))
    w_star = sp.solve([sp.diff(L, wj) for wj in w], list(w), dict=True)[0]
    w_claim = sum((alpha[i] * y[i] * x(i) for i in range(n)), sp.zeros(d, 1))
    out.append(claim(MODEL, "stationarity in w", sp.Matrix([w_star[wj] for wj in w]), w_claim,
                     "seed 002, eq. (3); seed 001, eq. 30.9", "w = sum_i alpha_i y_i x_i"))
    out.append(claim(MODEL, "stationarity in b", sp.diff(L, b), -sum(alpha[i] * y[i] for i in range(n)),
                     "seed 001, eq. 30.8", "so sum_i alpha_i y_i = 0"))
    out.append(claim(MODEL, "stationarity in xi_i", sp.diff(L, xi[0]), C - alpha[0] - beta[0],
                     "seed 002, eq. (4)", "alpha_i + beta_i = C, and beta_i >= 0 gives the box 0 <= alpha_i <= C"))
    subs = {**{w[j]: w_claim[j] for j in range(d)}, **{beta[i]: C - alpha[i] for i in range(n)}}
    L_sub = sp.expand(L.subs(subs))
    out.append(claim(MODEL, "dual objective after substitution", L_sub,
                     dual_objective() - b * sum(alpha[i] * y[i] for i in range(n)),
                     "seed 002, 'Step 4'; seed 003, 'Towards the Dual'",
                     "the xi terms vanish; the b term vanishes by sum alpha_i y_i = 0"))
    out.append(holds(MODEL, "dual does not depend on C", sp.Eq(sp.diff(dual_objective(), C), 0),
                     sp.diff(dual_objective(), C) == 0, "seed 002, 'Step 5'",
                     "C enters only through the box alpha_i <= C"))
    # matrix form (seed 001): Y = diag(y)
    Yd = sp.diag(*y)
    mat = -sp.Rational(1, 2) * (alpha.T * Yd * X * X.T * Yd * alpha)[0] + sum(alpha)
    out.append(claim(MODEL, "matrix form of the dual", mat, dual_objective(), "seed 001, eq. 30.10 (second line)"))
    first_line = (sp.Rational(1, 2) * (alpha.T * Yd * X * X.T * Yd * alpha)[0]
                  + (alpha.T * (sp.ones(n, 1) - Yd * X * X.T * Yd * alpha - b * y))[0])
    out.append(claim(MODEL, "matrix form, first line", first_line, mat - b * (alpha.T * y)[0],
                     "seed 001, eq. 30.10 (first line)", "equal to the second line once y' alpha = 0"))
    # KKT table (seed 003): complementary slackness alpha_i g_i = 0, beta_i xi_i = 0, g_i = y_i f_i - 1 + xi_i
    yf, a_, xi_ = real_symbols("yf alpha_i xi_i")
    g = yf - 1 + xi_
    free = sp.solve([g, xi_], [yf, xi_], dict=True)[0]  # alpha in (0, C): both multipliers positive
    out.append(holds(MODEL, "KKT: 0 < alpha_i < C", sp.Eq(sp.Symbol("y_i f(x_i)"), free[yf]), free[yf] == 1,
                     "seed 003, 'Interpreting the solution'", "alpha_i > 0 and beta_i = C - alpha_i > 0: on the margin"))
    at_zero = sp.solve([xi_], [xi_], dict=True)[0]  # beta_i = C > 0 forces xi_i = 0; feasibility g >= 0
    out.append(holds(MODEL, "KKT: alpha_i = 0", sp.Ge(yf, 1), sp.simplify(g.subs(at_zero) - (yf - 1)) == 0,
                     "seed 003, 'Interpreting the solution'", "beta_i = C forces xi_i = 0, then y_i f_i - 1 >= 0"))
    at_C = sp.solve([g], [yf], dict=True)[0]  # alpha_i = C > 0: constraint active, xi_i >= 0
    out.append(holds(MODEL, "KKT: alpha_i = C", sp.Eq(sp.Symbol("y_i f(x_i)"), at_C[yf]), at_C[yf] == 1 - xi_,
                     "seed 003, 'Interpreting the solution'", "y_i f_i = 1 - xi_i <= 1: inside the margin or beyond"))
    # seed 003 states alpha = C <=> y f < 1: the KKT system admits alpha = C with y f = 1
    zeta_ = sp.Symbol("zeta_i", real=True)
    kkt = [sp.Ge(g, 0), sp.Eq(a_ * g, 0), sp.Eq(zeta_ * xi_, 0), sp.Eq(C - a_ - zeta_, 0), sp.Ge(xi_, 0),
           sp.Ge(zeta_, 0), sp.Gt(C, 0)]
    out.append(counterexample(MODEL, "alpha_j = C <=> y_j f(x_j) < 1", sp.Lt(yf, 1),
                              {a_: 1, C: 1, xi_: 0, zeta_: 0, yf: 1}, kkt,
                              "seed 003, 'Interpreting the solution', third line",
                              "printed as an equivalence; only 'y f < 1 => alpha = C' holds. alpha = C, xi = 0, "
                              "zeta = 0, y f = 1 satisfies every KKT condition, so alpha = C allows y f = 1: "
                              "the correct statement is alpha = C => y f <= 1"))
    out.append(counterexample(MODEL, "alpha_j = 0 <=> y_j f(x_j) > 1", sp.Gt(yf, 1),
                              {a_: 0, C: 1, xi_: 0, zeta_: 1, yf: 1}, kkt,
                              "seed 003, 'Interpreting the solution', fourth line",
                              "printed as an equivalence; only 'y f > 1 => alpha = 0' holds. alpha = 0, xi = 0, "
                              "zeta = C, y f = 1 satisfies every KKT condition: alpha = 0 => y f >= 1"))
    # hard margin: the box disappears as C -> oo
    out.append(holds(MODEL, "hard margin as C -> oo", sp.Eq(sp.Limit(sp.Interval(0, C), C, sp.oo), sp.Interval(0, sp.oo)),
                     sp.limit(C, C, sp.oo) == sp.oo, "seed 001, eq. 30.10 and its constraints",
                     "the dual is the same function; only alpha_i <= C is lost, leaving alpha_i >= 0"))
    # seed 003: 1/n sum V + lambda |f|^2 and C sum V + 1/2 |f|^2 have the same minimisers for C = 1/(2 lambda n)
    V, F2, nn = real_symbols("V F2 n", positive=True)
    out.append(claim(MODEL, "C = 1/(2 lambda n)", (V / nn + lam * F2) / (2 * lam),
                     (1 / (2 * lam * nn)) * V + F2 / 2, "seed 003, 'The SVM' (two formulations)",
                     "dividing by 2 lambda > 0 keeps the minimisers"))
    # seed 003: representer c = alpha y is one solution of K c = K (alpha y); with a singular K there are more
    K2 = sp.Matrix([[1, 1], [1, 1]])  # two identical points
    a1, a2, y1, y2, t = real_symbols("a1 a2 y1 y2 t")
    c_alt = sp.Matrix([a1 * y1 + t, a2 * y2 - t])
    out.append(erratum(MODEL, "dL/dc = 0 => c_i = alpha_i y_i", (K2 * (c_alt - sp.Matrix([a1 * y1, a2 * y2])))[0] + t,
                       sp.Integer(0), "seed 003, 'Lagrangian and Dual', (1)",
                       "dL/dc = K c - K (alpha o y) = 0 gives c = alpha o y only when K is nonsingular; with "
                       "duplicate points (K = [[1, 1], [1, 1]]) c = alpha o y + t (1, -1) solves it for every t. "
                       "f = K c is the same for all of them, so the choice c = alpha o y loses nothing"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """The dual and primal the solvers evaluate, against the lambdified derivation."""
    from ..objectives import dual as obj_dual
    from ..problems import BinaryProblem

    rng = np.random.default_rng(0)
    Xn = rng.normal(size=(n, d))
    yn = np.array([1.0, -1.0, 1.0])
    an = rng.uniform(0, 1, n)
    D = sp.lambdify([list(X), list(y), list(alpha)], dual_objective(), "numpy")
    p = BinaryProblem(Xn, yn, C=1.0)
    return [numeric(MODEL, "dual objective, objectives.dual", obj_dual(p, an), D(Xn.ravel(), yn, an),
                    "svmteach.objectives.dual", "the function every binary solver reports")]
