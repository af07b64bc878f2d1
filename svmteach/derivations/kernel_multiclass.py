"""The kernel duals of the four multiclass losses (Weston-Watkins with any M, Crammer-Singer, Lee-Lin-Wahba and
maximum-margin regression):
the representer argument carried to k weight vectors, the block problem of one sample in terms of K_ii and
its scores, the rank-one move of the training scores, and the penalised intercept as B^2 added to the kernel.

Each loss's primal is written over features :math:`\\phi(x_i) \\in \\mathbb{R}^p` (the rows of the symbolic
(n, p) matrix Phi) instead of :math:`x_i`.  Stationarity of its Lagrangian gives :math:`w_m = \\sum_i A_{im}
\\phi(x_i)` with the loss's :math:`A(\\alpha)` (``weight_rows`` in :mod:`svmteach.losses`), so the dual and every
block step need only :math:`K = \\Phi\\Phi^\\top` and the training scores :math:`S = K A` (the solvers' kernel
model, :mod:`svmteach.multiclass_model`).  The checks: SymPy on n = 3 points with p = 4 features, k = 3
classes, labels y = (1, 2, 0), a symbolic symmetric K; against the linear derivations of the course at
:math:`K = X X^\\top`; and the compiled block kernels, run with :math:`q = K_{ii}` and :math:`s = S_{i:}`, against
the block problem derived here, solved by trying every active set.  Source: Dogan, Glasmachers and Igel (2016),
who write every machine in this kernel form.
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable, NamedTuple

import numpy as np
import sympy as sp

from . import crammer_singer as cs_linear
from . import lee_lin_wahba as llw_linear
from . import maximum_margin_regression as mmr_linear
from . import weston_watkins as ww_linear
from .core import FAILED, VERIFIED, Step, computed, numeric, real_symbols, shown_line

MODEL = "kernel multiclass"
DGI = "Dogan, Glasmachers and Igel (2016)"
ON = "on a 3-point, 3-class instance with 4 features"
n, k, p, d = 3, 3, 4, 2
labels = (1, 2, 0)
INSTANCE = (r"$n = 3$ points with features $\phi(x_i) \in \mathbb{R}^4$ (the rows of $\Phi$, entries $\phi_{ic}$ "
            r"symbolic), $k = 3$ classes with labels $y = (1, 2, 0)$, weights $w_m \in \mathbb{R}^4$, a symbolic "
            r"symmetric $K$ ($K_{11}, K_{12}, \dots, K_{33}$), symbolic $C$, $M$, multipliers $\alpha_{im}$, "
            r"$\lambda_{im}$, $\mu_{im}$, $\nu$ and slacks $\xi$; for the linear case, points $x_i \in \mathbb{R}^2$ "
            r"with symbolic coordinates")
PHI = sp.Matrix(n, p, lambda i, c: sp.Symbol(f"phi_{i + 1}{c + 1}", real=True))
X = sp.Matrix(n, d, lambda i, c: sp.Symbol(f"x_{i + 1}{c + 1}", real=True))  # the linear derivations' points
K = sp.Matrix(n, n, lambda i, s: sp.Symbol(f"K_{min(i, s) + 1}{max(i, s) + 1}", real=True))
M = sp.Symbol("M", real=True)  # the Weston-Watkins derivation's margin scale
C = sp.Symbol("C", positive=True)
WF = sp.Matrix(k, p, lambda m, c: sp.Symbol(f"w_{m + 1}{c + 1}", real=True))  # row m is w_m, in feature space
ALPHA = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"alpha_{i + 1}{m + 1}", real=True))


def gram_of(F):
    """The substitution :math:`K_{is} = f_i^\\top f_s` for the rows of ``F`` (features, or points)."""
    G = F * F.T
    return {K[i, s]: G[i, s] for i in range(n) for s in range(i, n)}


KPHI, KX = gram_of(PHI), gram_of(X)


def centring(kk=k):
    return sp.eye(kk) - sp.ones(kk, kk) / kk


class Loss(NamedTuple):
    """One loss as the derivation needs it; ``build`` makes the (n, k) alpha from its free entries.

    The free entries of a row are those off the label, whose label entry ``label_entry`` then fixes, or
    (``label_entry`` None: maximum-margin regression) the label entry alone, the others 0.
    """

    tag: str
    title: str
    label_entry: Callable | None  # the label entry of a row from its free entries; None: the label entry is free
    rows: Callable  # A(alpha), (n, k)
    linear: Callable  # the linear term of the maximised dual, ell(alpha)
    course_dual: Callable  # the linear derivation's maximised dual at an (n, k) alpha, points X
    course_weights: Callable  # the linear derivation's (k, d) weights at an (n, k) alpha, points X
    A_latex: str
    ell_latex: str
    box_latex: str
    linear_source: str
    lagrangian_latex: str  # whose Lagrangian, with which multipliers
    block_latex: str  # the block's gain in delta, K_ii and s_i
    move_latex: str  # how the row's entries move together

    def positions(self, y, kk=k):
        """The classes of a row of class ``y`` whose entries are free."""
        return [y] if self.label_entry is None else [m for m in range(kk) if m != y]

    def free(self, lab=labels):
        """The free entries' symbols, by (sample, class)."""
        return {(i, m): ALPHA[i, m] for i in range(len(lab)) for m in self.positions(lab[i])}

    def build(self, values=None, lab=labels):
        values = self.free(lab) if values is None else values
        Am = sp.zeros(len(lab), k)
        for (i, m), v in values.items():
            Am[i, m] = v
        if self.label_entry is not None:
            for i in range(len(lab)):
                Am[i, lab[i]] = self.label_entry([Am[i, m] for m in range(k) if m != lab[i]])
        return Am


