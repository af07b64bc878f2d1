"""Problems of notebook 02 (Lagrangian, duality and the KKT conditions)."""

from __future__ import annotations

import numpy as np

from . import PenProblem
from . import worked_example as ex
from .nb01 import EXAMPLE


def _Q():
    from svmteach.kernels import gram

    K = np.asarray(gram(ex.X, ex.X, "linear"), dtype=float)
    return np.outer(ex.Y, ex.Y) * K


def _alpha_hard():
    return ex.solved(C=1.0)[0]


def _alpha_b_quarter():
    alpha, _, b = ex.solved(C=0.25)
    return np.append(alpha, b)


def _relative_gap():
    from svmteach import BinaryProblem
    from svmteach import objectives as obj

    problem = BinaryProblem(ex.X, ex.Y, C=1.0)
    alpha = np.array([0.5, 0.25, 0.25])
    D = obj.dual(problem, alpha)
    w = ex.X.T @ (alpha * ex.Y)
    # P is convex and piecewise linear in b: its minimum over b is at a kink, b = y_i - w'x_i for some i
    P = min(ex.primal(w, b, 1.0) for b in ex.Y - ex.X @ w)
    return (P - D) / abs(P)


def _hinge_conjugate():
    # h*(s) = sup_z s z - max(0, 1 - z), on a grid of z that contains the kink z = 1
    z = np.concatenate([np.linspace(-50.0, 50.0, 100_001), [1.0]])
    return np.array([np.max(s * z - np.maximum(0.0, 1.0 - z)) for s in (-0.5, -1.0)])


def _dual_function_values():
    import sympy as sp

    x = sp.Symbol("x", real=True)
    values = []
    for lam in (sp.Rational(1, 2), sp.Integer(2)):
        lagrangian = x + lam * x**2
        (x_min,) = sp.solve(sp.diff(lagrangian, x), x)  # convex in x for lam > 0: the stationary point
        values.append(float(lagrangian.subs(x, x_min)))
    return np.array(values)


