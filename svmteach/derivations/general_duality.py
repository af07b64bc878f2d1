"""General Lagrangian duality on small examples, checked by SymPy: the examples of notebook 2's first part.

- a convex problem without a strictly feasible point whose duality gap is 1 (Boyd and Vandenberghe,
  *Convex Optimization*, exercise 5.21): minimise :math:`e^{-x}` subject to :math:`x^2/y \\le 0`, :math:`y > 0`;
- a non-convex problem with a gap of 1: minimise :math:`-x` subject to :math:`x - 1 \\le 0` and :math:`x(x - 2) = 0`;
- the convex conjugate of the hinge loss, whose domain :math:`[-1, 0]` becomes the box :math:`0 \\le \\alpha_i \\le C`;
- the course's three-point example solved exactly for :math:`0 < C \\le 1` and :math:`C \\ge 1`;
- MIT 9.520's non-separable primal as printed (no :math:`\\xi_i \\ge 0`, no :math:`C`): its minimiser.

Each function returns the SymPy results it derived; :func:`steps` turns them into checked
:class:`~svmteach.derivations.core.Step` objects, shown in a notebook by :func:`check`.
"""

from __future__ import annotations

import sympy as sp

from .core import computed, real_symbols
from .display import Check

MODEL = "general duality"
BV = "S. Boyd and L. Vandenberghe, Convex Optimization (2004)"
x, y, lam, nu, s, z, t = real_symbols("x y lambda nu s z t")
C = sp.Symbol("C", positive=True)


def slater_fails():
    """Boyd and Vandenberghe's exercise 5.21: p* = 1, and the dual function is 0 for every lambda >= 0.

    Returns ``(p_star, L, limit)``: the optimal value on the feasible set {x = 0, y > 0}, the
    Lagrangian, and its limit along x = t, y = t^3 as t -> oo (L > 0 everywhere, so its infimum is 0).
    """
    L = sp.exp(-x) + lam * x**2 / y
    p_star = sp.exp(-x).subs(x, 0)  # x^2 / y <= 0 with y > 0 forces x = 0
    lam_nonneg = sp.Symbol("lambda", nonnegative=True)
    along = L.subs(lam, lam_nonneg).subs({x: t, y: t**3})
    limit = sp.limit(along, t, sp.oo)
    return p_star, L, limit


def nonconvex_gap():
    """min -x s.t. x - 1 <= 0, x(x - 2) = 0: p* = 0; the dual function and its maximum d* = -1.

    Returns ``(p_star, theta_pos, d_star, argmax)``: the primal optimum (the feasible set is {0}),
    the dual function for nu > 0, the dual optimum and where it is attained.  For nu < 0 the
    Lagrangian is a concave parabola (theta = -oo); for nu = 0 it is affine, bounded only at lambda = 1.
    """
    L = -x + lam * (x - 1) + nu * x * (x - 2)
    feasible = [r for r in sp.solve(x * (x - 2), x) if r - 1 <= 0]
    p_star = min(-r for r in feasible)
    xm = sp.solve(sp.diff(L, x), x)[0]  # the minimiser for nu > 0
    theta_pos = sp.simplify(L.subs(x, xm))
    theta_at_nu0 = sp.expand(L.subs({nu: 0, lam: 1}))  # the only bounded case with nu = 0: a constant
    # theta_pos = -(lambda - 1)^2 / (4 nu) - nu - 1 < -1 for nu > 0, so the best is nu = 0, lambda = 1
    return p_star, theta_pos, theta_at_nu0, {lam: 1, nu: 0}


def hinge_conjugate():
    """The conjugate h*(s) = sup_z (s z - max(0, 1 - z)) of the hinge, piece by piece.

    On z >= 1 the objective is s z, on z <= 1 it is (s + 1) z - 1; both are bounded above exactly
    when -1 <= s <= 0, and then both suprema are attained at z = 1 with value s.
    Returns ``(right, left, box_identity)``: the two pieces at z = 1, and C max(0, 1 - z) minus
    max over alpha in {0, C} of alpha (1 - z) (a linear function of alpha peaks at an end of [0, C]).
    """
    right = (s * z).subs(z, 1)
    left = ((s + 1) * z - 1).subs(z, 1)
    hinge = sp.Max(0, 1 - z)
    box = C * hinge - sp.Max(0, C * (1 - z))
    u = sp.Symbol("u", positive=True)
    return right, left, [sp.simplify(box.subs(z, 1 + u)), sp.simplify(box.subs(z, 1 - u)), box.subs(z, 1)]