WW = Loss("WW", "Weston-Watkins", lambda others: -sum(others), lambda Am: -M * Am,
          lambda Am, lab=labels: sum(Am[i, m] for i in range(Am.rows) for m in range(Am.cols) if m != lab[i]),
          lambda Am: -ww_linear.dual(Am, X, labels), lambda Am: ww_linear.weights(Am, X),
          r"A = -M\alpha", r"\ell(\alpha) = \sum_i\sum_{j \ne y_i} \alpha_{ij}",
          r"0 \le \alpha_{ij} \le C,\ \alpha_{iy_i} = -\sum_{j \ne y_i}\alpha_{ij}",
          "Weston-Watkins dual blog post, 'Expression for the dual problem'",
          r"the Lagrangian of the blog post with $\phi(x_i)$ for $x_i$ (multipliers $\alpha_{ij}$, $\mu_{ij}$)",
          r"\sum_{j \ne y_i}\delta_j + M\,\delta^\top s_i - \frac{M^2 K_{ii}}{2}\|\delta\|^2",
          r"$\delta_{y_i} = -\sum_{j \ne y_i}\delta_j$")
CS = Loss("CS", "Crammer-Singer", lambda others: -sum(others), lambda Am: Am,
          lambda Am, lab=labels: sum(Am[i, lab[i]] for i in range(Am.rows)),
          lambda Am: -cs_linear.dual(Am), lambda Am: cs_linear.weights(Am),
          r"A = \alpha", r"\ell(\alpha) = \sum_i \alpha_{iy_i}",
          r"\alpha_{im} \le C[m = y_i],\ \sum_m \alpha_{im} = 0",
          "Multiclass dual solvers slides, 'Dual Formulation'",
          r"the Lagrangian of the slides with $\phi(x_i)$ for $x_i$ (multipliers $\lambda_{im}$, "
          r"$\alpha_{im} = C[m = y_i] - \lambda_{im}$)",
          r"\delta_{y_i} - \delta^\top s_i - \frac{K_{ii}}{2}\|\delta\|^2", r"$\delta_{y_i} = -\sum_{m \ne y_i}\delta_m$")
LLW = Loss("LLW", "Lee-Lin-Wahba", lambda others: 0, lambda Am: -Am * centring(Am.cols),
           lambda Am, lab=labels: sum(Am[i, m] for i in range(Am.rows) for m in range(Am.cols) if m != lab[i]),
           lambda Am: llw_linear.dual(Am, X), lambda Am: llw_linear.weights(Am, X),
           r"A = -\alpha J", r"\ell(\alpha) = \sum_i\sum_{m \ne y_i} \alpha_{im}",
           r"0 \le \alpha_{im} \le C,\ \alpha_{iy_i} = 0", "Lee, Lin and Wahba (2004), the multicategory SVM's dual",
           r"the Lagrangian of Lee, Lin and Wahba with $\phi(x_i)$ for $x_i$ (multipliers $\alpha_{im}$, "
           r"$\mu_{im}$, and $\nu$ for $\sum_m w_m = 0$)",
           r"\sum_{m \ne y_i}\delta_m + (J\delta)^\top s_i - \frac{K_{ii}}{2}\|J\delta\|^2",
           r"$\delta_{y_i} = 0$ and $J = I - \frac1k\mathbf{1}\mathbf{1}^\top$")
MMR = Loss("MMR", "maximum-margin regression", None, lambda Am: Am * centring(Am.cols),
           lambda Am, lab=labels: sum(Am[i, lab[i]] for i in range(Am.rows)),
           lambda Am: mmr_linear.dual(Am, X), lambda Am: mmr_linear.weights(Am, X),
           r"A = \alpha J", r"\ell(\alpha) = \sum_i \alpha_{iy_i}",
           r"0 \le \alpha_{iy_i} \le C,\ \alpha_{im} = 0\ (m \ne y_i)", mmr_linear.MACHINE,
           r"the Lagrangian of the MMR machine with $\phi(x_i)$ for $x_i$ (one multiplier $\alpha_{iy_i}$ and one "
           r"$\mu_i$ per sample, and $\nu$ for $\sum_m w_m = 0$)",
           r"\delta - \delta\,(s_{iy_i} - \bar s_i) - \frac{(k - 1) K_{ii}}{2k}\delta^2",
           r"$\delta$ in the label entry alone, $A(\delta) = \delta\,(e_{y_i} - \frac1k\mathbf{1})$; the mean "
           r"$\bar s_i$ is $0$ at every feasible $\alpha$, since the rows of $A$, hence of $S = KA$, sum to $0$ (the "
           r"intercept's steps), so the block needs $s_{iy_i}$ alone")
LOSSES = (WW, CS, LLW, MMR)


