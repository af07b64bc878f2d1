"""Problems of notebook 01 (the binary SVM: margin, hinge loss and slack)."""

from __future__ import annotations

import numpy as np

from . import PenProblem
from . import worked_example as ex

EXAMPLE = (r"the course's worked example: $x_1 = (0, 0)$ with $y_1 = -1$, and $x_2 = (2, 0)$, $x_3 = (0, 2)$ "
           r"with $y_2 = y_3 = +1$")


def _distance_to_boundary():
    # the closest point of {x : w'x + b = 0} to p is p plus the least-norm displacement z with w'z = -(w'p + b)
    w, b, p = np.array([1.0, 1.0]), -1.0, np.array([3.0, 1.0])
    z = np.linalg.lstsq(w[None, :], np.array([-(w @ p + b)]), rcond=None)[0]
    return float(np.linalg.norm(z))


def _hard_margin():
    _, w, b = ex.solved(C=1e3)
    return np.array([w[0], w[1], b])


def _closest_hull_point():
    # the negative hull is {x_1}; the positive hull the segment [x_2, x_3]: minimise over its parameter
    from scipy.optimize import minimize_scalar

    seg = lambda s: (1 - s) * ex.X[1] + s * ex.X[2]  # noqa: E731
    s = minimize_scalar(lambda s: float(np.sum((seg(s) - ex.X[0]) ** 2)), bounds=(0, 1), method="bounded",
                        options={"xatol": 1e-12}).x
    return seg(s)


def _slacks_at_quarter():
    w, b, C = np.array([0.25, 0.25]), 0.5, 0.25
    xi = np.maximum(0.0, 1.0 - ex.Y * (ex.X @ w + b))
    return np.append(xi, ex.primal(w, b, C))


def _margin_at_half():
    _, w, _ = ex.solved(C=0.5)
    return 2.0 / np.linalg.norm(w)


def _subgradient_at_zero():
    # the library's first primal subgradient step from w = 0: w_1 = 0 - eta_0 * subgradient
    from svmteach import BinaryProblem, PrimalSubgradient, iterate

    problem = BinaryProblem(ex.X, ex.Y, C=1.0)
    start, first = list(iterate(PrimalSubgradient(step_size="1/t"), problem, max_iter=1))
    return -(np.asarray(first.w, dtype=float) - np.asarray(start.w, dtype=float)) / first.step_size


