"""Errata of the course material that no model's derivation meets on its way: each printed statement is taken as
it stands and checked exactly (SymPy, exact rationals) on a small instance where it fails, or, for a caveat, where
the condition it leaves out matters.

Sources: the MIT 9.520 lecture (the squared loss term of Tikhonov regularization, the Matlab line, the dual's
lost upper bound, an index slip in "Interpreting the solution", the definition of the non-separable case, and the
caveat of solving the RLS gradient), the CISC 371 notes (the unclipped update, and which support vector gives b),
the multiclass slides (Algorithm 1's constant step, the two numberings of the classes), the Weston-Watkins blog
post (the index of the sum for the label's weight vector) and the ECE 532 notes (the dual RLS solution when K is
singular).
"""

from __future__ import annotations

import sympy as sp

from .core import CAVEAT, ERRATUM, computed, erratum, real_symbols

MODEL = "course material"
MIT = "MIT 9.520 lecture"
CISC = "CISC 371 notes"
SLIDES = "Multiclass dual solvers slides"
BLOG = "Weston-Watkins dual blog post"
ECE = "ECE 532 notes"


def _tikhonov_loss_squared():
    u = sp.Symbol("u", real=True)  # the margin y f(x)
    hinge = sp.Max(0, 1 - u)
    return erratum(
        MODEL, "Tikhonov regularization: the loss is not squared",
        r"\operatorname{argmin}_{f \in \mathcal H} \sum_{i=1}^n V(y_i, f(x_i)) + \lambda \|f\|_{\mathcal H}^2",
        r"\operatorname{argmin}_{f \in \mathcal H} \sum_{i=1}^n V(y_i, f(x_i))^2 + \lambda \|f\|_{\mathcal H}^2",
        hinge ** 2, hinge, f"{MIT}, 'About this class', Tikhonov regularization",
        note=(r"The lecture's general problem squares the loss, $V(y_i, f(x_i))^2$, although the rest of the "
              r"lecture plugs the losses in unsquared: the square loss $\frac12 (f(x_i) - y_i)^2$ for RLS and the "
              r"hinge $(1 - y_i f(x_i))_+$ for the SVM. With the hinge, the printed square gives the squared hinge "
              r"loss, another classifier."),
        on="for the hinge at the margin -1", cases=[{u: -1}],
        instance=r"the hinge $V = (1 - u)_+$ at the margin $u = y f(x) = -1$: $V^2 = 4$ but $V = 2$")


def _matlab_identity():
    lam = sp.Symbol("lambda", positive=True)
    K = sp.Matrix(2, 2, lambda r, c: sp.Symbol(f"K_{min(r, c) + 1}{max(r, c) + 1}", real=True))
    eye = sp.eye(2)
    return erratum(
        MODEL, "the Matlab line: K + I*I for K + lambda I",
        r"c = (\mathbf K + \lambda I) \backslash \mathbf Y",
        r"c = (\mathbf K + I * I) \backslash \mathbf Y, \quad R = \operatorname{chol}(\mathbf K + I * I)",
        K + eye * eye, K + lam * eye, f"{MIT}, 'Solving RLS for fixed Parameters'",
        note=(r"The Matlab and Octave lines write the matrix as $\mathbf K + I * I$. The product of the identity "
              r"with itself is the identity, so the code solves RLS with $\lambda = 1$ whatever $\lambda$ was "
              r"chosen; the system to solve is $(\mathbf K + \lambda I) c = \mathbf Y$."),
        on="for a symbolic 2x2 kernel matrix",
        instance=r"a symmetric $2 \times 2$ matrix $\mathbf K$ with symbolic entries and a symbolic $\lambda > 0$")


