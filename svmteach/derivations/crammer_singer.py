"""The Crammer-Singer dual: the hinge, the Lagrangian, the dual with its bounds C_i^m, the partial
gradient, the exact block problem and its change of variables into a simplex projection.

Instance: n = 3 points in the plane, k = 3 classes with labels y = (1, 2, 0) (so that sample and
class indices differ); data, C and the multipliers are free symbols.  Classes are 0..k-1, as everywhere
in the course (the slides number them 1..k: their class m is our m - 1); samples are 1..n.  Sources: the multiclass
dual solvers slides ('Crammer Singer SVM', 'Dual Formulation', Algorithm 3 and the slides after
it) and Blondel, Fujino and Ueda (2014).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import (ERRATUM, FAILED, NUMERIC, Step, counterexample, definition, erratum, identity, numeric,
                   real_symbols, shown_line)

MODEL = "Crammer-Singer"
SLIDES = "Multiclass dual solvers slides"
ON = "on a 3-point, 3-class instance"
INSTANCE = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates, $k = 3$ classes with labels "
            r"$y = (1, 2, 0)$ (classes $0, 1, 2$), symbolic $C > 0$, weights $w_m$ and multipliers $\alpha_i^m$, "
            r"$\lambda_i^m$, $\xi_i$")
n, d, k = 3, 2, 3
labels = (1, 2, 0)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
C = sp.Symbol("C", positive=True)
A = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"alpha_{i + 1}^{m}", real=True))  # sample i + 1, class m = 0..k-1


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
    out = [hinge_erratum()]
    Wsym = sp.Matrix(k, d, lambda m, c: sp.Symbol(f"w_{m},{c + 1}", real=True))  # row m is w_m, m = 0..k-1
    xi = real_symbols("xi1:4")
    B = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"lambda_{i + 1}^{m}", real=True))
    # constraints w_{y_i}'x_i - w_m'x_i >= Delta_i^m - xi_i for every m (m = y_i gives xi_i >= 0)
    L = sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + C * sum(xi) + sum(
        B[i, m] * (Delta(i, m) - xi[i] - ((Wsym[labels[i], :] - Wsym[m, :]) * x(i))[0])
        for i in range(n) for m in range(k))
    out.append(definition(
        MODEL, "Lagrangian",
        r"L(W, \xi, \lambda) = \frac12\sum_m \|w_m\|^2 + C\sum_i \xi_i + \sum_{i, m} \lambda_i^m\big(\Delta_i^m - \xi_i - "
        r"(w_{y_i} - w_m)^\top x_i\big)",
        f"{SLIDES}, 'Crammer Singer SVM'; Blondel, Fujino and Ueda (2014)",
        r"One multiplier $\lambda_i^m \ge 0$ for each constraint $(w_{y_i} - w_m)^\top x_i \ge \Delta_i^m - \xi_i$, "
        r"over every class $m$: with $\Delta_i^m = [m \ne y_i]$, the constraint for $m = y_i$ is $\xi_i \ge 0$."))
    out.append(identity(
        MODEL, "stationarity in xi_i",
        r"\frac{\partial L}{\partial \xi_i} = C - \sum_m \lambda_i^m = 0",
        sp.diff(L, xi[0]), C - sum(B[0, :]), "Blondel, Fujino and Ueda (2014)",
        note=r"Each sample's multipliers sum to $C$; with $\alpha_i^m = C[m = y_i] - \lambda_i^m$ this is "
             r"$\sum_m \alpha_i^m = 0$.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial L}{\partial \xi_1}",
        how=r"SymPy differentiated $L$ in $\xi_1$"))
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    alpha_of_beta = sp.Matrix(n, k, lambda i, m: upper(i, m) - B[i, m])
    elim = {B[i, labels[i]]: C - sum(B[i, m] for m in range(k) if m != labels[i]) for i in range(n)}
    out.append(identity(
        MODEL, "stationarity in W",
        r"\nabla_{w_m} L = 0 \;\Rightarrow\; w_m = \sum_i \alpha_i^m x_i, \quad \alpha_i^m = C[m = y_i] - \lambda_i^m",
        Wsym.subs(sol).subs(elim), weights(alpha_of_beta).subs(elim), f"{SLIDES}, 'Dual Formulation'",
        note=r"So $\alpha_i^m \le C_i^m = C[m = y_i]$ (from $\lambda_i^m \ge 0$) and $\sum_m \alpha_i^m = 0$ (from "
             r"$\sum_m \lambda_i^m = C$).",
        on=ON, instance=INSTANCE, quantity="W", how=r"SymPy solved $\nabla_W L = 0$ for $W$"))
    L_dual = L.subs(sol).subs({xi[i]: 0 for i in range(n)})
    out.append(identity(
        MODEL, "dual objective",
        r"L\Big|_{W(\alpha)} = -f(\alpha), \quad f(\alpha) = \frac12\sum_m \Big\|\sum_i \alpha_i^m x_i\Big\|^2 + "
        r"\sum_{i,m} \Delta_i^m \alpha_i^m",
        sp.expand(L_dual.subs(elim)), sp.expand(-dual(alpha_of_beta).subs(elim)), f"{SLIDES}, 'Dual Formulation'",
        note=r"The $\xi_i$ terms cancel by $\sum_m \lambda_i^m = C$; the dual maximises $-f$, i.e. minimises $f$ "
             r"subject to $\sum_m \alpha_i^m = 0$ and $\alpha_i^m \le C_i^m$.",
        on=ON, instance=INSTANCE, quantity=r"L\big|_{W(\alpha)}", how="SymPy substituted $W(\\alpha)$ into $L$"))
    printed_C = sp.Matrix(n, k, lambda i, m: C if i == labels[i] else 0)
    derived_C = sp.Matrix(n, k, lambda i, m: upper(i, m))
    out.append(erratum(
        MODEL, "the bounds C_i^m", r"C_i^m = C \text{ if } m = y_i \text{ else } 0",
        r"C_i^m = C \text{ when } i = y_i \text{ else } 0", printed_C, derived_C, f"{SLIDES}, 'Dual Form', last line",
        note=r"The printed condition compares a sample index $i$ with a label $y_i$. The bound comes from "
             r"$\alpha_i^m = C[m = y_i] - \lambda_i^m$: it is $C$ for the sample's own class $m = y_i$.",
        on=ON, instance=INSTANCE))
    i = 0
    W = weights()
    g = sp.Matrix([sp.diff(dual(), A[i, m]) for m in range(k)])
    g_claim = sp.Matrix([(W[m, :] * x(i))[0] + Delta(i, m) for m in range(k)])
    out.append(identity(
        MODEL, "partial gradient g_i^m",
        r"g_i^m = \frac{\partial f}{\partial \alpha_i^m} = w_m^\top x_i + \Delta_i^m",
        g, g_claim, f"{SLIDES}, 'Calculate gradient'",
        note=r"$\alpha_i^m$ enters $f$ through $w_m = \sum_s \alpha_s^m x_s$ and the linear term $\Delta_i^m "
             r"\alpha_i^m$.",
        on=ON, instance=INSTANCE, quantity=r"g_1", how=r"SymPy differentiated $f$ in $\alpha_1^m$"))
    printed_g = sp.Matrix([(W[m, :] * x(i))[0] + 1 - (2 if m == labels[i] else 0) for m in range(k)])
    out.append(erratum(
        MODEL, "Algorithm 3, line 6", r"g_i = W x_i + \mathbf{1}, \quad g_i[y_i] \leftarrow g_i[y_i] - 1",
        r"g_i \leftarrow W x_i + \mathbf{1}; \quad g_i[y_i] \leftarrow g_i[y_i] - 2", printed_g, g_claim,
        f"{SLIDES}, Algorithm 3, line 6",
        note=r"The printed line gives $g_i^{y_i} = w_{y_i}^\top x_i - 1$, but the derivative is $w_{y_i}^\top x_i$ "
             r"($\Delta_i^{y_i} = 0$): subtract $1$, not $2$. Both the violation $v_i$ and the projection's input "
             r"use $g_i$.",
        on=ON, instance=INSTANCE))
    delta = sp.Matrix(real_symbols("delta_1^0:3"))  # delta_1^m, m = 0..k-1
    moved = A.copy()
    for m in range(k):
        moved[i, m] = A[i, m] + delta[m]
    q = (x(i).T * x(i))[0]
    exact = sp.expand(dual(moved) - dual() - (g.T * delta)[0])
    out.append(identity(
        MODEL, "the block problem is exact",
        r"f(\alpha + \delta_i) = f(\alpha) + g_i^\top\delta_i + \frac12\|x_i\|^2\|\delta_i\|^2",
        exact, sp.expand(q / 2 * (delta.T * delta)[0]), f"{SLIDES}, 'Taylor Expansion' (corrected)",
        note=r"$f$ is quadratic, so the expansion is exact (not an approximation); the block's Hessian is "
             r"$H_i = \|x_i\|^2 I$ because $\delta_i$ moves every $w_m$ by $\delta_i^m x_i$.",
        on=ON, instance=INSTANCE, quantity=r"f(\alpha + \delta_1) - f(\alpha) - g_1^\top\delta_1"))
    out.append(erratum(
        MODEL, "Taylor expansion's quadratic term",
        r"f(\alpha + \delta_i) = f(\alpha) + g_i^\top\delta_i + \frac12\|x_i\|^2\|\delta_i\|^2",
        r"f(\alpha + \delta_i) \approx f(\alpha) + g_i^\top\delta_i + \frac12\|\delta_i\|^2",
        sp.expand((delta.T * delta)[0] / 2), sp.expand(q / 2 * (delta.T * delta)[0]),
        f"{SLIDES}, 'Taylor Expansion', second line",
        note=r"The Hessian is $\|x_i\|^2 I$, not $I$: the two agree only for $\|x_i\| = 1$. The change of variables "
             r"on the next slides uses $\|x_i\|$ correctly.",
        on=ON, instance=INSTANCE))
    r = sp.Symbol("r", positive=True)  # |x_i|
    beta = sp.Matrix(real_symbols("beta_0:3"))
    Ci = sp.Matrix([upper(i, m) for m in range(k)])
    ai = A[i, :].T
    gs = sp.Matrix(real_symbols("g_1^0:3"))  # g_1^m, m = 0..k-1
    d_of_beta = Ci - ai - beta / r
    beta_hat = r * (Ci - ai) + gs / r
    obj_delta = r ** 2 / 2 * (d_of_beta.T * d_of_beta)[0] + (gs.T * d_of_beta)[0]
    proj = sp.Rational(1, 2) * ((beta - beta_hat).T * (beta - beta_hat))[0]
    out.append(identity(
        MODEL, "change of variables: a projection",
        r"\frac{\|x_i\|^2}{2}\|\delta_i\|^2 + g_i^\top\delta_i = \frac12\|\beta - \hat\beta\|^2 + \mathrm{const}, "
        r"\quad \hat\beta = \|x_i\|(C_i - \alpha_i) + \frac{g_i}{\|x_i\|}",
        sp.Matrix([sp.diff(obj_delta, v) for v in beta]), sp.Matrix([sp.diff(proj, v) for v in beta]),
        f"{SLIDES}, 'Change in variables' and 'Simplex'",
        note=r"With $\delta_i = C_i - \alpha_i - \beta / \|x_i\|$ the block problem becomes the Euclidean projection "
             r"of $\hat\beta$; the two sides differ by a constant, so their gradients in $\beta$ agree. Here "
             r"$r = \|x_i\|$ and $g = g_i$ on the instance.",
        on="for symbolic r = |x_1|", instance=INSTANCE + r"; $r = \|x_1\| > 0$ and $g_1$ symbolic",
        quantity=r"\nabla_\beta\Big(\frac{r^2}{2}\|\delta_1\|^2 + g^\top\delta_1\Big)",
        how=r"SymPy differentiated both sides in $\beta$"))
    sum_zero = {A[i, labels[i]]: -sum(A[i, m] for m in range(k) if m != labels[i])}
    out.append(identity(
        MODEL, "the simplex's mass z",
        r"\mathbf{1}^\top\beta = \|x_i\|\,\mathbf{1}^\top(C_i - \alpha_i - \delta_i) = C\|x_i\| = z \iff "
        r"\mathbf{1}^\top\delta_i = 0",
        sp.expand(r * sum(Ci - ai - d_of_beta).subs(sum_zero)), sp.expand(sum(beta)), f"{SLIDES}, 'Simplex'",
        note=r"Because $\mathbf{1}^\top C_i = C$ and $\mathbf{1}^\top\alpha_i = 0$, keeping $\sum_m \alpha_i^m = 0$ "
             r"is the same as $\beta$ summing to $z = C\|x_i\|$; $\delta_i \le C_i - \alpha_i$ is $\beta \ge 0$.",
        on=ON, instance=INSTANCE, quantity=r"r\,\mathbf{1}^\top(C_1 - \alpha_1 - \delta_1)"))
    out.append(kkt_counterexample())
    out.append(violation_erratum())
    out.extend(numeric_checks())
    return out


def hinge_erratum():
    """The slides write the Crammer-Singer constraints with max over m; all constraints mean the min."""
    s0, s1, s2 = real_symbols("s_0 s_1 s_2")  # s_m = w_m'x_i, the sample's class is 0
    u = sp.Symbol("u", positive=True)
    margins = [s0 - s1, s0 - s2]  # w_{y_i}'x_i - w_m'x_i for m != y_i
    derived = 1 - sp.Min(*margins)  # every constraint m: margin_m >= 1 - xi  <=>  xi >= 1 - min_m margin_m
    printed = 1 - sp.Max(*margins)  # the printed line: max_m margin_m >= 1 - xi
    next_line = 1 + sp.Max(s1, s2) - s0
    # the next printed line agrees with the derived bound in every order of s_1, s_2
    agrees = all(sp.simplify((derived - next_line).subs(sub)) == 0
                 for sub in ({s1: s2 + u}, {s2: s1 + u}, {s2: s1}))
    return erratum(
        MODEL, "hinge: max or min over the rivals",
        r"w_{y_i}^\top x_i - w_m^\top x_i \ge 1 - \xi_i \ \ \forall m \ne y_i \iff \min_{m \ne y_i}\big(w_{y_i}^\top "
        r"x_i - w_m^\top x_i\big) \ge 1 - \xi_i \iff \xi_i \ge 1 + \max_{m \ne y_i} w_m^\top x_i - w_{y_i}^\top x_i",
        r"\max_{m \ne y_i}\big(w_{y_i}^\top x_i - w_m^\top x_i\big) \ge 1 - \xi_i",
        printed, derived, f"{SLIDES}, 'Crammer Singer SVM', Multiclass Hinge Loss, second line",
        note=r"Requiring the margin against every rival is requiring it against the closest rival, the one with "
             r"the smallest margin: a $\min$. The printed $\max$ asks only for the best-separated rival, and it "
             r"contradicts the slide's next line, which is right. With scores $(2, 0, 2)$ for the classes "
             r"$0, 1, 2$ of a sample of class $0$, the printed line allows $\xi_i = 0$ while class $2$ ties with $y_i$ and "
             r"needs $\xi_i \ge 1$.",
        on="on one sample with 3 classes",
        instance=r"one sample of class $0$ with symbolic scores $s_m = w_m^\top x_i$, $m = 0, 1, 2$; the point "
                 r"$(s_0, s_1, s_2) = (2, 0, 2)$",
        cases=[{s0: 2, s1: 0, s2: 2}],
        also=[(r"the derived bound $1 - \min_m(s_0 - s_m)$ equals the next printed line $1 + \max_m s_m - s_0$ "
               r"in every order of $s_1, s_2$", agrees)])


def kkt_counterexample():
    """The slides list box-style KKT conditions; the CS dual has an equality constraint per sample."""
    a0, a1, a2, lam = real_symbols("alpha^0 alpha^1 alpha^2 nu")
    f1 = sp.Rational(1, 2) * (a0 ** 2 + a1 ** 2 + a2 ** 2) + a1 + a2  # one sample x = 1 of class 0, C = 1
    sol = sp.solve([sp.diff(f1 + lam * (a0 + a1 + a2), v) for v in (a0, a1, a2)] + [a0 + a1 + a2],
                   [a0, a1, a2, lam], dict=True)[0]
    gvals = [sp.diff(f1, v).subs(sol) for v in (a0, a1, a2)]
    # alpha^0 (the own class) is strictly inside (0, C), so the printed list demands g^0 = df/d alpha^0 = 0
    printed = sp.Eq(sp.diff(f1, a0), 0, evaluate=False)
    feasible = [sp.Gt(a0, 0), sp.Lt(a0, 1), sp.Le(a1, 0), sp.Le(a2, 0), sp.Eq(a0 + a1 + a2, 0)]
    point = sp.Matrix([sol[a0], sol[a1], sol[a2]]).T
    step = counterexample(
        MODEL, "KKT conditions of the CS dual",
        r"\alpha_i^m < C_i^m \;\Rightarrow\; g_i^m = \max_l g_i^l \quad (\text{every } m)",
        r"\alpha = 0 \Rightarrow g \le 0, \quad 0 < \alpha < C \Rightarrow g = 0, \quad \alpha = C \Rightarrow g \ge 0",
        printed, {a0: sol[a0], a1: sol[a1], a2: sol[a2]}, feasible, f"{SLIDES}, 'Check for violation', KKT conditions",
        note=r"The printed conditions are those of a box $[0, C]$. With the equality $\sum_m \alpha_i^m = 0$ and a "
             r"multiplier $\nu_i$ for it, stationarity gives $g_i^m = -\nu_i$ for every $m$ with "
             r"$\alpha_i^m < C_i^m$: those entries share the same, largest gradient, which is what the violation "
             r"$v_i = \max_m g_i^m - \min_{m:\, \alpha_i^m < C_i^m} g_i^m$ measures (the slides print the bound as "
             r"$C$: see the next erratum). On one sample "
             r"($x = 1$, class $0$, $C = 1$) the optimum lies strictly inside its bounds with $g \ne 0$.",
        on="on one sample", instance=r"one sample $x = 1$ of class $0$, $k = 3$, $C = 1$; the optimum found by "
                                     r"SymPy from stationarity with the multiplier $\nu$ of "
                                     r"$\sum_m \alpha^m = 0$",
        point_latex=f"$\\alpha = {sp.latex(point)}$ with $g = {sp.latex(sp.Matrix(gvals).T)}$")
    step.shown = shown_line(r"\alpha^\star =", point, r",\quad g =", sp.Matrix(gvals).T)
    return step


def violation_errors(X, y, C=1.0, tol=1e-10):
    """The slides' violation and the derived one, at the library's Crammer-Singer optimum of ``(X, y, C)``.

    Returns ``(printed, derived, gap)``: per sample, :math:`\\max_m g_i^m - \\min_{m:\\, \\alpha_i^m < C} g_i^m` as
    the slide 'Check for violation' prints it, the same with the bound :math:`C_i^m = C[m = y_i]`, and the run's
    relative duality gap.  An entry counts as below its bound when it is more than ``1e-9 C`` below it.
    """
    from .. import objectives as obj
    from ..problems import MulticlassProblem
    from ..solvers import CSBlondel, solve

    p = MulticlassProblem(X, y, C=C, loss="cs")
    run = solve(CSBlondel(random_state=0), p, tol=tol)
    A = np.asarray(run.state.alpha, dtype=float)
    G = np.asarray(obj.multiclass_gradient(p, obj.multiclass_scores(p, obj.multiclass_weights(p, A))), dtype=float)
    upper = np.zeros_like(A)
    upper[np.arange(len(A)), np.asarray(p.codes)] = C
    slack = 1e-9 * C
    printed = G.max(axis=1) - np.where(A < C - slack, G, np.inf).min(axis=1)
    derived = G.max(axis=1) - np.where(A < upper - slack, G, np.inf).min(axis=1)
    return printed, derived, float(run.gap)


def violation_erratum():
    """The slide 'Check for violation' takes the min over alpha_i^m < C; the bound is C_i^m, 0 for the rivals."""
    from ..data import multiclass_blobs

    X, y = multiclass_blobs(90, k=4, seed=0)
    printed, derived, gap = violation_errors(X, y, 1.0)
    flagged, wrongly_ok = int(np.sum(printed > 1e-3)), float(np.max(derived))
    ok = gap <= 1e-10 and flagged == len(y) and wrongly_ok <= 1e-6
    return Step(
        MODEL, "Check for violation: the bound C_i^m", r"v_i = \max_m g_i^m - \min_{m:\ \alpha_i^m < C_i^m} g_i^m, "
        r"\qquad C_i^m = C\,[m = y_i]",
        f"{SLIDES}, 'Check for violation', Violation", ERRATUM if ok else FAILED,
        note=r"At the optimum the classes below their bound share the largest gradient (the erratum above), so the "
             r"minimum runs over $\alpha_i^m < C_i^m$. The slide prints $\alpha_i^m < C$: for a rival "
             r"$C_i^m = 0$, so every rival with $\alpha_i^m = 0$, at its bound, enters the minimum. A sample that is "
             r"classified with room to spare ($\alpha_i = 0$) has $g_i^{y_i} = w_{y_i}^\top x_i > w_m^\top x_i + 1 = "
             r"g_i^m$, so the printed $v_i$ is positive: it would never stop visiting it. (Algorithm 3, line 8, "
             r"prints the bound correctly, as $C_i[m]$.)",
        check=(r"Blondel's solver ran on the four clouds of notebooks 6 and 7 ($n = 90$, $k = 4$, $C = 1$) to a "
               r"relative duality gap of $10^{-10}$; at that optimum the printed $v_i$ exceeds $10^{-3}$ for "
               rf"{flagged} of the {len(y)} samples (smallest {np.min(printed):.2f}), and the derived $v_i$ is at most "
               rf"{wrongly_ok:.0e}"),
        on="at the library's optimum on 90 points",
        verdict=(f"the printed v_i flags {flagged} of {len(y)} samples; the derived one none" if ok
                 else "the printed formula did not flag every sample, or the run did not converge"),
        instance=r"the four clouds of notebooks 6 and 7 (90 points, 4 classes around the origin), $C = 1$",
        printed_formula=r"v_i = \max_m g_i^m - \min_{m:\ \alpha_i^m < C} g_i^m",
        kind=NUMERIC)


def numeric_checks():
    """The gradient and Blondel's projection input, against the derivation."""
    from .. import objectives as obj
    from ..problems import MulticlassProblem
    from ..solvers import CSBlondel

    gradient = sp.lambdify([list(X), list(A)], sp.Matrix(n, k, lambda i, m: sp.diff(dual(), A[i, m])), "numpy")
    rng = np.random.default_rng(5)
    grads, projections = [], []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        Cn = rng.uniform(0.5, 3.0)
        p = MulticlassProblem(Xn, np.array(labels), C=Cn, loss="cs")
        An = -rng.uniform(0, 0.5, size=(n, k))
        for i in range(n):
            An[i, labels[i]] = 0.0
            An[i, labels[i]] = -An[i].sum()
        Wn = obj.multiclass_weights(p, An)
        derived = np.asarray(gradient(Xn.ravel(), An.ravel()), dtype=float)
        grads.append((obj.multiclass_gradient(p, obj.multiclass_scores(p, Wn)), derived))
        solver = CSBlondel(random_state=0)
        new = solver.update(p, solver.init(p)._replace(alpha=An, W=Wn), 0)
        r = float(np.linalg.norm(Xn[0]))
        Ci = np.array([Cn if m == labels[0] else 0.0 for m in range(k)])
        blondel = np.append(r * (Ci - An[0]) + derived[0] / r, Cn * r)  # (beta_hat, z) of the slides
        projections.append((np.append(new.block.beta_hat, new.block.z), blondel))
    return [
        numeric(MODEL, "objectives.multiclass_gradient", r"g_i^m = w_m^\top x_i + \Delta_i^m",
                "svmteach.objectives.multiclass_gradient", grads,
                note="The gradient behind the KKT violation and the Crammer-Singer solver.",
                what=r"the library's $(n, k)$ gradient"),
        numeric(MODEL, "CSBlondel: beta_hat and z",
                r"\hat\beta = \|x_i\|(C_i - \alpha_i) + g_i / \|x_i\|, \quad z = C\|x_i\|",
                "svmteach.losses.crammer_singer", projections,
                note=r"The state shows the slides' $\hat\beta$ and $z$. The solver computes the same projection "
                     r"multiplied by $\|x_i\|$ (the projection is positively homogeneous), so that nothing is "
                     r"divided by a small $\|x_i\|$, and divides the picture by $\|x_i\|$ afterwards.",
                what=r"the solver's projected point and mass for sample 1"),
    ]