def worked_example(C_value):
    """The three points (0, 0) -1, (2, 0) +1, (0, 2) +1 at box bound ``C_value`` (a SymPy number), exactly.

    With K = diag(0, 4, 4), y'alpha = 0 gives alpha_1 = alpha_2 + alpha_3 and D = sum over j = 2, 3 of
    2 alpha_j - 2 alpha_j^2, maximised at alpha_2 = alpha_3 = min(C, 1) / 2.  Returns a dict with alpha,
    w, b, the slacks, P and D.
    """
    Cv = sp.nsimplify(C_value)
    X = sp.Matrix([[0, 0], [2, 0], [0, 2]])
    yv = sp.Matrix([-1, 1, 1])
    a = sp.Min(Cv, 1) / 2
    alpha = sp.Matrix([2 * a, a, a])
    w = X.T * sp.matrix_multiply_elementwise(alpha, yv)
    b = 1 - (w.T * X[1, :].T)[0]  # point 2 is a free support vector: y_2 f(x_2) = 1
    f = X * w + sp.Matrix([b] * 3)
    xi = sp.Matrix([sp.Max(0, 1 - yv[i] * f[i]) for i in range(3)])
    P = sp.Rational(1, 2) * (w.T * w)[0] + Cv * sum(xi)
    D = sum(alpha) - sp.Rational(1, 2) * (w.T * w)[0]
    return {"alpha": alpha, "w": w, "b": sp.simplify(b), "margins": sp.matrix_multiply_elementwise(yv, f),
            "xi": xi, "P": sp.simplify(P), "D": sp.simplify(D), "C": Cv}


def mit_nonseparable_primal():
    """MIT 9.520's printed non-separable primal, min sum xi_i + ||w||^2 s.t. y_i w'x_i >= 1 - xi_i, without xi >= 0.

    For fixed w the best xi_i is 1 - y_i w'x_i (any sign), so the objective is n - w' sum y_i x_i + ||w||^2,
    minimised at w = (1/2) sum_i y_i x_i whatever the data.  Returns ``(w_star, claimed)`` on 3 symbolic points.
    """
    n, d = 3, 2
    w = sp.Matrix(real_symbols("w1:3"))
    X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
    ys = real_symbols("y1:4")
    objective = sum(1 - ys[i] * (w.T * X[i, :].T)[0] for i in range(n)) + (w.T * w)[0]
    sol = sp.solve([sp.diff(objective, v) for v in w], list(w), dict=True)[0]
    w_star = sp.Matrix([sol[v] for v in w])
    claimed = sp.Rational(1, 2) * sum((ys[i] * X[i, :].T for i in range(n)), sp.zeros(d, 1))
    return w_star, claimed