def _dual_box_lost():
    alpha = sp.Symbol("alpha", real=True)
    C = sp.Rational(1, 2)
    D = alpha - alpha ** 2 / 2  # one point x = 1, y = 1, K = 1
    unbounded = sp.solve(sp.diff(D, alpha), alpha)[0]  # the maximiser over alpha >= 0 (the vertex, 1, is feasible)
    boxed = min(max(unbounded, 0), C)  # a concave parabola: its maximiser over [0, C] is the clipped vertex
    return erratum(
        MODEL, "Towards the Dual: the box loses C",
        r"\max_{0 \le \alpha \le C} \sum_i \alpha_i - \tfrac12 \alpha^\top Q \alpha",
        r"\operatorname{argmax}_{\alpha \ge 0} L(\alpha) = \sum_i \alpha_i - \tfrac12 \alpha^\top "
        r"(\operatorname{diag} \mathbf Y) \mathbf K (\operatorname{diag} \mathbf Y) \alpha",
        unbounded, boxed, f"{MIT}, 'Towards the Dual I'",
        note=(r"After $\zeta_i = C - \alpha_i$ is plugged in, the multipliers range over $\alpha \ge 0$ on the "
              r"lecture's slides 'Towards the Dual I', but $\zeta_i \ge 0$ turns into $\alpha_i \le C$: the upper "
              r"bound is lost there (the next slide, 'The Primal and Dual Problems Again', has it back). Without it "
              r"the problem is the hard margin's dual, whose maximiser can leave the box."),
        on="on one point with C = 1/2",
        instance=(r"one point $x = 1$ with $y = 1$, the linear kernel and $C = \tfrac12$: $D(\alpha) = \alpha - "
                  r"\alpha^2 / 2$, maximised at $\alpha = 1$ over $\alpha \ge 0$ but at $\alpha = \tfrac12$ over "
                  r"the box"))


def _index_slip():
    # two points: alpha_j = C for point j, point i beyond its margin with alpha_i = 0 and xi_i = 0
    C = sp.Rational(1, 2)
    alpha_j, alpha_i, margin_i, xi_i = C, sp.Integer(0), sp.Integer(2), sp.Integer(0)
    optimal_i = sp.Eq(alpha_i * (margin_i - 1 + xi_i), 0) and xi_i >= 0 and margin_i - 1 + xi_i >= 0
    printed_holds = sp.Eq(xi_i, 1 - margin_i) == sp.true
    ok = bool(alpha_j == C) and bool(optimal_i) and not printed_holds
    return computed(
        MODEL, "Interpreting the solution: alpha_j = C, then alpha_i", r"\alpha_i = C \implies \xi_i = 1 - y_i f(x_i)",
        f"{MIT}, 'Interpreting the solution \u2014 support vectors', the converse", ok, status=ERRATUM,
        printed_formula=(r"\text{suppose } \alpha_j = C \ \dots\ \text{we have } \alpha_i = C \implies "
                         r"\xi_i = 1 - y_i f(x_i)"),
        note=(r"The converse starts from $\alpha_j = C$ and concludes about point $i$: read as printed, the "
              r"assumption on point $j$ says nothing about point $i$. The statement meant is about one point: "
              r"$\alpha_i = C$ gives $\xi_i = 1 - y_i f(x_i)$ by complementary slackness."),
        on="on two points", verdict="the printed assumption holds and its conclusion fails",
        check=(r"SymPy: at $\alpha_j = C = \tfrac12$, a point $i$ with $\alpha_i = 0$, $y_i f(x_i) = 2$ and "
               r"$\xi_i = 0$ satisfies its complementary slackness, and $\xi_i = 1 - y_i f(x_i)$ is false"),
        instance=(r"point $j$ with $\alpha_j = C = \tfrac12$; point $i$ with $\alpha_i = 0$, $y_i f(x_i) = 2$, "
                  r"$\xi_i = 0$"))


def _non_separable_quantifier():
    w = sp.Symbol("w", real=True)
    x, y = (1, -1), (1, -1)  # x_1 = 1 with y_1 = +1, x_2 = -1 with y_2 = -1
    separable = all(yi * 1 * xi >= 1 for xi, yi in zip(x, y))  # w = 1 puts both beyond the margin
    printed_at_zero = any(sp.simplify((yi * w * xi < 1).subs(w, 0)) == sp.true for xi, yi in zip(x, y))
    return computed(
        MODEL, "the non-separable case: the quantifier over w",
        r"\text{non-separable} \iff \forall w\ \exists i:\ y_i \langle w, x_i \rangle < 1",
        f"{MIT}, 'Maximal Margin Classification, Non-separable case'", separable and printed_at_zero,
        status=ERRATUM,
        printed_formula=r"\text{non-separable means } \exists i \text{ s.t. } y_i \langle w, x_i \rangle < 1",
        note=(r"The separable case is defined by $\exists w$ with every $y_i \langle w, x_i \rangle \ge 1$; its "
              r"negation needs every $w$ to fail. The printed definition leaves $w$ free, and read for one $w$ "
              r"(such as $w = 0$, where every margin is $0$) it calls separable data non-separable."),
        on="on two separable points", verdict="separable data meet the printed definition at w = 0",
        check=(r"SymPy: $w = 1$ puts both points beyond their margin, so the data are separable, yet at $w = 0$ "
               r"some $y_i \langle w, x_i \rangle < 1$ holds"),
        instance=r"$x_1 = 1$ with $y_1 = +1$ and $x_2 = -1$ with $y_2 = -1$, in one dimension without bias")