def kernel_dual(loss, Am, Km=K):
    """:math:`D_K(\\alpha) = \\ell(\\alpha) - \\frac12 \\langle A, K A\\rangle` (maximised)."""
    A = loss.rows(Am)
    return loss.linear(Am) - sp.Rational(1, 2) * sum((A.T * Km * A)[m, m] for m in range(k))


def lagrangian(loss):
    """``(L, unknowns, equations, elimination)`` of the loss's primal over the features Phi.

    ``elimination`` expresses the multipliers (and the slacks' multipliers) through the (n, k) alpha of
    :meth:`Loss.build`: after it, L at the stationary W is the dual.
    """
    sq = sp.Rational(1, 2) * sum(v ** 2 for v in WF)
    phi = [PHI[i, :].T for i in range(n)]
    if loss.tag == "CS":
        xi = real_symbols("xi_1:4")
        lam = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"lambda_{i + 1}{m + 1}", real=True))
        L = sq + C * sum(xi) + sum(lam[i, m] * ((0 if m == labels[i] else 1) - xi[i]
                                              - ((WF[labels[i], :] - WF[m, :]) * phi[i])[0])
                                   for i in range(n) for m in range(k))
        Am = CS.build()
        elim = {lam[i, m]: (C if m == labels[i] else 0) - Am[i, m] for i in range(n) for m in range(k)}
        return L, list(WF), [sp.diff(L, v) for v in WF], elim
    free = loss.free()
    xi = {key: sp.Symbol(f"xi_{key[0] + 1}{key[1] + 1}", real=True) for key in free}
    mu = {key: sp.Symbol(f"mu_{key[0] + 1}{key[1] + 1}", real=True) for key in free}
    elim = {mu[key]: C - free[key] for key in free}
    if loss.tag == "WW":
        L = sq + sum(C * xi[(i, j)] - mu[(i, j)] * xi[(i, j)] + free[(i, j)] * (
            1 - xi[(i, j)] - M * ((WF[labels[i], :] - WF[j, :]) * phi[i])[0]) for (i, j) in free)
        return L, list(WF), [sp.diff(L, v) for v in WF], elim
    # with sum_m w_m = 0: Lee-Lin-Wahba's margins 1 + w_m'phi_i (m != y_i) and MMR's 1 - w_{y_i}'phi_i
    nu = sp.Matrix(real_symbols("nu_1:5"))
    L = sq + (nu.T * WF.T * sp.ones(k, 1))[0] + sum(
        C * xi[(i, m)] - mu[(i, m)] * xi[(i, m)]
        + free[(i, m)] * (1 + (1 if m != labels[i] else -1) * (WF[m, :] * phi[i])[0] - xi[(i, m)])
        for (i, m) in free)
    return L, list(WF) + list(nu), [sp.diff(L, v) for v in WF] + list(WF.T * sp.ones(k, 1)), elim


def vanishes(expr) -> bool:
    """True when the polynomial ``expr`` (a matrix: each entry) expands to 0, an exact test for polynomials."""
    entries = expr if isinstance(expr, sp.MatrixBase) else [expr]
    return all(v == 0 or sp.Poly(v, *sorted(v.free_symbols, key=str)).is_zero for v in entries)


def polynomial(name, formula, lhs, rhs, source, *, note, how, quantity, sub=None, sub_latex="", on=ON,
               instance=INSTANCE):
    """A step whose check is that ``lhs - rhs`` expands to 0 on the instance, after ``sub`` (the kernel's entries
    as inner products) is put into the claim ``rhs``; the claim is shown as it is, in the kernel's symbols."""
    claim = rhs if sub is None else rhs.subs(sub)
    ok = vanishes(sp.Matrix(lhs) - sp.Matrix(claim) if isinstance(lhs, sp.MatrixBase) else lhs - claim)
    with_sub = f", with {sub_latex}," if sub is not None else ""
    check = (f"{how}; SymPy expanded the difference between the computed value and the claimed form{with_sub} to $0$"
             if ok else f"{how}; the difference{with_sub} does not expand to $0$")
    return Step(MODEL, name, formula, source, VERIFIED if ok else FAILED, note, check, on,
                "holds" if ok else "the two sides differ", instance, rhs, shown_line(quantity, "=", rhs))


AS_INNER = r"$K_{is} = \phi(x_i)^\top\phi(x_s)$"


def steps():
    out = []
    for loss in LOSSES:
        out.extend(loss_steps(loss))
    out.extend(intercept_steps())
    out.extend(numeric_checks())
    return out