PROBLEMS = (
    PenProblem(
        name="02.1", title="The dual of the worked example", kind="derive",
        statement=(
            f"Take {EXAMPLE}, with a bias and a box bound $C$." "\n\n"
            r"1. Write the Gram matrix $K$, the matrix $Q_{ij} = y_i y_j K_{ij}$ and the dual problem "
            r"$\max_\alpha \mathbf 1^\top\alpha - \tfrac12\alpha^\top Q\alpha$ with all its constraints." "\n"
            r"2. Use the equality constraint to eliminate $\alpha_1$, and show that the dual becomes "
            r"$\max\; 2\alpha_2 + 2\alpha_3 - 2\alpha_2^2 - 2\alpha_3^2$ over a region you describe." "\n"
            r"3. Why does $\alpha_1$ not appear in the quadratic term?" "\n\n"
            r"Answer: the matrix $Q$, as `[[Q_11, Q_12, Q_13], [Q_21, ...], [...]]`."),
        solution=(
            r"1. $K = XX^\top$ with rows $x_i$: $K = \begin{pmatrix}0&0&0\\0&4&0\\0&0&4\end{pmatrix}$ "
            r"($x_1 = 0$, and $x_2 \perp x_3$). $Q = \operatorname{diag}(y) K \operatorname{diag}(y) = K$ here "
            r"(the only entries that could change sign involve $x_1$, and they are zero). The dual: maximise "
            r"$\alpha_1 + \alpha_2 + \alpha_3 - 2\alpha_2^2 - 2\alpha_3^2$ subject to "
            r"$0 \le \alpha_i \le C$ and $-\alpha_1 + \alpha_2 + \alpha_3 = 0$." "\n\n"
            r"2. $\alpha_1 = \alpha_2 + \alpha_3$, so the objective is $2\alpha_2 + 2\alpha_3 - 2\alpha_2^2 - "
            r"2\alpha_3^2$ over $\alpha_2, \alpha_3 \ge 0$, $\alpha_2, \alpha_3 \le C$ and "
            r"$\alpha_2 + \alpha_3 \le C$ (the box of $\alpha_1$)." "\n\n"
            r"3. $x_1 = 0$: its inner product with every point is $0$, so it contributes nothing to "
            r"$\|w\|^2 = \alpha^\top Q\alpha$. It still matters through $y^\top\alpha = 0$ and its box."),
        answer=_Q),
    PenProblem(
        name="02.2", title="Hard margin: the dual, the KKT table, and the erratum's counterexample",
        kind="compute",
        statement=(
            f"Take {EXAMPLE} and $C = 1$." "\n\n"
            r"1. Solve the reduced dual of problem 02.1 by hand (ignore the box first, then check it)." "\n"
            r"2. Recover $w = \sum_i \alpha_i y_i x_i$ and $b$, and check $P^\star = D^\star$." "\n"
            r"3. Put each point in the KKT table: which are free, which are bound? Point 1 has $\alpha_1 = C$: "
            r"where is it? What does that say about the equivalence "
            r"'$\alpha_i = C \Leftrightarrow y_i f(x_i) < 1$' printed in Rosasco's lecture?" "\n"
            r"4. For which $C$ is this also the soft-margin solution?" "\n\n"
            r"Answer: `[alpha_1, alpha_2, alpha_3]`."),
        solution=(
            r"1. The reduced objective $2\alpha_2 - 2\alpha_2^2 + 2\alpha_3 - 2\alpha_3^2$ separates; each part "
            r"is a downward parabola with vertex at $\tfrac12$. So $\alpha_2 = \alpha_3 = \tfrac12$ and "
            r"$\alpha_1 = \alpha_2 + \alpha_3 = 1$. The box holds: every $\alpha_i \le 1 = C$ and "
            r"$\alpha_2 + \alpha_3 = 1 \le C$. $D^\star = 2 - 1 = 1$." "\n\n"
            r"2. $w = -1\cdot(0,0) + \tfrac12(2,0) + \tfrac12(0,2) = (1, 1)$. Points 2 and 3 are free "
            r"($0 < \tfrac12 < 1$), so $y_2(w^\top x_2 + b) = 1$ gives $b = 1 - 2 = -1$. "
            r"$P^\star = \tfrac12\|w\|^2 + C\sum\xi_i = 1 + 0 = 1 = D^\star$: no gap, as strong duality promises." "\n\n"
            r"3. Points 2 and 3: free support vectors, on the margin. Point 1: $\alpha_1 = C$, a bound support "
            r"vector, yet $y_1 f(x_1) = -(0 - 1) = 1$: exactly **on** the margin, not inside it. So "
            r"'$\alpha_i = C \Rightarrow y_i f(x_i) < 1$' is false; the table only gives "
            r"$\alpha_i = C \Rightarrow y_i f(x_i) \le 1$ (and $y_i f(x_i) < 1 \Rightarrow \alpha_i = C$)."
            "\n\n"
            r"4. For every $C \ge 1 = \max_i \alpha_i$ (notebook 2, the hard margin is reached at a finite $C$): "
            r"then $\alpha$ is feasible for the soft-margin dual and optimal there."),
        answer=_alpha_hard),
    PenProblem(
        name="02.3", title="Soft margin with C = 1/4: the box bites", kind="compute",
        statement=(
            f"Take {EXAMPLE} and $C = \\tfrac14$." "\n\n"
            r"1. The solution of problem 02.2 is now infeasible: why? Solve the reduced dual of 02.1 with the "
            r"box (hint: for a fixed sum $s = \alpha_2 + \alpha_3$, which split is best?)." "\n"
            r"2. Classify each point with the KKT table, and use the free support vectors to find $b$." "\n"
            r"3. Compute each $y_i f(x_i)$: which point is misclassified? Check $P = D$ (problem 01.4)." "\n"
            r"4. Repeat for a general $C < 1$. For which $C$ is point 1 misclassified?" "\n\n"
            r"Answer: `[alpha_1, alpha_2, alpha_3, b]`."),
        solution=(
            r"1. It has $\alpha_1 = 1 > \tfrac14$. With $s = \alpha_2 + \alpha_3 = \alpha_1 \le C$, for a fixed "
            r"$s$ the objective $2s - 2(\alpha_2^2 + \alpha_3^2)$ is largest at $\alpha_2 = \alpha_3 = s/2$ "
            r"(the square sum is smallest for equal parts), giving $2s - s^2$, increasing on $[0, 1]$. So "
            r"$s = C = \tfrac14$: $\alpha = (\tfrac14, \tfrac18, \tfrac18)$, $D = \tfrac12 - \tfrac1{16} = "
            r"\tfrac7{16}$." "\n\n"
            r"2. Point 1: $\alpha_1 = C$, bound. Points 2, 3: $0 < \tfrac18 < \tfrac14$, free, so on the margin: "
            r"$w = \tfrac18(2, 0) + \tfrac18(0, 2) = (\tfrac14, \tfrac14)$ and "
            r"$b = y_2 - w^\top x_2 = 1 - \tfrac12 = \tfrac12$." "\n\n"
            r"3. $y_1 f(x_1) = -\tfrac12 < 0$: point 1 is misclassified, $\xi_1 = \tfrac32$, consistent with "
            r"$\alpha_1 = C$ (the table allows $y_i f(x_i) \le 1$). $y_2 f(x_2) = y_3 f(x_3) = 1$. "
            r"$P = \tfrac1{16} + \tfrac14\cdot\tfrac32 = \tfrac7{16} = D$: optimal." "\n\n"
            r"4. For $C < 1$: $\alpha = (C, C/2, C/2)$, $w = (C, C)$, $b = 1 - 2C$, "
            r"$y_1 f(x_1) = 2C - 1$, $P = D = 2C - C^2$. Point 1 is misclassified when $2C - 1 < 0$, that is "
            r"$C < \tfrac12$; it is on the boundary at $C = \tfrac12$ and inside the margin for "
            r"$\tfrac12 < C < 1$."),
        answer=_alpha_b_quarter, slips=(
            (lambda: np.append(*ex.solved(C=1.0)[::2]),
             "that is the hard-margin solution of problem 02.2: with C = 1/4 the box alpha_i <= C cuts it off"),
            (lambda: np.append(ex.solved(C=0.25)[0], ex.Y[0] - ex.X[0] @ ex.solved(C=0.25)[1]),
             "your b puts point 1 on its margin: point 1 is at the bound (alpha_1 = C), where y_1 f(x_1) <= 1 is "
             "all the table says; b comes from a free support vector (0 < alpha_i < C), which is on its margin"),
            (lambda: np.append(np.full(3, 0.25), ex.Y[1] - ex.X[1] @ (ex.X.T @ (np.full(3, 0.25) * ex.Y))),
             "every alpha at C breaks the equality sum_i y_i alpha_i = 0 (the bias's condition): alpha_2 + alpha_3 "
             "must equal alpha_1"),
        )),
    PenProblem(
        name="02.4", title="What the duality gap certifies", kind="compute",
        statement=(
            f"Take {EXAMPLE}, $C = 1$, and the dual point $\\alpha = (\\tfrac12, \\tfrac14, \\tfrac14)$." "\n\n"
            r"1. Check that $\alpha$ is dual feasible and compute $D(\alpha)$." "\n"
            r"2. Compute $w = w(\alpha)$, then the bias $b$ that makes $P(w, b)$ smallest (the hinge terms are "
            r"piecewise linear in $b$), and $P(w, b)$." "\n"
            r"3. Compute the relative gap $(P - D)/|P|$ and check, with $P^\star = 1$ from problem 02.2, that "
            r"$P - P^\star \le P - D$. Would another $b$ (for example the mean of $y_t - w^\top x_t$ over the "
            r"free support vectors) still give a valid bound?" "\n\n"
            r"Answer: the relative gap $(P - D)/|P|$, one number."),
        solution=(
            r"1. $0 \le \alpha_i \le 1$ and $y^\top\alpha = -\tfrac12 + \tfrac14 + \tfrac14 = 0$. "
            r"$w = \tfrac14(2, 0) + \tfrac14(0, 2) = (\tfrac12, \tfrac12)$, "
            r"$D = 1 - \tfrac12\cdot\tfrac12 = \tfrac34$." "\n\n"
            r"2. $y_1 f(x_1) = -b$, $y_2 f(x_2) = y_3 f(x_3) = 1 + b$. The hinge total is "
            r"$\max(0, 1 + b) + 2\max(0, -b)$: $1 - b$ on $[-1, 0]$, $1 + b$ for $b \ge 0$, $-2b$ for "
            r"$b \le -1$; smallest at $b = 0$, where it is $1$. $P = \tfrac12\cdot\tfrac12 + 1 = \tfrac54$." "\n\n"
            r"3. $(P - D)/|P| = (\tfrac54 - \tfrac34)/\tfrac54 = \tfrac25 = 0.4$. Indeed "
            r"$P - P^\star = \tfrac14 \le \tfrac12 = P - D$, and $D = \tfrac34 \le P^\star = 1$. Any $b$ gives a "
            r"valid bound, because weak duality holds for every primal feasible point (with its smallest "
            r"slacks); a worse $b$ only gives a looser one. The mean over the free support vectors here is "
            r"$b = \tfrac13(-1 + 0 + 0) = -\tfrac13$, with $P = \tfrac14 + \tfrac43 = \tfrac{19}{12}$."),
        answer=_relative_gap),
    PenProblem(
        name="02.5", title="The conjugate of the hinge loss, and the SVM dual from it", kind="derive",
        statement=(
            r"Let $h(z) = \max(0, 1 - z)$ and $h^\ast(s) = \sup_z \bigl(s z - h(z)\bigr)$ its convex "
            r"conjugate." "\n\n"
            r"1. Show that $h^\ast(s) = s$ for $-1 \le s \le 0$ and $h^\ast(s) = +\infty$ otherwise." "\n"
            r"2. Check that $h(z) = \max_{-1 \le s \le 0} s(z - 1)$, and with $\alpha_i = -C s_i$ write "
            r"$C\,h(y_i w^\top x_i) = \max_{0 \le \alpha_i \le C} \alpha_i (1 - y_i w^\top x_i)$." "\n"
            r"3. Put this into $P(w) = \tfrac12\|w\|^2 + C\sum_i h(y_i w^\top x_i)$ (no bias, $b = 0$), "
            r"exchange $\min_w$ and $\max_\alpha$, and derive the dual of notebook 3. Why may the min and the "
            r"max be exchanged here?" "\n\n"
            r"Answer: `[h*(-1/2), h*(-1)]`."),
        solution=(
            r"1. For $z \ge 1$, $sz - h(z) = sz$: bounded above on $[1, \infty)$ only if $s \le 0$, with "
            r"supremum $s$ (at $z = 1$). For $z < 1$, $sz - (1 - z) = (s + 1)z - 1$: bounded above as "
            r"$z \to -\infty$ only if $s \ge -1$, with supremum $s$ (as $z \to 1$). So $h^\ast(s) = s$ on "
            r"$[-1, 0]$ and $+\infty$ elsewhere; $h^\ast(-\tfrac12) = -\tfrac12$, $h^\ast(-1) = -1$." "\n\n"
            r"2. $s(z - 1)$ is linear in $s$, so its maximum over $[-1, 0]$ is at an end: $0$ at $s = 0$, "
            r"$1 - z$ at $s = -1$: $\max(0, 1 - z) = h(z)$ (this is $h = h^{\ast\ast}$). With "
            r"$\alpha_i = -Cs_i \in [0, C]$: $C h(z_i) = \max_{\alpha_i \in [0, C]} \alpha_i(1 - z_i)$." "\n\n"
            r"3. $P(w) = \max_{\alpha \in [0,C]^n} \bigl(\tfrac12\|w\|^2 + \sum_i \alpha_i(1 - y_i w^\top "
            r"x_i)\bigr)$. The function in brackets is convex in $w$, concave (linear) in $\alpha$, and $\alpha$ "
            r"ranges over a compact convex box, so the minimax theorem (Sion's) lets us exchange "
            r"$\min_w \max_\alpha = \max_\alpha \min_w$. The inner minimum is at $w = \sum_i \alpha_i y_i x_i$ "
            r"and equals $\sum_i \alpha_i - \tfrac12\|\sum_i \alpha_i y_i x_i\|^2$: the dual of notebook 3, "
            r"over the box $[0, C]^n$ and without the equality constraint (there is no bias)."),
        answer=_hinge_conjugate),
    PenProblem(
        name="02.6", title="The dual function is concave; without a strictly feasible point", kind="prove",
        statement=(
            r"For a problem $\min f_0(x)$ subject to $f_i(x) \le 0$ ($i = 1, \dots, m$), the dual function is "
            r"$g(\lambda) = \inf_x \bigl(f_0(x) + \sum_i \lambda_i f_i(x)\bigr)$ for $\lambda \ge 0$." "\n\n"
            r"1. Prove that $g$ is concave, whatever $f_0$ and $f_i$ are (convex or not)." "\n"
            r"2. Prove weak duality in one line: $g(\lambda) \le f_0(x)$ for every feasible $x$ and "
            r"$\lambda \ge 0$." "\n"
            r"3. Take the convex problem $\min x$ subject to $x^2 \le 0$ (one variable). Compute $P^\star$, "
            r"$g(\lambda)$ for $\lambda > 0$ and $\lambda = 0$, and $D^\star = \sup_{\lambda \ge 0} g(\lambda)$. "
            r"Is $D^\star$ attained? Does Slater's condition hold?" "\n\n"
            r"Answer: `[g(1/2), g(2)]`."),
        solution=(
            r"1. For each fixed $x$, $\lambda \mapsto f_0(x) + \sum_i \lambda_i f_i(x)$ is affine. An infimum "
            r"of affine functions is concave: for $\theta \in [0, 1]$, "
            r"$g(\theta\lambda + (1 - \theta)\mu) = \inf_x [\theta L(x, \lambda) + (1 - \theta)L(x, \mu)] \ge "
            r"\theta\inf_x L(x, \lambda) + (1 - \theta)\inf_x L(x, \mu)$." "\n\n"
            r"2. $g(\lambda) \le L(x, \lambda) = f_0(x) + \sum_i \lambda_i f_i(x) \le f_0(x)$, because "
            r"$\lambda_i \ge 0$ and $f_i(x) \le 0$." "\n\n"
            r"3. The only feasible point is $x = 0$: $P^\star = 0$. For $\lambda > 0$, $x + \lambda x^2$ is "
            r"a convex parabola with minimum at $x = -1/(2\lambda)$: $g(\lambda) = -1/(4\lambda)$, so "
            r"$g(\tfrac12) = -\tfrac12$ and $g(2) = -\tfrac18$. For $\lambda = 0$, $\inf_x x = -\infty$. "
            r"$D^\star = \sup_{\lambda > 0} -1/(4\lambda) = 0 = P^\star$: no gap, but the supremum is "
            r"**not attained** (no $\lambda$ reaches 0), so there are no KKT multipliers. Slater fails: no "
            r"$x$ has $x^2 < 0$. The SVM never has this problem: $w = 0$, $b = 0$, $\xi_i = 2$ is strictly "
            r"feasible (notebook 2)."),
        answer=_dual_function_values),
)
