"""Problems of notebook 05 (kernels, the representer theorem, regularized least squares, leave-one-out).

Every answer is computed here without the closed forms the problems ask the student to derive: Gram
matrices from the kernel's definition, minimisers by a numerical optimiser, leave-one-out residuals by
refitting, limits with SymPy.
"""

from __future__ import annotations

import numpy as np

from . import PenProblem

TWO_POINTS = (r"the two points $x_1 = (0, 0)$ with $y_1 = -1$ and $x_2 = (1, 1)$ with $y_2 = +1$, and the "
              r"Gaussian kernel $k(x, z) = \exp(-\gamma \|x - z\|^2)$")
X2 = np.array([[0.0, 0.0], [1.0, 1.0]])
Y2 = np.array([-1.0, 1.0])


def _gaussian(X, Z, gamma):
    # exp(-gamma ||x - z||^2), entry by entry from the definition
    return np.array([[np.exp(-gamma * float(np.sum((x - z) ** 2))) for z in Z] for x in X])


def _squared_distance_eigenvalue():
    x = np.array([0.0, 1.0])
    K = (x[:, None] - x[None, :]) ** 2  # k(x, z) = (x - z)^2 on the real line
    return float(np.linalg.eigvalsh(K).min())


def _minimise_rls(K, Y, lam, weights):
    # J(c) = 1/2 sum_i s_i (y_i - (Kc)_i)^2 + lam/2 c'Kc, minimised by BFGS from c = 0 (no formula for c)
    from scipy.optimize import minimize

    def J(c):
        r = Y - K @ c
        return 0.5 * float(np.sum(weights * r * r)) + 0.5 * lam * float(c @ K @ c)

    def grad(c):
        return -K @ (weights * (Y - K @ c)) + lam * K @ c

    out = minimize(J, np.zeros(len(Y)), jac=grad, method="BFGS", options={"gtol": 1e-13, "maxiter": 10_000})
    return out.x


def _two_point_rls():
    return _minimise_rls(_gaussian(X2, X2, 0.5), Y2, 1.0, np.ones(2))


def _weighted_rls():
    return _minimise_rls(_gaussian(X2, X2, 0.5), Y2, 1.0, np.array([1.0, 3.0]))


def _loo_by_refitting():
    # k(x, z) = x'z + 1 on the course's three points, lambda = 1: refit without each point, predict it
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    Y = np.array([-1.0, 1.0, 1.0])
    K = X @ X.T + 1.0
    out = np.empty(3)
    for i in range(3):
        keep = np.arange(3) != i
        c = _minimise_rls(K[np.ix_(keep, keep)], Y[keep], 1.0, np.ones(2))
        out[i] = Y[i] - K[i, keep] @ c
    return out


def _gamma_limits():
    # with s = exp(-gamma), k(x, z) = s ** ||x - z||^2; gamma -> 0 is s -> 1 and gamma -> infinity is s -> 0+
    import sympy as sp

    s, lam = sp.Symbol("s", positive=True), sp.Integer(1)
    pts = [sp.Matrix([0, 0]), sp.Matrix([1, 1])]
    new = sp.Matrix([1, sp.Rational(9, 10)])
    k = lambda a, b: s ** ((a - b).T * (a - b))[0, 0]  # noqa: E731
    K = sp.Matrix(2, 2, lambda i, j: k(pts[i], pts[j]))
    c = (K + lam * sp.eye(2)).LUsolve(sp.Matrix([-1, 1]))
    f_train = sp.simplify((K * c)[1])
    f_new = sp.simplify(sum(c[j] * k(pts[j], new) for j in range(2)))
    return [float(sp.limit(f_train, s, 1)), float(sp.limit(f_train, s, 0, "+")), float(sp.limit(f_new, s, 0, "+"))]


def _linear_kernel_slope():
    # the slope of log ||c(lambda)|| against log lambda, linear kernel on the notebook's moons, lambda 1e-8 to 1e-7
    from svmteach import data

    X, y = data.moons(120, noise=0.2, seed=0)
    K = X @ X.T
    norms = [np.linalg.norm(np.linalg.solve(K + lam * np.eye(len(X)), y.astype(float))) for lam in (1e-8, 1e-7)]
    return float(np.log10(norms[1] / norms[0]))


