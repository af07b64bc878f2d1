"""Problems of notebook 04 (SMO: two multipliers at a time)."""

from __future__ import annotations

import numpy as np

from . import PenProblem
from . import worked_example as ex
from .nb01 import EXAMPLE


def _pair_move(alpha, i, j):
    """The exact best move of the pair (i, j) (0-based) along u = e_j - y_i y_j e_i, with C = 1."""
    u = [0, 0, 0]
    u[j] = 1
    u[i] = -int(ex.Y[i] * ex.Y[j])
    return ex.best_on_segment(alpha, u, 1)


def _first_step():
    move = _pair_move([0, 0, 0], 1, 0)  # i = point 2, j = point 1; alpha_j moves by t
    L, H = move.lo, move.hi              # alpha_j = 0 + t, so its bounds are the segment's ends in t
    b = ex.bias_from_free(move.alpha, 1)
    return np.array([float(v) for v in (L, H, *move.alpha, b)])


def _second_step_gains():
    start = _pair_move([0, 0, 0], 1, 0).alpha
    return np.array([float(_pair_move(start, 2, j).gain) for j in (0, 1)])


def _printed_update():
    # CISC 371 eq. 30.13 as printed, alpha_j + (E_j - E_i) / eta, at alpha = 0 (b = 0), i = point 1, j = point 2
    from svmteach.kernels import gram

    K = np.asarray(gram(ex.X, ex.X, "linear"), dtype=float)
    E = K @ (np.zeros(3) * ex.Y) - ex.Y
    i, j = 0, 1
    eta = K[i, i] + K[j, j] - 2 * K[i, j]
    return 0.0 + (E[j] - E[i]) / eta


def _first_gain():
    from svmteach import SMO, BinaryProblem, iterate
    from svmteach import objectives as obj

    problem = BinaryProblem(ex.X, ex.Y, C=1.0)
    start, first = list(iterate(SMO("max_violating_pair"), problem, max_iter=1))
    return obj.dual(problem, first.alpha) - obj.dual(problem, start.alpha)