PROBLEMS = (
    PenProblem(
        name="01.1", title="The distance to a hyperplane, and the width of the margin", kind="derive",
        statement=(
            r"Let $H = \{x : w^\top x + b = 0\}$ with $w \ne 0$."
            "\n\n"
            r"1. Show that $w$ is orthogonal to $H$ (to every difference of two points of $H$)." "\n"
            r"2. Derive the distance from a point $x_0$ to $H$: $\operatorname{dist}(x_0, H) = "
            r"|w^\top x_0 + b| / \|w\|$. Find the closest point of $H$, and show that no point of $H$ is closer." "\n"
            r"3. Deduce that the band between the hyperplanes $w^\top x + b = -1$ and $w^\top x + b = +1$ has "
            r"width $2/\|w\|$." "\n"
            r"4. For $w = (1, 1)$, $b = -1$, compute the distance of $p = (3, 1)$ to the decision boundary." "\n\n"
            r"Answer: the distance of part 4, one number."),
        solution=(
            r"1. For $x, x' \in H$: $w^\top x = -b = w^\top x'$, so $w^\top (x - x') = 0$." "\n\n"
            r"2. Move from $x_0$ along the normal: $x^\ast = x_0 - t\,w$. It lies on $H$ when "
            r"$w^\top x_0 - t\|w\|^2 + b = 0$, that is $t = (w^\top x_0 + b)/\|w\|^2$, and then "
            r"$\|x_0 - x^\ast\| = |t|\,\|w\| = |w^\top x_0 + b|/\|w\|$. No point of $H$ is closer: for any "
            r"$x \in H$, $|w^\top x_0 + b| = |w^\top(x_0 - x)| \le \|w\|\,\|x_0 - x\|$ by Cauchy-Schwarz." "\n\n"
            r"3. A point with $w^\top x + b = +1$ is at distance $1/\|w\|$ from $H$ on the side $w$ points to, "
            r"a point with $w^\top x + b = -1$ at distance $1/\|w\|$ on the other side; the two hyperplanes are "
            r"parallel (same normal), so the band between them is $2/\|w\|$ wide. Minimising $\tfrac12\|w\|^2$ "
            r"under $y_i(w^\top x_i + b) \ge 1$ therefore maximises this width." "\n\n"
            r"4. $|3 + 1 - 1| / \sqrt 2 = 3/\sqrt2 \approx 2.1213$."),
        answer=_distance_to_boundary),
    PenProblem(
        name="01.2", title="The hard margin of the worked example, by hand", kind="compute",
        statement=(
            f"Take {EXAMPLE}." "\n\n"
            r"1. Draw the points and argue that they can be separated by a line." "\n"
            r"2. Find the hard-margin SVM, $\min \tfrac12\|w\|^2$ subject to $y_i(w^\top x_i + b) \ge 1$, "
            r"without a QP solver. Hint: swapping the two coordinates maps the data set onto itself; what does "
            r"that say about $w$ when the optimal $w$ is unique?" "\n"
            r"3. Give the margin width $2/\|w\|$ and say which points lie on the margin." "\n\n"
            r"Answer: `[w_1, w_2, b]`."),
        solution=(
            r"1. The line $x_1 + x_2 = 1$ has $x_1$ on one side ($0 < 1$) and $x_2$, $x_3$ on the other ($2 > 1$)."
            "\n\n"
            r"2. The objective is strictly convex in $w$ and the constraints are convex, so the optimal $w$ is "
            r"unique. Swapping the coordinates of every point maps $x_1 \mapsto x_1$ and $x_2 \leftrightarrow "
            r"x_3$ with the same labels, so $(w_2, w_1, b)$ is feasible with the same objective whenever "
            r"$(w_1, w_2, b)$ is: by uniqueness $w_1 = w_2 = a$. The constraints become $-b \ge 1$ (point 1) and "
            r"$2a + b \ge 1$ (points 2 and 3), so $a \ge (1 - b)/2 \ge 1$. The objective $a^2$ is smallest at "
            r"$a = 1$, which forces $b = -1$: $w = (1, 1)$, $b = -1$, $f(x) = x_1 + x_2 - 1$." "\n\n"
            r"3. $\|w\| = \sqrt2$, so the margin width is $2/\sqrt2 = \sqrt2 \approx 1.414$. "
            r"$y_i f(x_i) = 1$ for all three points ($-(-1)$, $2 - 1$, $2 - 1$): every point is on the margin. "
            r"Check: $\sqrt2$ is also the distance from $x_1$ to the segment $[x_2, x_3]$ (problem 01.3)."),
        answer=_hard_margin),
    PenProblem(
        name="01.3", title="The convex-hull view: the closest points are not data points", kind="compute",
        statement=(
            f"Take {EXAMPLE}. The hard-margin SVM has a geometric twin: find the closest points $u$ of the convex "
            r"hull of the positive points and $v$ of the convex hull of the negative points; the max-margin "
            r"normal is $w = 2(u - v)/\|u - v\|^2$ and the boundary is the perpendicular bisector of $[v, u]$."
            "\n\n"
            r"1. Describe both convex hulls." "\n"
            r"2. Compute $u$ and $v$ by hand, and the distance $\|u - v\|$." "\n"
            r"3. Recover $w$ and $b$ from $u$ and $v$ and compare with problem 01.2. Is $u$ a data point?" "\n"
            r"4. Write $u$ and $v$ as convex combinations of the data and compare the weights with the dual "
            r"variables $\alpha = (1, \tfrac12, \tfrac12)$ of notebook 2: what factor relates them?" "\n\n"
            r"Answer: the point $u$, `[u_1, u_2]`."),
        solution=(
            r"1. The negative hull is the single point $x_1 = (0, 0)$; the positive hull is the segment "
            r"$\{(2 - 2s, 2s) : 0 \le s \le 1\}$ from $x_2$ to $x_3$." "\n\n"
            r"2. $v = (0, 0)$. The squared distance from the origin to $(2 - 2s, 2s)$ is $(2 - 2s)^2 + 4s^2$, "
            r"with derivative $-4(2 - 2s) + 8s = 16 s - 8$, zero at $s = \tfrac12$ (inside $[0, 1]$): "
            r"$u = (1, 1)$, and $\|u - v\| = \sqrt2$, the margin width of problem 01.2." "\n\n"
            r"3. $w = 2(1, 1)/2 = (1, 1)$. The midpoint $(\tfrac12, \tfrac12)$ lies on the boundary: "
            r"$w^\top(\tfrac12, \tfrac12) + b = 0$ gives $b = -1$. Same as 01.2. $u = (1, 1)$ is **not** a data "
            r"point: it is the midpoint of $x_2$ and $x_3$. A phrase like 'the two closest points' must be read "
            r"as the closest points of the two hulls." "\n\n"
            r"4. $u = \tfrac12 x_2 + \tfrac12 x_3$ and $v = 1\cdot x_1$. The dual variables are these weights "
            r"times $2/\|u - v\|^2 = 1$: $\alpha = (1, \tfrac12, \tfrac12)$. In general "
            r"$\alpha = \frac{2}{\|u - v\|^2}\,(\text{the convex weights})$, because $w = \sum_i \alpha_i y_i x_i "
            r"= \frac{2}{\|u-v\|^2}(u - v)$ and $\sum_{y_i = +1} \alpha_i = \sum_{y_i = -1} \alpha_i$."),
        answer=_closest_hull_point),
    PenProblem(
        name="01.4", title="Slack and hinge loss, read off a solution", kind="compute",
        statement=(
            f"Take {EXAMPLE}, and $C = \\tfrac14$. A solver returns $w = (\\tfrac14, \\tfrac14)$, "
            r"$b = \tfrac12$." "\n\n"
            r"1. Compute $y_i f(x_i)$ and the slack $\xi_i = \max(0, 1 - y_i f(x_i))$ of each point, and place "
            r"each point in a row of the notebook's slack table." "\n"
            r"2. Compute $P(w, b) = \tfrac12\|w\|^2 + C\sum_i \xi_i$." "\n"
            r"3. Compare with the hard-margin solution of problem 01.2: why would a solver accept a misclassified "
            r"point when $C$ is small?" "\n\n"
            r"Answer: `[xi_1, xi_2, xi_3, P]`."),
        solution=(
            r"1. $f(x) = \tfrac14(x_1 + x_2) + \tfrac12$: $f(x_1) = \tfrac12$, $f(x_2) = f(x_3) = 1$. So "
            r"$y_1 f(x_1) = -\tfrac12$, $\xi_1 = \tfrac32 > 1$: point 1 is on the wrong side (misclassified). "
            r"$y_2 f(x_2) = y_3 f(x_3) = 1$, $\xi_2 = \xi_3 = 0$: on their margin line." "\n\n"
            r"2. $P = \tfrac12(\tfrac1{16} + \tfrac1{16}) + \tfrac14\cdot\tfrac32 = \tfrac1{16} + \tfrac38 = "
            r"\tfrac7{16} = 0.4375$." "\n\n"
            r"3. The hard-margin solution has $P = \tfrac12\|(1,1)\|^2 = 1 > \tfrac7{16}$. With $C = \tfrac14$ "
            r"one unit of slack costs only $\tfrac14$, less than what the margin constraints cost in "
            r"$\tfrac12\|w\|^2$; problem 02.3 proves that this $(w, b)$ is the optimum for $C = \tfrac14$ "
            r"(point 1 is misclassified for every $C < \tfrac12$)."),
        answer=_slacks_at_quarter),
    PenProblem(
        name="01.5", title="The margin never widens as C grows", kind="prove",
        statement=(
            r"Let $(w_1, b_1)$ minimise $P_{C_1}(w, b) = R(w) + C_1 \Xi(w, b)$ and $(w_2, b_2)$ minimise "
            r"$P_{C_2}$, with $R = \tfrac12\|w\|^2$, $\Xi = \sum_i \max(0, 1 - y_i(w^\top x_i + b))$ and "
            r"$0 < C_1 < C_2$." "\n\n"
            r"1. Prove that $\Xi(w_2, b_2) \le \Xi(w_1, b_1)$ and $\|w_2\| \ge \|w_1\|$: the margin width "
            r"$2/\|w\|$ never increases with $C$." "\n"
            r"2. The notebook's first figure also shows fewer support vectors as $C$ grows. Is that a theorem? "
            r"Use the worked example (problems 01.4 and 02.3) to decide."),
        solution=(
            r"1. Optimality of each pair against the other: $R_1 + C_1 \Xi_1 \le R_2 + C_1 \Xi_2$ and "
            r"$R_2 + C_2 \Xi_2 \le R_1 + C_2 \Xi_1$ (writing $R_k = R(w_k)$, $\Xi_k = \Xi(w_k, b_k)$). Adding them, "
            r"$C_1 \Xi_1 + C_2 \Xi_2 \le C_1 \Xi_2 + C_2 \Xi_1$, that is $(C_2 - C_1)(\Xi_2 - \Xi_1) \le 0$, so "
            r"$\Xi_2 \le \Xi_1$. The first inequality then gives $R_1 - R_2 \le C_1 (\Xi_2 - \Xi_1) \le 0$, so "
            r"$\|w_1\| \le \|w_2\|$. (The optimal $w$ is unique, $R$ being strictly convex, so $\|w(C)\|$ is "
            r"a function of $C$; the argument holds for any optimal $b_k$.)" "\n\n"
            r"2. No. On the worked example every $C > 0$ gives three support vectors: for $C < 1$ the optimum is "
            r"$\alpha = (C, C/2, C/2)$, all positive (problem 02.3), and for $C \ge 1$ it is "
            r"$(1, \tfrac12, \tfrac12)$: the count does not fall. Nothing in the proof of part 1 speaks of the "
            r"count: as the band narrows, points leave it, but a point can also land exactly on the narrower "
            r"margin and become a free support vector, so the count need not be monotone. Only $\|w\|$ and the "
            r"total hinge loss are."),
        answer=None),
    PenProblem(
        name="01.6", title="Predict the margin for C = 1/2", kind="predict",
        statement=(
            f"Take {EXAMPLE}. Predict first: as $C$ decreases from $1$ towards $0$, does the margin width grow, "
            r"shrink or stay $\sqrt2$? Then compute it for $C = \tfrac12$: assume, by the symmetry of problem "
            r"01.2, that $w = (a, a)$, write $P(w, b)$ as a function of $a$ and $b$, minimise over $b$ for fixed "
            r"$a$ (the hinge terms are piecewise linear in $b$), then over $a$." "\n\n"
            r"Answer: the margin width $2/\|w\|$ at $C = \tfrac12$."),
        solution=(
            r"Prediction: it grows, since $\|w(C)\|$ is nondecreasing in $C$ (problem 01.5) and small $C$ makes "
            r"slack cheap." "\n\n"
            r"With $w = (a, a)$: $y_1 f(x_1) = -b$ and $y_2 f(x_2) = y_3 f(x_3) = 2a + b$, so "
            r"$P = a^2 + C\bigl[\max(0, 1 + b) + 2\max(0, 1 - 2a - b)\bigr]$. For fixed $a \le 1$, on "
            r"$-1 \le b \le 1 - 2a$ the bracket is $3 - 4a - b$, decreasing in $b$; beyond $1 - 2a$ it is "
            r"$1 + b$, increasing; below $-1$ it is $2(1 - 2a - b)$, decreasing. So $b = 1 - 2a$ (points 2 and 3 "
            r"on their margin) and $P = a^2 + C(2 - 2a)$, minimal at $a = C$ when $C \le 1$. For $C = \tfrac12$: "
            r"$w = (\tfrac12, \tfrac12)$, $b = 0$, $\|w\| = 1/\sqrt2$ and the margin width is "
            r"$2\sqrt2 \approx 2.828$, twice the hard margin. In general it is $\sqrt2 / C$ for $C \le 1$ and "
            r"$\sqrt2$ from $C = 1$ on (the hard margin is reached at a finite $C$, notebook 2). At "
            r"$C = \tfrac12$ point 1 sits exactly on the boundary ($y_1 f(x_1) = 0$, $\xi_1 = 1$)."),
        answer=_margin_at_half, slips=(
            (lambda: 1.0 / np.linalg.norm(ex.solved(C=0.5)[1]),
             "that is sqrt 2: the hard margin's width (C >= 1), or half the width, 1/||w||, at C = 1/2: at C = 1/2 "
             "the minimiser is w = (1/2, 1/2), and the width is 2/||w||"),
            (lambda: np.linalg.norm(ex.solved(C=0.5)[1]), "that is ||w|| itself: the width is 2/||w||"),
        )),
    PenProblem(
        name="01.7", title="Why the origin defeats a model without bias", kind="explain",
        statement=(
            f"Take {EXAMPLE}, the model without bias, $f(x) = w^\\top x$ ($b = 0$), and $C = 1$." "\n\n"
            r"1. Explain why point 1 has hinge loss exactly $1$ for every $w$, and what that means for "
            r"the subgradient method's multiplier $\alpha_1$ (the notebook's update "
            r"$\alpha \leftarrow (1 - \eta_t)\alpha + \eta_t C\,\mathbb 1[y_i w^\top x_i < 1]$)." "\n"
            r"2. Compute the subgradient $w - C\sum_{i:\, y_i w^\top x_i < 1} y_i x_i$ at $w = 0$." "\n\n"
            r"Answer: the subgradient at $w = 0$, `[s_1, s_2]`."),
        solution=(
            r"1. $x_1 = 0$, so $f(x_1) = w^\top 0 = 0$ whatever $w$ is: $y_1 f(x_1) = 0 < 1$ and the hinge loss "
            r"is $1 - 0 = 1$ for ever. Point 1 is in the active set at every step, so "
            r"$\alpha_1 \leftarrow (1 - \eta_t)\alpha_1 + \eta_t C$ moves $\alpha_1$ towards $C$ at every step "
            r"(from $\alpha_1 = 0$ with $\eta_1 = 1$ it is $C$ after the first step and stays there). No $w$ "
            r"can classify a point at the origin: this is the price of dropping the bias (notebook 3)." "\n\n"
            r"2. At $w = 0$ every point has $y_i w^\top x_i = 0 < 1$: the subgradient is "
            r"$0 - 1\cdot\bigl(-x_1 + x_2 + x_3\bigr) = -(2, 2) = (-2, -2)$."),
        answer=_subgradient_at_zero),
)