def _rls_needs_invertible_k():
    c1, c2 = real_symbols("c1 c2")
    K = sp.Matrix([[1, 1], [1, 1]])  # singular: the Gram matrix of two equal points
    Y, lam = sp.Matrix([1, 0]), sp.Integer(1)
    c = sp.Matrix([c1, c2])
    gradient = -K * (Y - K * c) + lam * K * c
    solutions = sp.solve(list(gradient), [c1, c2], dict=True)
    printed = (K + lam * sp.eye(2)).solve(Y)
    other = printed + sp.Matrix([1, -1])  # a direction of the null space of K
    ok = (len(solutions) == 1 and len(solutions[0]) == 1  # one equation for two unknowns: a line of minimisers
          and all(sp.simplify(v) == 0 for v in gradient.subs({c1: other[0], c2: other[1]}))
          and other != printed and K * other == K * printed)
    return computed(
        MODEL, "RLS: (K + lambda I) c = Y needs K invertible",
        r"\mathbf K\bigl((\mathbf K + \lambda I) c - \mathbf Y\bigr) = 0, \text{ and } c = (\mathbf K + \lambda "
        r"I)^{-1} \mathbf Y \text{ is one solution (the only one when } \mathbf K \text{ is invertible)}",
        f"{MIT}, 'The RLS problem'", ok, status=CAVEAT,
        printed_formula=r"-\mathbf K(\mathbf Y - \mathbf K c) + \lambda \mathbf K c = 0 \implies (\mathbf K + "
                        r"\lambda I) c = \mathbf Y",
        note=(r"The zero gradient says $\mathbf K$ times $(\mathbf K + \lambda I) c - \mathbf Y$ is $0$; "
              r"dropping $\mathbf K$ needs it invertible. With a singular $\mathbf K$ (repeated points, or the "
              r"linear kernel with $n > d$) every $c$ that differs from $(\mathbf K + \lambda I)^{-1} \mathbf Y$ "
              r"by a vector of the null space of $\mathbf K$ is a minimiser too; all give the same $f$."),
        on="on two equal points", verdict="a second minimiser with the same fit",
        check=(r"SymPy: for a singular $\mathbf K$ the zero-gradient equations leave a line of solutions; "
               r"$(\mathbf K + \lambda I)^{-1} \mathbf Y + (1, -1)$ zeroes the gradient, differs from "
               r"$(\mathbf K + \lambda I)^{-1} \mathbf Y$, and gives the same $\mathbf K c$"),
        instance=(r"$\mathbf K = \begin{pmatrix} 1 & 1 \\ 1 & 1 \end{pmatrix}$ (two equal points), "
                  r"$\mathbf Y = (1, 0)$, $\lambda = 1$"))


