"""Problems of notebook 08 (at scale: the relative gap, reductions against single machines, the missing bias).

Classes 0..k-1, W k x d (row m is w_m), f(x) = w'x + b for a binary model (b = 0 where it has none).  Answers
are computed by counting, by a one-dimensional minimisation, by SymPy, or by plain loops over the definitions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from . import PenProblem

X1D = np.array([1.0, 2.0, 3.0, 4.0])
Y1D = np.array([-1.0, -1.0, 1.0, 1.0])
W3 = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
X3 = np.array([[1.0, 0.5], [0.0, 1.0], [-1.0, 2.0]])
Y3 = np.array([0, 2, 1])


def _gaps():
    # (P - D) / |P| in exact fractions, for the two pairs of the statement
    return [float((P - D) / abs(P)) for P, D in ((Fraction(25, 2), Fraction(12)),
                                                   (Fraction(3), Fraction(300003, 100000)))]


def _kernel_evaluations():
    # count the entries of every Gram matrix each method forms, class by class (n = 1000, k = 10, 100 per class)
    sizes = [100] * 10
    n = sum(sizes)
    one_vs_rest = sum(n * n for _ in sizes)  # each "class m against the rest" problem uses all n points
    one_vs_one = sum((sizes[a] + sizes[b]) ** 2 for a in range(10) for b in range(a + 1, 10))
    single = n * n
    return [one_vs_rest, one_vs_one, single]


def _one_d_weights():
    # min_w 1/2 w^2 + sum_i max(0, 1 - y_i w x_i) (no bias, C = 1), on the raw and on the centred x
    from scipy.optimize import minimize_scalar

    out = []
    for x in (X1D, X1D - X1D.mean()):
        P = lambda w, x=x: 0.5 * w * w + float(np.maximum(0.0, 1.0 - Y1D * w * x).sum())  # noqa: E731
        out.append(minimize_scalar(P, bounds=(-10.0, 10.0), method="bounded", options={"xatol": 1e-12}).x)
    return out


def _two_class_C():
    # k = 2: with d = w_1 - w_0 fixed, the smallest ||w_0||^2 + ||w_1||^2 (SymPy); the binary problem in
    # v = M d then has C' = C / (coefficient of ||v||^2 / 2 in the regulariser)
    import sympy as sp

    w0, d = sp.symbols("w0 d", real=True)
    reg = sp.Rational(1, 2) * (w0 ** 2 + (w0 + d) ** 2)  # 1/2 (||w_0||^2 + ||w_1||^2), w_1 = w_0 + d (one coordinate)
    best = sp.simplify(reg.subs(w0, sp.solve(sp.diff(reg, w0), w0)[0]))  # = d^2 / 4
    out = []
    for M in (sp.Rational(1, 2), sp.Integer(1)):  # Weston-Watkins with M = 1/2; Crammer-Singer is M = 1
        v = sp.symbols("v", real=True)
        coef = sp.simplify(best.subs(d, v / M) / (v ** 2 / 2))  # regulariser = coef * 1/2 v^2
        out.append(float(1 / coef))  # dividing the objective by coef: 1/2 v^2 + (C / coef) sum hinge, C = 1
    return out


def _primals():
    # the two primal objectives by plain loops over the definitions (M = 1, C = 1)
    S = X3 @ W3.T
    ww = cs = 0.0
    for i, y in enumerate(Y3):
        rivals = [m for m in range(3) if m != y]
        ww += sum(max(0.0, 1.0 - (S[i, y] - S[i, m])) for m in rivals)
        cs += max(0.0, 1.0 + max(S[i, m] for m in rivals) - S[i, y])
    half_norm = 0.5 * float(np.sum(W3 ** 2))
    return [half_norm + ww, half_norm + cs]


def _iris_bisector():
    # iris standardised (mean 0, population variance 1 per feature); the bisector of the versicolor (1) and
    # virginica (2) class means: its distance to the origin, and half the distance between the two means
    from svmteach import data

    X, y = data.iris()
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    mu1, mu2 = Z[y == 1].mean(axis=0), Z[y == 2].mean(axis=0)
    normal = (mu2 - mu1) / np.linalg.norm(mu2 - mu1)
    return [abs(float(normal @ (mu1 + mu2))) / 2, float(np.linalg.norm(mu2 - mu1)) / 2]


PROBLEMS = (
    PenProblem(
        name="08.1", title="The relative duality gap, and when it is defined", kind="compute",
        statement=(
            r"The solvers stop on the relative gap $(P - D)/|P|$." "\n\n"
            r"1. Compute it for $P = 12.5$, $D = 12$." "\n"
            r"2. Compute it for $P = 3$, $D = 3.00003$. Weak duality says $D \le P$ at feasible points: what "
            r"does a negative gap of this size tell you, and what would one of size $10^{-15}$ tell you?" "\n"
            r"3. Prove that $P > 0$ at *every* point of a two-class problem, with or without a bias (binary: "
            r"$P(w, b) = \tfrac12\|w\|^2 + C\sum_i \max(0, 1 - y_i(w^\top x_i + b))$), and for the multiclass "
            r"problems without bias. Why does that make the relative gap safe to compute?" "\n"
            r"4. A function `relative_gap(P, D)` must still return something for $P = 0$. What should it "
            r"return for $D = 0$, and for $D \ne 0$? Why must it never return 0 in the second case?" "\n\n"
            r"Answer: the gaps of parts 1 and 2, `[gap_1, gap_2]`."),
        solution=(
            r"1. $(12.5 - 12)/12.5 = 0.04$." "\n\n"
            r"2. $(3 - 3.00003)/3 = -0.00001 = -10^{-5}$. At a feasible $\alpha$ with its own $w$, weak duality "
            r"gives $D \le P$ exactly; in floating point the two are computed with a rounding error of a few "
            r"units of $10^{-16}$ times the magnitudes summed (the library bounds it: "
            r"`objectives.gap_rounding`). A gap of $-10^{-15}$ is rounding: the run has converged as far as "
            r"float64 can tell. A gap of $-10^{-5}$ is far above rounding: something is wrong (an infeasible "
            r"$\alpha$, a $w$ that is not the one $\alpha$ defines, a wrong sign or factor in $P$ or $D$)." "\n\n"
            r"3. Binary: if $w \ne 0$, $\tfrac12\|w\|^2 > 0$. If $w = 0$, the hinges are "
            r"$\max(0, 1 - y_i b)$; with a point of each class one of them is $\max(0, 1 - b)$ and another "
            r"$\max(0, 1 + b)$, and $1 - b$ and $1 + b$ cannot both be $\le 0$. So some hinge is positive and "
            r"$P > 0$ (without a bias, $b = 0$: every hinge is 1). Multiclass without bias: if $W \ne 0$ the "
            r"norm is positive; if $W = 0$ every score is 0 and each sample's loss is $k - 1$ (Weston-Watkins, "
            r"$M$ any) or $1$ (Crammer-Singer). Hence $|P| = P > 0$ everywhere: the division is always defined, "
            r"and at the optimum $P^\star > 0$ sets the scale against which “small” is measured." "\n\n"
            r"4. $P = 0$ cannot come from a valid two-class problem (part 3); it means a degenerate input (one "
            r"class, or $C = 0$). For $P = D = 0$ the natural value is $0$ (nothing to close). For $P = 0 \ne D$ "
            r"the ratio is infinite: return $+\infty$ or $-\infty$ with the sign of $P - D$ (what "
            r"`svmteach.objectives.relative_gap` does). Returning 0 would tell the solver it had converged when "
            r"the primal and dual disagree: a stopping test `gap <= tol` would stop on a wrong answer."),
        answer=_gaps, rtol=1e-9, atol=1e-12),
    PenProblem(
        name="08.2", title="One-vs-rest, one-vs-one or one machine: kernel evaluations", kind="compute",
        statement=(
            r"A kernel SVM forms the Gram matrix of the points it is trained on. Take $n = 1000$ points in "
            r"$k = 10$ classes of 100 each, and count every entry $k(x_i, x_j)$ of a full Gram matrix (ignore "
            r"symmetry and caching)." "\n\n"
            r"1. One-vs-rest trains $k$ binary machines on all $n$ points each. How many kernel evaluations if "
            r"each forms its own Gram matrix?" "\n"
            r"2. One-vs-one trains $k(k-1)/2$ machines, each on the points of two classes. How many?" "\n"
            r"3. A single machine (Weston-Watkins or Crammer-Singer with a kernel) forms one Gram matrix on all "
            r"$n$ points. How many?" "\n"
            r"4. Give the general formulas in $n$ and $k$ (equal classes), and the ratio one-vs-rest / "
            r"one-vs-one. Which of the three could share one Gram matrix between its machines, and what does "
            r"that change?" "\n\n"
            r"Answer: `[one-vs-rest, one-vs-one, single machine]`."),
        solution=(
            r"1. $k \cdot n^2 = 10 \cdot 10^6 = 10^7$, i.e. 10,000,000." "\n\n"
            r"2. $\binom{10}{2} = 45$ machines on $2 \cdot 100 = 200$ points: $45 \cdot 200^2 = 1.8 \cdot 10^6$, "
            r"i.e. 1,800,000." "\n\n"
            r"3. $n^2 = 10^6$, i.e. 1,000,000." "\n\n"
            r"4. One-vs-rest $k n^2$; one-vs-one $\frac{k(k-1)}{2}\big(\frac{2n}{k}\big)^2 = \frac{2(k-1)}{k} n^2$ "
            r"(less than $2n^2$ for every $k$); single machine $n^2$. The ratio is $\frac{k^2}{2(k-1)}$, about "
            r"$k/2$: $100/18 \approx 5.6$ here. One-vs-rest trains every machine on the *same* $n$ points, so "
            r"its machines can share one Gram matrix (or one kernel-row cache): then it also needs only $n^2$. "
            r"One-vs-one's machines use different subsets: an entry whose two points are in two different "
            r"classes is needed by one machine only, an entry within one class by the $k - 1$ machines of that "
            r"class (computed once and shared, one-vs-one's count drops to $n^2$ as well). The "
            r"counts ignore what the solvers really evaluate (SMO computes kernel rows on demand) and "
            r"prediction, where one-vs-one evaluates the support vectors of all $k(k-1)/2$ machines."),
        answer=_kernel_evaluations, rtol=0.0, atol=0.5),
    PenProblem(
        name="08.3", title="What dropping the bias costs, in one dimension", kind="compute",
        statement=(
            r"Four points on a line: $x = 1, 2$ of class $-1$ and $x = 3, 4$ of class $+1$, and the soft-margin "
            r"SVM with $C = 1$." "\n\n"
            r"1. With a bias, $f(x) = wx + b$: give a separating $f$. Without a bias ($b = 0$): which labellings "
            r"can $f(x) = wx$ produce on these points, and what is the best training accuracy?" "\n"
            r"2. Without a bias, minimise $P(w) = \tfrac12 w^2 + \sum_i \max(0, 1 - y_i w x_i)$ by hand (it is "
            r"piecewise quadratic: find its pieces for $w \ge 0$)." "\n"
            r"3. Centre the data ($x - 2.5$) and minimise again, still without a bias. Accuracy?" "\n"
            r"4. The remedy of notebook 8 appends a constant feature, $\tilde x = (x, 1)$, which gives a bias "
            r"penalised with $w$: $\tfrac12(w^2 + b^2) + \sum_i \max(0, 1 - y_i(wx_i + b))$. Show that "
            r"$w = 8/17$, $b = -15/17$ is its minimiser (check the optimality condition, with a subgradient "
            r"at the one point on its margin). Accuracy?" "\n\n"
            r"Answer: `[w without bias on the raw x, w without bias on the centred x]`."),
        solution=(
            r"1. $f(x) = 2x - 5$ separates them (with margin: $y_i f(x_i) \ge 1$). Without a bias, every $x_i > 0$, "
            r"so $\operatorname{sign}(w x_i)$ is the same for all four points: either all $+1$ or all $-1$. The "
            r"best training accuracy is $2/4 = 0.5$." "\n\n"
            r"2. For $w \ge 0$ the negative points always pay $1 + w x_i$, in total $2 + 3w$. The positive points "
            r"pay $\max(0, 1 - 3w) + \max(0, 1 - 4w)$. On $[0, 1/4]$: $P = \tfrac12 w^2 + 4 - 4w$, decreasing "
            r"($P' = w - 4 < 0$). On $[1/4, 1/3]$: $P = \tfrac12 w^2 + 3$, increasing. Beyond $1/3$: "
            r"$P = \tfrac12 w^2 + 2 + 3w$, increasing. For $w < 0$ the positive points pay $2 + 7|w|$ and the negative points at least "
            r"$\max(0, 2 - 3|w|)$, so $P(w) > 4 = P(0)$. So "
            r"$w^\star = 1/4 = 0.25$ and $P^\star = 1/32 + 3 = 97/32$, accuracy $0.5$ (all predicted $+1$): the "
            r"optimum sits at the kink where the point $x = 4$ reaches its margin." "\n\n"
            r"3. $x - 2.5 = (-1.5, -0.5, 0.5, 1.5)$ and now $y_i x_i > 0$ for all four. For $w \in [2/3, 2]$: "
            r"the outer points pay $\max(0, 1 - 1.5w) = 0$ and the inner ones $2(1 - 0.5w)$: "
            r"$P = \tfrac12 w^2 + 2 - w$, minimal at $w = 1$ with $P = 1.5$ (and $P$ is larger on the other "
            r"pieces: on $[0, 2/3]$ its slope is $w - 4 < 0$, beyond 2 it is $\tfrac12 w^2 \ge 2$). So "
            r"$w^\star = 1$, accuracy $1$: centring puts the origin between the classes." "\n\n"
            r"4. At $w = 8/17$, $b = -15/17$: $y_i(wx_i + b) = 7/17, -1/17, 9/17, 1$ for $x = 1, 2, 3, 4$. "
            r"The first three hinges are active (gradient $-y_i(x_i, 1)$ each), the point $x = 4$ sits at its "
            r"margin, contributing $-\theta(4, 1)$ for some $\theta \in [0, 1]$. Stationarity: "
            r"$w + (1 + 2 - 3) - 4\theta = 0$ and $b + (1 + 1 - 1) - \theta = 0$, i.e. $w = 4\theta$, "
            r"$b = \theta - 1$, and the margin condition $4w + b = 1$ gives $\theta = 2/17 \in [0, 1]$, hence "
            r"$w = 8/17 \approx 0.4706$, $b = -15/17 \approx -0.8824$, $P = 1/2 + 36/17 = 89/34$. The point "
            r"$x = 2$ is misclassified ($f(2) = 1/17 > 0$): accuracy $0.75$. The penalty $\tfrac12 b^2$ makes "
            r"the large bias $-2.5 w$ that this data needs expensive; a larger constant in $\tilde x$ makes it "
            r"cheaper (notebook 8, `intercept_scaling`)."),
        answer=_one_d_weights, rtol=1e-6, atol=1e-7),
    PenProblem(
        name="08.4", title="With two classes, both single machines are the binary SVM", kind="prove",
        statement=(
            r"Take $k = 2$ classes (0 and 1), no bias, and label class 1 as $\tilde y = +1$, class 0 as "
            r"$\tilde y = -1$." "\n\n"
            r"1. Show that the Weston-Watkins hinge of sample $i$ is $\max(0, 1 - \tilde y_i M (w_1 - w_0)^\top "
            r"x_i)$ and that the Crammer-Singer loss is the same with $M = 1$." "\n"
            r"2. For a fixed difference $d = w_1 - w_0$, minimise $\|w_0\|^2 + \|w_1\|^2$. Why does the optimum "
            r"of either machine satisfy $w_0 = -w_1$?" "\n"
            r"3. Deduce that Weston-Watkins with $(M, C)$ is the binary SVM (no bias) with $v = M(w_1 - w_0)$ and "
            r"$C' = 2M^2 C$, and Crammer-Singer with $C$ is the binary SVM with $C' = 2C$." "\n"
            r"4. Shark's $M = \tfrac12$ at $C = 1$, and Crammer-Singer at $C = 1$: which binary $C'$?" "\n\n"
            r"Answer: `[C' for Weston-Watkins with M = 1/2, C = 1, C' for Crammer-Singer with C = 1]`."),
        solution=(
            r"1. With $k = 2$ the only rival of class 0 is 1 and vice versa. For $y_i = 1$: "
            r"$1 - M(w_1 - w_0)^\top x_i = 1 - \tilde y_i M d^\top x_i$; for $y_i = 0$: $1 - M(w_0 - w_1)^\top x_i "
            r"= 1 - \tilde y_i M d^\top x_i$. Crammer-Singer: $1 + \max_{m \ne y_i} w_m^\top x_i - "
            r"w_{y_i}^\top x_i = 1 - (w_{y_i} - w_{\rm other})^\top x_i$, the $M = 1$ case." "\n\n"
            r"2. With $w_1 = w_0 + d$: $\|w_0\|^2 + \|w_0 + d\|^2$ has gradient $2w_0 + 2(w_0 + d) = 0$ at "
            r"$w_0 = -d/2$, $w_1 = d/2$, with value $\|d\|^2/2$. The loss depends on $W$ only through $d$, so "
            r"at an optimum the norm must be the smallest one for its $d$: $w_0 = -w_1$. (In the duals: the rows "
            r"of $\alpha$ sum to 0, so $w_0 + w_1 = 0$.)" "\n\n"
            r"3. The primal becomes $\tfrac12 \cdot \tfrac12 \|d\|^2 + C \sum_i \max(0, 1 - \tilde y_i M d^\top x_i)$. "
            r"With $v = M d$: $\frac{1}{4M^2}\|v\|^2 + C \sum_i \max(0, 1 - \tilde y_i v^\top x_i) = "
            r"\frac{1}{2M^2}\Big(\tfrac12 \|v\|^2 + 2M^2 C \sum_i \max(0, 1 - \tilde y_i v^\top x_i)\Big)$, the "
            r"binary objective with $C' = 2M^2C$ times a positive constant: same minimiser $v$. Crammer-Singer is "
            r"$M = 1$: $C' = 2C$." "\n\n"
            r"4. $2 \cdot \tfrac14 \cdot 1 = 0.5$ for Shark's Weston-Watkins, $2$ for Crammer-Singer. "
            r"(Checked in the tests against scikit-learn's `LinearSVC` with the hinge loss and no intercept.)"),
        answer=_two_class_C, rtol=1e-9, atol=1e-12),
    PenProblem(
        name="08.5", title="Both multiclass primals on three samples", kind="compute",
        statement=(
            r"$k = 3$, $d = 2$, $C = 1$, $M = 1$, and the weights (row $m$ is $w_m$) "
            r"$W = \begin{pmatrix} 1 & 0 \\ 0 & 1 \\ -1 & -1 \end{pmatrix}$. The samples: $x_1 = (1, 0.5)$ of class "
            r"0, $x_2 = (0, 1)$ of class 2, $x_3 = (-1, 2)$ of class 1." "\n\n"
            r"1. Compute the scores $W x_i$." "\n"
            r"2. Compute each sample's Weston-Watkins loss $\sum_{j \ne y_i} \max(0, 1 - (w_{y_i} - w_j)^\top x_i)$ "
            r"and Crammer-Singer loss $\max(0, 1 + \max_{m \ne y_i} w_m^\top x_i - w_{y_i}^\top x_i)$, and both "
            r"primals $\tfrac12\|W\|_F^2 + C \sum_i \ell_i$." "\n"
            r"3. Prove that the Weston-Watkins loss is never smaller than the Crammer-Singer loss (with $M = 1$), "
            r"and say when they are equal. Which samples above show each case?" "\n\n"
            r"Answer: `[P_WW, P_CS]`."),
        solution=(
            r"1. $W x_1 = (1, 0.5, -1.5)$, $W x_2 = (0, 1, -1)$, $W x_3 = (-1, 2, -1)$." "\n\n"
            r"2. Sample 1 (class 0, score 1): rivals 1 and 2 give $\max(0, 1 - 0.5) = 0.5$ and "
            r"$\max(0, 1 - 2.5) = 0$: WW $0.5$; CS $\max(0, 1 + 0.5 - 1) = 0.5$. Sample 2 (class 2, score $-1$): "
            r"rivals 0 and 1 give $\max(0, 1 - (-1 - 0)) = 2$ and $\max(0, 1 - (-1 - 1)) = 3$: WW $5$; CS "
            r"$\max(0, 1 + 1 + 1) = 3$. Sample 3 (class 1, score 2): margins $3$ and $3$, WW $0$, CS "
            r"$\max(0, 1 - 1 - 2) = 0$. $\|W\|_F^2 = 1 + 1 + 2 = 4$. So $P_{\rm WW} = 2 + 5.5 = 7.5$ and "
            r"$P_{\rm CS} = 2 + 3.5 = 5.5$." "\n\n"
            r"3. The Crammer-Singer loss is $\max(0, 1 - \min_{m \ne y_i}(w_{y_i} - w_m)^\top x_i) = "
            r"\max_{m \ne y_i} \max(0, 1 - (w_{y_i} - w_m)^\top x_i)$, the largest of the Weston-Watkins hinges; a "
            r"sum of nonnegative terms is at least its largest term. Equality holds exactly when at most one "
            r"hinge is positive: samples 1 (one violating rival) and 3 (none); sample 2 has two violating rivals "
            r"and WW charges $5 > 3$."),
        answer=_primals, rtol=1e-12, atol=1e-12),
    PenProblem(
        name="08.6", title="Why the bias decides on iris: where the origin lies", kind="explain",
        statement=(
            r"Notebook 8 standardises iris (each feature to mean 0 and variance 1) and finds that every model "
            r"without a bias tests at about 0.80, every model with one at 0.91 to 1.00. Let $\mu_0, \mu_1, \mu_2$ "
            r"be the standardised class means of setosa, versicolor and virginica (50 flowers each)." "\n\n"
            r"1. Show that $\mu_0 + \mu_1 + \mu_2 = 0$, and deduce that the midpoint of $\mu_1$ and $\mu_2$ is "
            r"$-\mu_0 / 2$. Where does the origin lie relative to the three means?" "\n"
            r"2. A reasonable boundary between versicolor and virginica is the perpendicular bisector of "
            r"$\mu_1$ and $\mu_2$. Show that its distance to the origin is "
            r"$\big|\|\mu_2\|^2 - \|\mu_1\|^2\big| / (2\|\mu_2 - \mu_1\|)$." "\n"
            r"3. Compute that distance and half the distance between the two means, $\|\mu_2 - \mu_1\|/2$ (a "
            r"short script is fine for the means). Explain with these two numbers why a boundary through the "
            r"origin, in the direction of the bisector, misclassifies many versicolor flowers." "\n"
            r"4. Why does the constant feature of notebook 8 fix it?" "\n\n"
            r"Answer: `[distance from the origin to the bisector, half the distance between the means]`."),
        solution=(
            r"1. The standardised data has mean 0, and with equal class sizes the overall mean is the average of "
            r"the class means: $0 = \tfrac{1}{150}\sum_i z_i = \tfrac13(\mu_0 + \mu_1 + \mu_2)$. So "
            r"$(\mu_1 + \mu_2)/2 = -\mu_0/2$: the origin is the centroid of the triangle of the three means, and "
            r"since setosa is far from the others ($\|\mu_0\| \approx 2.24$ against $0.75$ and $1.75$), the origin "
            r"lies between setosa and the pair versicolor/virginica, not between versicolor and virginica." "\n\n"
            r"2. The bisector is $\{x : (\mu_2 - \mu_1)^\top x = (\|\mu_2\|^2 - \|\mu_1\|^2)/2\}$ (the points "
            r"equidistant from both means). By the distance formula of notebook 1, $|w^\top x_0 + b| / \|w\|$ "
            r"with $x_0 = 0$, $w = \mu_2 - \mu_1$, $b = -(\|\mu_2\|^2 - \|\mu_1\|^2)/2$, the distance is "
            r"$\big|\|\mu_2\|^2 - \|\mu_1\|^2\big| / (2\|\mu_2 - \mu_1\|)$." "\n\n"
            r"3. On iris: the distance is about $0.8417$ and $\|\mu_2 - \mu_1\|/2 \approx 0.7471$. Along the "
            r"unit normal $u$ of the bisector, virginica's mean sits $0.7471$ beyond it, versicolor's mean "
            r"$0.7471$ before it, and the origin $0.8417$ before it: the origin is $0.8417 - 0.7471 \approx 0.09$ "
            r"*beyond versicolor's mean*, on the side away from virginica. A boundary through the origin with "
            r"the same direction therefore passes almost through versicolor's mean, and more than half of "
            r"the versicolor flowers (28 of 50) fall on virginica's side. Tilting the boundary cannot help much: it must still "
            r"pass through a point outside the gap between the two classes. Hence about 0.80 for every model "
            r"without a bias, whatever its loss." "\n\n"
            r"4. With $\tilde x = (x, 1)$ the score $w_m^\top x + b_m$ has a bias, so the boundary "
            r"$(w_1 - w_2)^\top x + (b_1 - b_2) = 0$ can sit anywhere, in particular near the bisector. The bias "
            r"is penalised ($\tfrac12 b_m^2$), but a bias of this size is cheap next to the hinge losses it "
            r"removes: the accuracies rise to 0.91 to 1.00."),
        answer=_iris_bisector, rtol=1e-6, atol=1e-9),
)
