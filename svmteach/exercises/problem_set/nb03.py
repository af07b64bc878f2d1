"""Problems of notebook 03 (dual coordinate ascent, without bias)."""

from __future__ import annotations

import numpy as np

from . import PenProblem
from . import worked_example as ex
from .nb01 import EXAMPLE

#: The order of the visits in problem 03.1 (arrays index the points 0, 1, 2).
VISITS = (2, 0, 1)


def _sweep():
    # each visit maximises the dual exactly along one coordinate, within the box [0, C] (SymPy, exact)
    alpha = [0, 0, 0]
    for i in VISITS:
        e = [1 if k == i else 0 for k in range(3)]
        alpha = ex.best_on_segment(alpha, e, 1).alpha
    return np.array([float(v) for v in alpha])


def _no_bias_primal():
    alpha, w, _ = ex.solved(C=2.0, bias=False)
    return ex.primal(w, 0.0, 2.0)


def _constant_feature():
    augmented = np.column_stack([ex.X, np.ones(3)])
    return ex.solved(C=10.0, bias=False, features=augmented)[0]


def _first_gain():
    return float(ex.best_on_segment([0, 0, 0], [0, 0, 1], 1).gain)


def _steps_to_optimum():
    from svmteach import BinaryProblem, DualCoordinateAscent, iterate

    problem = BinaryProblem(ex.X, ex.Y, C=1.0)
    states = iterate(DualCoordinateAscent(shrinking=False, random_state=0), problem, max_iter=30)
    return next(s.n_iter for s in states if s.gap <= 1e-12)