def _unclipped_update():
    # x = 0, 1, 3 on a line with y = (-1, +1, +1), alpha = (5/4, 0, 5/4), the pair (i, j) = (2, 1), no bias needed
    x, y = [0, 1, 3], [-1, 1, 1]
    alpha = [sp.Rational(5, 4), sp.Integer(0), sp.Rational(5, 4)]
    w = sum(a * yy * xx for a, yy, xx in zip(alpha, y, x))
    E = [w * xx - yy for xx, yy in zip(x, y)]  # E_k = w'x_k + b - y_k with b = 0 (the step does not depend on b)
    i, j = 1, 0
    s_ij = sp.Rational(1, (x[i] - x[j]) ** 2)
    printed = alpha[j] + s_ij * (E[j] - E[i])  # eq. 30.13 as printed
    platt = alpha[j] + y[j] * (E[i] - E[j]) * s_ij  # with the sign of notebook 4: the same here, y_j = -1
    L = max(0, alpha[j] - alpha[i])  # y_i != y_j: alpha_j - alpha_i is constant; the hard margin has no H
    clipped = max(printed, L)
    feasible_before = all(a >= 0 for a in alpha) and sum(a * yy for a, yy in zip(alpha, y)) == 0
    return erratum(
        MODEL, "eq. 30.13: no clip, alpha_j can turn negative",
        r"\alpha_j^{\rm new} = \max\bigl(\alpha_j + y_j (E_i - E_j)/\eta,\ L\bigr), \quad L = \max(0, \alpha_j - "
        r"\alpha_i) \ (y_i \ne y_j, \text{ hard margin})",
        r"\alpha_j \leftarrow \alpha_j + s_{ij}(E_j - E_i)",
        printed, clipped, f"{CISC}, eq. 30.13",
        note=(r"Eq. 30.13 moves $\alpha_j$ to the top of the dual along the constraint line without clipping it to "
              r"the segment that the feasible set cuts from that line. The notes list the upper bound "
              r"$\alpha_k \le C$ among 'other considerations', but the lower bound $\alpha \ge 0$ of their own "
              r"hard-margin dual is broken too: from a feasible point the printed step can give a negative "
              r"multiplier (here $y_j = -1$, where the printed sign agrees with Platt's, so the sign erratum of "
              r"the SMO model plays no part)."),
        on="on three points on a line",
        also=[("the starting point is feasible", feasible_before), ("the printed value is negative", printed < 0),
              ("the printed step is Platt's here", printed == platt)],
        instance=(r"$x = 0, 1, 3$ with $y = (-1, +1, +1)$, the linear kernel, $\alpha = (\tfrac54, 0, \tfrac54)$, "
                  r"the pair $(i, j) = (2, 1)$: the printed step gives $\alpha_1 = -\tfrac12$ (and $\alpha_2$ "
                  r"would follow to $-\tfrac74$); on the segment the best is not to move, $\alpha_1 = \tfrac54$"))


def _bias_from_a_bound_vector():
    # the course's three points with C = 3/4: alpha = (C, C/2, C/2), w = (C, C), b = 1 - 2C (problem 02.3, part 4)
    C = sp.Rational(3, 4)
    w, b = sp.Matrix([C, C]), 1 - 2 * C
    x1, y1 = sp.Matrix([0, 0]), -1
    margin1 = y1 * ((w.T * x1)[0] + b)
    b_from_1 = y1 - (w.T * x1)[0]  # b read off point 1 as if it sat on its margin
    ok = 0 < margin1 < 1 and b_from_1 != b  # point 1: alpha = C, classified correctly, inside the margin
    return computed(
        MODEL, "b from any correctly classified support vector", r"b = y_t - w^\top x_t \text{ for a free support "
        r"vector } (0 < \alpha_t < C)", f"{CISC}, '30.1 Sequential Minimal Optimization: Concept'", bool(ok),
        status=CAVEAT,
        printed_formula=r"\text{any correctly classified support vector } x_i \text{ can be used to calculate } b",
        note=(r"For the hard margin the notes derive, every support vector lies on its margin and the statement "
              r"holds. With the upper bound $\alpha_k \le C$ that the same section brings in for SMO, a support "
              r"vector at the bound can be correctly classified and still inside the margin, and $b$ read off it "
              r"is wrong: only a free one, $0 < \alpha_t < C$, is on its margin."),
        on="on the course's three points with C = 3/4", verdict="a correctly classified bound vector gives b = -1, not -1/2",
        check=(r"SymPy: at $C = \tfrac34$ the optimum is $\alpha = (\tfrac34, \tfrac38, \tfrac38)$, $w = (\tfrac34, "
               r"\tfrac34)$, $b = -\tfrac12$; point 1 has $\alpha_1 = C$ and $y_1 f(x_1) = \tfrac12$, correctly "
               r"classified, and $y_1 - w^\top x_1 = -1$"),
        instance=r"the course's worked example, $x_1 = (0, 0)$, $x_2 = (2, 0)$, $x_3 = (0, 2)$, $y = (-1, 1, 1)$, "
                 r"$C = \tfrac34$ (problem 02.3's general solution)")


