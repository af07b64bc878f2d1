"""Problems of notebook 09 (kernel multiclass SVMs: the representer form w_m = sum_i A_im phi(x_i), the training
scores S = K A and the penalty <A, K A>, new points' scores, the intercept as B^2 added to the kernel, the cost of
one block step, kernels that are not positive semidefinite, and the regions as gamma grows).

Notation of notebook 9: classes 0..k-1, A the (n, k) coefficients (A = alpha for Crammer-Singer, A = -M alpha for
Weston-Watkins), K the Gram matrix, S = K A, q_i = K_ii the curvature of sample i's block (K_ii + B^2 with the
intercept).  Every answer is computed here from the definitions, in exact fractions or SymPy, by plain loops; none
calls the library's solvers or its kernel code (the tests compare them with the library).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import sympy as sp

from . import PenProblem

#: The three points of the course's worked example (notebooks 1, 2 and 4), now one per class: x_1 of class 0,
#: x_2 of class 1, x_3 of class 2.
X3 = ((0, 0), (2, 0), (0, 2))
Y3 = (0, 1, 2)
#: A Crammer-Singer alpha (so A = alpha) that a solver could hold: rows sum to 0, the own class's entry in
#: [0, C] for C = 1, the rivals' entries <= 0.  Row i is sample i + 1.
A3 = ((F(1, 2), F(-1, 4), F(-1, 4)),
      (F(-1, 8), F(1, 8), F(0)),
      (F(-1, 8), F(0), F(1, 8)))
#: the new point of problem 09.2
Z_NEW = (2, 1)


def quadratic_kernel(x, z, c=1):
    """:math:`(x^\\top z + c)^2`, exactly (integers or fractions in, the same out)."""
    return (sum(a * b for a, b in zip(x, z)) + c) ** 2


def gram3():
    """The Gram matrix of :data:`X3` under :func:`quadratic_kernel`, as nested tuples of integers."""
    return tuple(tuple(quadratic_kernel(a, b) for b in X3) for a in X3)


def training_scores(K=None, A=A3):
    """S = K A by the definition S_jm = sum_i K_ji A_im (fractions)."""
    K = gram3() if K is None else K
    n, k = len(A), len(A[0])
    return tuple(tuple(sum(K[j][i] * A[i][m] for i in range(n)) for m in range(k)) for j in range(n))


def penalty(K=None, A=A3):
    """:math:`\\|W\\|_F^2 = \\sum_m \\sum_{i,j} A_{im} A_{jm} K_{ij}` (fractions)."""
    K = gram3() if K is None else K
    n, k = len(A), len(A[0])
    return sum(A[i][m] * A[j][m] * K[i][j] for m in range(k) for i in range(n) for j in range(n))


def new_point_scores(z=Z_NEW, A=A3, offset=0):
    """:math:`s_m(z) = \\sum_i A_{im} (k(z, x_i) + B^2)`, ``offset`` = :math:`B^2` (fractions)."""
    return tuple(sum(A[i][m] * (quadratic_kernel(z, X3[i]) + offset) for i in range(len(X3))) for m in range(3))


def _representer():
    S = training_scores()
    return np.array([float(v) for v in S[1]] + [float(penalty())])


def _new_point():
    return np.array([float(v) for v in new_point_scores()])


def _intercept():
    B = 2
    b = [B ** 2 * sum(A3[i][m] for i in range(3)) for m in range(3)]  # b_m = B^2 sum_i A_im
    v = [B * sum(A3[i][m] for i in range(3)) for m in range(3)]       # the constant feature's weights v_m
    return np.array([float(x) for x in b] + [float(sum(F(1, 2) * x * x for x in v))])


#: Problem 09.4's sizes
N4, D4, K4 = 10_000, 50, 10


def _block_cost():
    n, d, k = N4, D4, K4
    linear = k * d + k * d  # the scores W x_i, then W += c x_i'
    cached = n * k          # s_i read from S; S += K[:, i] c'
    computed = n * k + n * d  # ... and the kernel row K[i, :] first (n squared distances of length d)
    return np.array([linear, cached, computed, 8 * n * n], dtype=float)


#: Problem 09.5: the 'kernel' (x z - 1)^2 on three numbers
X5 = (0, 1, -1)


def _not_psd():
    K = sp.Matrix(3, 3, lambda i, j: (X5[i] * X5[j] - 1) ** 2)
    with_B = K + sp.ones(3, 3)  # B = 1: K + B^2
    smallest = min(K.eigenvals())
    smallest_B = min(with_B.eigenvals())
    return np.array([float(K[1, 1]), float(smallest), float(smallest_B)])


def _gamma_limit():
    # gamma -> infinity: K -> I (k(x_i, x_i) = 1, k(x_i, x_j) -> 0), so each sample's block stands alone with
    # q_i = 1.  Crammer-Singer (k = 3, C = 1) on one sample of class 0: minimise
    # 1/2 sum_m (alpha^m)^2 + alpha^1 + alpha^2 subject to sum_m alpha^m = 0 (then check the bounds).
    a0, a1, a2, nu = sp.symbols("a0 a1 a2 nu", real=True)
    f = sp.Rational(1, 2) * (a0 ** 2 + a1 ** 2 + a2 ** 2) + a1 + a2
    sol = sp.solve([sp.diff(f + nu * (a0 + a1 + a2), v) for v in (a0, a1, a2)] + [a0 + a1 + a2],
                   [a0, a1, a2, nu], dict=True)[0]
    row = [sol[a0], sol[a1], sol[a2]]
    assert 0 <= row[0] <= 1 and row[1] <= 0 and row[2] <= 0  # inside the bounds: the optimum of the block
    # training scores S = K A = A: the own class wins on every sample iff row[0] > max(rivals)
    accuracy = 1.0 if row[0] > max(row[1], row[2]) else 0.0
    return np.array([float(row[0]), float(row[1]), accuracy])


PROBLEMS = (
    PenProblem(
        name="09.1", title="The representer form on three points: S = KA and the penalty <A, KA>", kind="compute",
        statement=(
            r"The three points of the course's worked example, now one per class: $x_1 = (0, 0)$ of class 0, "
            r"$x_2 = (2, 0)$ of class 1, $x_3 = (0, 2)$ of class 2. The kernel is $k(x, z) = (x^\top z + 1)^2$ "
            r"and a Crammer-Singer solver holds (row $i$ is sample $i$, column $m$ class $m$; $A = \alpha$ for "
            r"Crammer-Singer)" "\n\n"
            r"$$A = \begin{pmatrix} 1/2 & -1/4 & -1/4 \\ -1/8 & 1/8 & 0 \\ -1/8 & 0 & 1/8 \end{pmatrix}.$$" "\n\n"
            r"1. Check that $A$ is feasible for the Crammer-Singer dual with $C = 1$ (notebook 7's constraints)." "\n"
            r"2. Compute the Gram matrix $K$ and the training scores $S = KA$. Which class does each training "
            r"point get?" "\n"
            r"3. Compute $\lVert W\rVert_F^2 = \langle A, KA\rangle = \sum_{i, m} A_{im} S_{im}$." "\n"
            r"4. Check one term in feature space: with $\phi(x) = (x_1^2,\ x_2^2,\ \sqrt2 x_1 x_2,\ \sqrt2 x_1,\ "
            r"\sqrt2 x_2,\ 1)$, show $\phi(x)^\top\phi(z) = (x^\top z + 1)^2$, form $w_0 = \sum_i A_{i0}\, "
            r"\phi(x_i)$ and compare $\lVert w_0\rVert^2$ with $(A^\top K A)_{00}$." "\n\n"
            r"*Hint.* $K$ has only two different values. A score is a sum over the rows of $A$: $S_{jm} = "
            r"\sum_i K_{ji} A_{im}$, row $j$ of $K$ against column $m$ of $A$." "\n\n"
            r"Answer: the scores of sample 2 and the penalty, `[S_20, S_21, S_22, ||W||_F^2]` (samples are "
            r"numbered from 1, classes from 0)."),
        solution=(
            r"1. Each row sums to 0; the own-class entries $1/2, 1/8, 1/8$ lie in $[0, C] = [0, 1]$; the rivals' "
            r"entries are $\le 0$. Feasible." "\n\n"
            r"2. $x_1^\top z = 0$ for every $z$ and $x_2^\top x_3 = 0$, so those entries are $(0 + 1)^2 = 1$; "
            r"$x_2^\top x_2 = x_3^\top x_3 = 4$ gives $25$: "
            r"$K = \begin{pmatrix} 1 & 1 & 1 \\ 1 & 25 & 1 \\ 1 & 1 & 25 \end{pmatrix}$. Then, column by column, "
            r"$S = KA = \begin{pmatrix} 1/4 & -1/8 & -1/8 \\ -11/4 & 23/8 & -1/8 \\ -11/4 & -1/8 & 23/8 "
            r"\end{pmatrix}$; for example $S_{20} = 1 \cdot \tfrac12 + 25 \cdot (-\tfrac18) + 1 \cdot (-\tfrac18) = "
            r"-\tfrac{11}4 = -2.75$, $S_{21} = -\tfrac14 + \tfrac{25}8 = \tfrac{23}8 = 2.875$, $S_{22} = -\tfrac14 + "
            r"\tfrac18 = -\tfrac18 = -0.125$. Each row's largest score is its own class: all three points are "
            r"classified right." "\n\n"
            r"3. Row by row, $\sum_m A_{im} S_{im}$: $\tfrac12 \cdot \tfrac14 + 2 \cdot \tfrac14 \cdot \tfrac18 = "
            r"\tfrac3{16}$; $\tfrac18 \cdot \tfrac{11}4 + \tfrac18 \cdot \tfrac{23}8 = \tfrac{45}{64}$; the same "
            r"for row 3. So $\lVert W\rVert_F^2 = \tfrac{12}{64} + \tfrac{90}{64} = \tfrac{51}{32} = 1.59375$ "
            r"(positive, as a squared norm must be)." "\n\n"
            r"4. $\phi(x)^\top\phi(z) = x_1^2 z_1^2 + x_2^2 z_2^2 + 2x_1x_2z_1z_2 + 2x_1z_1 + 2x_2z_2 + 1 = "
            r"(x_1z_1 + x_2z_2)^2 + 2x^\top z + 1 = (x^\top z + 1)^2$. $\phi(x_1) = (0,0,0,0,0,1)$, "
            r"$\phi(x_2) = (4, 0, 0, 2\sqrt2, 0, 1)$, $\phi(x_3) = (0, 4, 0, 0, 2\sqrt2, 1)$, so "
            r"$w_0 = \tfrac12\phi(x_1) - \tfrac18\phi(x_2) - \tfrac18\phi(x_3) = (-\tfrac12, -\tfrac12, 0, "
            r"-\tfrac{\sqrt2}4, -\tfrac{\sqrt2}4, \tfrac14)$ and $\lVert w_0\rVert^2 = \tfrac14 + \tfrac14 + "
            r"\tfrac18 + \tfrac18 + \tfrac1{16} = \tfrac{13}{16}$. The kernel side: $(A^\top KA)_{00} = "
            r"\sum_i A_{i0} S_{i0} = \tfrac12 \cdot \tfrac14 + 2 \cdot \tfrac18 \cdot \tfrac{11}4 = \tfrac{13}{16}$. "
            r"The same number, without ever forming $\phi$: that is the point of $\langle A, KA\rangle$."),
        answer=_representer, rtol=1e-9, atol=1e-12),
    PenProblem(
        name="09.2", title="Scoring a new point: a sum over the support vectors", kind="compute",
        statement=(
            r"Same points, kernel and $A$ as problem 09.1, no intercept." "\n\n"
            r"1. Compute the scores $s_m(z) = \sum_i A_{im}\, k(z, x_i)$ of the new point $z = (2, 1)$ and its "
            r"predicted class." "\n"
            r"2. Prove that for Crammer-Singer (and for Weston-Watkins, $A = -M\alpha$) the $k$ scores of *every* "
            r"point sum to 0. Check it on your three numbers." "\n"
            r"3. Suppose a later solver step leaves row 3 of $A$ at zero. Which kernel values does scoring a new "
            r"point need then? With $n_{\rm SV}$ support vectors in $d$ dimensions and $k$ classes, what does one "
            r"new point cost, against $kd$ for a linear machine?" "\n\n"
            r"*Hint.* $k(z, x_1) = 1$ for every $z$, since $x_1 = 0$." "\n\n"
            r"Answer: `[s_0(z), s_1(z), s_2(z)]` for $z = (2, 1)$."),
        solution=(
            r"1. $k(z, x_1) = (0 + 1)^2 = 1$, $k(z, x_2) = (4 + 1)^2 = 25$, $k(z, x_3) = (2 + 1)^2 = 9$. So "
            r"$s_0 = \tfrac12 \cdot 1 - \tfrac18 \cdot 25 - \tfrac18 \cdot 9 = \tfrac12 - \tfrac{34}8 = -\tfrac{15}4 "
            r"= -3.75$, $s_1 = -\tfrac14 + \tfrac{25}8 = \tfrac{23}8 = 2.875$, $s_2 = -\tfrac14 + \tfrac98 = "
            r"\tfrac78 = 0.875$: class 1, the class of $x_2$, which has the larger kernel value with $z$ "
            r"($z^\top x_2 = 4$ against $z^\top x_3 = 2$)." "\n\n"
            r"2. $\sum_m s_m(z) = \sum_i k(z, x_i) \sum_m A_{im}$, and every row of $A$ sums to 0: for "
            r"Crammer-Singer $\sum_m \alpha_i^m = 0$ is a constraint of the dual; for Weston-Watkins "
            r"$\alpha_{iy_i} = -\sum_{j \ne y_i} \alpha_{ij}$ by definition, so the rows of $-M\alpha$ sum to 0 too. "
            r"Here $-\tfrac{15}4 + \tfrac{23}8 + \tfrac78 = -\tfrac{30}8 + \tfrac{30}8 = 0$. (So $w_0 + w_1 + w_2 = "
            r"0$: the machine never needs a constant added to every score.)" "\n\n"
            r"3. A zero row contributes nothing to any score, so only $x_1$ and $x_2$, the support vectors, enter: "
            r"two kernel values $k(z, x_1)$, $k(z, x_2)$. In general scoring costs $n_{\rm SV}$ kernel values, each "
            r"$O(d)$, and $n_{\rm SV} k$ multiply-adds to combine them: $O(n_{\rm SV}(d + k))$, against $O(kd)$ for "
            r"$Wz$. This is why a kernel machine's prediction time grows with its number of support vectors "
            r"(notebook 9's figure counts them), and why the fitted model keeps only the support rows of $A$."),
        answer=_new_point, rtol=1e-9, atol=1e-12),
    PenProblem(
        name="09.3", title="The intercept is B^2 added to the kernel", kind="derive",
        statement=(
            r"Append a constant feature $B > 0$ to the feature map: $\tilde\phi(x) = (\phi(x), B)$, and write "
            r"$\tilde w_m = (w_m, v_m)$." "\n\n"
            r"1. Show that $\tilde\phi(x)^\top\tilde\phi(z) = k(x, z) + B^2$ and that the score "
            r"$\tilde w_m^\top\tilde\phi(x) = w_m^\top\phi(x) + b_m$ with $b_m = B v_m$." "\n"
            r"2. From the representer form $\tilde w_m = \sum_i A_{im}\tilde\phi(x_i)$, derive "
            r"$b_m = B^2 \sum_i A_{im}$ and the penalty the intercept pays, $\tfrac12 v_m^2$, in terms of $b_m$ "
            r"and $B$." "\n"
            r"3. For the $A$ of problem 09.1 and $B = 2$: compute $b_0, b_1, b_2$ and $\tfrac12\sum_m v_m^2$." "\n"
            r"4. Notebook 4's SMO has a bias too. Name two differences between it and this intercept (what is "
            r"penalised, and what the dual gains or loses)." "\n\n"
            r"*Hint.* The last coordinate of $\sum_i A_{im}\tilde\phi(x_i)$ is $\sum_i A_{im} B$." "\n\n"
            r"Answer: `[b_0, b_1, b_2, 1/2 sum_m v_m^2]` for $B = 2$."),
        solution=(
            r"1. $\tilde\phi(x)^\top\tilde\phi(z) = \phi(x)^\top\phi(z) + B \cdot B = k(x, z) + B^2$, and "
            r"$\tilde w_m^\top\tilde\phi(x) = w_m^\top\phi(x) + v_m B$. So a machine with the kernel $k + B^2$ is "
            r"the machine with $k$ and an intercept $b_m = B v_m$: nothing else changes, every solver runs as "
            r"it is." "\n\n"
            r"2. The last coordinate of $\tilde w_m = \sum_i A_{im}\tilde\phi(x_i)$ is $v_m = B\sum_i A_{im}$, so "
            r"$b_m = B v_m = B^2 \sum_i A_{im}$. The penalty $\tfrac12\lVert\tilde w_m\rVert^2 = "
            r"\tfrac12\lVert w_m\rVert^2 + \tfrac12 v_m^2$ charges the intercept $\tfrac12 v_m^2 = "
            r"\tfrac12 b_m^2 / B^2$: a larger $B$ makes the same $b_m$ cheaper (LIBLINEAR's `intercept_scaling`)." "\n\n"
            r"3. The column sums of $A$ are $(\tfrac14, -\tfrac18, -\tfrac18)$, so with $B^2 = 4$: "
            r"$b = (1, -\tfrac12, -\tfrac12) = (1, -0.5, -0.5)$. $v = B \cdot (\tfrac14, -\tfrac18, -\tfrac18) = "
            r"(\tfrac12, -\tfrac14, -\tfrac14)$ and $\tfrac12\sum_m v_m^2 = \tfrac12(\tfrac14 + \tfrac1{16} + "
            r"\tfrac1{16}) = \tfrac3{16} = 0.1875$; the same as $\sum_m b_m^2 / (2B^2) = \tfrac32 / 8$. (The "
            r"intercepts sum to 0, as the scores of problem 09.2 do.)" "\n\n"
            r"4. SMO's bias is *not penalised*, and it enters the binary dual as the equality "
            r"$\sum_i y_i\alpha_i = 0$, which is why SMO must move two multipliers at a time. The intercept here is "
            r"penalised ($\tfrac12 b_m^2/B^2$), so the dual keeps its separate blocks, one per sample, with no "
            r"constraint across samples: the block solvers of notebooks 6 and 7 visit one sample at a time. The "
            r"price: the fitted $b_m$ is shrunk towards 0 (a small $B$ shrinks it more), so the two machines "
            r"differ slightly."),
        answer=_intercept, rtol=1e-9, atol=1e-12),
    PenProblem(
        name="09.4", title="What one block step costs, with a kernel and without", kind="compute",
        statement=(
            r"$n = 10{,}000$ training points in $d = 50$ dimensions, $k = 10$ classes. Count multiplications only: "
            r"a score vector $Wx_i$ costs $kd$; moving $W$ by $c\,x_i^\top$ costs $kd$; moving $S$ by "
            r"$K_{:i}\,c^\top$ costs $nk$; a row of the gaussian kernel costs $nd$ (the $n$ squared distances; ignore "
            r"the exponentials); reading a stored number and solving the block ($O(k\log k)$) cost nothing here." "\n\n"
            r"1. One visit of the linear solver: read $Wx_i$, solve the block, move $W$." "\n"
            r"2. One visit of the kernel solver when row $i$ of $K$ is in the cache: read $s_i = S_{i:}$, solve "
            r"the block, move $S$." "\n"
            r"3. The same visit when the row must be computed first." "\n"
            r"4. How many bytes would the full Gram matrix take in float64, against the solver's $\alpha$ and $S$? "
            r"For which $n$ does a cached kernel visit cost more than a linear one? What does an epoch (one visit "
            r"per sample) cost in each case?" "\n\n"
            r"Answer: `[linear visit, kernel visit with a cached row, kernel visit computing its row, bytes of K]`."),
        solution=(
            r"1. $kd + kd = 2kd = 2 \cdot 10 \cdot 50 = 1{,}000$." "\n\n"
            r"2. $s_i$ is read from $S$ (free); moving $S$ costs $nk = 10{,}000 \cdot 10 = 100{,}000$. Every "
            r"training score changes, because $w_m$ moved by $c_m\phi(x_i)$ and $\phi(x_i)$ is seen by every "
            r"point through $K_{ji}$." "\n\n"
            r"3. $nk + nd = 100{,}000 + 500{,}000 = 600{,}000$: computing the row dominates when $d > k$, which is "
            r"why LIBSVM and this library keep a cache of rows." "\n\n"
            r"4. $8n^2 = 8 \cdot 10^8 = 800{,}000{,}000$ bytes (800 MB) for $K$, against $2 \cdot 8nk = 1.6$ MB for "
            r"$\alpha$ and $S$: the solver never forms $K$. A cached kernel visit costs more than a linear one when "
            r"$nk > 2kd$, i.e. $n > 2d$ (here $n > 100$): almost always. An epoch costs $2nkd = 10^7$ "
            r"(linear), $n^2k = 10^9$ (kernel, every row cached) and $n^2(k + d) = 6 \cdot 10^9$ (no row "
            r"cached). The kernel buys curved boundaries with a factor $n/(2d)$ per visit; notebook 9's section 5 "
            r"and `benchmarks/` measure it."),
        answer=_block_cost, rtol=1e-9, atol=0.0),
    PenProblem(
        name="09.5", title="A 'kernel' that is not one: (xz - 1)^2, and the block's curvature", kind="prove",
        statement=(
            r"1. Prove that a true kernel, $k(x, z) = \phi(x)^\top\phi(z)$, gives a positive semidefinite Gram "
            r"matrix on any points, and deduce that $K_{ii} \ge 0$ and $\langle A, KA\rangle \ge 0$ for every "
            r"$n \times k$ matrix $A$." "\n"
            r"2. The polynomial formula with a negative constant, $k(x, z) = (xz - 1)^2$, on the three numbers "
            r"$x = 0, 1, -1$: write $K$, find a vector $a$ with $a^\top K a < 0$ and the smallest eigenvalue of $K$." "\n"
            r"3. Sample $i$'s block has curvature $q_i = K_{ii}$ (the $\lVert x_i\rVert^2$ of notebooks 6 and 7). "
            r"What is $q_i$ at $x = 1$, and what does that do to the block step (the block solvers divide by $q_i$ "
            r"or, Blondel's, by $\sqrt{q_i}$)?" "\n"
            r"4. With an intercept the curvature becomes $q_i = K_{ii} + B^2$. Take $B = 1$: is every $q_i$ "
            r"positive now? Is $K + B^2$ positive semidefinite? What does the library do when given this "
            r"kernel (`kernel='poly', degree=2, gamma=1, coef0=-1`)?" "\n\n"
            r"*Hint.* Try $a$ with $a_1 = 0$: two points with the same $K_{ii}$." "\n\n"
            r"Answer: `[q_i at x = 1 without intercept, smallest eigenvalue of K, smallest eigenvalue of K + B^2 "
            r"for B = 1]`."),
        solution=(
            r"1. $a^\top K a = \sum_{i,j} a_i a_j \phi(x_i)^\top\phi(x_j) = \lVert\sum_i a_i\phi(x_i)\rVert^2 \ge 0$. "
            r"With $a = e_i$: $K_{ii} \ge 0$. And $\langle A, KA\rangle = \sum_m A_{:m}^\top K A_{:m}$, a sum of "
            r"such forms ($= \lVert W\rVert_F^2$), is $\ge 0$." "\n\n"
            r"2. $K_{ij} = (x_ix_j - 1)^2$: $K = \begin{pmatrix} 1 & 1 & 1 \\ 1 & 0 & 4 \\ 1 & 4 & 0 \end{pmatrix}$ "
            r"(for $x = 1, -1$: $(1 \cdot (-1) - 1)^2 = 4$). With $a = (0, 1, -1)$: $a^\top K a = 0 + 0 - 2 \cdot 4 "
            r"= -8 < 0$: no feature map can give this $K$. $Ka = (0, -4, 4) = -4a$, so $-4$ is an eigenvalue; the "
            r"other two live on $(1, 0, 0)$ and $(0, 1, 1)$, where $K$ acts as $\begin{pmatrix} 1 & 2 \\ 1 & 4 "
            r"\end{pmatrix}$, with eigenvalues $(5 \pm \sqrt{17})/2 \approx 4.56, 0.44$. The smallest is $-4$." "\n\n"
            r"3. $q_i = (1 \cdot 1 - 1)^2 = 0$: the block problem has no quadratic term, so it is linear in "
            r"$\delta_i$ and its minimum sits at a corner of the (bounded) feasible set; the formulas "
            r"divide by $0$. A true kernel has $K_{ii} = \lVert\phi(x_i)\rVert^2 = 0$ only if $\phi(x_i) = 0$, a "
            r"point that scores 0 for every class and may be dropped; here $\phi$ does not exist." "\n\n"
            r"4. $q_i = K_{ii} + 1 \ge 1 > 0$ at every point: each block is strictly convex again. But $K + B^2 = "
            r"K + \mathbb 1\mathbb 1^\top$ and $\mathbb 1^\top a = 0$ for $a = (0, 1, -1)$, so $(K + B^2)a = Ka = "
            r"-4a$: the smallest eigenvalue is still $-4$. Positive curvature of every block does not make the "
            r"dual concave: the 'penalty' $\langle A, KA\rangle$ is negative for some $A$, the dual may have "
            r"several local maxima, and a block method can stop at one that is not the best; a zero violation "
            r"and a zero duality gap no longer certify anything, since no feature space, hence no primal, "
            r"stands behind the dual. The library "
            r"checks the eigenvalues of a polynomial kernel with `coef0 < 0` on the data and warns that the "
            r"matrix is not positive semidefinite (a `RuntimeWarning`)."),
        answer=_not_psd, rtol=1e-9, atol=1e-9),
    PenProblem(
        name="09.6", title="The regions as gamma grows", kind="predict",
        statement=(
            r"Crammer-Singer with the gaussian kernel $k(x, z) = \exp(-\gamma\lVert x - z\rVert^2)$, $C = 1$, "
            r"$k = 3$ classes, no intercept, on training points that are all distinct." "\n\n"
            r"1. *Predict first*, in words: as $\gamma$ grows, what happens to the three regions, to the training "
            r"accuracy and to the number of support vectors?" "\n"
            r"2. Now derive it. What does $K$ tend to as $\gamma \to \infty$? Show that the dual then splits into "
            r"$n$ separate one-sample problems with $q_i = 1$, and solve one (a sample of class 0; notebook 7's "
            r"KKT counterexample is the same problem)." "\n"
            r"3. Show that, for very large $\gamma$, a new point $z$ gets the class of its nearest training point "
            r"(the 1-nearest-neighbour rule). What do the regions look like?" "\n"
            r"4. Check with the explorer of notebook 9 (move gamma up) or a fit, e.g. "
            r"`MulticlassSVC(loss='cs', kernel='rbf', gamma=50, C=1, fit_intercept=False)` on well separated "
            r"points, and look at `alpha_`. Does Weston-Watkins ($M = 1$) give the same limit?" "\n\n"
            r"Answer: in the limit, `[A_i,y_i, A_i,m for a rival m, training accuracy]` for any sample $i$."),
        solution=(
            r"1. The regions break up into islands around the training points, the training accuracy goes to 1 "
            r"and every point becomes a support vector: a narrow kernel memorises." "\n\n"
            r"2. $k(x_i, x_i) = 1$ for every $\gamma$ and $k(x_i, x_j) = e^{-\gamma\lVert x_i - x_j\rVert^2} \to 0$ "
            r"for $x_i \ne x_j$, so $K \to I$. Then $\lVert W\rVert_F^2 = \langle A, A\rangle = \sum_i "
            r"\lVert A_{i:}\rVert^2$ and the dual is a sum of one term per sample: $n$ independent blocks, each "
            r"with $q_i = K_{ii} = 1$. One sample of class 0: minimise $\tfrac12\sum_m (\alpha^m)^2 + \alpha^1 + "
            r"\alpha^2$ with $\sum_m \alpha^m = 0$. With a multiplier $\nu$: $\alpha^0 + \nu = 0$, "
            r"$\alpha^1 + 1 + \nu = 0$, $\alpha^2 + 1 + \nu = 0$, and the sum gives $2 + 3\nu = 0$, so "
            r"$\nu = -\tfrac23$ and $\alpha = (\tfrac23, -\tfrac13, -\tfrac13)$, inside the bounds ($\tfrac23 \le C$, "
            r"rivals $\le 0$): the optimum. In general $A_{iy_i} = (k-1)/k$ and $-1/k$ for each rival; here "
            r"$0.6667$ and $-0.3333$. The training scores $S = KA = A$ put the own class first: training accuracy "
            r"$1$, and every row of $A$ is nonzero: every point is a support vector." "\n\n"
            r"3. $s_m(z) = \sum_i A_{im} e^{-\gamma\lVert z - x_i\rVert^2}$. If $x_j$ is the nearest training point, "
            r"every other term is smaller by a factor $e^{-\gamma(\lVert z - x_i\rVert^2 - \lVert z - x_j\rVert^2)} "
            r"\to 0$, so the sign pattern of row $j$ decides: $\tfrac23 e^{-\gamma\lVert z - x_j\rVert^2}$ for "
            r"$y_j$ against $-\tfrac13 e^{-\gamma\lVert z - x_j\rVert^2}$ for the others. The class of the nearest "
            r"training point wins: the regions become the Voronoi cells of the training points, coloured by "
            r"class (the 1-nearest-neighbour rule). In floating point, far from every point all scores underflow "
            r"to 0 and the argmax falls back to class 0: large $\gamma$ also paints the empty plane one colour." "\n\n"
            r"4. A fit with $\gamma = 50$ on points at least $1$ apart has $K = I$ up to $e^{-50}$, and its "
            r"`alpha_` rows hold $\tfrac23$ at the own class and $-\tfrac13$ at the two rivals. Weston-Watkins "
            r"with $M = 1$: each rival's $\alpha_{ij} = t$ maximises $2t - \tfrac12(4t^2 + 2t^2)$, so $t = \tfrac13$ "
            r"and $A = -\alpha = (\tfrac23, -\tfrac13, -\tfrac13)$ too (in general $t = 1/(kM^2)$): both machines "
            r"end as the same nearest-neighbour rule."),
        answer=_gamma_limit, rtol=1e-9, atol=1e-9),
)
