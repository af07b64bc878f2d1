"""The Crammer-Singer dual (seed 002): Lagrangian, the dual with C_i^m, the partial gradient,
the exact block problem and its change of variables into a simplex projection.

Sizes n = 3, d = 2, k = 3 with labels y = (1, 2, 0) (so that sample and class indices differ);
data, C and the multipliers are free symbols.  Sources: seed 002, 'Crammer Singer SVM',
'Dual Form', 'Blondel SVM Algorithm' and the slides after it; Blondel et al. (2014).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, counterexample, erratum, holds, numeric, real_symbols

MODEL = "Crammer-Singer"
n, d, k = 3, 2, 3
labels = (1, 2, 0)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
C = sp.Symbol("C", positive=True)
A = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"alpha_{i + 1}^{m + 1}", real=True))


def x(i):
    return X[i, :].T


def Delta(i, m):
    return 0 if m == labels[i] else 1


def upper(i, m):
    """:math:`C_i^m = C [m = y_i]`."""
    return C if m == labels[i] else 0


def weights(Am=A):
    """(k, d) with :math:`w_m = \\sum_i \\alpha_i^m x_i`."""
    return sp.Matrix.vstack(*[sum((Am[i, m] * x(i).T for i in range(n)), sp.zeros(1, d)) for m in range(k)])


def dual(Am=A):
    """:math:`f(\\alpha) = \\frac12 \\sum_m \\|w_m\\|^2 + \\sum_{i,m} \\Delta_i^m \\alpha_i^m` (minimised)."""
    W = weights(Am)
    return sp.Rational(1, 2) * sum(v ** 2 for v in W) + sum(Delta(i, m) * Am[i, m] for i in range(n) for m in range(k))


def steps():
    out = []
    Wsym = sp.Matrix(k, d, lambda m, c: sp.Symbol(f"w_{m + 1}{c + 1}", real=True))
    xi = real_symbols("xi1:4")
    B = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"beta_{i + 1}^{m + 1}", real=True))
    # constraints w_{y_i}'x_i - w_m'x_i >= Delta_i^m - xi_i for every m (m = y_i gives xi_i >= 0)
    L = sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + C * sum(xi) + sum(
        B[i, m] * (Delta(i, m) - xi[i] - ((Wsym[labels[i], :] - Wsym[m, :]) * x(i))[0])
        for i in range(n) for m in range(k))
    out.append(holds(MODEL, "Lagrangian", sp.Eq(sp.Symbol("L"), L), True, "seed 002, 'Crammer Singer SVM'",
                     "beta_i^m >= 0 for w_{y_i}'x_i - w_m'x_i >= Delta_i^m - xi_i, every m"))
    out.append(claim(MODEL, "stationarity in xi_i", sp.diff(L, xi[0]), C - sum(B[0, :]), "Blondel et al. (2014)",
                     "sum_m beta_i^m = C"))
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    alpha_of_beta = sp.Matrix(n, k, lambda i, m: upper(i, m) - B[i, m])
    out.append(claim(MODEL, "stationarity in W", Wsym.subs(sol).subs({B[i, labels[i]]: C - sum(
        B[i, m] for m in range(k) if m != labels[i]) for i in range(n)}), weights(alpha_of_beta).subs(
        {B[i, labels[i]]: C - sum(B[i, m] for m in range(k) if m != labels[i]) for i in range(n)}),
        "seed 002, 'Dual Form'", "w_m = sum_i alpha_i^m x_i with alpha_i^m = C [m = y_i] - beta_i^m, so "
        "alpha_i^m <= C_i^m and sum_m alpha_i^m = 0"))
    L_dual = L.subs(sol).subs({xi[i]: 0 for i in range(n)})
    elim = {B[i, labels[i]]: C - sum(B[i, m] for m in range(k) if m != labels[i]) for i in range(n)}
    out.append(claim(MODEL, "dual objective", sp.expand(L_dual.subs(elim)), sp.expand(-dual(alpha_of_beta).subs(elim)),
                     "seed 002, 'Dual Form'", "min f(alpha) = 1/2 sum_m |sum_i alpha_i^m x_i|^2 + sum Delta_i^m alpha_i^m"))
    printed_C = sp.Matrix(n, k, lambda i, m: C if i == labels[i] else 0)
    derived_C = sp.Matrix(n, k, lambda i, m: upper(i, m))
    out.append(erratum(MODEL, "the bounds C_i^m", printed_C, derived_C, "seed 002, 'Dual Form', last line",
                       "printed 'C_i^m = C when i = y_i else 0', comparing a sample index with a label; the bound "
                       "is C when m = y_i (from alpha_i^m = C [m = y_i] - beta_i^m)"))
    i = 0
    W = weights()
    g = sp.Matrix([sp.diff(dual(), A[i, m]) for m in range(k)])
    g_claim = sp.Matrix([(W[m, :] * x(i))[0] + Delta(i, m) for m in range(k)])
    out.append(claim(MODEL, "partial gradient g_i^m", g, g_claim, "seed 002, 'Calculate gradient'",
                     "g_i^m = w_m'x_i + Delta_i^m"))
    printed_g = sp.Matrix([(W[m, :] * x(i))[0] + 1 - (2 if m == labels[i] else 0) for m in range(k)])
    out.append(erratum(MODEL, "Algorithm 3, line 6", printed_g, g_claim, "seed 002, Algorithm 3, line 6",
                       "printed 'g_i <- W x_i + 1; g_i[y_i] <- g_i[y_i] - 2' gives g_i^{y_i} = w_{y_i}'x_i - 1; the "
                       "derivative is w_{y_i}'x_i (Delta_i^{y_i} = 0), so subtract 1, not 2. The sample's violation "
                       "and the projection's input both use g_i"))
    delta = sp.Matrix(real_symbols("delta1:4"))
    moved = A.copy()
    for m in range(k):
        moved[i, m] = A[i, m] + delta[m]
    q = (x(i).T * x(i))[0]
    exact = sp.expand(dual(moved) - dual() - (g.T * delta)[0])
    out.append(claim(MODEL, "the block problem is exact", exact, sp.expand(q / 2 * (delta.T * delta)[0]),
                     "seed 002, 'Taylor Expansion' (corrected)",
                     "f(alpha + delta_i) = f(alpha) + g_i'delta_i + 1/2 |x_i|^2 |delta_i|^2: H_i = |x_i|^2 I"))
    out.append(erratum(MODEL, "Taylor expansion's quadratic term", sp.expand((delta.T * delta)[0] / 2),
                       sp.expand(q / 2 * (delta.T * delta)[0]), "seed 002, 'Taylor Expansion', second line",
                       "printed '1/2 |delta_i|^2'; the Hessian is |x_i|^2 I, so 1/2 |x_i|^2 |delta_i|^2 (equal only "
                       "for |x_i| = 1). The change of variables on the next slides uses |x_i| correctly"))
    r = sp.Symbol("r", positive=True)  # |x_i|
    beta = sp.Matrix(real_symbols("b1:4"))
    Ci = sp.Matrix([upper(i, m) for m in range(k)])
    ai = A[i, :].T
    gs = sp.Matrix(real_symbols("g1:4"))
    d_of_beta = Ci - ai - beta / r
    beta_hat = r * (Ci - ai) + gs / r
    obj_delta = r ** 2 / 2 * (d_of_beta.T * d_of_beta)[0] + (gs.T * d_of_beta)[0]
    proj = sp.Rational(1, 2) * ((beta - beta_hat).T * (beta - beta_hat))[0]
    out.append(claim(MODEL, "change of variables: a projection",
                     sp.Matrix([sp.diff(obj_delta - proj, v) for v in beta]), sp.zeros(k, 1),
                     "seed 002, 'Change in variables' and 'Simplex'",
                     "with delta = C_i - alpha_i - beta/|x_i| the block is min 1/2 |beta - beta_hat|^2, "
                     "beta_hat = |x_i|(C_i - alpha_i) + g_i/|x_i|"))
    sum_zero = {A[i, labels[i]]: -sum(A[i, m] for m in range(k) if m != labels[i])}
    out.append(claim(MODEL, "the simplex's mass z", sp.expand(r * sum(Ci - ai - d_of_beta).subs(sum_zero)),
                     sp.expand(sum(beta)), "seed 002, 'Simplex'",
                     "1'delta = 0 <=> 1'beta = r 1'(C_i - alpha_i) = C |x_i| = z; delta <= C_i - alpha_i <=> beta >= 0"))
    # seed 002's KKT list is the box-constrained one; CS has an equality constraint per sample
    a0, a1, a2, lam = real_symbols("a0 a1 a2 lambda")
    f1 = sp.Rational(1, 2) * (a0 ** 2 + a1 ** 2 + a2 ** 2) + a1 + a2  # one sample x = 1, y = 0, C = 1
    sol = sp.solve([sp.diff(f1 + lam * (a0 + a1 + a2), v) for v in (a0, a1, a2)] + [a0 + a1 + a2],
                   [a0, a1, a2, lam], dict=True)[0]
    gvals = [sp.diff(f1, v).subs(sol) for v in (a0, a1, a2)]
    feasible = [sp.Lt(sol[a0], 1), sp.Lt(sol[a1], 0), sp.Lt(sol[a2], 0)]
    out.append(counterexample(MODEL, "KKT conditions of the CS dual", sp.Eq(gvals[0], 0), {}, feasible,
                              "seed 002, 'Check for violation', KKT conditions",
                              "printed as for a box: 'alpha = 0 => g <= 0, 0 < alpha < C => g = 0, alpha = C => g >= 0'. "
                              "With sum_m alpha_i^m = 0 the conditions are: every m with alpha_i^m < C_i^m has the "
                              "same, largest g_i^m (g = -lambda_i), which is what the violation v_i measures. One "
                              f"sample (x = 1, y = 0, C = 1): alpha = {[sol[a0], sol[a1], sol[a2]]} is optimal, "
                              f"strictly inside its bounds, with g = {gvals}, not 0"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """The gradient and Blondel's projection input, against the derivation."""
    from .. import objectives as obj
    from ..problems import MulticlassProblem
    from ..solvers import CSBlondel

    rng = np.random.default_rng(5)
    Xn = rng.normal(size=(n, d))
    Cn = 1.5
    p = MulticlassProblem(Xn, np.array(labels), C=Cn, loss="cs")
    An = -rng.uniform(0, 0.5, size=(n, k))
    for i in range(n):
        An[i, labels[i]] = 0.0
        An[i, labels[i]] = -An[i].sum()
    Wn = obj.multiclass_weights(p, An)
    sub = {**{X[r, c]: Xn[r, c] for r in range(n) for c in range(d)}, **{A[i, m]: An[i, m] for i in range(n)
                                                                          for m in range(k)}}
    derived = np.array([[float(sp.diff(dual(), A[i, m]).subs(sub)) for m in range(k)] for i in range(n)])
    out = [numeric(MODEL, "objectives.multiclass_gradient", obj.multiclass_gradient(p, obj.multiclass_scores(p, Wn)),
                   derived, "svmteach.objectives.multiclass_gradient")]
    solver = CSBlondel(random_state=0)
    new = solver.update(p, solver.init(p)._replace(alpha=An, W=Wn), 0)
    r = float(np.linalg.norm(Xn[0]))
    Ci = np.array([Cn if m == labels[0] else 0.0 for m in range(k)])
    out.append(numeric(MODEL, "CSBlondel: beta_hat and z", np.append(new.beta_hat, new.z),
                       np.append(r * (Ci - An[0]) + derived[0] / r, Cn * r), "svmteach.solvers.cs_blondel"))
    return out
