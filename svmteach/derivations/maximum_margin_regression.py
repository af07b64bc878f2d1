"""The maximum-margin regression dual: the Lagrangian with a sum-to-zero multiplier, its elimination (W from
row-centred alphas with one nonzero entry per row), the box-constrained dual, weak and strong duality, the
gradient, the block of one sample (one variable on a parabola, solved by clipping its vertex), and the KKT
conditions.

The problem (linear, no bias, k classes; Szedmak, Shawe-Taylor and Parrado-Hernandez 2006, in the unified view of
Dogan, Glasmachers and Igel 2016):

    min_W 1/2 sum_m ||w_m||^2 + C sum_i max(0, 1 - w_{y_i}' x_i)   s.t.  sum_m w_m = 0

Only the label's own score carries a margin constraint, so each sample has one multiplier, stored as
alpha_{i y_i} (the other entries of row i are 0, as :class:`svmteach.losses.MaximumMarginRegression` keeps them).

Instance: n = 3 points in the plane, k = 3 classes with labels y = (1, 2, 0) (so that sample and class indices
differ); data, C and the multipliers are free symbols.  W is k x d, as svmteach stores it (row m is w_m), and the
classes are 0..k-1.  Strong duality is checked on a rational instance with four points, two of them in one class,
and the library on random instances with repeated labels and k = 3, 4, 5, so that the terms that couple two
samples of one class are met too.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from . import binary
from .core import FAILED, computed, definition, identity, numeric, real_symbols, shown_line
from .lee_lin_wahba import _box_qp, centring  # J = I - 11'/k, the centring both sum-to-zero machines share

MODEL = "maximum-margin regression"
SSP = "Szedmak, Shawe-Taylor and Parrado-Hernandez (2006)"
DGI = "Dogan, Glasmachers and Igel (2016)"
MACHINE = f"{DGI}, the MMR machine of {SSP}"
BLOCK = f"{DGI}, the MMR dual; its block of one variable solved exactly"
ON = "on a 3-point, 3-class instance"
INSTANCE = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates, $k = 3$ classes with labels "
            r"$y = (1, 2, 0)$, symbolic $C$, weights $w_m \in \mathbb{R}^2$, $\nu \in \mathbb{R}^2$, one multiplier "
            r"$\alpha_{iy_i}$ and one $\mu_i$ per sample, slacks $\xi_i$")
n, d, k = 3, 2, 3
labels = (1, 2, 0)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
C = sp.Symbol("C", positive=True)
Wsym = sp.Matrix(k, d, lambda m, c: sp.Symbol(f"w_{m},{c + 1}", real=True))  # row m is w_m, m = 0..k-1
nu = sp.Matrix(real_symbols("nu_1:3"))
t = sp.Symbol("t", real=True)


def label_alphas(lab=labels):
    """One symbol per sample, :math:`\\alpha_{iy_i}` (samples from 1, classes from 0)."""
    return [sp.Symbol(f"alpha_{i + 1},{y}", real=True) for i, y in enumerate(lab)]


alpha = label_alphas()
xi = list(real_symbols(f"xi_1:{n + 1}"))
mu = list(real_symbols(f"mu_1:{n + 1}"))


def x(i, Xm=X):
    return Xm[i, :].T


def alpha_matrix(values=None, lab=labels, kk=k):
    """(n, k) alpha: row i holds ``values[i]`` at its label and 0 elsewhere (not variables)."""
    values = alpha if values is None else values
    A = sp.zeros(len(lab), kk)
    for i, v in enumerate(values):
        A[i, lab[i]] = v
    return A


def weights(A=None, Xm=X):
    """(k, d): :math:`W = (\\alpha J)^\\top X`, i.e. :math:`w_m = \\sum_i (\\alpha_{im} - \\bar\\alpha_i) x_i`."""
    A = alpha_matrix() if A is None else A
    return (A * centring(A.cols)).T * Xm


def dual(A=None, Xm=X):
    """:math:`D(\\alpha) = \\sum_i \\alpha_{iy_i} - \\frac12 \\|W(\\alpha)\\|_F^2` (maximised); the entries off the
    label are 0, so the sum of all entries is the sum of the label entries."""
    A = alpha_matrix() if A is None else A
    W = weights(A, Xm)
    return sum(A) - sp.Rational(1, 2) * sum(v ** 2 for v in W)


def lagrangian():
    """The margin constraint of sample i is :math:`\\xi_i \\ge 1 - w_{y_i}^\\top x_i`, its multiplier
    :math:`\\alpha_{iy_i}`; :math:`\\xi_i \\ge 0` has :math:`\\mu_i`, the equality :math:`\\sum_m w_m = 0` has
    :math:`\\nu`."""
    return (sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + (nu.T * Wsym.T * sp.ones(k, 1))[0]
            + sum(C * xi[i] - mu[i] * xi[i] + alpha[i] * (1 - (Wsym[labels[i], :] * x(i))[0] - xi[i])
                  for i in range(n)))


def steps():
    out = []
    L = lagrangian()
    out.append(definition(
        MODEL, "Lagrangian",
        r"L(W, \xi, \alpha, \mu, \nu) = \frac12\sum_{m=0}^{k-1} \|w_m\|^2 + \sum_{i=1}^n \Big[C\xi_i - \mu_i\xi_i + "
        r"\alpha_{iy_i}\big(1 - w_{y_i}^\top x_i - \xi_i\big)\Big] + \nu^\top \sum_{m=0}^{k-1} w_m",
        MACHINE,
        r"Each sample has a single margin constraint, on its own class: $\xi_i \ge 1 - w_{y_i}^\top x_i$, with the "
        r"multiplier $\alpha_{iy_i} \ge 0$; the slack's sign $\xi_i \ge 0$ has $\mu_i \ge 0$, and the equality "
        r"$\sum_m w_m = 0$ has a free $\nu \in \mathbb{R}^d$. The entries $\alpha_{im}$ with $m \ne y_i$ are not "
        r"variables and are stored as $0$. Without the equality the problem would split into $k$ one-class "
        r"problems that never push a wrong class down; with it, raising the label's score lowers the others."))
    # stationarity in W: grad_{w_m} L = w_m - sum_{i: y_i = m} alpha_{iy_i} x_i + nu
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    out.append(identity(
        MODEL, "stationarity in W",
        r"\nabla_{w_m} L = 0 \;\Rightarrow\; w_m = \sum_{i:\, y_i = m} \alpha_{iy_i}\, x_i - \nu",
        Wsym.subs(sol), sp.Matrix.vstack(*[
            sum((alpha[i] * x(i).T for i in range(n) if labels[i] == m), sp.zeros(1, d)) - nu.T for m in range(k)]),
        MACHINE,
        note=r"$L$ is a convex quadratic in $W$. Only the samples of class $m$ have a term with $w_m$, each "
             r"$-\alpha_{iy_i} w_m^\top x_i$, so the gradient in $w_m$ is $w_m - \sum_{i:\, y_i = m} \alpha_{iy_i} "
             r"x_i + \nu$.",
        on=ON, instance=INSTANCE, quantity="W", how=r"SymPy solved $\nabla_W L = 0$ for $W$"))
    out.append(identity(
        MODEL, "stationarity in xi_i",
        r"\frac{\partial L}{\partial \xi_i} = C - \mu_i - \alpha_{iy_i} = 0 \;\Rightarrow\; 0 \le \alpha_{iy_i} \le C",
        sp.Matrix([sp.diff(L, v) for v in xi]), sp.Matrix([C - mu[i] - alpha[i] for i in range(n)]), MACHINE,
        note=r"With $\mu_i \ge 0$ this gives the upper bound of the box, $\alpha_{iy_i} = C - \mu_i \le C$; the "
             r"slacks then leave the Lagrangian.",
        on=ON, instance=INSTANCE, quantity=r"\Big(\frac{\partial L}{\partial \xi_i}\Big)_{i}",
        how=r"SymPy differentiated $L$ in $\xi_1$, $\xi_2$, $\xi_3$"))
    # nu from the equality: summing w_m over m gives sum_i alpha_{iy_i} x_i - k nu = 0
    both = sp.solve([sp.diff(L, v) for v in Wsym] + list(Wsym.T * sp.ones(k, 1)), list(Wsym) + list(nu), dict=True)[0]
    out.append(identity(
        MODEL, "the multiplier nu",
        r"\sum_{m=0}^{k-1} w_m = 0 \;\Rightarrow\; \nu = \frac1k \sum_{i=1}^n \alpha_{iy_i}\, x_i",
        nu.subs(both), sum((alpha[i] * x(i) for i in range(n)), sp.zeros(d, 1)) / k, MACHINE,
        note=r"Every sample belongs to exactly one class, so summing $w_m = \sum_{i:\, y_i = m} \alpha_{iy_i} x_i - "
             r"\nu$ over the $k$ classes gives $0 = \sum_i \alpha_{iy_i} x_i - k\nu$. So $\nu$ is a function of "
             r"$\alpha$ and leaves the dual, which keeps only the box.",
        on=ON, instance=INSTANCE, quantity=r"\nu",
        how=r"SymPy solved $\nabla_W L = 0$ together with $\sum_m w_m = 0$ for $W$ and $\nu$"))
    out.append(identity(
        MODEL, "W from centred alphas",
        r"w_m = \sum_{i=1}^n (\alpha_{im} - \bar\alpha_i)\, x_i, \quad \bar\alpha_i = \frac1k \alpha_{iy_i}, \quad "
        r"\text{i.e.} \quad W = (\alpha J)^\top X, \quad J = I - \tfrac1k \mathbf{1}\mathbf{1}^\top",
        Wsym.subs(both), weights(), MACHINE,
        note=r"Substituting $\nu$: sample $i$ adds $(1 - \frac1k)\alpha_{iy_i} x_i$ to its own class and "
             r"$-\frac1k\alpha_{iy_i} x_i$ to every other class, which is row $i$ of $\alpha$ (its only nonzero "
             r"entry at $y_i$) minus the row's mean $\bar\alpha_i$. It is the Lee-Lin-Wahba map with the opposite "
             r"sign.",
        on=ON, instance=INSTANCE, quantity="W", how=r"the $W$ SymPy solved for, against the row-centred form"))
    out.append(identity(
        MODEL, "the weights sum to zero for every alpha",
        r"\sum_{m=0}^{k-1} w_m(\alpha) = X^\top \alpha J \mathbf{1} = 0",
        weights().T * sp.ones(k, 1), sp.zeros(d, 1), MACHINE,
        note=r"$J\mathbf{1} = 0$: the primal's equality holds at $W(\alpha)$ for any $\alpha$, so the weights of "
             r"any dual point are primal feasible.",
        on=ON, instance=INSTANCE, quantity=r"\sum_m w_m(\alpha)", how=r"SymPy summed the rows of $W(\alpha)$"))
    L_dual = L.subs(both).subs({mu[i]: C - alpha[i] for i in range(n)})
    K = X * X.T
    kernel_form = sum(alpha) - sp.Rational(1, 2) * sum(
        K[i, s] * alpha[i] * alpha[s] * ((1 if labels[i] == labels[s] else 0) - sp.Rational(1, k))
        for i in range(n) for s in range(n))
    out.append(identity(
        MODEL, "dual objective",
        r"L\Big|_{W(\alpha),\ \nu(\alpha),\ \mu = C - \alpha} = D(\alpha) = \sum_{i} \alpha_{iy_i} - \frac12 "
        r"\sum_{i,s} x_i^\top x_s\, \alpha_{iy_i}\alpha_{sy_s}\Big([y_i = y_s] - \frac1k\Big)",
        sp.expand(L_dual), sp.expand(kernel_form), MACHINE,
        note=r"The slack terms cancel by $C - \mu_i - \alpha_{iy_i} = 0$ and the $\nu$ term by $\sum_m w_m = 0$. The "
             r"quadratic term is $-\frac12\|W(\alpha)\|_F^2 = -\frac12 \mathrm{tr}(J\alpha^\top X X^\top \alpha J)$, "
             r"and $(J)_{y_i y_s} = [y_i = y_s] - \frac1k$. The dual maximises $D$ over the box $0 \le \alpha_{iy_i} "
             r"\le C$, one variable per sample; the solvers minimise $f = -D$.",
        on=ON, instance=INSTANCE, quantity=r"L\big|_{W(\alpha),\ \nu(\alpha),\ \mu = C - \alpha}",
        how=r"SymPy substituted the stationarity conditions and $\nu(\alpha)$ into $L$"))
    out.append(weak_duality())
    out.append(strong_duality())
    W = weights()
    out.append(identity(
        MODEL, "gradient of the dual",
        r"\frac{\partial f}{\partial \alpha_{iy_i}} = w_{y_i}^\top x_i - 1 = s_{iy_i} - 1, \quad f = -D",
        sp.Matrix([sp.diff(-dual(), a) for a in alpha]),
        sp.Matrix([(W[labels[i], :] * x(i))[0] - 1 for i in range(n)]), MACHINE,
        note=r"$\alpha_{iy_i}$ moves every $w_m$ by $([m = y_i] - \frac1k)x_i$, so $\frac12\|W\|_F^2$ changes at "
             r"the rate $(w_{y_i} - \frac1k\sum_m w_m)^\top x_i = w_{y_i}^\top x_i$, because the weights sum to zero; "
             r"$s_{iy_i}$ is the label's score.",
        on=ON, instance=INSTANCE, quantity=r"\Big(\frac{\partial f}{\partial \alpha_{iy_i}}\Big)_{i}",
        how=r"SymPy differentiated $f$ in $\alpha_{1,1}$, $\alpha_{2,2}$ and $\alpha_{3,0}$"))
    out.extend(block_steps())
    out.extend(kkt_steps())
    out.extend(numeric_checks())
    return out


def weak_duality():
    """P - D as a sum of terms that are >= 0 for primal-feasible (W, xi) and alpha in the box."""
    Wf = Wsym.copy()
    Wf[k - 1, :] = -sum((Wsym[m, :] for m in range(k - 1)), sp.zeros(1, d))  # sum_m w_m = 0
    Wa = weights()

    def gap_terms(Wm):
        return (sp.Rational(1, 2) * sum(v ** 2 for v in (Wm - Wa))
                + sum((C - alpha[i]) * xi[i] + alpha[i] * (xi[i] - 1 + (Wm[labels[i], :] * x(i))[0])
                      for i in range(n)))

    def primal_value(Wm):
        return sp.Rational(1, 2) * sum(v ** 2 for v in Wm) + C * sum(xi)

    # without the equality the identity fails: <W, W(alpha)> then keeps a term in sum_m w_m
    needs_equality = sp.expand(primal_value(Wsym) - dual() - gap_terms(Wsym)) != 0
    step = identity(
        MODEL, "weak duality: the gap as a sum of nonnegative terms",
        r"P(W, \xi) - D(\alpha) = \frac12\|W - W(\alpha)\|_F^2 + \sum_{i} \Big[(C - \alpha_{iy_i})\xi_i + "
        r"\alpha_{iy_i}\big(\xi_i - 1 + w_{y_i}^\top x_i\big)\Big]",
        sp.expand(primal_value(Wf) - dual()), sp.expand(gap_terms(Wf)), MACHINE,
        note=r"For $W$ with $\sum_m w_m = 0$, slacks $\xi_i \ge 0$ and $\xi_i \ge 1 - w_{y_i}^\top x_i$, and $0 \le "
             r"\alpha_{iy_i} \le C$, every term is $\ge 0$, so $P \ge D$. The equality is needed: the cross term "
             r"$\langle W, W(\alpha)\rangle = \sum_i \alpha_{iy_i} w_{y_i}^\top x_i - \frac1k \sum_i \alpha_{iy_i} "
             r"(\sum_m w_m)^\top x_i$ loses its last part only when the weights sum to zero. The gap is $0$ exactly "
             r"when $W = W(\alpha)$ and complementary slackness holds.",
        on=ON, instance=INSTANCE, quantity=r"P - D", how=r"SymPy expanded $P - D$ with $w_2 = -w_0 - w_1$ substituted")
    if not needs_equality:  # the note's claim that the equality is needed did not hold
        step.status, step.verdict = FAILED, "the identity holds without the equality, against the note"
    return step


#: The strong-duality instance: four rational points, two of them (samples 1 and 4) in class 1; its optimum has a
#: multiplier at C, one inside the box and one at 0.
SD_X = sp.Matrix([[1, 0], [0, 1], [-1, -1], [2, 1]])
SD_LABELS = (1, 2, 0, 1)


def strong_duality():
    """On a rational instance: the exact dual optimum's W gives a primal equal to the dual."""
    Cn = sp.Integer(1)
    a = label_alphas(SD_LABELS)
    A = alpha_matrix(a, SD_LABELS)
    f = -dual(A, SD_X)
    H = sp.hessian(f, a)
    b = -sp.Matrix([sp.diff(f, v) for v in a]).subs({v: 0 for v in a})
    star = _box_qp(H, b, Cn)
    A_star = A.subs(dict(zip(a, star)))
    W_star = weights(A_star, SD_X)
    S = SD_X * W_star.T
    P = (sp.Rational(1, 2) * sum(v ** 2 for v in W_star)
         + Cn * sum(sp.Max(0, 1 - S[i, y]) for i, y in enumerate(SD_LABELS)))
    D = dual(A_star, SD_X)
    sums_to_zero = W_star.T * sp.ones(k, 1) == sp.zeros(d, 1)
    ok = sp.simplify(P - D) == 0 and sums_to_zero
    return computed(
        MODEL, "strong duality on an instance",
        r"P\big(W(\alpha^\star)\big) = D(\alpha^\star), \quad \alpha^\star = \arg\max_{0 \le \alpha_{iy_i} \le C} "
        r"D(\alpha)", MACHINE, ok,
        note=r"By weak duality $P(W) \ge D(\alpha)$ for every feasible pair, so a pair with equal values is optimal "
             r"for both problems: the weights of the dual optimum solve the primal, with $\sum_m w_m = 0$.",
        on="on a rational 4-point instance",
        instance=r"$x_1 = (1, 0)$, $x_2 = (0, 1)$, $x_3 = (-1, -1)$, $x_4 = (2, 1)$ with labels $y = (1, 2, 0, 1)$ "
                 r"(two samples of class $1$), $k = 3$, $C = 1$; the optimum has multipliers at $C$, inside the "
                 r"box and at $0$",
        check=r"SymPy solved the dual exactly (the maximiser's active set, with every KKT condition checked in exact "
              r"arithmetic), built $W(\alpha^\star)$, and compared the primal (with its hinges) with the dual",
        verdict="P = D at the exact optimum",
        shown=shown_line(r"(\alpha^\star_{iy_i})_i =", star.T, r",\quad P = D =", D))


