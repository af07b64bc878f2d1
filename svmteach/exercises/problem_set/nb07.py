"""Problems of notebook 07 (Crammer-Singer: the dual, its optimality conditions, Blondel's block update and the
projection onto a simplex).

Notation of notebook 7, with classes 0..k-1 and W k x d: w_m = sum_i alpha_i^m x_i; C_i^m = C [m = y_i];
Delta_i^m = [m != y_i]; the dual minimises f(alpha) = 1/2 sum_m ||w_m||^2 + sum_{i,m} Delta_i^m alpha_i^m subject
to sum_m alpha_i^m = 0 and alpha_i^m <= C_i^m (D = -f); g_i^m = w_m'x_i + Delta_i^m.  Answers come from tiny_qp
(every active set tried) or from the library's projection used as a black box.
"""

from __future__ import annotations

import numpy as np

from . import PenProblem
from .tiny_qp import linear_map, solve_by_active_sets

CS_DUAL = (r"the Crammer-Singer dual of notebook 7: minimise $f(\alpha) = \tfrac12 \sum_m \|w_m\|^2 + "
           r"\sum_{i, m} \Delta_i^m \alpha_i^m$ with $w_m = \sum_i \alpha_i^m x_i$, subject to "
           r"$\sum_m \alpha_i^m = 0$ and $\alpha_i^m \le C_i^m$ ($C_i^m = C$ if $m = y_i$, else 0; "
           r"$\Delta_i^m = 0$ if $m = y_i$, else 1)")


def cs_dual_optimum(X, y, k, C):
    """The optimal (n, k) alpha of the Crammer-Singer dual, and W (k, d), by active sets."""
    X, y = np.asarray(X, float), np.asarray(y)
    n = len(y)
    own = np.zeros((n, k), bool)
    own[np.arange(n), y] = True
    L = linear_map(lambda v: v.reshape(n, k).T @ X, n * k)  # vec(W) = L vec(alpha)
    A_eq = np.kron(np.eye(n), np.ones((1, k)))  # each row of alpha sums to 0
    upper = np.where(own, float(C), 0.0).ravel()
    alpha = solve_by_active_sets(L.T @ L, np.where(own, 0.0, 1.0).ravel(), np.full(n * k, -np.inf), upper,
                                 A_eq, np.zeros(n)).reshape(n, k)
    return alpha, alpha.T @ X


def violations(X, y, alpha, C):
    """Per sample: (the violation with the bounds C_i^m, the slides' version with the bound C for every class)."""
    X, y, alpha = np.asarray(X, float), np.asarray(y), np.asarray(alpha, float)
    n, k = alpha.shape
    own = np.zeros((n, k), bool)
    own[np.arange(n), y] = True
    G = X @ (alpha.T @ X).T + np.where(own, 0.0, 1.0)  # g_i^m = w_m'x_i + Delta_i^m
    upper = np.where(own, C, 0.0)
    tiny = 1e-12 * max(1.0, C)
    right = G.max(1) - np.where(alpha < upper - tiny, G, np.inf).min(1)
    slides = G.max(1) - np.where(alpha < C - tiny, G, np.inf).min(1)
    return right, slides


def _projection():
    v, z = np.array([1.2, 0.5, -0.4]), 1.0
    # the nearest point of {beta >= 0, 1'beta = z}: min 1/2 ||beta||^2 - v'beta
    return solve_by_active_sets(np.eye(3), -v, np.zeros(3), np.full(3, np.inf), np.ones((1, 3)), [z])


def _one_sample():
    return np.array([cs_dual_optimum([[2.0]], [0], k=2, C=C)[0][0, 0] for C in (1.0, 1.0 / 16)])


def _blondel_step():
    # the block problem itself: min g'delta + r^2/2 ||delta||^2, 1'delta = 0, delta <= C_i - alpha_i (alpha_i = 0)
    g, r2, C = np.array([0.4, 1.6, 0.0]), 4.0, 1.0
    upper = np.array([C, 0.0, 0.0])
    return solve_by_active_sets(r2 * np.eye(3), g, np.full(3, -np.inf), upper, np.ones((1, 3)), [0.0])


def _slides_violation():
    X, y = np.array([[1.0], [-2.0]]), np.array([0, 1])
    alpha, _ = cs_dual_optimum(X, y, k=2, C=1.0)
    right, slides = violations(X, y, alpha, 1.0)
    return np.array([slides[1], right[1]])