def loss_steps(loss):
    tag, out = loss.tag, []
    L, unknowns, equations, elim = lagrangian(loss)
    Am_, b_ = sp.linear_eq_to_matrix(equations, unknowns)
    sol = dict(zip(unknowns, Am_.LUsolve(b_)))
    W_star = WF.subs(sol).subs(elim)
    Am = loss.build()
    A = loss.rows(Am)
    out.append(polynomial(
        f"{tag}: stationarity in w_m, the representer form",
        rf"\nabla_{{w_m}} L = 0 \;\Rightarrow\; w_m = \sum_{{i=1}}^n A_{{im}}\, \phi(x_i), \quad {loss.A_latex}",
        W_star, A.T * PHI, f"{DGI}, the {loss.title} machine in its kernel form",
        note=rf"From {loss.lagrangian_latex}: $L$ is a convex quadratic in the weights, whose gradient in $w_m$ is $w_m$ minus a "
             r"combination of the features $\phi(x_i)$. So every $w_m$ lies in their span, whatever the dimension "
             r"of the feature space: the representer argument, for $k$ weight vectors at once. "
             rf"The coefficients are the loss's ${loss.A_latex}$, as in the linear case.",
        quantity=r"W",
        how=r"SymPy solved $\nabla_W L = 0$" + (r" with $\sum_m w_m = 0$" if len(unknowns) > len(WF) else "") + " for $W$"))
    out.append(polynomial(
        f"{tag}: the training scores S = K A", r"S_{im} = w_m^\top\phi(x_i) = (K A)_{im}, \quad "
        r"K_{is} = \phi(x_i)^\top\phi(x_s)",
        PHI * W_star.T, K * A, f"{DGI}, the {loss.title} machine in its kernel form", sub=KPHI, sub_latex=AS_INNER,
        note=r"With $w_m = \sum_s A_{sm}\phi(x_s)$, the score of class $m$ at a training point is "
             r"$\sum_s A_{sm} K_{is}$: the $(n, k)$ scores are $S = K A$, computed from kernel values alone.",
        how=r"SymPy multiplied the stationary $W$ by each $\phi(x_i)$", quantity="S"))
    out.append(polynomial(
        f"{tag}: the norm of W", r"\|W\|_F^2 = \sum_m A_m^\top K A_m = \langle A, K A\rangle",
        sum(v ** 2 for v in W_star), sum((A.T * K * A)[m, m] for m in range(k)),
        f"{DGI}, the {loss.title} machine in its kernel form", sub=KPHI, sub_latex=AS_INNER,
        note=r"$\|w_m\|^2 = \sum_{i,s} A_{im} A_{sm} \phi(x_i)^\top\phi(x_s)$; summed over the classes this is "
             r"$\mathrm{tr}(A^\top K A)$, the inner product of $A$ with the scores $S = K A$.",
        how=r"SymPy summed the squares of the stationary $W$", quantity=r"\|W\|_F^2"))
    L_dual = sp.expand(L.subs(sol).subs(elim))
    out.append(polynomial(
        f"{tag}: the kernel dual",
        rf"L\Big|_{{W(\alpha)}} = D_K(\alpha) = \ell(\alpha) - \frac12\langle A, K A\rangle, \quad {loss.ell_latex}",
        L_dual, kernel_dual(loss, Am), f"{DGI}, the {loss.title} machine in its kernel form", sub=KPHI, sub_latex=AS_INNER,
        note=r"The slacks $\xi$ leave with their multipliers, as in the linear derivation; what is left is the "
             r"linear term $\ell(\alpha)$ and $-\frac12\|W\|_F^2 = -\frac12\langle A, K A\rangle$. The dual is "
             rf"maximised over the same set as the linear one, ${loss.box_latex}$: only $X X^\top$ became $K$.",
        how=r"SymPy substituted the stationary $W$ and the multipliers into $L$",
        quantity=r"D_K(\alpha)"))
    out.append(polynomial(
        f"{tag}: K = XX' gives the linear dual",
        r"D_K(\alpha)\Big|_{K = X X^\top} = D(\alpha)",
        sp.expand(kernel_dual(loss, Am).subs(KX)), sp.expand(loss.course_dual(Am)), loss.linear_source,
        note=rf"$D(\alpha)$ is the dual that the course's {loss.title} derivation found from the linear "
             r"Lagrangian, with points $x_i \in \mathbb{R}^2$: the kernel dual with the linear kernel is that dual.",
        quantity=r"D_K\big|_{K = X X^\top}",
        how=r"SymPy put $K_{is} = x_i^\top x_s$ into $D_K$"))
    out.extend(block_steps(loss, Am, A))
    return out