def block_steps():
    out = []
    W = weights()
    f = -dual()
    q = [(x(i).T * x(i))[0] for i in range(n)]
    s = [(W[labels[i], :] * x(i))[0] for i in range(n)]  # the label's score s_{iy_i} = w_{y_i}' x_i
    change, claimed = [], []
    for i in range(n):  # move alpha_{iy_i} alone by t, the other samples' alphas symbolic
        moved = [a + t if j == i else a for j, a in enumerate(alpha)]
        change.append(sp.expand(-dual(alpha_matrix(moved)) + dual()))
        claimed.append(sp.expand((s[i] - 1) * t + q[i] * sp.Rational(k - 1, k) * t ** 2 / 2))
    out.append(identity(
        MODEL, "the block of one sample is exact",
        r"f(\alpha + t\, e_{iy_i}) - f(\alpha) = g\, t + \frac{h}{2}\, t^2, \quad g = s_{iy_i} - 1, \quad h = "
        r"\|x_i\|^2\, \frac{k-1}{k}",
        sp.Matrix(change), sp.Matrix(claimed), BLOCK,
        note=r"Moving $\alpha_{iy_i}$ by $t$ moves $w_m$ by $t([m = y_i] - \frac1k)x_i$: the cross term with $W$ is "
             r"$t\, w_{y_i}^\top x_i$ because the weights sum to zero, and the squared move is $t^2 \|x_i\|^2 "
             r"\big((1 - \frac1k)^2 + (k - 1)\frac1{k^2}\big) = t^2 \|x_i\|^2 \frac{k-1}{k}$. $f$ is quadratic, so "
             r"the expansion is exact: the block of a sample is one variable on a parabola.",
        on=ON, instance=INSTANCE, quantity=r"\big(f(\alpha + t\, e_{iy_i}) - f(\alpha)\big)_{i}",
        how=r"SymPy expanded $f$ at the moved point, for each sample $i$ in turn"))
    second = sp.Matrix([sp.diff(f, a, 2) for a in alpha])
    on_instance = all(sp.expand(v - q[i] * sp.Rational(k - 1, k)) == 0 for i, v in enumerate(second))
    # for every k: the squared norm of J e_y, the move of the k weights per unit of alpha_{iy_i}, is (k - 1)/k
    every_k = all(sp.simplify((centring(kk)[:, y].T * centring(kk)[:, y])[0] - sp.Rational(kk - 1, kk)) == 0
                  for kk in range(2, 8) for y in range(kk))
    out.append(computed(
        MODEL, "the block's curvature",
        r"h = \frac{\partial^2 f}{\partial \alpha_{iy_i}^2} = q\, \frac{k-1}{k}, \quad q = \|x_i\|^2",
        BLOCK, on_instance and every_k,
        note=r"The curvature is $q\,\|J e_{y_i}\|^2$, and $J e_{y_i}$ has one entry $1 - \frac1k$ and $k - 1$ "
             r"entries $-\frac1k$. For $q > 0$ and $k \ge 2$ it is positive, so the block's minimiser is unique; "
             r"a zero row $x_i = 0$ has $h = 0$ and a linear block.",
        on=ON + " and for k = 2 to 7",
        instance=INSTANCE + r"; for the general $k$, the vectors $J e_y$ for $k = 2, \dots, 7$ and every class $y$",
        check=r"SymPy took the second derivative of $f$ in each $\alpha_{iy_i}$ on the instance, compared it with "
              r"$q\,\frac{k-1}{k}$, and computed $\|J e_y\|^2 = \frac{k-1}{k}$ exactly for $k = 2, \dots, 7$",
        shown=shown_line(r"\Big(\frac{\partial^2 f}{\partial \alpha_{iy_i}^2}\Big)_i =", second.T)))
    out.append(block_solution())
    return out


