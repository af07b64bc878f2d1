"""The Weston-Watkins dual with a margin scale M: Lagrangian, W, the dual, gradients, the block
of one sample, the greedy step and the gradient update, and the blog post's errata.

Instance: n = 3 points in the plane, k = 3 classes with labels y = (0, 1, 2); data, C, M and
the multipliers are free symbols.  As everywhere in the course, W is k x d (row m is w_m, as in
svmteach's coef_) and classes are 0..k-1; the blog post stores W as d x k and numbers classes
1..k (its class m is our m - 1).  The index-set errata need n != k and use n = 2, k = 3.
Source: "The Weston-Watkins SVM dual problem" (blog post, 2020); the sections are named in each step.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import definition, erratum, identity, numeric, real_symbols

MODEL = "Weston-Watkins"
BLOG = "Weston-Watkins dual blog post"
ON = "on a 3-point, 3-class instance"
INSTANCE = (r"$n = 3$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates, $k = 3$ classes with labels "
            r"$y = (0, 1, 2)$, symbolic $M$, $C$, $W \in \mathbb{R}^{3 \times 2}$ (row $m$ is $w_m$) and multipliers "
            r"$\alpha_{ij}$, "
            r"$\mu_{ij}$, $\xi_{ij}$ ($j \ne y_i$)")
n, d, k = 3, 2, 3
labels = (0, 1, 2)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
M, C, m = real_symbols("M C m")
Wsym = sp.Matrix(k, d, lambda r, c: sp.Symbol(f"w_{r},{c + 1}", real=True))  # row m is w_m
free = {(i, j): sp.Symbol(f"alpha_{i + 1},{j}", real=True) for i in range(n) for j in range(k) if j != labels[i]}


def x(i, Xm=X):
    return Xm[i, :].T


def e(j, kk=k):
    return sp.Matrix([1 if r == j else 0 for r in range(kk)])


def alpha_matrix(values=None, lab=labels, kk=k):
    """(n, k) alpha with alpha_{i y_i} = -sum of the others (the blog post's convention)."""
    values = free if values is None else values
    A = sp.zeros(len(lab), kk)
    for (i, j), v in values.items():
        A[i, j] = v
        A[i, lab[i]] -= v
    return A


def weights(A=None, Xm=X):
    """:math:`W = -M \\sum_i \\alpha_i x_i^\\top` (k, d): row m is :math:`w_m = -M \\sum_i \\alpha_{im} x_i`."""
    A = alpha_matrix() if A is None else A
    return -M * sum((A[i, :].T * x(i, Xm).T for i in range(A.rows)), sp.zeros(A.cols, Xm.cols))


def dual(A=None, Xm=X, lab=labels):
    """:math:`f(\\alpha) = \\frac{M^2}{2} \\sum_{i,s} x_s^\\top x_i \\alpha_i^\\top \\alpha_s - \\sum_{j \\ne y_i} \\alpha_{ij}`."""
    A = alpha_matrix() if A is None else A
    rows = range(A.rows)
    quad = sum((x(s, Xm).T * x(i, Xm))[0] * (A[i, :] * A[s, :].T)[0] for i in rows for s in rows)
    lin = sum(A[i, j] for i in rows for j in range(A.cols) if j != lab[i])
    return M ** 2 / 2 * quad - lin


def lagrangian():
    xi = {key: sp.Symbol(f"xi_{key[0] + 1},{key[1]}", real=True) for key in free}
    beta = {key: sp.Symbol(f"mu_{key[0] + 1},{key[1]}", real=True) for key in free}
    Delta = {key: e(labels[key[0]]) - e(key[1]) for key in free}
    # the margin M (w_{y_i} - w_j)'x_i = M Delta' W x_i, with the rows w_m of the k x d matrix W
    L = sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + sum(
        C * xi[key] - beta[key] * xi[key]
        + free[key] * (1 - M * (Delta[key].T * Wsym * x(key[0]))[0] - xi[key]) for key in free)
    return L, xi, beta, Delta


def steps():
    out = []
    L, xi, beta, Delta = lagrangian()
    out.append(definition(
        MODEL, "Lagrangian",
        r"L(W, \xi, \alpha, \mu) = \frac12\|W\|_F^2 + \sum_{i=1}^n \sum_{j \ne y_i} \Big[C\xi_{ij} - \mu_{ij}"
        r"\xi_{ij} + \alpha_{ij}\big(1 - \xi_{ij} - M (w_{y_i} - w_j)^\top x_i\big)\Big]",
        f"{BLOG}, 'Dual problem'",
        r"One multiplier $\alpha_{ij} \ge 0$ for each margin constraint $M (w_{y_i} - w_j)^\top x_i \ge 1 - \xi_{ij}$ "
        r"and one $\mu_{ij} \ge 0$ for each $\xi_{ij} \ge 0$. $W$ is $k \times d$ with rows $w_0, \dots, w_{k-1}$, so "
        r"$w_{y_i} - w_j = W^\top \Delta_{y_i j}$ with $\Delta_{y_i j} = e_{y_i} - e_j \in \mathbb{R}^k$. (The blog "
        r"post stores $W$ as $d \times k$ and numbers the classes $1, \dots, k$: its class $m$ is our $m - 1$.)"))
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    W_star = Wsym.subs(sol)
    out.append(identity(
        MODEL, "stationarity in W",
        r"\nabla_W L = 0 \;\Rightarrow\; W = M \sum_{i=1}^n \sum_{j \ne y_i} \alpha_{ij}\, \Delta_{y_i j} x_i^\top",
        W_star, M * sum((free[key] * Delta[key] * x(key[0]).T for key in free), sp.zeros(k, d)),
        f"{BLOG}, 'Dual problem'",
        note=r"$L$ is a convex quadratic in the $k \times d$ matrix $W$ with gradient $W - M\sum_{i,j} \alpha_{ij} "
             r"\Delta_{y_i j} x_i^\top$: row $m$ of it is $\nabla_{w_m} L$.",
        on=ON, instance=INSTANCE, quantity="W", how=r"SymPy solved $\nabla_W L = 0$ for $W$"))
    out.append(identity(
        MODEL, "W = -M sum_i alpha_i x_i'",
        r"W = -M \sum_{i=1}^n \alpha_i x_i^\top \quad \text{with} \quad \alpha_{i y_i} = -\sum_{j \ne y_i} \alpha_{ij}",
        W_star, weights(), f"{BLOG}, 'Dual problem'",
        note=r"Writing $\Delta_{y_i j} = e_{y_i} - e_j$ and collecting the $e_{y_i}$ terms into the extra entry "
             r"$\alpha_{i y_i}$ turns the double sum into one sum over the rows $\alpha_i = (\alpha_{i0}, \dots, "
             r"\alpha_{i,k-1})^\top \in \mathbb{R}^k$: row $m$ of $W$ is $w_m = -M\sum_i \alpha_{im} x_i$.",
        on=ON, instance=INSTANCE, quantity=r"W", how=r"the $W$ that SymPy solved for, against the compact form"))
    out.append(index_set_erratum_alpha())
    key0 = next(iter(free))
    out.append(identity(
        MODEL, "stationarity in xi_ij",
        r"\frac{\partial L}{\partial \xi_{ij}} = C - \mu_{ij} - \alpha_{ij} = 0 \;\Rightarrow\; 0 \le \alpha_{ij} "
        r"\le C",
        sp.diff(L, xi[key0]), C - beta[key0] - free[key0], f"{BLOG}, 'Dual problem'",
        note=r"$\mu_{ij} = C - \alpha_{ij} \ge 0$ gives the upper bound of the box.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial L}{\partial \xi_{1,1}}",
        how=r"SymPy differentiated $L$ in $\xi_{1,1}$"))
    L_dual = L.subs(sol).subs({beta[key]: C - free[key] for key in free})
    out.append(identity(
        MODEL, "dual objective",
        r"L\Big|_{W(\alpha),\ \mu = C - \alpha} = -f(\alpha), \quad f(\alpha) = \frac{M^2}{2}\sum_{i,s} "
        r"x_s^\top x_i\, \alpha_i^\top \alpha_s - \sum_{i} \sum_{j \ne y_i} \alpha_{ij}",
        sp.expand(L_dual), sp.expand(-dual()), f"{BLOG}, 'Expression for the dual problem'",
        note=r"The $\xi$ terms cancel by $C - \mu_{ij} - \alpha_{ij} = 0$, and the trace term equals "
             r"$\frac1M\|W\|_F^2$; the dual maximises $-f$, i.e. minimises $f$ over $0 \le \alpha_{ij} \le C$.",
        on=ON, instance=INSTANCE, quantity=r"L\big|_{W(\alpha),\ \mu = C - \alpha}",
        how="SymPy substituted both stationarity conditions into $L$"))
    W = weights()
    i, j = 0, 1  # sample 1 (its class y_1 = 0), the rival class j = 1
    y = labels[i]
    grad = sp.diff(dual(), free[(i, j)])
    out.append(identity(
        MODEL, "gradient of the dual",
        r"\frac{\partial f}{\partial \alpha_{ij}} = M\,(w_{y_i} - w_j)^\top x_i - 1",
        grad, M * ((W[y, :] - W[j, :]) * x(i))[0] - 1, f"{BLOG}, 'Derivatives'",
        note=r"$w_j = W^\top e_j$ is row $j$ of $W = -M\sum_s \alpha_s x_s^\top$; moving $\alpha_{ij}$ also moves "
             r"$\alpha_{i y_i} = -\sum_{l \ne y_i} \alpha_{il}$.",
        on=ON, instance=INSTANCE, quantity=r"\frac{\partial f}{\partial \alpha_{1,1}}",
        how=r"SymPy differentiated $f$ in $\alpha_{1,1}$ (with $\alpha_{1,0} = -\alpha_{1,1} - \alpha_{1,2}$)"))
    # the block of sample i: f as a function of hat-alpha_i, everything else fixed
    hat = {key: (sp.Symbol(f"alphahat_{key[0] + 1},{key[1]}", real=True) if key[0] == i else v)
           for key, v in free.items()}
    A_hat = alpha_matrix(hat)
    h = A_hat[i, :].T
    a_i = alpha_matrix()[i, :].T
    q = (x(i).T * x(i))[0]
    not_y = sp.Matrix([0 if r == y else 1 for r in range(k)])
    correct = M ** 2 / 2 * q * (h.T * h)[0] - (h.T * (M * W * x(i) + M ** 2 * q * a_i + not_y))[0]
    printed = M ** 2 / 2 * q * (h.T * h)[0] - (h.T * (M ** 2 * W * x(i) + M ** 2 * q * a_i + not_y))[0]
    hs = [hat[key] for key in free if key[0] == i]
    f_hat = dual(A_hat)
    block_formula = (r"f(\hat\alpha) = \frac{M^2}{2}\|x_i\|^2\|\hat\alpha_i\|^2 - \hat\alpha_i^\top\big(M\,W x_i"
                     r" + M^2\|x_i\|^2\alpha_i + \mathbb{1}_{\neg y_i}\big) + \mathrm{const}")
    out.append(identity(
        MODEL, "block subproblem of one sample", block_formula,
        sp.Matrix([sp.diff(f_hat, v) for v in hs]), sp.Matrix([sp.diff(correct, v) for v in hs]),
        f"{BLOG}, 'Coordinate descent in Shark' (corrected)",
        note=r"$\hat\alpha$ differs from $\alpha$ only in row $i$; $\mathbb{1}_{\neg y_i} \in \mathbb{R}^k$ is all "
             r"ones except a $0$ at $y_i$. The two sides agree up to a constant: their gradients in the free entries "
             r"$\hat\alpha_{ij}$ ($j \ne y_i$) are equal.",
        on=ON, instance=INSTANCE, quantity=r"\nabla_{\hat\alpha_1} f",
        how=r"SymPy differentiated both sides in $\hat\alpha_{1,1}, \hat\alpha_{1,2}$"))
    out.append(erratum(
        MODEL, "block subproblem, the W term", block_formula,
        r"f(\hat\alpha) = \frac{M^2}{2}\|x_i\|^2\|\hat\alpha_i\|^2 - \hat\alpha_i^\top\big(M^2 W x_i + "
        r"M^2\|x_i\|^2\alpha_i + \mathbb{1}_{\neg y_i}\big) + C_i",
        sp.Matrix([sp.diff(printed, v) for v in hs]), sp.Matrix([sp.diff(correct, v) for v in hs]),
        f"{BLOG}, 'Coordinate descent in Shark'",
        note=r"The post, with its $d \times k$ matrix, prints $M^2 x_i^\top W \hat\alpha_i$ (and $M^2 W^\top x_i$ in "
             r"the succinct form), shown here in our $k \times d$ layout as $M^2 W x_i$. Since "
             r"$\sum_s \alpha_s x_s^\top = -W / M$, the term is $M\, \hat\alpha_i^\top W x_i$; the two agree only for "
             r"$M = 1$. The line before, $\hat\alpha_i^\top(\sum_{s \ne i} \alpha_s x_s^\top) x_i = -\hat\alpha_i^\top "
             r"W x_i - \dots$ in our layout, misses the same factor $1/M$.",
        on=ON, instance=INSTANCE))
    out.append(index_set_erratum_block())
    out.append(identity(
        MODEL, "Hessian of the block: a multiple of I + 11'",
        r"\nabla^2_{\zeta} f = M^2\|x_i\|^2\,\big(I + \mathbf{1}\mathbf{1}^\top\big), \quad \zeta = (\hat\alpha_{ij})"
        r"_{j \ne y_i}",
        sp.hessian(f_hat, hs), M ** 2 * q * (sp.eye(k - 1) + sp.ones(k - 1, k - 1)),
        "Wang and Scott (2021), the reduced subproblem",
        note=r"In the $k - 1$ free entries $\zeta$ of row $i$, $\hat\alpha_{i y_i} = -\mathbf{1}^\top\zeta$ makes "
             r"$\|\hat\alpha_i\|^2 = \|\zeta\|^2 + (\mathbf{1}^\top\zeta)^2$, whose Hessian is $2(I + "
             r"\mathbf{1}\mathbf{1}^\top)$.",
        on=ON, instance=INSTANCE, quantity=r"\nabla^2_{\zeta} f", how="SymPy computed the Hessian of $f$ in the block"))
    # greedy step: alpha_ij += m, alpha_{i y_i} -= m
    phi = dual(alpha_matrix({**free, (i, j): free[(i, j)] + m}))
    m_star = sp.solve(sp.diff(phi, m), m)[0]
    out.append(identity(
        MODEL, "greedy step size",
        r"m^\star = -\frac{1}{2(M\|x_i\|)^2}\,\frac{\partial f}{\partial \alpha_{ij}}",
        m_star, -grad / (2 * M ** 2 * q), f"{BLOG}, 'Greedy step size'",
        note=r"Shark moves $\alpha_{ij}$ by $m$ and $\alpha_{i y_i}$ by $-m$; $f$ is a parabola in $m$ with leading "
             r"coefficient $(M\|x_i\|)^2$, minimised at $m^\star$. With Shark's $M = 1/2$ this is "
             r"$-\frac{2}{\|x_i\|^2}\frac{\partial f}{\partial \alpha_{ij}}$.",
        on=ON, instance=INSTANCE, quantity=r"\arg\min_m f(\alpha + m(e_{ij} - e_{i y_i}))",
        how=r"SymPy solved $\frac{d}{dm} f = 0$ for $m$"))
    moved = {**free, (i, j): free[(i, j)] + m}
    for t, drop in ((j, 2), (2, 1)):
        # d/d alpha_it of f at the moved point = the derivative of f(moved) in alpha_it (a shift)
        neg_after = -sp.diff(dual(alpha_matrix(moved)), free[(i, t)])
        neg_before = -sp.diff(dual(), free[(i, t)])
        label = "t = j" if t == j else "t != j"
        factor = "2" if drop == 2 else ""
        which = "t = j" if t == j else r"t \ne j, y_i"
        out.append(identity(
            MODEL, f"gradient update, {label}",
            rf"-\frac{{\partial f}}{{\partial \alpha_{{it}}}}(\hat\alpha) = -\frac{{\partial f}}{{\partial \alpha_"
            rf"{{it}}}}(\alpha) - {factor}M^2 m\|x_i\|^2 \quad ({which})",
            neg_after, neg_before - drop * M ** 2 * m * q, f"{BLOG}, 'Computing the step vector'",
            note=r"After the move, $\hat w_j = w_j - Mm\,x_i$ and $\hat w_{y_i} = w_{y_i} + Mm\,x_i$, so the margin "
                 r"$M(\hat w_{y_i} - \hat w_t)^\top x_i$ grows by $2M^2 m\|x_i\|^2$ for $t = j$ and by "
                 r"$M^2 m\|x_i\|^2$ for the other classes.",
            on=ON, instance=INSTANCE,
            quantity=rf"-\frac{{\partial f}}{{\partial \alpha_{{1,{t}}}}}(\hat\alpha)",
            how=r"SymPy differentiated $f$ at the moved point"))
    out.extend(numeric_checks())
    return out


def _small_instance():
    """n = 2 points in the plane, k = 3 classes, labels (0, 1): n samples, k classes, n != k."""
    Xs = sp.Matrix(2, 2, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
    lab = (0, 1)
    vals = {(i, j): sp.Symbol(f"alpha_{i + 1},{j}", real=True) for i in range(2) for j in range(3) if j != lab[i]}
    return Xs, lab, vals


SMALL = (r"$n = 2$ points $x_i \in \mathbb{R}^2$ with symbolic coordinates, $k = 3$ classes, labels $y = (0, 1)$ "
         r"and symbolic $\alpha_{ij}$, $M$: with $n = k$ the two index sets coincide, so the check needs $n \ne k$")


def index_set_erratum_alpha():
    """The blog post defines alpha_{i y_i} by a sum over j in [n]; j runs over the k classes."""
    Xs, lab, vals = _small_instance()
    derived = alpha_matrix(vals, lab, 3)
    printed = derived.copy()
    for i in range(2):  # the printed sum runs over the post's [n] = {1, 2}, our classes 0 and 1, only
        printed[i, lab[i]] = -sum(vals[(i, j)] for j in range(2) if j != lab[i])
    stationary = M * sum((v * (e(lab[i], 3) - e(j, 3)) * x(i, Xs).T for (i, j), v in vals.items()), sp.zeros(3, 2))
    matches = all(sp.expand(v) == 0 for v in weights(derived, Xs) - stationary)
    return erratum(
        MODEL, "alpha_{i y_i}: the sum over [n]",
        r"\alpha_{i y_i} = -\sum_{j = 0,\, j \ne y_i}^{k-1} \alpha_{ij}",
        r"\alpha_{i y_i} = -\sum_{j \in [n]:\, j \ne y_i} \alpha_i", weights(printed, Xs), stationary,
        f"{BLOG}, 'Dual problem', where the label entry of each row is defined",
        note=r"$j$ indexes classes, so the sum runs over the $k$ classes ($[k] = \{1, \dots, k\}$ in the post's "
             r"numbering), not over the $n$ samples (and the summand is "
             r"$\alpha_{ij}$, not $\alpha_i$). The dual's constraint line, '$\alpha_{i y_i} = \sum_{j \ne y_i} "
             r"-\alpha_j$', drops the sample index the same way. With the printed sum, $W = -M\sum_i \alpha_i "
             r"x_i^\top$ no longer equals the stationary $W$.",
        on="on a 2-point, 3-class instance", instance=SMALL,
        also=[(r"$-M\sum_i \alpha_i x_i^\top$ with the sum over the $k$ classes equals the stationary $W$", matches)])


def index_set_erratum_block():
    """The blog post's block objective sums the linear term over j in [n]; j runs over the k classes."""
    Xs, lab, vals = _small_instance()
    i = 0
    hat = {key: (sp.Symbol(f"alphahat_{key[0] + 1},{key[1]}", real=True) if key[0] == i else v)
           for key, v in vals.items()}
    hs = [hat[key] for key in vals if key[0] == i]
    A, A_hat = alpha_matrix(vals, lab, 3), alpha_matrix(hat, lab, 3)
    W = weights(A, Xs)
    q = (x(i, Xs).T * x(i, Xs))[0]
    h = A_hat[i, :].T
    quad = M ** 2 / 2 * q * (h.T * h)[0] - (h.T * (M * W * x(i, Xs) + M ** 2 * q * A[i, :].T))[0]
    derived = quad - sum(A_hat[i, j] for j in range(3) if j != lab[i])  # j over the k = 3 classes
    printed = quad - sum(A_hat[i, j] for j in range(2) if j != lab[i])  # j over the post's [n], our classes 0, 1
    true_grad = sp.Matrix([sp.diff(dual(A_hat, Xs, lab), v) for v in hs])
    matches = all(sp.expand(v) == 0 for v in true_grad - sp.Matrix([sp.diff(derived, v) for v in hs]))
    return erratum(
        MODEL, "block objective: the sum over [n]",
        r"f(\hat\alpha) = \frac{M^2}{2}\|x_i\|^2\|\hat\alpha_i\|^2 - \dots - \sum_{j = 0,\, j \ne y_i}^{k-1} "
        r"\hat\alpha_{ij} + \mathrm{const}",
        r"f(\hat\alpha) = \frac{M^2}{2}\|x_i\|^2\|\hat\alpha_i\|^2 - \dots - \sum_{j \in [n]:\, j \ne y_i} "
        r"\hat\alpha_{ij} + C_i",
        sp.Matrix([sp.diff(printed, v) for v in hs]), sp.Matrix([sp.diff(derived, v) for v in hs]),
        f"{BLOG}, 'Coordinate descent in Shark', the first two forms of the block objective",
        note=r"The linear term of the dual is $\sum_{j \ne y_i} \alpha_{ij}$ over the classes $j = 0, \dots, k-1$. The "
             r"printed sum over $[n]$ drops classes when $n < k$ (and names classes that do not exist when "
             r"$n > k$), which changes the block's gradient. The succinct form with $\mathbb{1}_{\neg y_i} \in "
             r"\mathbb{R}^k$ has the right index set.",
        on="on a 2-point, 3-class instance", instance=SMALL,
        also=[(r"the block objective with the sum over the $k$ classes has the same gradient as $f$ itself", matches)])


def numeric_checks():
    """The gradient, Shark's first move and the exact block's vector, against the derivation."""
    from .. import objectives as obj
    from ..problems import MulticlassProblem
    from ..solvers import WWExact
    from ..solvers.ww_shark import shark_inner

    i = 0
    grad_exprs = [[sp.diff(dual(), free[(r, c)]) if c != labels[r] else sp.Integer(0) for c in range(k)]
                  for r in range(n)]
    args = [list(X), [free[key] for key in free], M]
    gradient = sp.lambdify(args, sp.Matrix(grad_exprs), "numpy")
    # the exact block's vector: f restricted to the free entries beta of row i is
    # a (1/2 |beta|^2 + 1/2 (1'beta)^2 - u'beta) + const with a = M^2 |x_i|^2, so u = -(df/dbeta at beta = 0) / a
    beta = {key: sp.Symbol(f"zeta_{key[1]}", real=True) for key in free if key[0] == i}
    f_beta = dual(alpha_matrix({**free, **beta}))
    a_block = M ** 2 * (x(i).T * x(i))[0]
    u_expr = sp.Matrix([-sp.diff(f_beta, v).subs({b: 0 for b in beta.values()}) / a_block for v in beta.values()])
    u_fn = sp.lambdify(args, u_expr, "numpy")
    weights_fn = sp.lambdify(args, weights(), "numpy")  # the derived (k, d) W, row m = w_m
    rng = np.random.default_rng(4)
    grads, greedy, updates, us, Ws = [], [], [], [], []
    for _ in range(5):
        Xn = rng.normal(size=(n, d))
        Mn, Cn = rng.choice([0.5, 0.7, 1.0]), rng.uniform(0.5, 3.0)
        p = MulticlassProblem(Xn, np.array(labels), C=Cn, loss="ww", M=Mn)
        vals = {key: rng.uniform(0, Cn) for key in free}
        An = np.array(alpha_matrix(vals), dtype=float)
        Wn = obj.multiclass_weights(p, An)  # (k, d)
        Ws.append((Wn, np.asarray(weights_fn(Xn.ravel(), list(vals.values()), Mn), dtype=float)))
        derived_grad = np.asarray(gradient(Xn.ravel(), list(vals.values()), Mn), dtype=float)
        grads.append((obj.multiclass_gradient(p, obj.multiclass_scores(p, Wn)), derived_grad))
        # Shark's first move on sample 0: the greedy step and the gradient update
        g = -derived_grad[i].copy()
        record = np.zeros((1, k + 3))
        q = float(Xn[i] @ Xn[i])
        shark_inner(g, An[i].copy(), labels[i], q, Mn, Cn, 1, 0.0, record)
        jj = int(record[0, 0])
        greedy.append((record[0, 1], -derived_grad[i, jj] / (2 * Mn ** 2 * q)))
        expect = -derived_grad[i] - Mn ** 2 * record[0, 2] * q
        expect[jj] -= Mn ** 2 * record[0, 2] * q
        expect[labels[i]] = -derived_grad[i, labels[i]]  # the y_i entry (0) is not a free coordinate: unchanged
        updates.append((record[0, 3:], expect))
        solver = WWExact(random_state=0)
        new = solver.update(p, solver.init(p)._replace(alpha=An, W=Wn), i)
        us.append((new.block.u, np.asarray(u_fn(Xn.ravel(), list(vals.values()), Mn), dtype=float).ravel()))
    return [
        numeric(MODEL, "objectives.multiclass_weights: W is k x d",
                r"W = -M \sum_{i=1}^n \alpha_i x_i^\top \in \mathbb{R}^{k \times d}",
                "svmteach.objectives.multiclass_weights", Ws,
                note=r"The derived $W$ has the shape of the library's `coef_`: row $m$ is $w_m$, classes "
                     r"$0, \dots, k-1$. A $d \times k$ matrix would not match (the shapes differ).",
                what=r"the library's $(k, d)$ weights"),
        numeric(MODEL, "objectives.multiclass_gradient",
                r"\frac{\partial f}{\partial \alpha_{ij}} = M\,(w_{y_i} - w_j)^\top x_i - 1",
                "svmteach.objectives.multiclass_gradient", grads,
                note="The gradient behind the KKT violation and every Weston-Watkins solver.",
                what=r"the library's $(n, k)$ gradient"),
        numeric(MODEL, "ww_shark.shark_inner: greedy step",
                r"m^\star = -\frac{1}{2(M\|x_i\|)^2}\,\frac{\partial f}{\partial \alpha_{ij}}",
                "svmteach.solvers.ww_shark.shark_inner", greedy,
                note="Shark's first (unclipped) move on sample 1, for the coordinate it picks.",
                what=r"the unclipped step $m$"),
        numeric(MODEL, "ww_shark.shark_inner: gradient update",
                r"-\frac{\partial f}{\partial \alpha_{it}}(\hat\alpha) = -\frac{\partial f}{\partial \alpha_{it}}"
                r"(\alpha) - (1 + [t = j])\, M^2 m\|x_i\|^2",
                "svmteach.solvers.ww_shark.shark_inner", updates,
                note="The negative gradient Shark carries after its first move, entry by entry.",
                what=r"the negative gradient after the move"),
        numeric(MODEL, "WWExact: block vector u",
                r"f = M^2\|x_i\|^2\Big(\frac12\|\zeta\|^2 + \frac12(\mathbf{1}^\top\zeta)^2 - u^\top\zeta\Big) + "
                r"\mathrm{const}",
                "svmteach.losses.weston_watkins", us,
                note=r"$\zeta$ are the free entries $\alpha_{ij}$ ($j \ne y_i$) of the sample's row; $u$ is read off "
                     r"the derived $f$ as minus its gradient at $\zeta = 0$ divided by $M^2\|x_i\|^2$.",
                what=r"the exact solver's block vector $u$"),
    ]