def _support_masses():
    # the masses z at which the projection of beta_hat gains a positive entry: bisection on z, with the
    # library's projection as a black box (number of positive entries against z)
    from svmteach.projections import project_simplex_sort

    beta_hat = np.array([2.5, 1.8, 0.9, 0.4, -0.3])
    count = lambda z: int(np.sum(project_simplex_sort(beta_hat[None, :], z)[0] > 1e-12))  # noqa: E731
    masses = []
    for j in range(1, 5):  # the mass above which more than j entries are positive
        lo, hi = 1e-9, 100.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if count(mid) <= j else (lo, mid)
        masses.append(0.5 * (lo + hi))
    return np.array(masses)


PROBLEMS = (
    PenProblem(
        name="07.1", title="A projection onto the simplex, by hand", kind="compute",
        statement=(
            r"Project $v = (1.2, 0.5, -0.4)$ onto the simplex $\{\beta \ge 0,\ \mathbb 1^\top \beta = z\}$." "\n\n"
            r"1. For $z = 1$: sort $v$, find the number $\rho$ of positive entries by notebook 7's test, the "
            r"threshold $\theta$ and $\beta = \max(v - \theta, 0)$. Check the mass." "\n"
            r"2. Check the optimality conditions of the projection at your $\beta$ (the multipliers $\theta$ "
            r"and $\kappa_m \ge 0$ of notebook 7)." "\n"
            r"3. Redo part 1 for $z = 3$. Which entry is cut now?" "\n"
            r"4. Prove that adding the same constant $s$ to every entry of $v$ does not change the projection "
            r"(the library uses this to subtract the largest entry first)." "\n\n"
            r"Answer: $\beta$ for $z = 1$, `[beta_1, beta_2, beta_3]`."),
        solution=(
            r"1. Sorted: $1.2, 0.5, -0.4$ (already in order); cumulative sums $1.2, 1.7, 1.3$. The test "
            r"$v_{(j)} > (\sum_{l \le j} v_{(l)} - z)/j$: $j = 1$: $1.2 > 0.2$ yes; $j = 2$: $0.5 > 0.7/2 = 0.35$ "
            r"yes; $j = 3$: $-0.4 > 0.3/3 = 0.1$ no. So $\rho = 2$, $\theta = (1.7 - 1)/2 = 0.35$ and "
            r"$\beta = (0.85, 0.15, 0)$, with mass $1$." "\n\n"
            r"2. Stationarity $\beta_m - v_m + \theta - \kappa_m = 0$: for $m = 1, 2$ ($\beta_m > 0$, $\kappa_m = 0$): "
            r"$0.85 - 1.2 + 0.35 = 0$ and $0.15 - 0.5 + 0.35 = 0$. For $m = 3$: $\kappa_3 = 0 + 0.4 + 0.35 = 0.75 "
            r"\ge 0$ with $\beta_3 = 0$ (complementary slackness holds). Feasible, stationary, signs right: "
            r"optimal." "\n\n"
            r"3. $z = 3$: $j = 3$: $-0.4 > (1.3 - 3)/3 = -0.567$ yes, so $\rho = 3$, $\theta = -1.7/3 \approx "
            r"-0.5667$ and $\beta = v - \theta \approx (1.7667, 1.0667, 0.1667)$: nothing is cut; a negative "
            r"threshold *raises* every entry." "\n\n"
            r"4. $\tfrac12\|\beta - (v + s\mathbb 1)\|^2 = \tfrac12\|\beta - v\|^2 - s\,\mathbb 1^\top(\beta - v) + "
            r"\tfrac{k s^2}{2}$, and on the simplex $\mathbb 1^\top \beta = z$ is fixed, so the two objectives differ "
            r"by a constant there and have the same minimiser (the threshold moves by $s$)."),
        answer=_projection, rtol=1e-8, atol=1e-9),
    PenProblem(
        name="07.2", title="The Crammer-Singer dual of one sample: equal gradients, not zero", kind="derive",
        statement=(
            r"One sample $x = 2$ (so $d = 1$) of class $y = 0$, with $k = 2$ classes. The dual is " f"{CS_DUAL}."
            "\n\n"
            r"1. Use the constraints to write $\alpha = (a, -a)$ and find the interval of $a$. Write $f$ as a "
            r"function of $a$." "\n"
            r"2. Solve for $C = 1$; give $W$ ($2 \times 1$), the gradients $g^0, g^1$, the violation "
            r"$v = \max_m g^m - \min_{m: \alpha^m < C^m} g^m$, and check $P = D$ with "
            r"$P(W) = \tfrac12\|W\|_F^2 + C \max(0, 1 + w_1^\top x - w_0^\top x)$." "\n"
            r"3. The slide “Check for violation” asks, for $0 < \alpha < C$, that $g = 0$. Does it hold at "
            r"your optimum? Which condition holds instead, and where does the difference come from?" "\n"
            r"4. Solve again for $C = \tfrac1{16}$ and compute $g$ and $v$." "\n\n"
            r"Answer: `[alpha^0 for C = 1, alpha^0 for C = 1/16]`."),
        solution=(
            r"1. $\alpha^0 + \alpha^1 = 0$ gives $\alpha = (a, -a)$; the bounds $\alpha^0 \le C$ and "
            r"$\alpha^1 \le 0$ give $0 \le a \le C$. Then $w_0 = a x = 2a$, $w_1 = -2a$, and with "
            r"$\Delta = (0, 1)$: $f(a) = \tfrac12(4a^2 + 4a^2) + (-a) = 4a^2 - a$." "\n\n"
            r"2. $f'(a) = 8a - 1 = 0$ at $a = 1/8 = 0.125 \in [0, 1]$. $W = (1/4, -1/4)^\top$. "
            r"$g^0 = w_0 x + 0 = 1/2$ and $g^1 = w_1 x + 1 = 1/2$. Both classes are below their bounds "
            r"($1/8 < 1$, $-1/8 < 0$), so $v = 1/2 - 1/2 = 0$. Primal: the margin $(w_0 - w_1)x = 1$, loss 0, "
            r"$P = \tfrac12(1/16 + 1/16) = 1/16$; dual $D = -f(1/8) = -(1/16 - 1/8) = 1/16 = P$." "\n\n"
            r"3. No: $g^0 = g^1 = 1/2 \ne 0$ although $0 < \alpha^0 < C$. The dual has an equality per sample, "
            r"$\sum_m \alpha^m = 0$, whose multiplier (call it $\nu$) enters every class's stationarity condition: "
            r"$g^m + \nu + \mu^m = 0$ with $\mu^m \ge 0$ zero below the bound. So the free classes share one "
            r"gradient value ($-\nu = 1/2$ here), "
            r"which is the largest; it is zero only in a box-constrained dual without the equality (the "
            r"binary dual without bias). The slide's conditions are those of a box and do not apply." "\n\n"
            r"4. $C = 1/16 < 1/8$: $f$ decreases on $[0, 1/16]$, so $a = 1/16 = 0.0625$, at the bound. "
            r"$W = (1/8, -1/8)^\top$, $g^0 = 1/4$, $g^1 = 1 - 1/4 = 3/4$. The own class is at its bound "
            r"($\alpha^0 = C$), so only class 1 counts in the minimum: $v = 3/4 - 3/4 = 0$, optimal, although "
            r"the gradients differ (a class at its bound may have a smaller gradient). Check: "
            r"$P = \tfrac12(1/64 + 1/64) + \tfrac1{16}(1 - 1/2) = 3/64$ and $D = -(4/256 - 1/16) = 3/64$."),
        answer=_one_sample, rtol=1e-8, atol=1e-9, slips=(
            (lambda: np.full(2, _one_sample()[0]),  # C = 1/16 answered with C = 1's minimiser
             "entry 2 is the unconstrained minimiser of f(a) again: with C = 1/16 it lies outside the interval "
             "0 <= a <= C, so the minimiser over the interval is its end"),
            (lambda: np.array([cs_dual_optimum([[1.0]], [0], k=2, C=C)[0][0, 0] for C in (1.0, 1.0 / 16)]),
             "your minimiser is that of x = 1: here x = 2, and w_m = alpha^m x, so the quadratic term of f(a) has "
             "x^2 = 4 in it"),
            (lambda: -_one_sample(),
             "you gave alpha^1 = -a, the rival class's entry: the answer asks alpha^0, the own class's"),
        )),
    PenProblem(
        name="07.3", title="One Blondel block update, by hand", kind="compute",
        statement=(
            r"Sample $i$ of class $y_i = 0$, $k = 3$, $\|x_i\| = r = 2$, $C = 1$, still at $\alpha_i = 0$; the "
            r"current scores are $W x_i = (0.4, 0.6, -1.0)$." "\n\n"
            r"1. Compute $g_i$ and the violation $v_i$. Should the solver visit this sample?" "\n"
            r"2. Compute Blondel's $\hat\beta = r(C_i - \alpha_i) + g_i / r$, where $C_i = (C_i^0, C_i^1, C_i^2)$ "
            r"is the vector of bounds, and the mass $z = C r$." "\n"
            r"3. Project $\hat\beta$ onto the simplex of mass $z$ (threshold and $\beta$)." "\n"
            r"4. Give the new block $\alpha_i = C_i - \beta / r$ and the move $\delta_i$; check that its entries "
            r"sum to 0 and respect the bounds." "\n"
            r"5. The new gradient is $g_i + r^2 \delta_i$ (only $\alpha_i$ moved). Compute it and the new "
            r"violation. What does it tell you about the block update?" "\n\n"
            r"Answer: the new block `[alpha_i^0, alpha_i^1, alpha_i^2]`."),
        solution=(
            r"1. $g_i = W x_i + \Delta_i = (0.4 + 0, 0.6 + 1, -1.0 + 1) = (0.4, 1.6, 0)$. At $\alpha_i = 0$ only "
            r"the own class is below its bound ($0 < C$; the rivals sit at their bound 0), so "
            r"$v_i = \max_m g_i^m - g_i^0 = 1.6 - 0.4 = 1.2 > 0$: yes, visit it." "\n\n"
            r"2. $C_i - \alpha_i = (1, 0, 0)$: $\hat\beta = 2(1, 0, 0) + (0.2, 0.8, 0) = (2.2, 0.8, 0)$, and "
            r"$z = 2$." "\n\n"
            r"3. Sorted $2.2, 0.8, 0$, cumulative sums $2.2, 3.0, 3.0$. $j = 1$: $2.2 > 0.2$; $j = 2$: "
            r"$0.8 > (3 - 2)/2 = 0.5$; $j = 3$: $0 > (3 - 2)/3$ fails. $\rho = 2$, $\theta = 0.5$, "
            r"$\beta = (1.7, 0.3, 0)$, mass 2." "\n\n"
            r"4. $\alpha_i = (1, 0, 0) - (1.7, 0.3, 0)/2 = (0.15, -0.15, 0)$, so $\delta_i = (0.15, -0.15, 0)$: "
            r"entries sum to 0, $\alpha_i^0 = 0.15 \le C$, the rivals $\le 0$." "\n\n"
            r"5. $g_i + 4\delta_i = (0.4 + 0.6, 1.6 - 0.6, 0) = (1, 1, 0)$. Classes 0 ($0.15 < 1$) and 1 "
            r"($-0.15 < 0$) are below their bounds, class 2 is at its bound 0. $v_i = \max g - \min(1, 1) = "
            r"1 - 1 = 0$: the block is solved *exactly* in one update (the block problem is a projection, not a "
            r"step along a direction). Other samples' blocks change $W$, so sample $i$ may need another visit "
            r"later."),
        answer=_blondel_step, rtol=1e-8, atol=1e-9),
    PenProblem(
        name="07.4", title=r"Why the slides' violation flags every sample", kind="explain",
        statement=(
            r"The slides' “Check for violation” computes $v_i = \max_m g_i^m - \min_{m: \alpha_i^m < C} g_i^m$, "
            r"with the bound $C$ for every class; the right bounds are $C_i^m$ (notebook 7)." "\n\n"
            r"Two samples in one dimension, $k = 2$, $C = 1$: $x_1 = 1$ of class 0 and $x_2 = -2$ of class 1. "
            r"The optimum of " f"{CS_DUAL} " r"is $\alpha_1 = (\tfrac12, -\tfrac12)$, $\alpha_2 = (0, 0)$." "\n\n"
            r"1. Check that this $\alpha$ is feasible, compute $W$ and the margins, and say which sample is a "
            r"support vector." "\n"
            r"2. Compute $g_2$, the right violation and the slides' violation of sample 2." "\n"
            r"3. Explain in general which samples the slides' formula flags at an optimum, and why with "
            r"$k \ge 3$ that is almost every sample (on notebook 7's four clouds at the library's optimum: "
            r"every one of the 90 samples)." "\n"
            r"4. What would a solver using the slides' formula do?" "\n\n"
            r"Answer: for sample 2, `[slides' violation, right violation]`."),
        solution=(
            r"1. Rows sum to 0; $\alpha_1^0 = \tfrac12 \le C$, $\alpha_1^1 = -\tfrac12 \le 0$, $\alpha_2 = 0$ within "
            r"its bounds. $w_0 = \tfrac12 \cdot 1 + 0 = \tfrac12$, $w_1 = -\tfrac12$. Margins: sample 1, "
            r"$(w_0 - w_1) x_1 = 1$ (on the margin, $\alpha_1 \ne 0$: a support vector); sample 2, "
            r"$(w_1 - w_0) x_2 = (-1)(-2) = 2 > 1$, beyond the margin with $\alpha_2 = 0$." "\n\n"
            r"2. $g_2^0 = w_0 x_2 + 1 = -1 + 1 = 0$ and $g_2^1 = w_1 x_2 + 0 = 1$. Right bounds: $\alpha_2^1 = 0 < C$ "
            r"counts, $\alpha_2^0 = 0 = C_2^0$ does not: $v_2 = 1 - 1 = 0$. Slides: both $\alpha_2^m = 0 < C$ "
            r"count, $v_2 = 1 - \min(0, 1) = 1$: flagged although optimal." "\n\n"
            r"3. A rival $m \ne y_i$ always has $\alpha_i^m \le 0 < C$, so the slides' minimum runs over *every* "
            r"rival, including those at their true bound $\alpha_i^m = 0$. At the optimum such a rival only needs "
            r"$g_i^m \le$ the common value of the free classes, and typically it is strictly smaller. So the "
            r"slides flag every sample that has a rival at the bound 0 with a gradient below the maximum. "
            r"Crammer-Singer charges only the strongest rival, so with $k \ge 3$ nearly every sample has rivals "
            r"with $\alpha_i^m = 0$; well-classified samples have all of them there." "\n\n"
            r"4. It would never see a violation below its tolerance: it would visit every sample in every epoch "
            r"(no sample is ever skipped or shrunk) and, if it stops on the largest violation, never stop "
            r"before its iteration cap."),
        answer=_slides_violation, rtol=1e-8, atol=1e-8),
    PenProblem(
        name="07.5", title="Reading the projection figure: which mass keeps which entries", kind="explain",
        statement=(
            r"Notebook 7 draws the projection of $\hat\beta = (2.5, 1.8, 0.9, 0.4, -0.3)$ onto the simplex for "
            r"$z = 1, 4, 8$: two entries stay positive at $z = 1$, three at $z = 4$, all five at $z = 8$." "\n\n"
            r"1. Write the mass $z(\theta) = \sum_m \max(\hat\beta_m - \theta, 0)$ kept by a threshold $\theta$. "
            r"Why is it continuous and decreasing (while positive)?" "\n"
            r"2. Compute the masses $z$ at which the number of positive entries goes from 1 to 2, 2 to 3, "
            r"3 to 4 and 4 to 5." "\n"
            r"3. At $z = 4$ the figure shows three positive entries and a fourth at exactly 0. Explain with "
            r"part 2." "\n"
            r"4. For which $z$ is $\theta < 0$, so that the projection *raises* the kept entries?" "\n\n"
            r"Answer: the four masses of part 2, in increasing order."),
        solution=(
            r"1. Each term $\max(\hat\beta_m - \theta, 0)$ is continuous and nonincreasing in $\theta$, and "
            r"strictly decreasing where positive, so the sum is continuous, piecewise linear, and strictly "
            r"decreasing while some entry is kept; its slope is minus the number of kept entries. Each "
            r"breakpoint $\theta = \hat\beta_m$ adds one entry as $\theta$ falls." "\n\n"
            r"2. The number of kept entries changes where $\theta$ passes a sorted entry; evaluate $z$ there:" "\n\n"
            r"- $\theta = 1.8$: $z = 0.7$ (only $2.5$ kept below this mass);" "\n"
            r"- $\theta = 0.9$: $z = 1.6 + 0.9 = 2.5$;" "\n"
            r"- $\theta = 0.4$: $z = 2.1 + 1.4 + 0.5 = 4$;" "\n"
            r"- $\theta = -0.3$: $z = 2.8 + 2.1 + 1.2 + 0.7 = 6.8$." "\n\n"
            r"So one entry for $z \le 0.7$, two up to $2.5$, three up to $4$, four up to $6.8$, five above." "\n\n"
            r"3. $z = 4$ is exactly a breakpoint: $\theta = 0.4 = \hat\beta_4$, so the fourth entry is "
            r"$\max(0.4 - 0.4, 0) = 0$, about to enter." "\n\n"
            r"4. $\theta < 0$ when $z > z(0) = 2.5 + 1.8 + 0.9 + 0.4 = 5.6$: the mass asked for exceeds the sum "
            r"of the positive entries, so the kept entries are raised (as at $z = 8$, $\theta = -0.54$)."),
        answer=_support_masses, rtol=1e-7, atol=1e-8),
)