def _clip(v, lo, hi):
    return sp.Min(sp.Max(v, lo), hi)


def block_solution():
    """The exact minimiser of the block over [0, C], from SymPy's critical points and the ends, is the clip of the
    parabola's vertex; the rational instances reach all three cases (below 0, inside, above C)."""
    z = sp.Symbol("z", real=True)
    g_, h_ = sp.Symbol("g", real=True), sp.Symbol("h", positive=True)
    # the vertex of g t + h/2 t^2, in general symbols
    vertex_ok = sp.solve(sp.diff(g_ * t + h_ / 2 * t ** 2, t), t) == [-g_ / h_]
    rng = np.random.default_rng(13)
    ok, cases, shown = vertex_ok, set(), ""
    for trial in range(9):
        kk = 3 + trial % 3
        Cn = sp.Rational(int(rng.integers(1, 6)), int(rng.integers(1, 4)))
        qn = sp.Rational(int(rng.integers(1, 9)), int(rng.integers(1, 5)))
        hn = qn * sp.Rational(kk - 1, kk)
        oldn = Cn * sp.Rational(int(rng.integers(0, 5)), 4)  # 0, C/4, ..., C
        gn = sp.Rational(int(rng.integers(-24, 25)), int(rng.integers(1, 4)))
        phi = gn * (z - oldn) + hn / 2 * (z - oldn) ** 2  # the block: f(new) - f(old)
        candidates = [sp.Integer(0), Cn] + [c for c in sp.solve(sp.diff(phi, z), z) if 0 <= c <= Cn]
        best = min(candidates, key=lambda c: phi.subs(z, c))
        unclipped = oldn - gn / hn
        ok &= best == _clip(unclipped, 0, Cn)
        cases.add("below" if unclipped < 0 else ("above" if unclipped > Cn else "inside"))
        if trial == 0:
            shown = shown_line(r"k =", kk, r",\ q =", qn, r",\ C =", Cn, r",\ \alpha_{iy_i} =", oldn, r",\ g =", gn,
                               r":\ \text{minimiser} =", best)
    ok &= cases == {"below", "inside", "above"}
    return computed(
        MODEL, "the block's solution: clip the vertex",
        r"\alpha_{iy_i} \leftarrow \mathrm{clip}\Big(\alpha_{iy_i} - \frac{g}{h},\, 0,\, C\Big), \quad g = "
        r"s_{iy_i} - 1, \quad h = q\,\frac{k-1}{k}",
        BLOCK, ok,
        note=r"The parabola $g\,t + \frac{h}{2} t^2$ with $h > 0$ has its vertex at $t = -g/h$ and is convex, so over "
             r"the interval $[0, C]$ of the new value its minimum is at the vertex when it lies inside, and "
             r"otherwise at the end nearer to it: the clip of the vertex to the box.",
        on="on 9 rational blocks, k = 3 to 5",
        instance=r"$9$ blocks with rational $q > 0$, $C > 0$, a current $\alpha_{iy_i} \in [0, C]$ and gradient $g$, "
                 r"$k = 3, 4, 5$; their vertices fall below $0$, inside $[0, C]$ and above $C$",
        check=r"SymPy solved for the vertex of $g\,t + \frac{h}{2} t^2$ in general symbols, and on each block found "
              r"the exact minimiser over $[0, C]$ among its critical points and the two ends, then compared it with "
              r"the clip of the vertex",
        shown=shown)