def _constant_step_cycles():
    # P(w) = w^2 / 2 + 2 max(0, 1 - w): one point x = 1, y = 1, C = 2; minimiser w* = 1 (0 is in [1 - 2, 1])
    w = sp.Symbol("w", real=True)
    eta = sp.Rational(1, 4)
    below = w + eta * (2 - w)  # w < 1: the subgradient w - 2
    above = w - eta * w  # w >= 1: the subgradient w (the margin is not < 1)
    two_steps = sp.expand(below.subs(w, above))  # from above 1, down below it, then up again
    fixed = sp.solve(sp.Eq(two_steps, w), w)[0]
    low = above.subs(w, fixed)

    def P(v):
        return v ** 2 / 2 + 2 * sp.Max(0, 1 - v)

    contraction = sp.diff(two_steps, w)
    cycle = fixed > 1 and low < 1 and abs(contraction) < 1 and below.subs(w, low) == fixed
    return erratum(
        MODEL, "Algorithm 1: a constant step does not converge",
        r"w \leftarrow w - \eta_t\, g, \quad \eta_t \to 0,\ \textstyle\sum_t \eta_t = \infty",
        r"w \leftarrow w - \eta \cdot g \quad (\eta \text{ constant})",
        P(fixed), P(sp.Integer(1)), f"{SLIDES}, Algorithm 1, line 11",
        note=(r"Algorithm 1 steps by a constant $\eta$. The subgradient method with a constant step ends "
              r"within a range of the optimal value that shrinks with $\eta$, not at the optimum: on a problem "
              r"whose minimiser sits at a kink of the hinge it settles into a cycle around it. Notebook 1 uses the "
              r"shrinking step $1/(t+1)$, and shows the cycle of the constant one on its own data."),
        on="on one point with C = 2 and a step of 1/4",
        also=[("the iterates settle into an attracting 2-cycle around the minimiser 1", cycle)],
        instance=(r"one point $x = 1$, $y = 1$, $C = 2$: $P(w) = w^2/2 + 2\max(0, 1 - w)$, minimised at $w = 1$; "
                  r"the constant step $\eta = \tfrac14$ alternates $w \mapsto w + \tfrac14 (2 - w)$ below $1$ and "
                  r"$w \mapsto \tfrac34 w$ above it, and the iterates tend to the cycle $\{\tfrac67, \tfrac87\}$, "
                  r"where $P = \tfrac{32}{49} > \tfrac12 = P^\star$"))


def _two_numberings():
    k = 3
    labels = set(range(k))  # the table of symbols: y_i in {0, 1, ..., k-1}
    summed = set(range(1, k + 1))  # the sums and the prediction: m = 1, ..., k
    m = sp.Symbol("m", integer=True)
    wsq = sp.IndexedBase("s")  # s[m] stands for the squared norm of w_m
    printed = sp.summation(wsq[m], (m, 1, k))
    derived = sp.summation(wsq[m], (m, 0, k - 1))
    return erratum(
        MODEL, "the classes: 0..k-1 in the symbols, 1..k in the sums",
        r"\tfrac12 \sum_{m=0}^{k-1} \|w_m\|^2, \quad h(x) = \arg\max_{m \in \{0, \dots, k-1\}} w_m^\top x",
        r"y_i \in \{0, 1, \dots, k-1\}, \quad \tfrac12 \sum_{m=1}^{k} \|w_m\|^2, \quad h(x) = \arg\max_{m \in [k]} "
        r"w_m^\top x",
        printed, derived, f"{SLIDES}, 'Multi Classification - Soft Margin SVM', Symbols",
        note=(r"The table of symbols numbers the classes $0, \dots, k-1$, while the objectives, the dual and the "
              r"prediction run over $m = 1, \dots, k$. Read together, the sums leave out class $0$ and use a "
              r"$w_k$ that no class has. Either numbering works alone; the course uses $0, \dots, k-1$ throughout, "
              r"and reads the slides' $m$ as our $m - 1$."),
        on="for k = 3", also=[("the two index sets differ", labels != summed)],
        instance=r"$k = 3$: the labels are $\{0, 1, 2\}$, the sums run over $\{1, 2, 3\}$")


