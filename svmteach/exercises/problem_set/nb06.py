"""Problems of notebook 06 (Weston-Watkins: the margin scale M, the dual, Shark's steps, the exact block).

Notation as in the course: classes 0..k-1, W is k x d with row m the weight vector w_m, and for sample i the
dual variables alpha_{im} with alpha_{i y_i} = -sum_{j != y_i} alpha_{ij} and w_m = -M sum_i alpha_{im} x_i.
The dual is written here as maximised, D(alpha) = sum_i sum_{j != y_i} alpha_{ij} - 1/2 ||W(alpha)||_F^2.
Answers come from tiny_qp (every active set tried), from a plain simulation, or from the library's solvers.
"""

from __future__ import annotations

import numpy as np

from . import PenProblem
from .tiny_qp import linear_map, solve_by_active_sets

WW_DUAL = (r"the Weston-Watkins dual (maximised) $D(\alpha) = \sum_{i=1}^n \sum_{j \ne y_i} \alpha_{ij} - "
           r"\tfrac12 \|W(\alpha)\|_F^2$ over $0 \le \alpha_{ij} \le C$ ($j \ne y_i$), with "
           r"$\alpha_{i y_i} = -\sum_{j \ne y_i} \alpha_{ij}$ and $w_m = -M \sum_i \alpha_{im} x_i$ (row $m$ of "
           r"$W$)")


def ww_dual_optimum(X, y, k, C, M=1.0):
    """The optimal (n, k) alpha of the Weston-Watkins dual, and W (k, d): by active sets, free entries only."""
    X, y = np.asarray(X, float), np.asarray(y)
    n = len(y)
    free = [(i, j) for i in range(n) for j in range(k) if j != y[i]]

    def alpha_of(v):
        alpha = np.zeros((n, k))
        for (i, j), value in zip(free, v):
            alpha[i, j] += value
            alpha[i, y[i]] -= value
        return alpha

    weights = lambda v: -M * alpha_of(v).T @ X  # noqa: E731  (k, d)
    L = linear_map(weights, len(free))  # vec(W) = L v
    v = solve_by_active_sets(L.T @ L, -np.ones(len(free)), np.zeros(len(free)), np.full(len(free), float(C)))
    return alpha_of(v), weights(v)


def ww_block_optimum(u, C):
    r"""The free entries of one exact block, :math:`\max\ u^\top b - \tfrac12(\|b\|^2 + (\mathbb 1^\top b)^2)`,
    :math:`0 \le b \le C` (curvature divided out), by active sets."""
    u = np.asarray(u, float)
    m = len(u)
    return solve_by_active_sets(np.eye(m) + np.ones((m, m)), -u, np.zeros(m), np.full(m, float(C)))


def _two_samples_three_classes():
    return ww_dual_optimum([[1.0, 0.0], [0.0, 1.0]], [0, 1], k=3, C=1.0)[1]


def _rescaled_dual_ratio():
    # D*(M = 1/2, C = 1) against D*(1, C M^2 = 1/4) with the library's exact-block solver on small blobs
    from svmteach import MulticlassProblem, WWExact, data, solve

    X, y = data.multiclass_blobs(30, k=3, seed=0)
    duals = [solve(WWExact(random_state=0), MulticlassProblem(X, y, C=C, loss="ww", M=M), tol=1e-12).dual
             for M, C in ((0.5, 1.0), (1.0, 0.25))]
    return duals[1] / duals[0]


def _shark_block_end():
    # the block problem of the sample in D's terms: with alpha_i = 0 and scores s = W x_i, moving the free
    # entries b (classes 1, 2; y_i = 0) changes D by (1 - M(s_0 - s_j)) b_j summed, minus M^2 ||x_i||^2 / 2 times
    # ||alpha_i||^2 = ||b||^2 + (1'b)^2
    s, M, sq, C = np.array([0.0, 0.5, -0.5]), 0.5, 2.0, 1.0
    g = 1.0 - M * (s[0] - s[1:])
    a = M * M * sq
    b = solve_by_active_sets(a * (np.eye(2) + np.ones((2, 2))), -g, np.zeros(2), np.full(2, C))
    return np.array([-b.sum(), b[0], b[1]])


def _tied_block():
    return ww_block_optimum([0.6, 0.6, 0.1], 1.0)


