"""SMO's two-variable subproblem: the step along the equality constraint, its exact maximiser,
its clipping, alpha_i and the bias.

Instance: n = 3 with a general symmetric kernel matrix, the pair (i, j) = (1, 2), labels in
{-1, +1} (all 8 sign patterns).  Sources: the CISC 371 notes, '30.1 Sequential Minimal
Optimization: Concept' (eqs. 30.11-30.13), and Platt (1998).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import ERRATUM, computed, erratum, identity, numeric, real_symbols, shown_line, sign_cases

MODEL = "SMO"
ON = "for a general 3x3 kernel matrix, all 8 label patterns"
INSTANCE = (r"$n = 3$ with a symbolic symmetric kernel matrix $K$ (entries $K_{11}, K_{12}, \dots, K_{33}$), "
            r"symbolic multipliers $\alpha_1, \alpha_2, \alpha_3$ before the step, bias $b$ and $C$; the pair is "
            r"$(i, j) = (1, 2)$; each of the 8 label patterns $y \in \{-1, +1\}^3$")
CONCEPT = "CISC 371 notes, '30.1 Sequential Minimal Optimization: Concept'"
n = 3
K = sp.Matrix(n, n, lambda r, c: sp.Symbol(f"K_{min(r, c) + 1}{max(r, c) + 1}", real=True))
y = real_symbols("y1:4")
a = real_symbols("alpha1:4")  # alpha before the step
b, C, t = real_symbols("b C t")
CASES = sign_cases(list(y))
I, J = 0, 1


def decision(alpha, k):
    """:math:`f(x_k) = \\sum_l \\alpha_l y_l K_{lk} + b`."""
    return sum(alpha[l] * y[l] * K[l, k] for l in range(n)) + b


def dual(alpha):
    return sum(alpha) - sp.Rational(1, 2) * sum(alpha[p] * alpha[q] * y[p] * y[q] * K[p, q]
                                                 for p in range(n) for q in range(n))


def unclipped_update():
    """:math:`\\alpha_j + y_j (E_i - E_j) / \\eta`, the errors :math:`E_k` and :math:`\\eta`."""
    E = [decision(a, k) - y[k] for k in range(n)]
    eta = K[I, I] + K[J, J] - 2 * K[I, J]
    return a[J] + y[J] * (E[I] - E[J]) / eta, E, eta


def along(t_):
    """The multipliers after moving alpha_j by t along the constraint line."""
    moved = list(a)
    moved[J] = a[J] + t_
    moved[I] = a[I] - y[I] * y[J] * t_
    return moved


def steps():
    out = []
    moved = along(t)
    keep = y[I] * moved[I] + y[J] * moved[J]
    out.append(identity(
        MODEL, "the step stays on the constraint line",
        r"y_i(\alpha_i - y_i y_j t) + y_j(\alpha_j + t) = y_i \alpha_i + y_j \alpha_j",
        keep, y[I] * a[I] + y[J] * a[J], "CISC 371 notes, eq. 30.12",
        note=r"Moving $\alpha_j$ by $t$ and $\alpha_i$ by $-y_i y_j t$ keeps $\sum_k y_k \alpha_k = 0$ because "
             r"$y_i^2 = 1$: the pair moves along a line inside the constraint.",
        on=ON, instance=INSTANCE, quantity=r"y_i \alpha_i(t) + y_j \alpha_j(t)", cases=CASES))
    phi = sp.expand(dual(moved))
    new, E, eta = unclipped_update()
    out.append(identity(
        MODEL, "curvature along the line",
        r"\frac{d^2}{dt^2} D(\alpha(t)) = -\eta, \quad \eta = K_{ii} + K_{jj} - 2K_{ij}",
        sp.diff(phi, t, 2), -eta, CONCEPT,
        note=r"$D$ along the line is a parabola in $t$ with second derivative $-\eta$. For a positive "
             r"semidefinite kernel $\eta = \|\phi(x_i) - \phi(x_j)\|^2 \ge 0$; if $\eta = 0$ there is no interior "
             r"maximum and the better end of the segment is taken.",
        on=ON, instance=INSTANCE, quantity=r"\frac{d^2}{dt^2} D(\alpha(t))", cases=CASES,
        how=r"SymPy differentiated $D(\alpha(t))$ twice in $t$"))
    t_star = sp.solve(sp.diff(phi, t), t)[0]
    out.append(identity(
        MODEL, "unconstrained optimum of alpha_j",
        r"\alpha_j^{\mathrm{new}} = \alpha_j + \frac{y_j (E_i - E_j)}{\eta}, \quad E_k = f(x_k) - y_k",
        a[J] + t_star, new, "Platt (1998), eq. 16; CISC 371 notes, eq. 30.13 (corrected)",
        note=r"Setting $\frac{d}{dt} D(\alpha(t)) = 0$ gives the vertex of the parabola. $E_k$ is the error of "
             r"eq. 30.11 with $f(x_k) = \sum_l \alpha_l y_l K_{lk} + b$ (the notes write $w^\top x_k + b$).",
        on=ON, instance=INSTANCE, quantity=r"\alpha_j + \arg\max_t D(\alpha(t))", cases=CASES,
        how=r"SymPy solved $\frac{d}{dt} D(\alpha(t)) = 0$ for $t$"))
    s_ij = 1 / eta
    printed = a[J] + s_ij * (E[J] - E[I])
    out.append(erratum(
        MODEL, "alpha_j update of eq. 30.13",
        r"\alpha_j^{\mathrm{new}} = \alpha_j + y_j\, s_{ij} (E_i - E_j)",
        r"\alpha_j \leftarrow \alpha_j + s_{ij} (E_j - E_i)", printed, new, "CISC 371 notes, eq. 30.13",
        note=r"The printed update lacks the factor $y_j$, and with it the sign: it equals the derived update only "
             r"when $y_j = -1$. For $y_j = +1$ it moves $\alpha_j$ the wrong way, and the dual decreases.",
        on=ON, instance=INSTANCE, cases=CASES))
    out.append(steepest_descent_erratum())
    xs = sp.Matrix(2, 2, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
    xi_, xj_ = xs[0, :].T, xs[1, :].T
    out.append(identity(
        MODEL, "step size s_ij (linear kernel)",
        r"\frac{1}{s_{ij}} = x_i^\top x_i + x_j^\top x_j - 2\,x_i^\top x_j = \|x_j - x_i\|^2",
        (xi_.T * xi_ + xj_.T * xj_ - 2 * xi_.T * xj_)[0], ((xj_ - xi_).T * (xj_ - xi_))[0], CONCEPT,
        note=r"With the linear kernel $\eta = 1 / s_{ij}$ is the squared distance between the two points.",
        on="for two symbolic points in the plane", instance=r"two points $x_i, x_j \in \mathbb{R}^2$ with "
                                                            r"symbolic coordinates",
        quantity=r"x_i^\top x_i + x_j^\top x_j - 2\,x_i^\top x_j"))
    aj = sp.Symbol("alpha_j", real=True)
    ai_opp = aj + (a[I] - a[J])  # opposite labels: alpha_i = alpha_j + (alpha_i - alpha_j) grows with alpha_j
    lo, hi = sp.solve(ai_opp, aj)[0], sp.solve(ai_opp - C, aj)[0]
    out.append(identity(
        MODEL, "bounds L, H for y_i != y_j",
        r"y_i \ne y_j: \quad L = \max(0,\, \alpha_j - \alpha_i), \quad H = \min(C,\, C + \alpha_j - \alpha_i)",
        sp.Matrix([sp.Max(0, lo), sp.Min(C, hi)]), sp.Matrix([sp.Max(0, a[J] - a[I]), sp.Min(C, C + a[J] - a[I])]),
        "Platt (1998), eq. 13",
        note=r"$\alpha_j \in [0, C]$ and $\alpha_i = \alpha_j + (\alpha_i^{\mathrm{old}} - \alpha_j^{\mathrm{old}})"
             r" \in [0, C]$.",
        on="for symbolic multipliers", instance=INSTANCE, quantity=r"(L, H)^\top",
        how=r"SymPy solved $\alpha_i = 0$ and $\alpha_i = C$ for $\alpha_j$"))
    ai_eq = -aj + (a[I] + a[J])  # equal labels: alpha_i falls as alpha_j grows
    lo, hi = sp.solve(ai_eq - C, aj)[0], sp.solve(ai_eq, aj)[0]
    out.append(identity(
        MODEL, "bounds L, H for y_i = y_j",
        r"y_i = y_j: \quad L = \max(0,\, \alpha_i + \alpha_j - C), \quad H = \min(C,\, \alpha_i + \alpha_j)",
        sp.Matrix([sp.Max(0, lo), sp.Min(C, hi)]), sp.Matrix([sp.Max(0, a[I] + a[J] - C), sp.Min(C, a[I] + a[J])]),
        "Platt (1998), eq. 14",
        note=r"$\alpha_j \in [0, C]$ and $\alpha_i = (\alpha_i^{\mathrm{old}} + \alpha_j^{\mathrm{old}}) - \alpha_j"
             r" \in [0, C]$.",
        on="for symbolic multipliers", instance=INSTANCE, quantity=r"(L, H)^\top",
        how=r"SymPy solved $\alpha_i = C$ and $\alpha_i = 0$ for $\alpha_j$"))
    aj_new = sp.Symbol("alpha_j^new", real=True)
    ai_new = a[I] + y[I] * y[J] * (a[J] - aj_new)
    out.append(identity(
        MODEL, "update of alpha_i",
        r"\alpha_i^{\mathrm{new}} = \alpha_i + y_i y_j(\alpha_j - \alpha_j^{\mathrm{new}})",
        y[I] * ai_new + y[J] * aj_new, y[I] * a[I] + y[J] * a[J], f"{CONCEPT}; Platt (1998), eq. 18",
        note=r"This $\alpha_i^{\mathrm{new}}$ keeps $y_i \alpha_i + y_j \alpha_j$ unchanged, whatever clipped "
             r"$\alpha_j^{\mathrm{new}}$ was chosen.",
        on=ON, instance=INSTANCE, quantity=r"y_i \alpha_i^{\mathrm{new}} + y_j \alpha_j^{\mathrm{new}}", cases=CASES))
    after = list(a)
    after[I], after[J] = ai_new, aj_new
    b1 = b - E[I] - y[I] * (ai_new - a[I]) * K[I, I] - y[J] * (aj_new - a[J]) * K[I, J]
    E_i_after = sum(after[l] * y[l] * K[l, I] for l in range(n)) + b1 - y[I]
    out.append(identity(
        MODEL, "bias b1 (alpha_i free)",
        r"b_1 = b - E_i - y_i(\alpha_i^{\mathrm{new}} - \alpha_i) K_{ii} - y_j(\alpha_j^{\mathrm{new}} - \alpha_j) "
        r"K_{ij} \;\Rightarrow\; E_i^{\mathrm{new}} = 0",
        E_i_after, 0, "Platt (1998), eq. 20; CISC 371 notes, 'the new estimate of b'",
        note=r"With $b_1$ the point $x_i$ sits exactly on its margin after the step ($E_i = 0$), as a free "
             r"multiplier $0 < \alpha_i < C$ requires. svmteach averages $y_t - f(x_t)$ over all free points "
             r"instead (LIBSVM's rule), which agrees at the optimum.",
        on=ON, instance=INSTANCE, quantity=r"E_i^{\mathrm{new}}", cases=CASES,
        how=r"SymPy computed $f(x_i) - y_i$ after the step with the bias $b_1$"))
    out.extend(numeric_checks())
    return out


def steepest_descent_erratum():
    """The notes call the SMO step 'steepest descent': it is an exact maximisation along a feasible line."""
    Xn = sp.Matrix([[1, 2], [3, -1], [0, 1]])
    Kn = Xn * Xn.T
    yn = [1, -1, 1]
    an = [sp.Rational(1, 4), sp.Rational(1, 2), sp.Rational(1, 4)]  # y'alpha = 0
    sub = {**{K[p, q]: Kn[p, q] for p in range(n) for q in range(n)}, **dict(zip(y, yn)), **dict(zip(a, an)), b: 0}
    Q = sp.Matrix(n, n, lambda p, q: yn[p] * yn[q] * Kn[p, q])
    grad = sp.ones(n, 1) - Q * sp.Matrix(an)  # the dual's gradient
    yv = sp.Matrix(yn)
    steepest = (sp.eye(n) - yv * yv.T / (yv.T * yv)[0]) * grad  # steepest ascent within y'alpha = 0
    direction = sp.Matrix([-yn[I] * yn[J], 1, 0])  # SMO moves alpha_j by t and alpha_i by -y_i y_j t
    phi = dual(along(t)).subs(sub)
    new, _, eta = unclipped_update()
    t_exact = (new - a[J]).subs(sub)
    exact = sp.diff(phi, t).subs(t, t_exact) == 0 and sp.diff(phi, t, 2) == -eta.subs(sub) and eta.subs(sub) > 0
    not_parallel = sp.Matrix.hstack(steepest, direction).rank() == 2
    return computed(
        MODEL, "SMO is not steepest descent",
        r"\alpha(t) = \alpha + t\,(e_j - y_i y_j\, e_i), \quad t^\star = \arg\max_t D(\alpha(t)) = "
        r"\frac{y_j (E_i - E_j)}{\eta}",
        "CISC 371 notes, '30.1 Sequential Minimal Optimization: Concept'", not_parallel and exact, status=ERRATUM,
        printed_formula=r"\text{``the SMO algorithm works by updating the second multiplier using steepest descent''}",
        note=r"SMO maximises the dual (an ascent), along a direction fixed by the equality constraint "
             r"$\sum_k y_k \alpha_k = 0$, not by the gradient: only $\alpha_i$ and $\alpha_j$ move. The step length "
             r"is not a gradient step size but the exact maximiser of the parabola $D(\alpha(t))$, $t^\star = "
             r"D'(0) / \eta$ (a Newton step, exact for a quadratic). On a generic instance the steepest-ascent "
             r"direction within $y^\top \alpha = 0$, $(I - yy^\top / n)\nabla D(\alpha)$, moves every multiplier and "
             r"is not parallel to $e_j - y_i y_j e_i$.",
        on="on a 3-point instance",
        instance=r"$x_1 = (1, 2)$, $x_2 = (3, -1)$, $x_3 = (0, 1)$, linear kernel, $y = (1, -1, 1)$, "
                 r"$\alpha = (1/4, 1/2, 1/4)$, the pair $(i, j) = (1, 2)$",
        check=r"SymPy computed the steepest-ascent direction within $y^\top \alpha = 0$ and found it not parallel "
              r"to the SMO direction (the two columns have rank 2); along the SMO line it found "
              r"$\frac{d}{dt} D(\alpha(t)) = 0$ at $t^\star$ and $\frac{d^2}{dt^2} D = -\eta < 0$: an exact line "
              r"maximum",
        verdict="the step is an exact line maximisation along a feasible direction, not steepest descent",
        expr=steepest, printed=steepest,
        shown=shown_line(r"(I - yy^\top/n)\nabla D(\alpha) =", steepest.T, r",\quad e_j - y_i y_j e_i =",
                         direction.T))


def numeric_checks():
    """``svmteach.solvers.numba_smo.pair_update`` (the step both of SMO's paths run) against the derived unclipped step."""
    from ..solvers.numba_smo import pair_update

    new, _, _ = unclipped_update()
    derived_fn = sp.lambdify([list(K), list(y), list(a), b], new, "numpy")
    rng = np.random.default_rng(1)
    pairs = []
    for yn in ([1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, -1.0, -1.0]):
        Xn = rng.normal(size=(n, 2))
        Kn = Xn @ Xn.T + 0.5
        an = rng.uniform(0.1, 0.9, n)
        bn = rng.normal()
        g = 1 - (np.outer(yn, yn) * Kn) @ an  # the solver's cached gradient
        v = np.array(yn) * g  # y_t g_t = y_t - f_t (without b), so E_i - E_j = v_j - v_i
        _, _, _, unc, _, _ = pair_update(yn[I], yn[J], an[I], an[J], v[I], v[J], Kn[I, I], Kn[J, J], Kn[I, J], 1.0, 1.0)
        pairs.append((unc, derived_fn(Kn.ravel(), yn, an, bn)))
    return [numeric(MODEL, "pair_update: unclipped alpha_j",
                    r"\alpha_j^{\mathrm{new}} = \alpha_j + \frac{y_j (E_i - E_j)}{\eta}",
                    "svmteach.solvers.numba_smo.pair_update", pairs,
                    note=r"The step every SMO run takes (before clipping to $[L, H]$); each instance has its own "
                         r"labels, kernel matrix, multipliers and bias.",
                    what=r"the unclipped $\alpha_j^{\mathrm{new}}$")]