def block_steps(loss, Am, A):
    """The block of sample i = 1 in K_ii and s_i, the same block in the linear case, and the move of S."""
    tag, out, i = loss.tag, [], 0
    free = loss.free()
    delta = {(i, m): sp.Symbol(f"delta_{m + 1}", real=True) for m in loss.positions(labels[i])}
    E = loss.build({**{key: 0 for key in free}, **delta})  # delta_i in row i, its label entry as the loss says
    Ad = loss.rows(E)[i, :]
    moved = loss.build({key: v + (delta[key] if key in delta else 0) for key, v in free.items()})
    s_i = (K * A)[i, :]
    claim = loss.linear(E) - (Ad * s_i.T)[0] - K[i, i] / 2 * (Ad * Ad.T)[0]
    out.append(polynomial(
        f"{tag}: the block of one sample in K_ii and s_i",
        r"D_K(\alpha + e_i\delta^\top) - D_K(\alpha) = \ell(e_i\delta^\top) - A(\delta)^\top s_i - \frac{K_{ii}}{2}"
        rf"\|A(\delta)\|^2 = {loss.block_latex}, \quad s_i = (K A)_{{i:}}",
        sp.expand(kernel_dual(loss, moved) - kernel_dual(loss, Am)), sp.expand(claim), DGI,
        note=r"Only row $i$ of $\alpha$ moves, by $\delta$ (" + loss.move_latex + r"), so $A$ moves by $e_i A(\delta)^\top$ "
             r"and $\langle A, K A\rangle$ by $2A(\delta)^\top (K A)_{i:} + K_{ii}\|A(\delta)\|^2$: the block needs "
             r"the sample's scores $s_i$ and $K_{ii}$ only, never another column of $K$. The dual is quadratic, so "
             r"this is exact.",
        quantity=r"D_K(\alpha + e_1\delta^\top) - D_K(\alpha)",
        how=r"SymPy expanded $D_K$ at the moved point, with a symbolic symmetric $K$"))
    W = loss.course_weights(Am)
    q = (X[i, :] * X[i, :].T)[0]
    linear_claim = loss.linear(E) - (Ad * (W * X[i, :].T))[0] - q / 2 * (Ad * Ad.T)[0]
    out.append(polynomial(
        f"{tag}: the linear block, with q_i for K_ii and W x_i for s_i",
        r"D(\alpha + e_i\delta^\top) - D(\alpha) = \ell(e_i\delta^\top) - A(\delta)^\top W x_i - \frac{q_i}{2}"
        r"\|A(\delta)\|^2, \quad q_i = \|x_i\|^2",
        sp.expand(loss.course_dual(moved) - loss.course_dual(Am)), sp.expand(linear_claim), loss.linear_source,
        note=r"The linear dual of the course's derivation, with its own weights $W(\alpha)$: its block is the kernel "
             r"block with $K_{ii}$ read as $q_i = \|x_i\|^2$ and $s_i$ as $W x_i$. So the block kernels the linear "
             r"solvers run solve the kernel block when given $q = K_{ii}$ and $s = S_{i:}$.",
        quantity=r"D(\alpha + e_1\delta^\top) - D(\alpha)",
        how=r"SymPy expanded the linear dual at the moved point"))
    out.append(polynomial(
        f"{tag}: S moves by a kernel column",
        r"K A(\alpha + e_i\delta^\top) - K A(\alpha) = K_{:i}\, A(\delta)^\top",
        sp.expand(K * loss.rows(moved) - K * A), K[:, i] * Ad, DGI,
        note=r"$A$ is linear in $\alpha$ and moves only in row $i$, so the scores move by the outer product of "
             r"column $i$ of $K$ with $A(\delta)$: $O(nk)$ a step, one kernel column, no other.",
        quantity=r"K A(\alpha + e_1\delta^\top) - K A(\alpha)",
        how=r"SymPy subtracted the two score matrices"))
    return out


def intercept_steps():
    """The penalised intercept: a constant feature B appended to phi(x)."""
    out = []
    B = sp.Symbol("B", positive=True)
    Ag = sp.Matrix(n, k, lambda i, m: sp.Symbol(f"A_{i + 1}{m + 1}", real=True))
    ext = PHI.row_join(B * sp.ones(n, 1))
    note_ext = (r"Appending the constant $B$ to every feature vector adds $B \cdot B$ to every inner product. So "
                r"the intercept is the kernel $K + B^2\mathbf{1}\mathbf{1}^\top$, and sample $i$'s block has the "
                r"curvature $K_{ii} + B^2$.")
    out.append(polynomial(
        "intercept: the kernel of the extended features",
        r"\tilde\phi(x) = (\phi(x), B) \;\Rightarrow\; \tilde K = \tilde\Phi\tilde\Phi^\top = K + B^2\mathbf{1}"
        r"\mathbf{1}^\top",
        ext * ext.T, K + B ** 2 * sp.ones(n, n), f"{DGI}, the bias as a constant feature", sub=KPHI, sub_latex=AS_INNER,
        note=note_ext, how=r"SymPy multiplied the extended feature matrix by its transpose",
        quantity=r"\tilde K"))
    zf = sp.Matrix(1, p, lambda _, c: sp.Symbol(f"phi_z{c + 1}", real=True))
    kappa = sp.Matrix(1, n, lambda _, i: sp.Symbol(f"kappa_{i + 1}", real=True))
    W_ext = Ag.T * ext  # w~_m = sum_i A_im phi~(x_i), (k, p + 1)
    scores = W_ext * zf.row_join(sp.Matrix([[B]])).T  # (k, 1): w~_m' phi~(z)
    b = B ** 2 * Ag.T * sp.ones(n, 1)
    ok_weight = vanishes(W_ext[:, p] - B * Ag.T * sp.ones(n, 1))
    ok_scores = vanishes(scores - (Ag.T * kappa.T + b).subs({kappa[i]: (PHI[i, :] * zf.T)[0] for i in range(n)}))
    out.append(computed(
        MODEL, "intercept: b_m = B^2 sum_i A_im",
        r"\tilde w_m^\top\tilde\phi(x) = \sum_i A_{im}\, k(x_i, x) + b_m, \quad b_m = B\,\tilde w_{m,p+1} = "
        r"B^2\sum_i A_{im}",
        f"{DGI}, the bias as a constant feature", ok_weight and ok_scores,
        note=r"The weight of the constant feature in $\tilde w_m = \sum_i A_{im}\tilde\phi(x_i)$ is "
             r"$B\sum_i A_{im}$; times the feature's value $B$ it is the intercept $b_m$. A new point's score "
             r"is then the kernel sum plus $b_m$, with $k(x_i, x) = \kappa_i$: no weight vector is ever formed.",
        on=ON, instance=INSTANCE + r"; $B > 0$, a general $(n, k)$ matrix $A$, a new point with features "
                                   r"$\phi(x) \in \mathbb{R}^4$ and kernel values $\kappa_i = \phi(x_i)^\top\phi(x)$",
        check=r"SymPy took the last coordinate of each $\tilde w_m$ and compared it with $B\sum_i A_{im}$, and "
              r"expanded the new point's scores minus the kernel sums plus $b_m$ to $0$ (with "
              r"$\kappa_i = \phi(x_i)^\top\phi(x)$)",
        expr=b, shown=shown_line(r"b =", b)))
    sums = sp.Matrix([sp.expand(sum(loss.rows(loss.build()))) for loss in LOSSES])
    out.append(polynomial(
        "intercept: the intercepts sum to zero",
        r"\sum_m b_m = B^2\,\mathbf{1}^\top A(\alpha)\mathbf{1} = 0 \quad \text{(Weston-Watkins, Crammer-Singer, "
        r"Lee-Lin-Wahba, MMR)}",
        B ** 2 * sums, sp.zeros(len(LOSSES), 1), f"{DGI}, the bias as a constant feature",
        note=r"Each row of $A(\alpha)$ sums to $0$ for every feasible $\alpha$: Weston-Watkins and Crammer-Singer "
             r"because $\alpha_{iy_i}$ balances the row, Lee-Lin-Wahba and MMR because $J\mathbf{1} = 0$. So the "
             r"intercepts always sum to $0$, as the weights do ($\sum_m w_m = 0$).",
        instance=INSTANCE + r"; $B > 0$", quantity=r"B^2\,\mathbf{1}^\top A(\alpha)\mathbf{1}",
        how=r"SymPy summed the entries of $A(\alpha)$ for each loss, in its own dual variables"))
    return out