def _zigzag():
    # greedy exact coordinate steps on an unbounded two-coordinate block: the third move over the second, and
    # the moves after the first until the largest violation is below 1e-6 of its value after the first move
    rng = np.random.default_rng(0)
    a = 0.7
    H = a * (np.eye(2) + np.ones((2, 2)))  # the block's Hessian in the free entries
    g = rng.uniform(0.5, 1.5, 2)  # dD/db at the start
    moves, violations = [], []
    for _ in range(60):
        j = int(np.argmax(np.abs(g)))
        m = g[j] / H[j, j]  # exact maximiser of D along coordinate j
        g = g - m * H[:, j]
        moves.append(m)
        violations.append(np.abs(g).max())
    after_first = violations[0]
    n_more = next(t for t in range(1, 60) if violations[t] < 1e-6 * after_first)
    return np.array([moves[2] / moves[1], n_more])


PROBLEMS = (
    PenProblem(
        name="06.1", title="M rescales C: the proof in the dual", kind="prove",
        statement=(
            f"Write $D_{{M, C}}$ for {WW_DUAL}: it depends on $M$ through $W$ and on $C$ through the box." "\n\n"
            r"1. For $\alpha' = M^2 \alpha$, show that $W_1(\alpha') = M\, W_M(\alpha)$ (the subscript is the "
            r"margin scale used to build $W$) and $D_{1, CM^2}(\alpha') = M^2\, D_{M, C}(\alpha)$." "\n"
            r"2. Deduce: $\alpha$ is optimal for $(M, C)$ if and only if $M^2 \alpha$ is optimal for "
            r"$(1, CM^2)$, and $D^\star_{M, C} = D^\star_{1, CM^2} / M^2$." "\n"
            r"3. Check that this agrees with notebook 6's primal statement $P_{M, C}(W) = "
            r"P_{1, CM^2}(MW)/M^2$ and strong duality." "\n"
            r"4. Shark uses $M = \tfrac12$. Shark's problem at $C = 1$ is which $M = 1$ problem, and what is the "
            r"ratio of the two optimal dual values?" "\n\n"
            r"Answer: $D^\star_{1, 1/4} / D^\star_{1/2, 1}$, one number."),
        solution=(
            r"1. $W_1(\alpha')$ has rows $-\sum_i \alpha'_{im} x_i = -M^2 \sum_i \alpha_{im} x_i = "
            r"M \big(-M \sum_i \alpha_{im} x_i\big)$, the rows of $M\,W_M(\alpha)$. Then "
            r"$D_{1, CM^2}(\alpha') = \sum_i \sum_{j \ne y_i} M^2 \alpha_{ij} - \tfrac12 M^2 \|W_M(\alpha)\|_F^2 = "
            r"M^2 D_{M, C}(\alpha)$. The completed entries follow: $\alpha'_{i y_i} = M^2 \alpha_{i y_i}$." "\n\n"
            r"2. The map $\alpha \mapsto M^2\alpha$ is a bijection between the two feasible sets: "
            r"$0 \le \alpha_{ij} \le C \iff 0 \le M^2 \alpha_{ij} \le CM^2$. It multiplies the objective by the "
            r"positive constant $M^2$, so it maps maximisers to maximisers, and "
            r"$D^\star_{1, CM^2} = M^2 D^\star_{M, C}$." "\n\n"
            r"3. The optimal weights correspond: $V^\star = W_1(\alpha'^\star) = M W_M(\alpha^\star) = M W^\star$, "
            r"as in the primal substitution $V = MW$. Values: $P^\star_{M, C} = P^\star_{1, CM^2}/M^2$ and, by "
            r"strong duality on both sides, $D^\star_{M, C} = P^\star_{M, C} = P^\star_{1, CM^2}/M^2 = "
            r"D^\star_{1, CM^2}/M^2$: the same statement." "\n\n"
            r"4. $M^2 = \tfrac14$ and $CM^2 = \tfrac14$: $D^\star_{1, 1/4} = \tfrac14 D^\star_{1/2, 1}$. The "
            r"factor is $0.25$: the equivalent $M = 1$ problem has the *smaller* optimal value: the substitution "
            r"$\alpha' = M^2 \alpha$ multiplies the objective by $M^2 = \tfrac14$. (The library's exact-block "
            r"solver on three blobs, run to a gap of $10^{-12}$, gives the ratio $0.25$ to ten digits.)"),
        answer=_rescaled_dual_ratio, rtol=1e-7, atol=1e-9, slips=(
            (lambda: _rescaled_dual_ratio() ** 0.5,
             "that is M, not M^2: alpha' = M^2 alpha (W is linear in both M and alpha, so W_1(M^2 alpha) = M W_M"
             "(alpha)), and the dual scales by M^2"),
            (lambda: 1.0 / _rescaled_dual_ratio(),
             "that is the ratio the other way up, D*_{1/2, 1} / D*_{1, 1/4}: the answer asks D*_{1, 1/4} / D*_{1/2, 1}"),
            (lambda: _rescaled_dual_ratio() ** -0.5,
             "that is 1/M the other way up: the dual scales by M^2, and the ratio asked is D*_{1, 1/4} / D*_{1/2, 1}"),
        )),
    PenProblem(
        name="06.2", title="The Weston-Watkins dual of two samples and three classes", kind="compute",
        statement=(
            r"Two samples, three classes, $M = 1$: $x_1 = (1, 0)$ of class 0 and $x_2 = (0, 1)$ of class 1 "
            r"(class 2 has no sample). The dual is " f"{WW_DUAL}." "\n\n"
            r"1. Write $D$ in the four free variables $\alpha_{11}, \alpha_{12}, \alpha_{20}, \alpha_{22}$. Why "
            r"does it split into one problem per sample?" "\n"
            r"2. Solve it for $C = 1$: give $\alpha$ ($2 \times 3$), $W$ ($3 \times 2$) and $D^\star$." "\n"
            r"3. Compute the primal $P(W) = \tfrac12\|W\|_F^2 + C \sum_i \sum_{j \ne y_i} \max(0, 1 - (w_{y_i} - "
            r"w_j)^\top x_i)$ and check that the gap is zero." "\n"
            r"4. Class 2 has no sample. Is $w_2 = 0$? Which class does the model predict at $x_1$ and $x_2$?" "\n"
            r"5. Redo part 2 for $C = \tfrac14$ and check $P = D$ again." "\n\n"
            r"Answer: $W$ for $C = 1$, as a $3 \times 2$ array (row $m$ is $w_m$)."),
        solution=(
            r"1. $W$ has rows $w_0 = -(\alpha_{10} x_1 + \alpha_{20} x_2)$, $w_1 = -(\alpha_{11} x_1 + "
            r"\alpha_{21} x_2)$, $w_2 = -(\alpha_{12} x_1 + \alpha_{22} x_2)$. Since $x_1^\top x_2 = 0$, "
            r"$\|W\|_F^2 = \|x_1\|^2 \|\alpha_1\|^2 + \|x_2\|^2 \|\alpha_2\|^2$: no term couples the samples, so "
            r"$D$ is a sum of one function of $\alpha_1$ and one of $\alpha_2$. With $\alpha_{10} = "
            r"-(\alpha_{11} + \alpha_{12})$ and $\|x_1\| = 1$:" "\n\n"
            r"$$D_1 = \alpha_{11} + \alpha_{12} - \tfrac12\big(\alpha_{11}^2 + \alpha_{12}^2 + "
            r"(\alpha_{11} + \alpha_{12})^2\big),$$" "\n\n"
            r"and the same function for sample 2 in $\alpha_{20}, \alpha_{22}$." "\n\n"
            r"2. $\partial D_1/\partial \alpha_{11} = 1 - 2\alpha_{11} - \alpha_{12} = 0$ and "
            r"$\partial D_1/\partial \alpha_{12} = 1 - \alpha_{11} - 2\alpha_{12} = 0$ give "
            r"$\alpha_{11} = \alpha_{12} = 1/3 \in [0, 1]$. So $\alpha_1 = (-2/3, 1/3, 1/3)$, $\alpha_2 = (1/3, -2/3, 1/3)$, and" "\n\n"
            r"$$W = \begin{pmatrix} 2/3 & -1/3 \\ -1/3 & 2/3 \\ -1/3 & -1/3 \end{pmatrix} \approx "
            r"\begin{pmatrix} 0.6667 & -0.3333 \\ -0.3333 & 0.6667 \\ -0.3333 & -0.3333 \end{pmatrix}.$$" "\n\n"
            r"$\|W\|_F^2 = 5/9 + 5/9 + 2/9 = 4/3$, so $D^\star = 4/3 - 2/3 = 2/3$." "\n\n"
            r"3. Scores at $x_1$: $W x_1 = (2/3, -1/3, -1/3)$, so both margins $(w_0 - w_j)^\top x_1 = 1$; the same "
            r"at $x_2$. Every hinge is 0 and $P = \tfrac12 \cdot 4/3 = 2/3 = D^\star$: the zero gap certifies "
            r"optimality." "\n\n"
            r"4. No: $w_2 = (-1/3, -1/3) \ne 0$. Each sample's rival multipliers push the rival's weight away "
            r"from it, and class 2 is a rival of both. (Also $w_0 + w_1 + w_2 = 0$, since each row of $\alpha$ "
            r"sums to 0.) The model predicts class 0 at $x_1$ and class 1 at $x_2$; class 2 wins away from both "
            r"samples: at $x = (-1, -1)$ the scores are $W x = (-1/3, -1/3, 2/3)$." "\n\n"
            r"5. For $C = \tfrac14$ the unconstrained $1/3$ is outside the box. At $\alpha_{11} = \alpha_{12} = "
            r"1/4$: $\partial D_1 / \partial \alpha_{11} = 1 - 3/4 = 1/4 > 0$ at the upper bound, so it is optimal (the gradient "
            r"pushes outwards, the box stops it). $\alpha_1 = (-1/2, 1/4, 1/4)$, $w_0 = (1/2, -1/4)$, "
            r"$w_1 = (-1/4, 1/2)$, $w_2 = (-1/4, -1/4)$, $\|W\|_F^2 = 3/4$ and $D^\star = 1 - 3/8 = 5/8$. The "
            r"margins are now $3/4$, four hinges of $1/4$: $P = 3/8 + \tfrac14 \cdot 1 = 5/8 = D^\star$."),
        answer=_two_samples_three_classes, rtol=1e-8, atol=1e-9),
    PenProblem(
        name="06.3", title="Shark's greedy steps on one block, by hand", kind="compute",
        statement=(
            r"One sample of class $y_i = 0$ with $k = 3$, $\|x_i\|^2 = 2$, Shark's $M = \tfrac12$, $C = 1$; its "
            r"multipliers are still $\alpha_i = 0$ and the current scores are $W x_i = (0, \tfrac12, -\tfrac12)$." "\n\n"
            r"Shark's move on rival $j$ changes $\alpha_{ij}$ by $m$ and $\alpha_{i y_i}$ by $-m$. Write "
            r"$G_j = \partial D / \partial \alpha_{ij} = 1 - M (w_{y_i} - w_j)^\top x_i$. Along the move, "
            r"$D$ changes by $m G_j - M^2 \|x_i\|^2 m^2$; after it, $G_j$ drops by $2M^2 m\|x_i\|^2$ and every "
            r"other rival's $G_t$ by $M^2 m \|x_i\|^2$. Shark picks the rival of largest violation ($G_j > 0$ "
            r"with $\alpha_{ij} < C$, or $G_j < 0$ with $\alpha_{ij} > 0$), moves it to the maximiser along the "
            r"move, clipped to $[0, C]$, and stops when no violation is left." "\n\n"
            r"1. Compute $G_1, G_2$ and the first move: which rival, the step before and after clipping." "\n"
            r"2. Update the $G$'s and make the second move." "\n"
            r"3. Show that Shark stops after two moves, and that the block is then *exactly* optimal (check "
            r"its optimality conditions)." "\n"
            r"4. Notebook 6 printed a visit with 40 moves. Why only two here?" "\n\n"
            r"Answer: the block $\alpha_i$ after Shark's visit, `[alpha_i0, alpha_i1, alpha_i2]`."),
        solution=(
            r"1. $G_1 = 1 - \tfrac12(0 - \tfrac12) = 1.25$ and $G_2 = 1 - \tfrac12(0 + \tfrac12) = 0.75$. Both "
            r"violate ($G > 0$, $\alpha = 0 < C$); the largest is rival 1. The curvature along a move is "
            r"$2M^2\|x_i\|^2 = 2 \cdot \tfrac14 \cdot 2 = 1$, so the unclipped step is $m^\star = G_1 / 1 = 1.25$; "
            r"$\alpha_{i1} + m \le C = 1$ clips it to $m = 1$. Now $\alpha_i = (-1, 1, 0)$." "\n\n"
            r"2. $M^2 m \|x_i\|^2 = \tfrac14 \cdot 1 \cdot 2 = 0.5$: $G_1 = 1.25 - 2 \cdot 0.5 = 0.25$ and "
            r"$G_2 = 0.75 - 0.5 = 0.25$. Rival 1 no longer violates ($G_1 > 0$ but $\alpha_{i1} = C$: it would "
            r"like to rise and cannot); rival 2 does. Its step is $m = 0.25 / 1 = 0.25$, inside the box. Now "
            r"$\alpha_i = (-1.25, 1, 0.25)$, and $G_2 = 0.25 - 2 \cdot 0.125 = 0$, $G_1 = 0.25 - 0.125 = 0.125$." "\n\n"
            r"3. $G_1 = 0.125 > 0$ with $\alpha_{i1} = C$ and $G_2 = 0$ with $0 < \alpha_{i2} < C$: no violation, "
            r"so Shark stops. These are exactly the optimality conditions of the block (a box-constrained "
            r"concave quadratic: zero gradient inside, gradient pointing outwards at a bound), so the block is "
            r"solved exactly: $\alpha_i = (-1.25, 1, 0.25)$, the answer the exact solver gives too." "\n\n"
            r"4. The first move hit the bound $C$, which freezes rival 1; only one free coordinate remains and "
            r"one exact step solves it. Without a bound, two free rivals zigzag: each step on one changes the "
            r"other's gradient (the block's Hessian is a multiple of $I + \mathbb 1 \mathbb 1^\top$), and the "
            r"moves shrink geometrically (problem 06.5) until Shark's tolerance or its cap of $10k$ moves."),
        answer=_shark_block_end, rtol=1e-8, atol=1e-9),
    PenProblem(
        name="06.4", title="Ties in the exact block's sort", kind="prove",
        statement=(
            r"Wang and Scott's exact block (notebook 6) solves, for the free entries $\widehat\alpha_{ij}$ "
            r"($j \ne y_i$, $k - 1$ of them; written $\widehat\alpha_j$ below), "
            r"$\widehat\alpha_j = \operatorname{clip}(u_j - t, 0, C)$ where $t$ solves "
            r"$t = \psi(t)$, $\psi(t) = \sum_{j \ne y_i} \operatorname{clip}(u_j - t, 0, C)$. The solver sorts "
            r"the $2(k-1)$ breakpoints $u_j$ and $u_j - C$ and scans the pieces between them." "\n\n"
            r"1. Prove that $t = \psi(t)$ has exactly one solution, and that it lies in $[0, (k-1)C]$." "\n"
            r"2. Two breakpoints may be equal: $u_j = u_l$, or $u_j - C = u_l$. Prove that $t$ and the block's "
            r"solution do not depend on the order in which the sort places tied breakpoints." "\n"
            r"3. Compute $t$ and $\widehat\alpha$ for $u = (0.6, 0.6, 0.1)$, $C = 1$." "\n"
            r"4. Compute $t$ and $\widehat\alpha$ for $u = (1.2, 0.2, 0.2)$, $C = 1$, where three breakpoints tie at $0.2$." "\n\n"
            r"Answer: $\widehat\alpha$ of part 3, as a list of its three entries."),
        solution=(
            r"1. Each term $\operatorname{clip}(u_j - t, 0, C)$ is continuous and nonincreasing in $t$, so "
            r"$\varphi(t) = t - \psi(t)$ is continuous and strictly increasing (slope at least 1). "
            r"$\varphi(0) = -\psi(0) \le 0$ and $\varphi((k-1)C) = (k-1)C - \psi((k-1)C) \ge 0$ because each term "
            r"is at most $C$. By the intermediate value theorem there is a root in $[0, (k-1)C]$, and strict "
            r"monotonicity makes it unique." "\n\n"
            r"2. $\psi$ is defined by the *values* $u_j$, with no order in it; so is its unique root $t$, and "
            r"$\widehat\alpha_j = \operatorname{clip}(u_j - t, 0, C)$ depends only on $u_j$ and $t$. The sort only locates "
            r"the linear piece of $\psi$ that contains the root. Tied breakpoints delimit a piece of length zero: "
            r"whichever order they are visited in, the scan evaluates $\varphi$ at the same points $t$ "
            r"(same values, since $\varphi$ is a function of $t$), finds the same first breakpoint where "
            r"$\varphi \ge 0$, and interpolates on the same nonempty piece before it. (Degenerate but harmless: "
            r"the root may sit exactly at the tied breakpoint, where every order gives $\varphi = 0$.)" "\n\n"
            r"3. Guess that $u_3 - t < 0 < u_{1,2} - t < C$: $t = 2(0.6 - t)$ gives $t = 0.4$, and indeed "
            r"$0.1 - 0.4 < 0 < 0.2 < 1$. So $\widehat\alpha = (0.2, 0.2, 0)$, with $\sum_j \widehat\alpha_j = 0.4 = t$. Swapping the two "
            r"entries of $0.6$ changes nothing." "\n\n"
            r"4. The breakpoints are $u - C = (0.2, -0.8, -0.8)$ and $u = (1.2, 0.2, 0.2)$: $0.2$ three times. "
            r"For $t \ge 0.2$: $\psi(t) = (1.2 - t) + 0 + 0$, and $t = 1.2 - t$ gives $t = 0.6 \ge 0.2$. So "
            r"$\widehat\alpha = (0.6, 0, 0)$. (For $t < 0.2$, $\psi(t) = 1 + 2(0.2 - t)$ and $t = 1.4 - 2t$ would give "
            r"$t = 0.467$, not below $0.2$: no root there, as part 1 promised.)"),
        answer=_tied_block, rtol=1e-8, atol=1e-9),
    PenProblem(
        name="06.5", title="Why greedy coordinate steps zigzag inside a block", kind="predict",
        statement=(
            r"Take a block with $k = 3$: two free entries $\widehat\alpha_1, \widehat\alpha_2$ (the rivals' multipliers), curvature "
            r"$a = M^2 \|x_i\|^2 > 0$, and suppose no bound is ever reached. In these coordinates the block's "
            r"Hessian (of $-D$) is $a \begin{pmatrix} 2 & 1 \\ 1 & 2 \end{pmatrix}$. Shark moves one coordinate "
            r"at a time to its exact maximiser, always the one of largest $|G_j|$, where "
            r"$G_j = \partial D / \partial \widehat\alpha_j$ (as in problem 06.3)." "\n\n"
            r"1. Predict before computing: does Shark solve the block in two moves, in a few, or never exactly?"
            "\n"
            r"2. Show that after the first move the moves alternate between the two coordinates and that "
            r"$m_{t+1} = -\tfrac12 m_t$ for $t \ge 2$. Why does the ratio $m_2 / m_1$ not follow this rule (in "
            r"notebook 6's printed visit it is about $0.38$)?" "\n"
            r"3. Let $v_t$ be the largest violation after move $t$. Show $v_{t+1} = v_t / 2$ and predict how many "
            r"moves after the first bring it below $10^{-6} v_1$." "\n"
            r"4. How many operations does Wang and Scott's exact block need for the same block?" "\n\n"
            r"Answer: `[m_3 / m_2, number of moves after the first]`."),
        solution=(
            r"1. Never exactly (without bounds): each move spoils the other coordinate's optimality, so the "
            r"iterates only converge geometrically." "\n\n"
            r"2. A move $m$ on coordinate $j$ changes the gradient by $-m$ times column $j$ of the Hessian: "
            r"$G_j$ by $-2am$ (and the exact step $m = G_j/(2a)$ makes it 0) and the other $G_l$ by $-am$. "
            r"After move $t$ the moved coordinate has $G = 0$, so the next move is on the other one: the moves "
            r"alternate. For $t \ge 2$ the coordinate of move $t+1$ had $G = 0$ after move $t-1$ and received "
            r"$-a m_t$ from move $t$, so $m_{t+1} = -a m_t / (2a) = -\tfrac12 m_t$. The rule needs the other "
            r"gradient to be 0 before move $t$; before move 2 it is not: $m_2 = (G_l^{(0)} - a m_1)/(2a)$ "
            r"depends on the starting gradient $G_l^{(0)}$, which is arbitrary. Hence a first ratio like notebook 6's 0.38." "\n\n"
            r"3. For $t \ge 2$, $v_t = |G_{\rm other}| = a|m_t|$, and $v_1 = 2a|m_2|$ (the step $m_2 = G/(2a)$ "
            r"consumes it). With $|m_{t+1}| = |m_t|/2$: $v_{1+s} = v_1 2^{-s}$. We need $2^{-s} < 10^{-6}$, i.e. "
            r"$s > 6 \log_2 10 \approx 19.93$: $s = 20$ moves after the first ($2^{-19} \approx 1.9 \cdot "
            r"10^{-6}$, $2^{-20} \approx 0.95 \cdot 10^{-6}$). A simulation with random starting gradients "
            r"confirms the ratio $-0.5$ and the 20 moves." "\n\n"
            r"4. One sort of $2(k-1) = 4$ breakpoints and one scan: a handful of comparisons, with the exact "
            r"answer. Shark's 20 moves each cost $O(k)$ for the gradient update; with larger $k$ the coupling "
            r"spreads over all free coordinates and Shark stops at its cap of $10k$ moves or its tolerance."),
        answer=_zigzag, rtol=1e-9, atol=1e-9),
)