def kkt_steps():
    """The KKT table, from the binary one: the constraint xi_i >= 1 - w_{y_i}' x_i is the binary constraint with
    the margin s_{iy_i} = w_{y_i}' x_i in place of y_i f(x_i), so :func:`binary.margin_set` (which solves
    complementary slackness) gives the allowed label scores directly."""
    out = []
    for name, value, expected, formula in (
            ("KKT: alpha_{iy_i} = 0", 0, sp.Interval(1, sp.oo),
             r"\alpha_{iy_i} = 0 \;\Rightarrow\; w_{y_i}^\top x_i \ge 1"),
            ("KKT: 0 < alpha_{iy_i} < C", sp.Rational(1, 2), sp.FiniteSet(1),
             r"0 < \alpha_{iy_i} < C \;\Rightarrow\; w_{y_i}^\top x_i = 1"),
            ("KKT: alpha_{iy_i} = C", 1, sp.Interval(-sp.oo, 1),
             r"\alpha_{iy_i} = C \;\Rightarrow\; w_{y_i}^\top x_i \le 1")):
        allowed = binary.margin_set(value)
        out.append(computed(
            MODEL, name, formula, MACHINE, allowed == expected,
            note=r"With $g_i = w_{y_i}^\top x_i - 1 + \xi_i$: complementary slackness $\alpha_{iy_i} g_i = 0$ and "
                 r"$\mu_i\xi_i = 0$, stationarity $\mu_i = C - \alpha_{iy_i}$, and feasibility $g_i \ge 0$, "
                 r"$\xi_i \ge 0$, $\mu_i \ge 0$ leave exactly these label scores. A sample whose label's score "
                 r"clears the margin ($w_{y_i}^\top x_i > 1$) has $\alpha_{iy_i} = 0$; one short of it has "
                 r"$\alpha_{iy_i} = C$. Because the dual is a box, these are also the signs of the gradient "
                 r"$s_{iy_i} - 1$ of $f$ at the bounds.",
            on="with C = 1", instance=r"one sample, $C = 1$, $\alpha_{iy_i} = " + sp.latex(value) + r"$; the label's "
                                      r"score $s_{iy_i} = w_{y_i}^\top x_i$, $\xi_i$ and $\mu_i$ are unknowns",
            check=r"SymPy solved $\alpha_{iy_i} g_i = 0$, $\mu_i\xi_i = 0$, $C - \alpha_{iy_i} - \mu_i = 0$ and "
                  r"reduced the inequalities to the set of allowed scores $s_{iy_i}$",
            shown=shown_line(r"s_{iy_i} \in", allowed)))
    return out