# ---- the code that runs ------------------------------------------------------------------------------


def block_problem(loss, kk):
    """The derived block problem of sample 0 of class 0 with ``kk`` classes, as a minimisation
    :math:`\\frac12 z^\\top H z - c^\\top z` in the new free entries z: functions ``(H, c)`` of
    ``(alpha_row, s, q, M)``, from the kernel block :math:`\\ell(\\delta) - A(\\delta)^\\top s - \\frac q2
    \\|A(\\delta)\\|^2`."""
    free = loss.positions(0, kk)
    zs = list(real_symbols(f"zeta_1:{len(free) + 1}"))
    old = list(real_symbols(f"old_1:{kk + 1}"))
    s = sp.Matrix(real_symbols(f"score_1:{kk + 1}"))
    q = sp.Symbol("q", real=True)
    lab = (0,)
    Erow = sp.zeros(1, kk)
    for z, m in zip(zs, free):
        Erow[0, m] = z - old[m]
    if loss.label_entry is not None:
        Erow[0, 0] = loss.label_entry([Erow[0, m] for m in free])
    Ad = loss.rows(Erow)
    gain = loss.linear(Erow, lab) - (Ad * s)[0] - q / 2 * (Ad * Ad.T)[0]
    H = -sp.hessian(gain, zs)
    c = sp.Matrix([sp.diff(gain, v) for v in zs]).subs({v: 0 for v in zs})
    args = [old, list(s), q, M]
    return sp.lambdify(args, H, "numpy"), sp.lambdify(args, c, "numpy")


def active_set_minimum(H, c, G, h):
    """The minimiser of the strictly convex :math:`\\frac12 z^\\top H z - c^\\top z` over :math:`G z \\le h`, by
    trying every set of active constraints: the optimum minimises over the affine set of its own active ones, and
    every feasible candidate's value is at least the optimum's."""
    m = len(c)
    best, best_value = None, np.inf
    for size in range(m + 1):
        for active in combinations(range(len(h)), size):
            Ga, ha = G[list(active)], h[list(active)]
            kkt = np.block([[H, Ga.T], [Ga, np.zeros((size, size))]])
            try:
                zl = np.linalg.solve(kkt, np.concatenate([c, ha]))
            except np.linalg.LinAlgError:
                continue
            z = zl[:m]
            if np.all(G @ z <= h + 1e-12 * (1 + np.abs(h))):
                value = 0.5 * z @ H @ z - c @ z
                if value < best_value:
                    best, best_value = z, value
    return best


def block_constraints(loss, kk, Cn):
    """``(G, h)`` of the new free entries' set: the box [0, C] (WW, LLW, MMR's one entry) or z <= 0,
    -1'z <= C (CS)."""
    m = len(loss.positions(0, kk))
    if loss.tag == "CS":
        return np.vstack([np.eye(m), -np.ones((1, m))]), np.concatenate([np.zeros(m), [Cn]])
    return np.vstack([np.eye(m), -np.eye(m)]), np.concatenate([np.full(m, Cn), np.zeros(m)])