PROBLEMS = (
    PenProblem(
        name="05.1", title="Is the squared distance a kernel?", kind="compute",
        statement=(
            r"Take $k(x, z) = \|x - z\|^2$ on the real line, and the two points $x_1 = 0$, $x_2 = 1$." "\n\n"
            r"1. Write the kernel matrix $K$ of the two points and compute its eigenvalues by hand." "\n"
            r"2. Give a vector $c$ with $c^\top K c < 0$. Can there be a feature map $\phi$ with "
            r"$k(x, z) = \phi(x)^\top \phi(z)$? Give a second, one-line reason using $k(x, x)$." "\n"
            r"3. Now take $k(x, z) = -\|x - z\|^2$. Its diagonal $k(x, x) = 0$ is never negative. Is it a "
            r"kernel? What does this say about the test “$k(x, x) \ge 0$ for every $x$”?" "\n\n"
            r"Answer: the smallest eigenvalue of $K$ in part 1, one number."),
        solution=(
            r"1. $k(0, 0) = k(1, 1) = 0$ and $k(0, 1) = 1$: $K = \begin{pmatrix} 0 & 1 \\ 1 & 0 \end{pmatrix}$. "
            r"Its trace is 0 and its determinant $-1$, so the eigenvalues solve $\mu^2 - 1 = 0$: $\mu = \pm 1$, "
            r"with eigenvectors $(1, 1)$ and $(1, -1)$. The smallest eigenvalue is $-1$." "\n\n"
            r"2. $c = (1, -1)$: $c^\top K c = 0 - 2 + 0 = -2 < 0$. A feature map would give "
            r"$c^\top K c = \|c_1 \phi(x_1) + c_2 \phi(x_2)\|^2 \ge 0$ (notebook 5, section 2), so there is none. "
            r"Second reason: $k(x, x) = \|\phi(x)\|^2$ would be $0$ for every $x$, so $\phi \equiv 0$ and "
            r"$k \equiv 0$; but $k(0, 1) = 1$." "\n\n"
            r"3. $K = \begin{pmatrix} 0 & -1 \\ -1 & 0 \end{pmatrix}$ has the same eigenvalues $\pm 1$; "
            r"$c = (1, 1)$ gives $c^\top K c = -2$. Not a kernel. A nonnegative diagonal is *necessary* "
            r"($k(x, x) = \|\phi(x)\|^2$) but not sufficient: positive semidefiniteness is a condition on every "
            r"finite set of points at once. (Beyond the course: $-\|x - z\|^2$ is only *conditionally* positive "
            r"definite, $c^\top K c \ge 0$ when $\sum_i c_i = 0$, and that is exactly why its exponential "
            r"$\exp(-\gamma\|x - z\|^2)$ is a kernel; Schölkopf and Smola, *Learning with Kernels*, 2002, ch. 2.)"),
        answer=_squared_distance_eigenvalue),
    PenProblem(
        name="05.2", title="A two-point Gaussian Gram matrix and its RLS fit", kind="compute",
        statement=(
            f"Take {TWO_POINTS} with $\\gamma = \\tfrac12$." "\n\n"
            r"1. Compute the kernel matrix $K$, its eigenvalues and eigenvectors." "\n"
            r"2. Regularized least squares (no bias, $b = 0$) with $\lambda = 1$: compute "
            r"$c = (K + \lambda I)^{-1} Y$ without inverting a matrix, using part 1." "\n"
            r"3. Compute the fitted values $f(x_i) = (Kc)_i$ and the residuals $y_i - f(x_i)$, and check "
            r"notebook 5's statement that the residuals are $\lambda c$." "\n\n"
            r"Answer: `[c_1, c_2]`."),
        solution=(
            r"1. $\|x_1 - x_2\|^2 = 2$, so $k(x_1, x_2) = e^{-\frac12 \cdot 2} = e^{-1} \approx 0.3679$ and "
            r"$K = \begin{pmatrix} 1 & e^{-1} \\ e^{-1} & 1 \end{pmatrix}$. A symmetric $2 \times 2$ matrix with "
            r"equal diagonal has the eigenvectors $(1, 1)/\sqrt2$ and $(1, -1)/\sqrt2$, with eigenvalues "
            r"$1 + e^{-1} \approx 1.3679$ and $1 - e^{-1} \approx 0.6321$." "\n\n"
            r"2. $Y = (-1, 1)$ is an eigenvector of $K$ for $1 - e^{-1}$, hence of $K + \lambda I$ for "
            r"$1 - e^{-1} + \lambda$. So $c = Y / (1 - e^{-1} + \lambda) = Y / (2 - e^{-1})$: "
            r"$c = (-0.6127, 0.6127)$." "\n\n"
            r"3. $Kc = (1 - e^{-1})\,c = \frac{1 - e^{-1}}{2 - e^{-1}}\, Y \approx (-0.3873, 0.3873)$. The "
            r"residuals are $Y - Kc = \frac{\lambda}{2 - e^{-1}}\, Y \approx (-0.6127, 0.6127) = \lambda c$ "
            r"with $\lambda = 1$, as notebook 5's dual says (the multiplier of each point is its residual)."),
        answer=_two_point_rls),
    PenProblem(
        name="05.3", title="Weighted regularized least squares", kind="derive",
        statement=(
            r"Give each training point a weight $s_i > 0$ and minimise over $f$ in the RKHS $\mathcal H$ of a "
            r"kernel $k$" "\n\n"
            r"$$\frac12 \sum_{i=1}^n s_i \big(y_i - f(x_i)\big)^2 + \frac{\lambda}{2} \|f\|_{\mathcal H}^2 .$$"
            "\n\n"
            r"1. Why does the representer theorem of notebook 5 still apply? Write the problem in the "
            r"coefficients $c$ of $f = \sum_j c_j\, k(x_j, \cdot)$, with $S = \operatorname{diag}(s)$." "\n"
            r"2. Derive its gradient and show that $c = (K + \lambda S^{-1})^{-1} Y$ is a minimiser. Why is "
            r"$K + \lambda S^{-1}$ invertible?" "\n"
            r"3. Show that the residual of point $i$ is $\lambda c_i / s_i$. What happens to it as $s_i \to "
            r"\infty$ (other weights fixed, $K$ nonsingular)?" "\n"
            f"4. Compute $c$ for {TWO_POINTS}, $\\gamma = \\tfrac12$, $\\lambda = 1$ and weights "
            r"$s = (1, 3)$." "\n\n"
            r"Answer: `[c_1, c_2]` of part 4."),
        solution=(
            r"1. The proof of the representer theorem splits $f = f_\parallel + f_\perp$ and uses only that the "
            r"loss depends on $f$ through the values $f(x_i)$; a weighted square loss does. So a minimiser is "
            r"$f = \sum_j c_j k(x_j, \cdot)$, with $f(x_i) = (Kc)_i$ and $\|f\|_{\mathcal H}^2 = c^\top K c$:" "\n\n"
            r"$$J(c) = \tfrac12 (Y - Kc)^\top S\, (Y - Kc) + \tfrac{\lambda}{2}\, c^\top K c .$$" "\n\n"
            r"2. With $K$ and $S$ symmetric, $\nabla J(c) = -K S (Y - Kc) + \lambda K c = "
            r"K\big(S(Kc - Y) + \lambda c\big)$. It vanishes when $S(Kc - Y) + \lambda c = 0$, i.e. "
            r"$(K + \lambda S^{-1})\, c = Y$ (multiply by $S^{-1}$). $J$ is convex (Hessian "
            r"$KSK + \lambda K = K^{1/2}(K^{1/2} S K^{1/2} + \lambda I)K^{1/2} \succeq 0$), so this stationary "
            r"point is a minimiser. $K + \lambda S^{-1}$ is a PSD matrix plus a diagonal with entries "
            r"$\lambda / s_i > 0$, so it is positive definite, hence invertible. (For $s = \mathbb 1$ this is "
            r"notebook 5's $c = (K + \lambda I)^{-1} Y$.)" "\n\n"
            r"3. From $(K + \lambda S^{-1})c = Y$: $Y - Kc = \lambda S^{-1} c$, so $y_i - f(x_i) = \lambda c_i / "
            r"s_i$. As $s_i \to \infty$, $K + \lambda S^{-1}$ tends to a matrix that is still invertible when $K$ "
            r"is (the entry $\lambda / s_i \to 0$), so $c$ stays bounded and the residual $\lambda c_i / s_i \to "
            r"0$: a heavy point is fitted exactly." "\n\n"
            r"4. $K = \begin{pmatrix} 1 & e^{-1} \\ e^{-1} & 1 \end{pmatrix}$ (problem 05.2) and "
            r"$K + \lambda S^{-1} = \begin{pmatrix} 2 & e^{-1} \\ e^{-1} & 4/3 \end{pmatrix}$, with determinant "
            r"$8/3 - e^{-2}$. By Cramer's rule" "\n\n"
            r"$$c = \frac{1}{8/3 - e^{-2}} \begin{pmatrix} -4/3 - e^{-1} \\ 2 + e^{-1} \end{pmatrix} "
            r"\approx (-0.6721, 0.9354).$$" "\n\n"
            r"The fitted values are $Kc \approx (-0.3279, 0.6882)$: the heavier point 2 is fitted more closely "
            r"than in problem 05.2 ($0.3873$), and its residual $0.3118 = \lambda c_2 / 3$ as part 3 says."),
        answer=_weighted_rls, rtol=1e-6, atol=1e-8),
    PenProblem(
        name="05.4", title="Leave-one-out residuals on three points, without refitting", kind="compute",
        statement=(
            r"Take the course's worked example, $x_1 = (0, 0)$ with $y_1 = -1$, $x_2 = (2, 0)$ and "
            r"$x_3 = (0, 2)$ with $y_2 = y_3 = +1$, the kernel $k(x, z) = x^\top z + 1$ (a linear kernel with a "
            r"constant feature) and $\lambda = 1$." "\n\n"
            r"1. Write $K$ and $G = K + \lambda I$, and solve $Gc = Y$ by hand (use the symmetry between points "
            r"2 and 3)." "\n"
            r"2. Compute the diagonal of $G^{-1}$ by cofactors, and the leave-one-out residuals "
            r"$y_i - f_{-i}(x_i) = c_i / [G^{-1}]_{ii}$ of notebook 5." "\n"
            r"3. Check the residual of point 2 by refitting on points 1 and 3 only." "\n"
            r"4. The fit on all three points classifies all three correctly. How many points does the "
            r"leave-one-out rule misclassify, and why?" "\n\n"
            r"Answer: the three leave-one-out residuals `[r_1, r_2, r_3]`."),
        solution=(
            r"1. $x_1 = 0$ gives $x_1^\top x_j = 0$, $x_2^\top x_2 = x_3^\top x_3 = 4$ and $x_2^\top x_3 = 0$, "
            r"so $K = \begin{pmatrix} 1 & 1 & 1 \\ 1 & 5 & 1 \\ 1 & 1 & 5 \end{pmatrix}$ and "
            r"$G = \begin{pmatrix} 2 & 1 & 1 \\ 1 & 6 & 1 \\ 1 & 1 & 6 \end{pmatrix}$. By symmetry $c_2 = c_3$: "
            r"$2c_1 + 2c_2 = -1$ and $c_1 + 7c_2 = 1$ give $c = (-3/4, 1/4, 1/4)$. Fitted values "
            r"$Kc = (-1/4, 3/4, 3/4)$: all three on the right side." "\n\n"
            r"2. $\det G = 2 \cdot 35 - 1 \cdot 5 + 1 \cdot (-5) = 60$. The diagonal cofactors are "
            r"$6 \cdot 6 - 1 = 35$ and $2 \cdot 6 - 1 = 11$ (twice), so $\operatorname{diag}(G^{-1}) = "
            r"(7/12, 11/60, 11/60)$. The residuals: $r_1 = (-3/4)/(7/12) = -9/7 \approx -1.2857$, "
            r"$r_2 = r_3 = (1/4)/(11/60) = 15/11 \approx 1.3636$." "\n\n"
            r"3. Without point 2: $K' = \begin{pmatrix} 1 & 1 \\ 1 & 5 \end{pmatrix}$ (points 1 and 3), "
            r"$(K' + I)c' = (-1, 1)$ gives $c' = (-7/11, 3/11)$, and $f_{-2}(x_2) = k(x_2, x_1) c'_1 + "
            r"k(x_2, x_3) c'_2 = -7/11 + 3/11 = -4/11$. So $y_2 - f_{-2}(x_2) = 1 + 4/11 = 15/11$, as the formula "
            r"says." "\n\n"
            r"4. All three: $f_{-1}(x_1) = -1 + 9/7 = 2/7 > 0$ and $f_{-2}(x_2) = f_{-3}(x_3) = -4/11 < 0$. "
            r"Every left-out point is predicted on the wrong side (leave-one-out error 3/3, mean squared "
            r"residual about 1.79) although the training error is 0. With three points, removing one leaves two "
            r"points that say nothing about it: without $x_2$, the only positive point $x_3$ is orthogonal to "
            r"$x_2$ (it contributes $k(x_2, x_3) = 1$ through the constant only) while the negative point pulls "
            r"the constant down. Leave-one-out measures how a point is predicted from the *others*; on tiny "
            r"data sets it can be far from the training error."),
        answer=_loo_by_refitting, rtol=1e-6, atol=1e-8),
    PenProblem(
        name="05.5", title=r"What $\gamma \to 0$ and $\gamma \to \infty$ do to an RLS fit", kind="predict",
        statement=(
            f"Take {TWO_POINTS}, now with any $\\gamma > 0$, and RLS with $\\lambda = 1$." "\n\n"
            r"1. Predict first, in words: what should the fit look like when $\gamma$ is tiny (every bump very "
            r"wide), and when $\gamma$ is huge (every bump very narrow)?" "\n"
            r"2. Show that $f(x_i) = \frac{1 - e^{-2\gamma}}{1 - e^{-2\gamma} + \lambda}\, y_i$ for both training "
            r"points, and take the limits $\gamma \to 0$ and $\gamma \to \infty$." "\n"
            r"3. Take the new point $x = (1, 0.9)$, close to $x_2$. What is $\lim_{\gamma \to \infty} f(x)$? "
            r"Which side of the boundary is $x$ on for large finite $\gamma$?" "\n\n"
            r"Answer: `[lim f(x_2) as gamma -> 0, lim f(x_2) as gamma -> infinity, lim f(x) as gamma -> infinity]`."),
        solution=(
            r"1. Tiny $\gamma$: all points look alike, the function cannot tell them apart and is nearly "
            r"constant. Huge $\gamma$: each point is fitted by its own bump and the function is zero elsewhere "
            r"(it memorises)." "\n\n"
            r"2. $K = \begin{pmatrix} 1 & e^{-2\gamma} \\ e^{-2\gamma} & 1 \end{pmatrix}$ and $Y = (-1, 1)$ is "
            r"its eigenvector for $\mu = 1 - e^{-2\gamma}$ (problem 05.2). Hence $c = Y / (\mu + \lambda)$ and "
            r"$f(x_i) = (Kc)_i = \frac{\mu}{\mu + \lambda} y_i$." "\n\n"
            r"- $\gamma \to 0$: $\mu \to 0$, so $f(x_i) \to 0$. $K$ tends to the all-ones matrix, and "
            r"$Y \perp \mathbb 1$: a constant function cannot fit labels that sum to zero, so the fit vanishes "
            r"(while $c \to Y/\lambda$ stays bounded)." "\n"
            r"- $\gamma \to \infty$: $\mu \to 1$, so $f(x_i) \to y_i / (1 + \lambda) = \pm 0.5$: each point is "
            r"fitted alone, shrunk by $1/(1 + \lambda)$." "\n\n"
            r"3. $f(x) = c_1 e^{-\gamma \|x - x_1\|^2} + c_2 e^{-\gamma \|x - x_2\|^2}$ with $\|x - x_1\|^2 = 1.81$, "
            r"$\|x - x_2\|^2 = 0.01$ and $c$ bounded: $f(x) \to 0$. For large finite $\gamma$ the bump of $x_2$ "
            r"dominates ($e^{-0.01\gamma} \gg e^{-1.81\gamma}$), so $f(x) > 0$: right side, but with a value "
            r"near zero, and every point farther than a few $1/\sqrt\gamma$ from both training points gets "
            r"$f \approx 0$. This is notebook 5's “training accuracy 1.000 at $\gamma = 100$, which says "
            r"nothing about new points”."),
        answer=_gamma_limits, rtol=1e-9, atol=1e-9, slips=(
            (lambda: [_gamma_limits()[0], 1.0, _gamma_limits()[2]],  # y_2 = +1, not shrunk
             "entry 2: as gamma -> infinity each training point is fitted by its own bump, but RLS still shrinks "
             "it: f(x_2) tends to y_2 / (1 + lambda), not to y_2"),
            (lambda: [_gamma_limits()[0], _gamma_limits()[1], _gamma_limits()[1]],
             "entry 3: x is not a training point: as gamma -> infinity even the bump of its nearest point, "
             "exp(-gamma ||x - x_2||^2), goes to 0"),
        )),
    PenProblem(
        name="05.6", title=r"Reading the coefficient curves $\|c(\lambda)\|$", kind="explain",
        statement=(
            r"Notebook 5 draws $\|c(\lambda)\|$ against $\lambda$ on log-log axes for the moons data "
            r"($n = 120$) with three kernels: Gaussian with $\gamma = 100$ (smallest eigenvalue of $K$ about "
            r"$0.02$), Gaussian with $\gamma = 2$ (about $10^{-12}$) and linear ($K = XX^\top$, rank 2)." "\n\n"
            r"1. From $c(\lambda) = \sum_k \frac{q_k^\top Y}{\mu_k + \lambda}\, q_k$, explain the slope of "
            r"each curve as $\lambda$ decreases from $10^{-2}$ to $10^{-8}$: which levels off, which keeps "
            r"rising, and at what slope?" "\n"
            r"2. The $\gamma = 2$ curve still rises at $\lambda = 10^{-8}$. Is its $K$ singular? Where will it "
            r"level off?" "\n"
            r"3. Does the linear kernel's fitted function $f(\lambda) = Kc(\lambda)$ blow up too? What does "
            r"the residual panel show for it?" "\n\n"
            r"Answer: the slope of $\log_{10}\|c(\lambda)\|$ against $\log_{10}\lambda$ for the linear kernel "
            r"between $\lambda = 10^{-8}$ and $10^{-7}$, one number."),
        solution=(
            r"1. Each term is $\frac{q_k^\top Y}{\mu_k + \lambda}$. While $\lambda \gg \mu_k$ it grows "
            r"like $1/\lambda$; once $\lambda \ll \mu_k$ it is constant, $\frac{q_k^\top Y}{\mu_k}$. "
            r"For $\gamma = 100$ every $\mu_k \ge 0.02$, so below $\lambda \approx 10^{-3}$ the curve is flat "
            r"(slope 0) at $\|K^{-1} Y\|$. For the linear kernel, $n - 2 = 118$ eigenvalues are zero and $Y$ has a "
            r"component outside the 2-dimensional range of $K$: those terms are $\frac{q_k^\top Y}{\lambda}$ "
            r"for every $\lambda$, so $\|c(\lambda)\| \approx \|Y - \Pi Y\| / \lambda$ ($\Pi$ the projection onto "
            r"the range): slope $-1$ on log-log axes, for ever. (Computed on the moons between $10^{-8}$ and "
            r"$10^{-7}$: $-1.0000$.)" "\n\n"
            r"2. No: its smallest eigenvalue is about $10^{-12} > 0$ (the Gaussian kernel on distinct points is "
            r"positive definite). Its curve rises with slope close to $-1$ while $\lambda$ is above the small "
            r"eigenvalues, and levels off at $\|K^{-1} Y\|$ once $\lambda \ll 10^{-12}$, beyond the plotted range. "
            r"From the plot alone it cannot be told apart from the singular case; the eigenvalues can." "\n\n"
            r"3. No. The growing part of $c$ lies in the null space of $K$, which is the zero function "
            r"($u^\top K u = 0$, notebook 5). $f(\lambda) = \sum_k \frac{\mu_k}{\mu_k + \lambda} "
            r"(q_k^\top Y)\, q_k$ converges to $\Pi Y$, the least-squares fit of a linear function, and the "
            r"residual $\|Y - f(\lambda)\|$ levels off at $\|Y - \Pi Y\| > 0$: a linear function cannot fit the "
            r"moons. The Gaussian residuals instead go to 0 (interpolation)."),
        answer=_linear_kernel_slope, rtol=1e-3, atol=1e-6),
)