def _random_labels(rng, nn, kk):
    """``nn`` labels with every class of ``kk`` present and some classes repeated."""
    codes = np.concatenate([np.arange(kk), rng.integers(0, kk, nn - kk)])
    rng.shuffle(codes)
    return tuple(int(c) for c in codes)


def _derived_values(lab, kk, Xn, vals, Wr, Cn):
    """The derivation's W, dual, gradient (n, k) and curvatures at the alphas ``vals``, and its primal at ``Wr``, on
    the points ``Xn`` with labels ``lab`` and ``kk`` classes: the formulas built by the functions above with the
    points as numbers and the alphas as symbols, differentiated by SymPy, then evaluated."""
    nn = len(lab)
    Xs = sp.Matrix(Xn.tolist())
    a = label_alphas(lab)
    at = dict(zip(a, (float(v) for v in vals)))
    A = alpha_matrix(a, lab, kk)
    f = sp.expand(-dual(A, Xs))
    grad = sp.Matrix(nn, kk, lambda r, c: sp.diff(f, a[r]) if c == lab[r] else sp.Integer(0))
    Wp = sp.Matrix(Wr.tolist())
    P = sp.Rational(1, 2) * sum(v ** 2 for v in Wp) + Cn * sum(
        sp.Max(0, 1 - (Wp[y, :] * Xs[i, :].T)[0]) for i, y in enumerate(lab))
    return dict(W=np.array(weights(A, Xs).xreplace(at), dtype=float), D=float(-f.xreplace(at)),
                grad=np.array(grad.xreplace(at), dtype=float),
                h=np.array([float(sp.diff(f, v, 2)) for v in a]), P=float(P))