PROBLEMS = (
    PenProblem(
        name="04.1", title="One SMO step by hand, from alpha = 0", kind="compute",
        statement=(
            f"Take {EXAMPLE}, with a bias, and $C = 1$. Start from $\\alpha = 0$ (and $b = 0$ in the errors "
            r"$E_t = f(x_t) - y_t$ with $f(x) = w^\top x + b$: the step does not depend on $b$)." "\n\n"
            r"1. Compute $g = \mathbf 1 - Q\alpha$, the sets $I_{\rm up}$ and $I_{\rm low}$ and the maximal "
            r"violating pair $i = \arg\max_{I_{\rm up}} y_t g_t$, $j = \arg\min_{I_{\rm low}} y_t g_t$ (break a "
            r"tie by the smaller index)." "\n"
            r"2. Compute $E_i$, $E_j$, $\eta$, the unclipped $\alpha_j^{\rm unc}$, the bounds $L$ and $H$, the "
            r"new $\alpha_j$ and $\alpha_i$." "\n"
            r"3. Compute the new bias with Platt's $b_1$ and $b_2$, and check it against complementary "
            r"slackness for the free support vectors. Which points does the new classifier get right?" "\n\n"
            r"Answer: `[L, H, alpha_1, alpha_2, alpha_3, b]` (alpha after the step)."),
        solution=(
            r"1. $g = (1, 1, 1)$, $y_t g_t = (-1, 1, 1)$. $I_{\rm up}$ (those whose $y_t\alpha_t$ can grow): "
            r"$y_t = +1$ with $\alpha_t < C$, that is points 2 and 3; no $y_t = -1$ point has $\alpha_t > 0$. "
            r"$I_{\rm low}$: $y_t = -1$ with $\alpha_t < C$: point 1. So $i = 2$ (tie with 3), $j = 1$; "
            r"$y_i g_i = 1 > -1 = y_j g_j$: a violating pair." "\n\n"
            r"2. $f = 0$, so $E = -y = (1, -1, -1)$: $E_i = E_2 = -1$, $E_j = E_1 = 1$. "
            r"$\eta = K_{22} + K_{11} - 2K_{12} = 4 + 0 - 0 = 4$. "
            r"$\alpha_1^{\rm unc} = \alpha_1 + y_1(E_2 - E_1)/\eta = 0 + (-1)(-2)/4 = \tfrac12$. Labels differ: "
            r"$L = \max(0, \alpha_1 - \alpha_2) = 0$, $H = \min(C, C + \alpha_1 - \alpha_2) = 1$. No clipping: "
            r"$\alpha_1 = \tfrac12$, and $\alpha_2 = \alpha_2 + y_2 y_1(\alpha_1^{\rm old} - \alpha_1^{\rm new}) "
            r"= 0 + (-1)(0 - \tfrac12) = \tfrac12$. New $\alpha = (\tfrac12, \tfrac12, 0)$, $y^\top\alpha = 0$." "\n\n"
            r"3. $b_1$ (point $i = 2$): $b - E_2 - y_2\,\Delta\alpha_2 K_{22} - y_1\,\Delta\alpha_1 K_{21} = "
            r"0 + 1 - \tfrac12\cdot 4 - 0 = -1$. $b_2$ (point $j = 1$): $b - E_1 - y_2\,\Delta\alpha_2 K_{21} - "
            r"y_1\,\Delta\alpha_1 K_{11} = 0 - 1 - 0 - 0 = -1$. Both agree, as they must when both are free. "
            r"Check: $w = \tfrac12(2, 0) - \tfrac12(0, 0) = (1, 0)$, $f(x) = x_1 - 1$, and the free points 1 "
            r"and 2 have $y_t f(x_t) = 1$. So $[L, H, \alpha_1, \alpha_2, \alpha_3, b] = "
            r"[0, 1, \tfrac12, \tfrac12, 0, -1]$. Point 3 has $f(x_3) = -1$: misclassified. The dual grew "
            r"(by $\tfrac12$, problem 04.4), yet the training accuracy is $2/3$: SMO climbs the dual, and "
            r"intermediate classifiers need not be good."),
        answer=_first_step),
    PenProblem(
        name="04.2", title="The second step: which partner, and how far it goes", kind="predict",
        statement=(
            r"Continue problem 04.1 from $\alpha = (\tfrac12, \tfrac12, 0)$, $b = -1$." "\n\n"
            r"1. Compute $g$, $y_t g_t$, $I_{\rm up}$, $I_{\rm low}$ and $i$. Show that the maximal violating "
            r"pair rule has a tie for $j$." "\n"
            r"2. Predict which partner the second-order rule prefers, then compute the guaranteed gain "
            r"$(E_i - E_j)^2/(2\eta)$ for both candidates." "\n"
            r"3. Take each step. Which one reaches the optimum of problem 02.2? Where does the other one land "
            r"(compare with problem 02.4)?" "\n\n"
            r"Answer: the gains `[gain with j = 1, gain with j = 2]`."),
        solution=(
            r"1. $w = (1, 0)$, so $Q\alpha$ gives $g = (1, 1 - 2, 1) = (1, -1, 1)$ and "
            r"$y_t g_t = (-1, -1, 1)$. $I_{\rm up} = \{1, 2, 3\}$ (point 1: $y = -1$, $\alpha_1 > 0$; points 2, 3: "
            r"$\alpha < C$), $I_{\rm low} = \{1, 2\}$ (point 1: $\alpha_1 < C$; point 2: $\alpha_2 > 0$). "
            r"$i = 3$ ($y_3 g_3 = 1$); $\min_{I_{\rm low}} y_t g_t = -1$ at both 1 and 2: a tie." "\n\n"
            r"2. $E = f - y$ with $f = Xw + b = (0, 2, 0)$: $E = (0, 0, -2)$. Partner 1: $\eta = K_{33} + K_{11} - "
            r"2K_{13} = 4$, gain $(-2 - 0)^2/8 = \tfrac12$. Partner 2: $\eta = 4 + 4 - 0 = 8$, gain "
            r"$4/16 = \tfrac14$. The second-order rule takes $j = 1$: same slope, half the curvature." "\n\n"
            r"3. $j = 1$: $\alpha_1^{\rm unc} = \tfrac12 + (-1)(-2 - 0)/4 = 1$, $L = \max(0, \tfrac12 - 0) = "
            r"\tfrac12$, $H = \min(1, 1 + \tfrac12) = 1$: $\alpha_1 = 1$, $\alpha_3 = 0 + (-1)(\tfrac12 - 1) = "
            r"\tfrac12$: $\alpha = (1, \tfrac12, \tfrac12)$, the optimum (two steps). $j = 2$ (same labels): "
            r"$\alpha_2^{\rm unc} = \tfrac12 + (-2 - 0)/8 = \tfrac14$, $L = \max(0, \tfrac12 - 1) = 0$, "
            r"$H = \min(1, \tfrac12) = \tfrac12$: $\alpha = (\tfrac12, \tfrac14, \tfrac14)$, the point of "
            r"problem 02.4 with $D = \tfrac34$, still a gap of $0.4$ relative. Both gains are exact here "
            r"because neither step is clipped."),
        answer=_second_step_gains),
    PenProblem(
        name="04.3", title="The printed update of the lecture notes, on the worked example", kind="explain",
        statement=(
            r"The CISC 371 notes print the SMO update as $\alpha_j \leftarrow \alpha_j + s_{ij}(E_j - E_i)$ "
            r"with $s_{ij} = 1/\eta$ (eq. 30.13)." "\n\n"
            r"1. Apply the printed update to the first step of problem 04.1, but with the pair named the other "
            r"way round: $i$ = point 1, $j$ = point 2. Compute the unclipped $\alpha_2$ it gives." "\n"
            r"2. Clip it to $[L, H]$. What happens to the run? Compare with the derived update "
            r"$\alpha_j + y_j(E_i - E_j)/\eta$." "\n"
            r"3. With the pair named as in problem 04.1 ($j$ = point 1) the printed update gives the right "
            r"step. Explain why, and why this makes the erratum easy to miss in a test." "\n\n"
            r"Answer: the unclipped $\alpha_2$ of the printed update, one number."),
        solution=(
            r"1. $E = (1, -1, -1)$, $\eta = 4$: $\alpha_2 \leftarrow 0 + (E_2 - E_1)/4 = (-1 - 1)/4 = "
            r"-\tfrac12$." "\n\n"
            r"2. $L = \max(0, \alpha_2 - \alpha_1) = 0$: the step is clipped to $\alpha_2 = 0$, nothing moves, "
            r"and a solver that picks this pair again stalls (or, unclipped, the dual would decrease: "
            r"$\psi(-\tfrac12) = -\tfrac12\cdot 2 - \tfrac12\cdot 4\cdot\tfrac14 = -\tfrac32$). The derived update gives "
            r"$0 + y_2(E_1 - E_2)/4 = +\tfrac12$: the right step, the same pair $(\tfrac12, \tfrac12, 0)$ as in "
            r"04.1." "\n\n"
            r"3. The printed and derived updates agree exactly when $y_j = -1$: "
            r"$y_j(E_i - E_j) = E_j - E_i$. In 04.1, $j$ is point 1 with $y_1 = -1$. A test that only tries pairs "
            r"whose second point is negative passes; the factor $y_j$ is missing and the sign reversed for "
            r"every $y_j = +1$."),
        answer=_printed_update),
    PenProblem(
        name="04.4", title="What one pair step gains", kind="prove",
        statement=(
            r"Let $u = e_j - y_i y_j e_i$ and $\psi(t) = D(\alpha + t u) - D(\alpha)$." "\n\n"
            r"1. Prove that $\psi(t) = t\,y_j(E_i - E_j) - \tfrac12\eta t^2$." "\n"
            r"2. Prove that when $\alpha_j^{\rm unc} \in [L, H]$ the step gains exactly "
            r"$(E_i - E_j)^2/(2\eta)$, and that a clipped step gains at least $0$ and at most that." "\n"
            r"3. Compute the gain of the first step of problem 04.1." "\n\n"
            r"Answer: the gain of part 3, one number."),
        solution=(
            r"1. $D$ is quadratic, so $\psi(t) = t\,g^\top u - \tfrac12 t^2 u^\top Q u$ exactly. With "
            r"$g_t = y_t(b - E_t)$ (from $g_t = 1 - y_t w^\top x_t$ and $E_t = w^\top x_t + b - y_t$): "
            r"$g^\top u = g_j - y_i y_j g_i = y_j(b - E_j) - y_j(b - E_i) = y_j(E_i - E_j)$; and "
            r"$u^\top Q u = Q_{jj} - 2y_iy_jQ_{ij} + Q_{ii} = K_{jj} - 2K_{ij} + K_{ii} = \eta$." "\n\n"
            r"2. For $\eta > 0$ the vertex is $t^\star = y_j(E_i - E_j)/\eta$ and "
            r"$\psi(t^\star) = (E_i - E_j)^2/\eta - \tfrac12(E_i - E_j)^2/\eta = (E_i - E_j)^2/(2\eta)$. "
            r"$\alpha_j^{\rm unc} = \alpha_j + t^\star$ in $[L, H]$ means the vertex is feasible. Otherwise the "
            r"step stops at the end of the segment nearest the vertex; $t = 0$ is feasible and $\psi(0) = 0$, "
            r"and $\psi$ increases from $0$ towards the vertex, so $0 \le \psi(t_{\rm clip}) \le "
            r"\psi(t^\star)$." "\n\n"
            r"3. $E_i - E_j = -1 - 1 = -2$, $\eta = 4$: gain $4/8 = \tfrac12$. Check: "
            r"$D(\tfrac12, \tfrac12, 0) = 1 - \tfrac12\|(1, 0)\|^2 = \tfrac12 = D(0) + \tfrac12$."),
        answer=_first_gain),
    PenProblem(
        name="04.5", title="What a step costs: SMO against coordinate ascent", kind="explain",
        statement=(
            r"Notebook 1 compares SMO and dual coordinate ascent per epoch ($n$ steps)." "\n\n"
            r"1. Count the work of one SMO step with the maximal violating pair or the second-order rule and a "
            r"cached gradient: choosing the pair, updating the gradient (how many kernel columns?), in kernel "
            r"evaluations and in floating-point operations for a linear kernel in $d$ dimensions." "\n"
            r"2. Count the work of one step of dual coordinate ascent with a linear kernel when $w$ is kept "
            r"(Hsieh et al. 2008)." "\n"
            r"3. For $n = 10^4$ points in $d = 10$ dimensions, roughly how many times more work is one epoch of "
            r"SMO than one epoch of coordinate ascent? What should a fair comparison of the two plot on its "
            r"horizontal axis, and why does this not settle which method is better?"),
        solution=(
            r"1. Choosing $i$ scans the $n$ gradient entries ($O(n)$); choosing $j$ scans them again, the "
            r"second-order rule also reading the kernel row of $i$ ($n$ kernel evaluations). Updating the "
            r"gradient, $g \leftarrow g - \Delta\alpha_i Q_{:,i} - \Delta\alpha_j Q_{:,j}$, needs two kernel "
            r"columns: $2n$ kernel evaluations, each $O(d)$ for a linear kernel, so $O(nd)$ per step (less with "
            r"a kernel cache)." "\n\n"
            r"2. $g_i = 1 - y_i w^\top x_i$ ($O(d)$), the clipped vertex ($O(1)$), $w \leftarrow w + "
            r"\delta y_i x_i$ ($O(d)$): $O(d)$, independent of $n$." "\n\n"
            r"3. Per step about $2nd = 2\cdot 10^5$ against $2d = 20$ operations: an SMO epoch costs about "
            r"$n = 10^4$ times more (order of magnitude). A fair plot uses wall-clock time or kernel "
            r"evaluations (operations), not epochs. It does not settle the question: SMO solves the problem "
            r"with a free bias and needs far fewer steps with a good working-set rule, and with a nonlinear "
            r"kernel coordinate ascent cannot keep $w$ and also pays $O(n)$ per step."),
        answer=None),
)