PROBLEMS = (
    PenProblem(
        name="03.1", title="One sweep of coordinate ascent by hand", kind="compute",
        statement=(
            f"Take {EXAMPLE}, the model without bias ($b = 0$) and $C = 1$. Start from $\\alpha = 0$." "\n\n"
            r"1. Write $Q$ and the gradient $g = \mathbf 1 - Q\alpha$ at the start." "\n"
            r"2. Visit the coordinates in the order $3, 1, 2$. At each visit compute the vertex "
            r"$\alpha_i + g_i/Q_{ii}$ (or, when $Q_{ii} = 0$, use the slope $g_i$), clip it to $[0, C]$, and "
            r"update the gradient with $g \leftarrow g - \delta\,Q_{:,i}$." "\n"
            r"3. After the three visits, is $\alpha$ optimal? Check the KKT conditions with the final gradient "
            r"(for this box-constrained dual: $g_i \le 0$ where $\alpha_i = 0$, $g_i = 0$ where "
            r"$0 < \alpha_i < C$, $g_i \ge 0$ where $\alpha_i = C$)." "\n\n"
            r"Answer: $\alpha$ after the three visits, `[alpha_1, alpha_2, alpha_3]`."),
        solution=(
            r"1. $Q = \operatorname{diag}(0, 4, 4)$ (problem 02.1), $g = (1, 1, 1)$." "\n\n"
            r"2. Visit 3: $Q_{33} = 4$, vertex $0 + \tfrac14 = \tfrac14 \in [0, 1]$: $\alpha_3 = \tfrac14$, "
            r"$\delta = \tfrac14$, $g \leftarrow g - \tfrac14(0, 0, 4) = (1, 1, 0)$." "\n"
            r"Visit 1: $Q_{11} = 0$ (the point $x_1 = 0$): the dual is linear along $\alpha_1$ with slope "
            r"$g_1 = 1 > 0$, so $\alpha_1 = C = 1$; the column $Q_{:,1}$ is zero, $g$ is unchanged." "\n"
            r"Visit 2: vertex $0 + \tfrac14$: $\alpha_2 = \tfrac14$, $g = (1, 0, 0)$." "\n\n"
            r"3. $\alpha = (1, \tfrac14, \tfrac14)$ with $g = (1, 0, 0)$: $\alpha_1 = C$ with $g_1 = 1 \ge 0$, "
            r"$\alpha_2, \alpha_3$ free with $g_2 = g_3 = 0$. The KKT conditions hold: it is optimal after one "
            r"sweep ($w = (\tfrac12, \tfrac12)$, $P = D = \tfrac54$). Note the difference from the solution "
            r"with bias, $(1, \tfrac12, \tfrac12)$: the bias constraint $y^\top\alpha = 0$ is gone."),
        answer=_sweep),
    PenProblem(
        name="03.2", title="What the missing bias costs on the worked example", kind="explain",
        statement=(
            f"Take {EXAMPLE}, and the model without bias." "\n\n"
            r"1. Explain, with the gradient $g_1 = 1 - y_1 f(x_1)$, why $\alpha_1 = C$ at the optimum for "
            r"every $C$, and why point 1 always has slack $\xi_1 = 1$." "\n"
            r"2. Compute the optimal primal value for $C = 2$, and compare with the model with bias (problem "
            r"02.2: $P^\star = 1$ for every $C \ge 1$)." "\n"
            r"3. What does the notebook's constant feature do about it (problem 03.3)?" "\n\n"
            r"Answer: the optimal primal value without bias for $C = 2$, one number."),
        solution=(
            r"1. $f(x_1) = w^\top x_1 = 0$ for every $w$, so $g_1 = 1 - y_1\cdot 0 = 1$ at every $\alpha$. "
            r"$Q_{11} = 0$ and $Q_{1j} = 0$: the dual is $\alpha_1 + (\text{terms without } \alpha_1)$, "
            r"increasing in $\alpha_1$, so $\alpha_1 = C$. The hinge loss of point 1 is $\max(0, 1 - 0) = 1$ "
            r"whatever $w$ is." "\n\n"
            r"2. Points 2 and 3 decouple: $\alpha_2 = \alpha_3 = \min(\tfrac14, C) = \tfrac14$, "
            r"$w = (\tfrac12, \tfrac12)$, $y_2 f(x_2) = 1$. $P^\star = \tfrac12\cdot\tfrac12 + C(1 + 0 + 0) = "
            r"\tfrac14 + 2 = \tfrac94$, against $1$ with a bias. The gap grows linearly in $C$: the model "
            r"without bias pays $C$ for a point no hyperplane through the origin can classify." "\n\n"
            r"3. It adds a constant coordinate $c$, so $x_1 = (0, 0, c) \ne 0$: the hyperplane no longer has "
            r"to pass through the origin of the original plane. Its bias is penalised ($b^2/(2c^2)$)."),
        answer=_no_bias_primal),
    PenProblem(
        name="03.3", title="The constant feature: a penalised bias", kind="compute",
        statement=(
            f"Take {EXAMPLE}, append the constant feature $c = 1$ to every point, "
            r"$\tilde x_i = (x_i, c)$, and solve the model without bias on $\tilde x$ with $C = 10$." "\n\n"
            r"1. Show that the primal is $\tfrac12(w_1^2 + w_2^2) + b^2/(2c^2) + C\sum_i \xi_i$ with "
            r"$b = c\,\tilde w_3$." "\n"
            r"2. Assume no slack and $w_1 = w_2 = a$ (symmetry, problem 01.2). Minimise over $a$ and $b$ "
            r"under the margin constraints. Compare $(w, b)$ with the free bias of problem 01.2." "\n"
            r"3. Recover $\alpha$ from $\tilde w = \sum_i \alpha_i y_i \tilde x_i$ and check $\alpha_i \le C$ "
            r"(so the no-slack assumption was right). How does $\alpha_1$ depend on $c$?" "\n\n"
            r"Answer: `[alpha_1, alpha_2, alpha_3]`."),
        solution=(
            r"1. $\tilde w^\top \tilde x = w^\top x + c\tilde w_3$, so $b = c\tilde w_3$ and "
            r"$\tfrac12\|\tilde w\|^2 = \tfrac12\|w\|^2 + \tfrac12\tilde w_3^2 = \tfrac12\|w\|^2 + b^2/(2c^2)$." "\n\n"
            r"2. The constraints: $-b \ge 1$ and $2a + b \ge 1$. Minimise $a^2 + b^2/2$ ($c = 1$): for fixed "
            r"$b \le -1$ take $a = (1 - b)/2$, giving $(1 - b)^2/4 + b^2/2$, whose derivative "
            r"$-(1 - b)/2 + b$ is negative for $b \le -1$: the minimum is at $b = -1$, $a = 1$. The same "
            r"$w = (1, 1)$, $b = -1$ as with a free bias (the constraint $b \le -1$ is active, so the penalty "
            r"cannot pull $b$ towards 0); $P^\star = 1 + \tfrac12 = \tfrac32$." "\n\n"
            r"3. $\tilde w = (1, 1, b/c) = (1, 1, -1)$. First two coordinates: $2\alpha_2 = 1$, "
            r"$2\alpha_3 = 1$. Third: $c(-\alpha_1 + \alpha_2 + \alpha_3) = -1/c$, so "
            r"$\alpha_1 = 1 + 1/c^2 = 2$. $\alpha = (2, \tfrac12, \tfrac12)$, all below $C = 10$. In general "
            r"$\alpha_1 = 1 + 1/c^2$: a small $c$ needs a large $C$ before the penalised model can reach the "
            r"free-bias solution, and the augmented $\tilde Q = Q + c^2\,yy^\top$ couples every coordinate."),
        answer=_constant_feature, slips=(
            (lambda: ex.solved(C=1.0)[0],
             "that is the alpha of the free bias (problem 02.2): the penalised bias adds the third coordinate's "
             "equation, c (-alpha_1 + alpha_2 + alpha_3) = b / c, which moves alpha_1"),
        )),
    PenProblem(
        name="03.4", title="A coordinate step never decreases the dual", kind="prove",
        statement=(
            r"Let $\alpha^{\rm new}_i$ be the clipped vertex of the notebook, $t = \alpha^{\rm new}_i - "
            r"\alpha_i$." "\n\n"
            r"1. Prove that $\alpha^{\rm new}_i$ maximises $D$ along coordinate $i$ over $[0, C]$ (for "
            r"$Q_{ii} > 0$ and for $Q_{ii} = 0$)." "\n"
            r"2. Prove that the gain is $D(\alpha + t e_i) - D(\alpha) = g_i t - \tfrac12 Q_{ii} t^2 \ge 0$, "
            r"and that it equals $g_i^2/(2Q_{ii})$ when the vertex lies inside the box." "\n"
            r"3. Compute the gain of the first visit of problem 03.1 (coordinate 3 from $\alpha = 0$)." "\n\n"
            r"Answer: the gain of part 3, one number."),
        solution=(
            r"1. $\varphi(x) = D(\alpha + (x - \alpha_i)e_i)$ is a parabola with leading coefficient "
            r"$-\tfrac12 Q_{ii} \le 0$. If $Q_{ii} > 0$ it increases up to its vertex $x^\star$ and decreases "
            r"after it, so on $[0, C]$ it is largest at the point closest to $x^\star$: "
            r"$\min(\max(x^\star, 0), C)$. If $Q_{ii} = 0$ it is a line of slope $g_i$: largest at $C$ if "
            r"$g_i > 0$, at $0$ if $g_i < 0$, anywhere if $g_i = 0$." "\n\n"
            r"2. $D$ is quadratic, so $D(\alpha + te_i) = D(\alpha) + t g_i - \tfrac12 t^2 Q_{ii}$ exactly. "
            r"$t = 0$ (staying) is allowed since $\alpha_i \in [0, C]$, and the new value is the maximiser, so "
            r"the gain is at least the gain at $t = 0$, which is $0$. At the vertex $t = g_i/Q_{ii}$: "
            r"$g_i^2/Q_{ii} - \tfrac12 g_i^2/Q_{ii} = g_i^2/(2Q_{ii})$." "\n\n"
            r"3. $g_3 = 1$, $Q_{33} = 4$, vertex $\tfrac14$ inside $[0, 1]$: gain $1/(2\cdot 4) = \tfrac18$. "
            r"Check: $D(0, 0, \tfrac14) = \tfrac14 - 2\cdot\tfrac1{16} = \tfrac18$."),
        answer=_first_gain),
    PenProblem(
        name="03.5", title="How many coordinate steps to the optimum?", kind="predict",
        statement=(
            f"Take {EXAMPLE}, the model without bias and $C = 1$." "\n\n"
            r"1. Predict, before running anything: starting from $\alpha = 0$ and visiting each coordinate once "
            r"in any order, after how many steps is coordinate ascent exactly optimal? What property of $Q$ "
            r"decides it?" "\n"
            r"2. Would the same hold with the constant feature of problem 03.3? What does coordinate ascent do "
            r"then?" "\n"
            r"3. Check your prediction with `iterate(DualCoordinateAscent(shrinking=False, random_state=0), "
            r"BinaryProblem(X, y, C=1.0))`: the first step at which the relative gap is zero." "\n\n"
            r"Answer: the number of steps, one number."),
        solution=(
            r"1. Three steps. $Q = \operatorname{diag}(0, 4, 4)$ is diagonal, so $D$ is a sum of functions of "
            r"one coordinate each: $D(\alpha) = \alpha_1 + (\alpha_2 - 2\alpha_2^2) + (\alpha_3 - 2\alpha_3^2)$. "
            r"Maximising each once maximises the sum, in any order; a visit never changes another coordinate's "
            r"gradient ($Q_{ji} = 0$)." "\n\n"
            r"2. No. $\tilde Q = Q + c^2\,yy^\top$ has nonzero off-diagonal entries: a step on one coordinate "
            r"changes the gradient of all the others, and coordinate ascent converges only in the limit "
            r"(linearly, Luo and Tseng; Hsieh et al. 2008), not in a finite number of steps in general." "\n\n"
            r"3. The run visits the three coordinates in its first epoch and the gap is zero after step 3."),
        answer=_steps_to_optimum),
    PenProblem(
        name="03.6", title="Reading the parabola panels", kind="explain",
        statement=(
            r"In the notebook's figure 'Watching the parabolas', each panel draws the dual along the visited "
            r"coordinate, the box $[0, C]$ (shaded), the vertex (dotted) and the clipped value (red)." "\n\n"
            r"1. When does the red line sit on the left edge of the box, when on the right edge, and when "
            r"on the vertex? Answer in terms of $\alpha_i$, $g_i$ and $Q_{ii}$, and say where such a point lies "
            r"with respect to its margin (use $g_i = 1 - y_i f(x_i)$)." "\n"
            r"2. A panel shows the vertex far to the right of the box. What does that say about the point, "
            r"and what will happen at its next visits if nothing else changes?" "\n"
            r"3. Why is the curve always a downward parabola, never an upward one?"),
        solution=(
            r"1. Left edge ($0$): the vertex $\alpha_i + g_i/Q_{ii} \le 0$, which needs $g_i < 0$ (unless "
            r"$\alpha_i = 0$ and $g_i = 0$), that is $y_i f(x_i) > 1$: the point is beyond its margin, and by the "
            r"KKT table $\alpha_i = 0$. Right edge ($C$): $\alpha_i + g_i/Q_{ii} \ge C$, so $g_i > 0$ "
            r"(unless $\alpha_i = C$ and $g_i = 0$), $y_i f(x_i) < 1$: inside its margin or misclassified. On the "
            r"vertex: the vertex is inside $[0, C]$; if $0 < \alpha^{\rm new}_i < C$ the step puts the point "
            r"exactly on its margin ($g_i = 0$ after the step)." "\n\n"
            r"2. $g_i \gg Q_{ii}(C - \alpha_i)$: the point is deep inside the margin or on the wrong side; "
            r"$\alpha_i$ goes to $C$ and stays there while the other points leave $y_i f(x_i) < 1$: a bound "
            r"support vector. This is what shrinking exploits: such a coordinate is skipped for a while." "\n\n"
            r"3. The coefficient of $x^2$ is $-\tfrac12 Q_{ii} = -\tfrac12 K_{ii} = -\tfrac12\|x_i\|^2 \le 0$ "
            r"(any positive semidefinite kernel has $K_{ii} \ge 0$); for a zero row it is a line."),
        answer=None),
)