def random_alpha(loss, rng, codes, kk, Cn):
    """A feasible (n, k) alpha of ``loss``, some entries at their bounds."""
    nn = len(codes)
    Am = np.zeros((nn, kk))
    for i, y in enumerate(codes):
        if loss.tag == "CS":
            beta = Cn * rng.dirichlet(np.ones(kk)) * (rng.uniform() < 0.8)
            beta[rng.integers(kk)] += Cn - beta.sum()  # mass C: alpha_i = C e_y - beta
            Am[i] = -beta
            Am[i, y] = Cn - beta[y]
        elif loss.label_entry is None:
            Am[i, y] = np.clip(rng.uniform(-0.3, 1.3) * Cn, 0.0, Cn)
        else:
            off = np.clip(rng.uniform(-0.3, 1.3, kk) * Cn, 0.0, Cn)
            off[y] = 0.0
            Am[i] = off
            if loss.tag == "WW":
                Am[i, y] = -off.sum()
    return Am


def rows_of(loss, Am, Mn):
    """The derived A(alpha) (:attr:`Loss.rows`) at the float (n, k) ``Am`` and margin scale ``Mn``."""
    return np.array(loss.rows(sp.Matrix(Am)).subs(M, Mn), dtype=float)


def gaussian(Xa, Xb, gamma):
    """:math:`\\exp(-\\gamma\\|x - z\\|^2)`, written out here (not the library's ``gram``)."""
    d2 = ((Xa[:, None, :] - Xb[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-gamma * d2)


def random_kernel_problem(loss, rng):
    """Points, labels, C, M, gamma, the intercept B, alpha, and the derived K + B^2 and S = (K + B^2) A."""
    kk = int(rng.integers(3, 5))
    nn = 8
    codes = np.concatenate([np.arange(kk), rng.integers(0, kk, nn - kk)])
    rng.shuffle(codes)
    Xn = rng.normal(size=(nn, 2))
    Cn, Mn, gamma = float(rng.uniform(0.3, 3.0)), float(rng.choice([0.5, 0.8, 1.0])), float(rng.uniform(0.3, 2.0))
    Bn = float(rng.choice([0.0, 0.7, 1.5]))
    Am = random_alpha(loss, rng, codes, kk, Cn)
    Kb = gaussian(Xn, Xn, gamma) + Bn ** 2
    return dict(X=Xn, codes=codes, k=kk, C=Cn, M=Mn, gamma=gamma, B=Bn, alpha=Am, K=Kb,
                S=Kb @ rows_of(loss, Am, Mn))


def visit_pairs(loss, instances=5):
    """The compiled block kernel's new row against the derived block's minimiser, sample by sample."""
    from ..losses.row_kernels import NOTHING_ASIDE, params, scratch

    rng = np.random.default_rng(29 + [x.tag for x in LOSSES].index(loss.tag))
    block = compiled_block(loss)
    pairs, problems = [], {}
    for _ in range(instances):
        P = random_kernel_problem(loss, rng)
        kk, Cn, Mn = P["k"], P["C"], P["M"]
        if kk not in problems:
            problems[kk] = block_problem(loss, kk)
        H_fn, c_fn = problems[kk]
        i = int(rng.integers(len(P["codes"])))
        y = int(P["codes"][i])
        q = float(P["K"][i, i])  # K_ii + B^2
        new = P["alpha"][i].copy()
        block(P["S"][i].copy(), new, y, q, Cn, params(Mn), NOTHING_ASIDE, np.ones(kk, dtype=bool), scratch(kk),
              np.empty((0, kk)))
        # the derived block is written for a sample of class 0: put class y first
        order = [y] + [m for m in range(kk) if m != y]
        old, s = P["alpha"][i][order], P["S"][i][order]
        H = np.asarray(H_fn(old, s, q, Mn), dtype=float)
        c = np.asarray(c_fn(old, s, q, Mn), dtype=float).ravel()
        z = active_set_minimum(H, c, *block_constraints(loss, kk, Cn))
        row = np.zeros(kk)
        row[[order[m] for m in loss.positions(0, kk)]] = z
        if loss.label_entry is not None:
            row[y] = float(loss.label_entry(list(z)))
        pairs.append((np.append(new, Cn), np.append(row, Cn)))  # with C: a row at 0 is measured on C's scale
    return pairs


def model_pairs(instances=8):
    """The library's training scores and its squared norm on kernel problems against S = (K + B^2) A and
    <A, S>, from the derivation's A(alpha) and a kernel written out here."""
    from ..multiclass_model import model, squared_norm
    from ..problems import MulticlassProblem

    rng = np.random.default_rng(290)
    scores, norms = [], []
    for t in range(instances):
        loss = LOSSES[t % len(LOSSES)]
        P = random_kernel_problem(loss, rng)
        prob = MulticlassProblem(P["X"], P["codes"], C=P["C"], loss=loss.tag.lower(), M=P["M"], kernel="gaussian",
                                 gamma=P["gamma"], bias=P["B"] if P["B"] > 0 else None)
        S = np.asarray(model(prob, P["alpha"]), dtype=float)
        scores.append((S, P["S"]))
        A = rows_of(loss, P["alpha"], P["M"])
        norms.append((squared_norm(prob, P["alpha"], S), float(np.sum(A * P["S"]))))
    return scores, norms


def weight_row_pairs(instances=8):
    """The losses' ``weight_rows`` against the derivation's A(alpha)."""
    from ..losses import get_loss
    from ..problems import MulticlassProblem

    rng = np.random.default_rng(291)
    pairs = []
    for t in range(instances):
        loss = LOSSES[t % len(LOSSES)]
        P = random_kernel_problem(loss, rng)
        prob = MulticlassProblem(P["X"], P["codes"], C=P["C"], loss=loss.tag.lower(), M=P["M"])
        Am = P["alpha"]
        derived = rows_of(loss, Am, P["M"])
        pairs.append((np.asarray(get_loss(loss.tag.lower()).weight_rows(prob, Am), dtype=float), derived))
    return pairs


def estimator_pairs(instances=8):
    """A fitted kernel ``MulticlassSVC``'s scores on new points against the kernel sums plus B^2 sum_i A_im,
    from its ``alpha_`` and the derivation's A(alpha)."""
    from ..estimators import MulticlassSVC

    rng = np.random.default_rng(292)
    pairs = []
    for t in range(instances):
        loss = LOSSES[t % len(LOSSES)]
        kk = 3
        Xn = rng.normal(size=(15, 2))
        y = np.concatenate([np.arange(kk), rng.integers(0, kk, 12)])
        Bn, gamma, Mn = float(rng.choice([0.5, 1.0, 2.0])), float(rng.uniform(0.3, 2.0)), 1.0
        model = MulticlassSVC(C=1.0, loss=loss.tag.lower(), kernel="rbf", gamma=gamma, fit_intercept=True,
                              intercept_scaling=Bn, tol=1e-2).fit(Xn, y)
        Z = rng.normal(size=(6, 2))
        A = rows_of(loss, model.alpha_, Mn)
        derived = gaussian(Z, Xn, gamma) @ A + Bn ** 2 * A.sum(axis=0)
        pairs.append((model.decision_function(Z), derived))
    return pairs


def compiled_block(loss):
    """The block kernel the solvers run for the derived ``loss``: the package loss's ``kernels.block``."""
    from ..losses import get_loss

    return get_loss(loss.tag.lower()).kernels.block


def _loss_module(loss):
    """The module of the package's loss that ``loss`` derives (its row kernels live there)."""
    from ..losses import get_loss

    return type(get_loss(loss.tag.lower())).__module__


def numeric_checks():
    out = []
    for loss in LOSSES:
        out.append(numeric(
            MODEL, f"{loss.tag}: the loss's compiled block kernel on a kernel problem",
            r"\alpha_i \leftarrow \arg\max_{\alpha_i + \delta\ \text{feasible}}\ \ell(e_i\delta^\top) - A(\delta)^\top s_i "
            r"- \frac{q_i}{2}\|A(\delta)\|^2, \quad q_i = K_{ii} + B^2,\ s_i = (K + B^2\mathbf{1}\mathbf{1}^\top)"
            r"A\big|_{i:}",
            f"{_loss_module(loss)}.block", visit_pairs(loss),
            note=rf"The {loss.title} block kernel the solvers run, called with the kernel's curvature and the "
                 r"sample's training scores, against the derived block problem solved by trying every set of "
                 r"active constraints (Gaussian kernel, $n = 8$, $k = 3$ or $4$, intercepts $B$ of $0$, $0.7$ "
                 r"and $1.5$, a random feasible $\alpha$).",
            what=r"the new row $\alpha_i$ (beside its bound $C$, the scale of the difference)", rtol=1e-8))
    scores, norms = model_pairs()
    out.append(numeric(
        MODEL, "multiclass_model.model: S = (K + B^2) A", r"S = \big(K + B^2\mathbf{1}\mathbf{1}^\top\big) A(\alpha)",
        "svmteach.multiclass_model.model", scores,
        note=r"The training scores a kernel solver keeps, recomputed by the library from $\alpha$, against the "
             r"derived form with a Gaussian kernel written out here.", what=r"the library's $(n, k)$ scores"))
    out.append(numeric(
        MODEL, "multiclass_model.squared_norm: <A, S>", r"\|W\|_F^2 = \langle A(\alpha), S\rangle",
        "svmteach.multiclass_model.squared_norm", norms,
        note=r"The norm in every kernel dual and primal, never forming $W$.", what=r"the library's $\|W\|_F^2$"))
    out.append(numeric(
        MODEL, "losses' weight_rows: A(alpha)", r"A = -M\alpha,\quad A = \alpha,\quad A = -\alpha J,\quad A = \alpha J",
        "svmteach.losses", weight_row_pairs(),
        note=r"The $A(\alpha)$ of the derivation (Weston-Watkins, Crammer-Singer, Lee-Lin-Wahba, MMR in turn) is the "
             r"one each loss gives the solvers.", what=r"the library's $(n, k)$ matrix $A$"))
    out.append(numeric(
        MODEL, "MulticlassSVC: kernel sums plus b_m",
        r"f_m(x) = \sum_i A_{im}\, k(x_i, x) + B^2\sum_i A_{im}",
        "svmteach.estimators.MulticlassSVC.decision_function", estimator_pairs(),
        note=r"A fitted kernel model's scores on new points, against the derived ones from its own $\alpha$ "
             r"(Gaussian kernel, the intercept as the constant feature $B$, each loss in turn).",
        what=r"the model's scores on $6$ new points"))
    return out
