"""SMO's two-variable subproblem: the step along the equality constraint, its clipping, alpha_i and b.

Sizes n = 3 (the pair is i = 1, j = 2), a general symmetric kernel matrix, labels in {-1, +1}.
Source: seed 001, '30.1 Sequential Minimal Optimization' (eqs. 30.11-30.13).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, erratum, numeric, real_symbols, sign_cases

MODEL = "SMO"
n = 3
K = sp.Matrix(n, n, lambda r, c: sp.Symbol(f"K_{min(r, c) + 1}{max(r, c) + 1}", real=True))
y = real_symbols("y1:4")
a = real_symbols("a1:4")  # alpha before the step
b, C, t = real_symbols("b C t")
CASES = sign_cases(list(y))
I, J = 0, 1


def decision(alpha, k):
    return sum(alpha[l] * y[l] * K[l, k] for l in range(n)) + b


def dual(alpha):
    return sum(alpha) - sp.Rational(1, 2) * sum(alpha[p] * alpha[q] * y[p] * y[q] * K[p, q]
                                                 for p in range(n) for q in range(n))


def unclipped_update():
    """:math:`\\alpha_j + y_j (E_i - E_j) / \\eta`."""
    E = [decision(a, k) - y[k] for k in range(n)]
    eta = K[I, I] + K[J, J] - 2 * K[I, J]
    return a[J] + y[J] * (E[I] - E[J]) / eta, E, eta


def steps():
    out = []
    along = list(a)
    along[J] = a[J] + t
    along[I] = a[I] - y[I] * y[J] * t
    keep = y[I] * along[I] + y[J] * along[J] - (y[I] * a[I] + y[J] * a[J])
    out.append(claim(MODEL, "the step stays on y_i a_i + y_j a_j = const", keep, 0,
                     "seed 001, eq. 30.12", "moving a_j by t moves a_i by -y_i y_j t", CASES))
    phi = sp.expand(dual(along))
    new, E, eta = unclipped_update()
    out.append(claim(MODEL, "curvature along the line", sp.diff(phi, t, 2), -eta, "seed 001, 'SMO: Concept'",
                     "eta = K_ii + K_jj - 2 K_ij; eta <= 0 leaves no interior maximum (take the better end)", CASES))
    t_star = sp.solve(sp.diff(phi, t), t)[0]
    out.append(claim(MODEL, "unconstrained optimum of alpha_j", a[J] + t_star, new, "seed 001, eq. 30.13 (corrected)",
                     "alpha_j + y_j (E_i - E_j) / eta with E_k = f(x_k) + b - y_k (eq. 30.11)", CASES))
    s_ij = 1 / eta
    printed = a[J] + s_ij * (E[J] - E[I])
    out.append(erratum(MODEL, "alpha_j update of eq. 30.13", printed, new, "seed 001, eq. 30.13",
                       "printed 'alpha_j <- alpha_j + s_ij (E_j - E_i)': the factor y_j is missing and with it the "
                       "sign; the printed form is right only when y_j = -1. Derived: alpha_j + y_j (E_i - E_j) s_ij",
                       CASES))
    x = sp.Matrix(2, 2, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
    xi_, xj_ = x[0, :].T, x[1, :].T
    out.append(claim(MODEL, "step size s_ij (linear kernel)", (xi_.T * xi_ + xj_.T * xj_ - 2 * xi_.T * xj_)[0],
                     ((xj_ - xi_).T * (xj_ - xi_))[0], "seed 001, 'SMO: Concept'", "eta = |x_j - x_i|^2"))
    aj = sp.Symbol("alpha_j", real=True)
    # opposite labels: alpha_i = alpha_j + (a_i - a_j) grows with alpha_j
    ai_opp = aj + (a[I] - a[J])
    lo, hi = sp.solve(ai_opp, aj)[0], sp.solve(ai_opp - C, aj)[0]
    out.append(claim(MODEL, "bounds L, H for y_i != y_j", sp.Matrix([sp.Max(0, lo), sp.Min(C, hi)]),
                     sp.Matrix([sp.Max(0, a[J] - a[I]), sp.Min(C, C + a[J] - a[I])]), "Platt (1998), eq. 13",
                     "alpha_j in [0, C] and alpha_i = alpha_j + (a_i - a_j) in [0, C]"))
    ai_eq = -aj + (a[I] + a[J])  # equal labels: alpha_i falls as alpha_j grows
    lo, hi = sp.solve(ai_eq - C, aj)[0], sp.solve(ai_eq, aj)[0]
    out.append(claim(MODEL, "bounds L, H for y_i = y_j", sp.Matrix([sp.Max(0, lo), sp.Min(C, hi)]),
                     sp.Matrix([sp.Max(0, a[I] + a[J] - C), sp.Min(C, a[I] + a[J])]), "Platt (1998), eq. 14",
                     "alpha_j in [0, C] and alpha_i = (a_i + a_j) - alpha_j in [0, C]"))
    aj_new = sp.Symbol("alpha_j^new", real=True)
    ai_new = a[I] + y[I] * y[J] * (a[J] - aj_new)
    out.append(claim(MODEL, "update of alpha_i", y[I] * ai_new + y[J] * aj_new, y[I] * a[I] + y[J] * a[J],
                     "seed 001, 'SMO: Concept'; Platt (1998), eq. 18", "alpha_i + y_i y_j (alpha_j - alpha_j^new)",
                     CASES))
    after = list(a)
    after[I], after[J] = ai_new, aj_new
    b1 = b - E[I] - y[I] * (ai_new - a[I]) * K[I, I] - y[J] * (aj_new - a[J]) * K[I, J]
    E_i_after = sum(after[l] * y[l] * K[l, I] for l in range(n)) + b1 - y[I]
    out.append(claim(MODEL, "bias b1 (alpha_i free)", E_i_after, 0, "seed 001 ('the new estimate of b'); Platt (1998), eq. 20",
                     "b1 makes E_i = 0 after the step; svmteach averages y_t - f_t over all free points instead "
                     "(LIBSVM's rule), which agrees at the optimum", CASES))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """``svmteach.solvers.smo.pair_update`` against the derived unclipped step and bounds."""
    from ..solvers.smo import pair_update

    rng = np.random.default_rng(1)
    Xn = rng.normal(size=(n, 2))
    Kn = Xn @ Xn.T + 0.5
    out = []
    for yn in ([1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]):
        an = rng.uniform(0.1, 0.9, n)
        bn = 0.3
        new, E, eta = unclipped_update()
        sub = {**{K[p, q]: Kn[p, q] for p in range(n) for q in range(n)}, **dict(zip(y, yn)), **dict(zip(a, an)),
               b: bn}
        derived = float(new.subs(sub))
        g = 1 - (np.outer(yn, yn) * Kn) @ an  # the solver's cached gradient
        v = np.array(yn) * g
        _, L_, H_, unc, _, _ = pair_update(yn[I], yn[J], an[I], an[J], v[I], v[J], Kn[I, I], Kn[J, J], Kn[I, J], 1.0)
        out.append(numeric(MODEL, f"pair_update, unclipped alpha_j (y = {yn[:2]})", unc, derived,
                           "svmteach.solvers.smo.pair_update"))
    return out