def steps():
    """The checked steps of the general-duality part of notebook 2."""
    out = []
    p_star, _, limit = slater_fails()
    out.append(computed(
        MODEL, "Slater fails: a gap of 1",
        r"p^\star = \min\{e^{-x} : x^2/y \le 0,\ y > 0\} = 1, \qquad \theta(\lambda) = \inf_{x,\, y > 0}"
        r" \big(e^{-x} + \lambda x^2/y\big) = 0, \qquad d^\star = 0",
        f"{BV}, exercise 5.21", bool(p_star == 1 and limit == 0),
        note=r"The constraint $x^2/y \le 0$ with $y > 0$ forces $x = 0$, so $p^\star = e^0 = 1$; no point has "
             r"$x^2/y < 0$, so Slater's condition fails. The Lagrangian is positive everywhere and tends to $0$ "
             r"along $x = t$, $y = t^3$, so $\theta(\lambda) = 0$ for every $\lambda \ge 0$.",
        on="on the problem itself", instance=r"$x, y$ real, $y > 0$, $\lambda \ge 0$",
        check=r"SymPy evaluated $e^{-x}$ at $x = 0$ and took the limit of $e^{-t} + \lambda t^2/t^3$ as "
              r"$t \to \infty$",
        verdict="holds", shown=rf"p^\star = {sp.latex(p_star)},\quad \lim_{{t\to\infty}} L(t, t^3, \lambda) = "
                              rf"{sp.latex(limit)}"))
    p2, theta, theta0, argmax = nonconvex_gap()
    expected = -(lam - 1) ** 2 / (4 * nu) - nu - 1
    ok = bool(p2 == 0 and sp.simplify(theta - expected) == 0 and theta0 == -1)
    out.append(computed(
        MODEL, "a non-convex problem with a gap",
        r"\min\{-x : x - 1 \le 0,\ x(x - 2) = 0\}: \quad p^\star = 0, \qquad \theta(\lambda, \nu) = "
        r"-\frac{(\lambda - 1)^2}{4\nu} - \nu - 1 \ (\nu > 0), \qquad d^\star = \theta(1, 0) = -1",
        "notebook 2's own example", ok,
        note=r"The feasible set is $\{0\}$ (the equality allows $0$ and $2$; the inequality removes $2$). For "
             r"$\nu > 0$ the Lagrangian is a convex parabola in $x$; for $\nu < 0$ it is unbounded below; for "
             r"$\nu = 0$ it is affine and bounded only when $\lambda = 1$, where it equals $-1$. Every "
             r"$\theta$ with $\nu > 0$ is below $-1 - \nu$, so $d^\star = -1 < 0 = p^\star$.",
        on="on the problem itself", instance=r"$x$ real, $\lambda \ge 0$, $\nu$ real",
        check=r"SymPy solved the equality, minimised the Lagrangian in $x$ for $\nu > 0$ and simplified it "
              r"against the claimed $\theta$, and evaluated $L$ at $\nu = 0$, $\lambda = 1$",
        verdict="holds", shown=rf"\theta(\lambda, \nu) = {sp.latex(expected)}"))
    right, left, box = hinge_conjugate()
    out.append(computed(
        MODEL, "conjugate of the hinge",
        r"h(z) = \max(0, 1 - z), \qquad h^*(s) = \sup_z\, \big(sz - h(z)\big) = \begin{cases} s & -1 \le s \le 0 "
        r"\\ +\infty & \text{otherwise}\end{cases}, \qquad C\,h(z) = \max_{0 \le \alpha \le C} \alpha\,(1 - z)",
        f"{BV}, section 3.3", bool(right == s and left == s and all(v == 0 for v in box)),
        note=r"On $z \ge 1$, $sz$ is bounded above iff $s \le 0$; on $z \le 1$, $(s + 1)z - 1$ is bounded above "
             r"iff $s \ge -1$; both suprema are then at $z = 1$, with value $s$. With $\alpha = -Cs$ the domain "
             r"$[-1, 0]$ of $h^*$ is the box $[0, C]$, and $C h(z)$ is the largest of $\alpha(1 - z)$ over the box.",
        on="piece by piece", instance=r"$s, z$ real, $C > 0$",
        check=r"SymPy evaluated both pieces at $z = 1$ and simplified $C\max(0, 1 - z) - \max(0, C(1 - z))$ to $0$ "
              r"for $z > 1$, $z < 1$ and $z = 1$",
        verdict="holds", shown=rf"h^*(s) = {sp.latex(right)} \ \text{{on }} [-1, 0]"))
    for C_value in (sp.Integer(1), sp.Rational(1, 4)):
        r = worked_example(C_value)
        alpha_ok = all(0 <= v <= r["C"] for v in r["alpha"])
        ok = bool(r["P"] == r["D"] and alpha_ok and sum(r["alpha"][1:]) == r["alpha"][0])
        out.append(computed(
            MODEL, f"worked example at C = {C_value}",
            r"x_1 = (0, 0),\ y_1 = -1;\ x_2 = (2, 0),\ x_3 = (0, 2),\ y_2 = y_3 = +1: \quad "
            r"\alpha = \big(\min(C, 1),\ \tfrac12\min(C, 1),\ \tfrac12\min(C, 1)\big)",
            "the course's worked example", ok,
            note=r"$K = \operatorname{diag}(0, 4, 4)$, so with $\alpha_1 = \alpha_2 + \alpha_3$ the dual is "
                 r"$\sum_{j = 2, 3} (2\alpha_j - 2\alpha_j^2)$, maximised at $\alpha_j = \tfrac12$ unless the box "
                 r"$\alpha_1 \le C$ binds.",
            on=f"at C = {C_value}", instance=rf"$C = {sp.latex(C_value)}$",
            check=r"SymPy computed $w$, $b$, the slacks, $P$ and $D$ exactly and found $P = D$ with $\alpha$ in "
                  r"the box and $y^\top\alpha = 0$",
            verdict="holds", shown=rf"\alpha = {sp.latex(r['alpha'].T)},\ w = {sp.latex(r['w'].T)},\ "
                                   rf"b = {sp.latex(r['b'])},\ P = D = {sp.latex(r['P'])}"))
    w_star, claimed = mit_nonseparable_primal()
    out.append(computed(
        MODEL, "MIT 9.520's non-separable primal without xi >= 0",
        r"\min_{w, \xi} \sum_i \xi_i + \|w\|^2 \ \text{s.t.}\ y_i w^\top x_i \ge 1 - \xi_i \quad\Longrightarrow\quad "
        r"w^\star = \tfrac12 \sum_i y_i x_i",
        "MIT 9.520 lecture, 'Maximal Margin Classification, Non-separable case'",
        bool(sp.simplify(w_star - claimed) == sp.zeros(2, 1)),
        note=r"Without $\xi_i \ge 0$ a point beyond its margin earns a negative slack, a reward: for fixed $w$ the "
             r"best slack is $\xi_i = 1 - y_i w^\top x_i$ and the problem becomes the unconstrained "
             r"$n - w^\top \sum_i y_i x_i + \|w\|^2$, whose minimiser does not depend on which points are "
             r"support vectors. With $\xi_i \ge 0$ restored it is the SVM without bias at $C = \tfrac12$.",
        on="on a 3-point instance",
        instance=r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates and labels $y_i$",
        check=r"SymPy set the gradient of $\sum_i (1 - y_i w^\top x_i) + \|w\|^2$ to $0$ and solved for $w$",
        verdict="holds", shown=rf"(w^\star)^\top = {sp.latex(w_star.T)}"))
    return out


def check(name: str) -> Check:
    """One step's check, as a collapsed line for a notebook (``Check``)."""
    found = [s for s in steps() if s.name == name]
    if not found:
        raise ValueError(f"no step {name!r}; the steps are {[s.name for s in steps()]}")
    return Check(found[0])