def _label_row_index():
    M = sp.Symbol("M", positive=True)
    x1, x2 = sp.symbols("x1 x2", real=True)  # one feature: two samples
    a = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"alpha_{i + 1}{j}", real=True))  # alpha_{i m}, classes 0 and 1
    y = [0, 1]  # sample 1 of class 0, sample 2 of class 1
    xs = [x1, x2]
    # w_{y_i} for sample i = 1 (y_1 = 0): -M sum_s alpha_{s, y_1} x_s, the column of class 0
    derived = -M * sum(a[s, y[0]] * xs[s] for s in range(2))
    # as printed: -M sum_{i=1}^n alpha_{i y_i} x_i, each sample with its own label's entry
    printed = -M * sum(a[s, y[s]] * xs[s] for s in range(2))
    return erratum(
        MODEL, "w_{y_i}: the sum reuses the index i",
        r"w_{y_i} = W e_{y_i} = -M \sum_{s=1}^n \alpha_{s y_i} x_s",
        r"w_{y_i} = W e_{y_i} = -M \sum_{i=1}^n \alpha_{i y_i} x_i",
        printed, derived, f"{BLOG}, 'Derivatives'",
        note=(r"The post fixes a sample $i$ and then sums over $i$ to write $w_{y_i}$. Read as printed, each "
              r"sample contributes its own label's entry $\alpha_{i y_i}$, which is not the weight vector of the "
              r"fixed sample's class: that one takes the column $y_i$ of every sample, $\alpha_{s y_i}$. The next "
              r"line of the post uses the right one."),
        on="on two samples of two classes",
        instance=(r"two samples, $x_1$ of class $0$ and $x_2$ of class $1$, one feature, symbolic $\alpha_{sm}$ and "
                  r"$M$; $w_{y_1} = w_0$"))


def _dual_rls_not_unique():
    alpha1, alpha2 = real_symbols("alpha1 alpha2")
    K = sp.Matrix([[1, 1], [1, 1]])  # X = (1, 1)': two copies of one point, K = X X' singular
    y, lam = sp.Matrix([1, -1]), sp.Integer(1)
    alpha = sp.Matrix([alpha1, alpha2])
    gradient = 2 * K * (K * alpha - y) + 2 * lam * K * alpha
    printed = (K + lam * sp.eye(2)).solve(y)
    other = printed + sp.Matrix([1, -1])
    X = sp.Matrix([[1], [1]])
    ok = (all(sp.simplify(v) == 0 for v in gradient.subs({alpha1: other[0], alpha2: other[1]}))
          and other != printed and X.T * other == X.T * printed)
    return computed(
        MODEL, "dual RLS: alpha = (K + lambda I)^{-1} y is one solution", r"\alpha \in (K + \lambda I)^{-1} y + "
        r"\operatorname{null}(K), \text{ all with the same } w = X^\top \alpha",
        f"{ECE}, (3), 'Solution is'", ok, status=CAVEAT,
        printed_formula=r"K y = K (K + \lambda I) \alpha \implies \text{Solution is } \alpha = (K + \lambda I)^{-1} y",
        note=(r"From $K y = K (K + \lambda I) \alpha$ the notes conclude the solution is $(K + \lambda I)^{-1} y$: "
              r"it is one, and the only one when $K$ is invertible. When $K = X X^\top$ is singular (for instance "
              r"more examples than features, $m > n$), adding any vector of its null space gives another minimiser "
              r"of the dual, with the same $w = X^\top \alpha$."),
        on="on two copies of one point", verdict="a second minimiser with the same w",
        check=(r"SymPy: $(K + \lambda I)^{-1} y + (1, -1)$ zeroes the gradient $2K(K\alpha - y) + 2 \lambda K "
               r"\alpha$, differs from $(K + \lambda I)^{-1} y$, and gives the same $X^\top \alpha$"),
        instance=r"$X = (1, 1)^\top$, $K = X X^\top$, $y = (1, -1)$, $\lambda = 1$")


def steps():
    return [_tikhonov_loss_squared(), _matlab_identity(), _dual_box_lost(), _index_slip(), _non_separable_quantifier(),
            _rls_needs_invertible_k(), _unclipped_update(), _bias_from_a_bound_vector(), _constant_step_cycles(),
            _two_numberings(), _label_row_index(), _dual_rls_not_unique()]