def _exact_interval_minimiser(g, h, old, Cn):
    """The minimiser over [0, C] of the block :math:`g(z - old) + \\frac h2 (z - old)^2`: the vertex if it lies in
    the interval, else the better end (every candidate compared by its value)."""
    def phi(z):
        return g * (z - old) + 0.5 * h * (z - old) ** 2

    candidates = [0.0, Cn] + ([old - g / h] if h > 0 and 0.0 <= old - g / h <= Cn else [])
    return min(candidates, key=phi)


def numeric_checks():
    """The library's MMR weights, gradient, dual, primal and compiled block step against the derivation."""
    from ..losses import get_loss
    from ..losses.maximum_margin_regression import block
    from ..losses.row_kernels import NOTHING_ASIDE, params, scratch
    from ..problems import MulticlassProblem

    loss = get_loss("mmr")
    rng = np.random.default_rng(17)
    Ws, grads, duals, primals, blocks = [], [], [], [], []
    for trial in range(6):
        kk, nn = 3 + trial % 3, 7
        lab = _random_labels(rng, nn, kk)
        Xn = rng.normal(size=(nn, d))
        Cn = float(rng.uniform(0.3, 3.0))
        p = MulticlassProblem(Xn, np.array(lab), C=Cn, loss="mmr")
        vals = np.clip(rng.uniform(-0.3, 1.3, nn) * Cn, 0.0, Cn)  # some at 0, some at C
        An = np.array(alpha_matrix(list(vals), lab, kk), dtype=float)
        Wr = rng.normal(size=(kk, d))
        Wr -= Wr.mean(axis=0)  # a primal feasible W: sum_m w_m = 0
        der = _derived_values(lab, kk, Xn, vals, Wr, Cn)
        Wn = np.asarray(loss.weights(p, An), dtype=float)
        Ws.append((Wn, der["W"]))
        grads.append((np.asarray(loss.gradient(p, Xn @ Wn.T), dtype=float), der["grad"]))
        duals.append((loss.dual(p, An, Wn), der["D"]))
        primals.append((loss.primal(p, Wr), der["P"]))
        # the compiled block of one sample against the derived block's exact minimiser on [0, C]
        for i in rng.choice(nn, size=2, replace=False):
            y = lab[i]
            row = An[i].copy()
            block((Xn @ der["W"].T)[i].copy(), row, y, float(Xn[i] @ Xn[i]), Cn, params(), NOTHING_ASIDE,
                  np.ones(kk, dtype=bool), scratch(kk), np.empty((0, kk)))
            derived = np.zeros(kk)
            derived[y] = _exact_interval_minimiser(der["grad"][i, y], der["h"][i], vals[i], Cn)
            blocks.append((np.append(row, Cn), np.append(derived, Cn)))  # with C: a row at 0 is measured on C's scale
    note_instances = (r"$n = 7$ random points in the plane, $k = 3$, $4$ or $5$ classes with some labels "
                      r"repeated, a random $C$ and a random $\alpha$ in the box (some entries at $0$ or $C$).")
    return [
        numeric(MODEL, "get_loss('mmr').weights",
                r"W = (\alpha J)^\top X, \quad J = I - \tfrac1k \mathbf{1}\mathbf{1}^\top",
                "svmteach.losses.get_loss('mmr').weights", Ws,
                note="The weights every maximum-margin regression solver keeps, from the row-centred alphas; "
                     + note_instances, what=r"the library's $(k, d)$ weights"),
        numeric(MODEL, "get_loss('mmr').gradient", r"\frac{\partial f}{\partial \alpha_{iy_i}} = s_{iy_i} - 1",
                "svmteach.losses.get_loss('mmr').gradient", grads,
                note=r"The gradient behind the KKT violation, from the scores $S = X W^\top$ ($0$ off the label, "
                     r"where the entries are not variables); " + note_instances,
                what=r"the library's $(n, k)$ gradient"),
        numeric(MODEL, "get_loss('mmr').dual", r"D(\alpha) = \sum_{i} \alpha_{iy_i} - \frac12\|W(\alpha)\|_F^2",
                "svmteach.losses.get_loss('mmr').dual", duals,
                note="The dual every maximum-margin regression solver reports; " + note_instances,
                what=r"the library's $D(\alpha)$"),
        numeric(MODEL, "get_loss('mmr').primal",
                r"P(W) = \frac12\|W\|_F^2 + C\sum_i \max\big(0, 1 - w_{y_i}^\top x_i\big)",
                "svmteach.losses.get_loss('mmr').primal", primals,
                note=r"The primal at random weights with $\sum_m w_m = 0$ (the hinge terms of the derivation's "
                     r"$P$); " + note_instances, what=r"the library's $P(W)$"),
        numeric(MODEL, "maximum_margin_regression.block",
                r"\alpha_{iy_i} \leftarrow \mathrm{clip}\Big(\alpha_{iy_i} - \frac{g}{h},\, 0,\, C\Big), \quad "
                r"g = s_{iy_i} - 1, \quad h = \|x_i\|^2\, \frac{k-1}{k}",
                "svmteach.losses.maximum_margin_regression.block", blocks,
                note=r"The compiled row kernel the solvers run on $12$ random blocks (two samples of each of $6$ "
                     r"instances), given the scores $s_i = W(\alpha) x_i$ and $q = \|x_i\|^2$, against the exact "
                     r"minimiser over $[0, C]$ of the derived block, whose $g$ and $h$ are the first and second "
                     r"derivatives of the derived $f$ (the vertex when inside, else the better end); "
                     + note_instances,
                what=r"the new row $\alpha_i$ (beside its bound $C$, the scale of the difference)"),
    ]
