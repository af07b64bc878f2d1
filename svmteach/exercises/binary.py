"""Exercises of notebooks 01 to 04: the hinge loss, its subgradient, the KKT table, the dual, the
coordinate step of dual coordinate ascent and SMO's pair step.

Each reference solution is plain NumPy and self-contained (the solutions copy of the course pastes
its source into the notebook).  Cases come from small random instances and from the states of the
library's own solvers on small problems (``iterate`` records every step), plus the edge cases
that matter for each step.
"""

from __future__ import annotations

import functools

import numpy as np

from .core import Case, Exercise, Mistake, agree, relative, watch, watch_report

# ---- shared small problems ------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def blobs(n=30, seed=3, C=1.0, zero_row=False):
    """A small linear two-class problem of the course (``data.overlapping_blobs``), optionally with a zero row."""
    from .. import data

    X, y = data.overlapping_blobs(n, seed=seed)
    X = np.array(X, dtype=np.float64)
    if zero_row:
        X[0] = 0.0
    return X, np.array(y, dtype=np.float64), float(C)


def _problem(X, y, C, kernel="linear", **kw):
    from .. import BinaryProblem

    return BinaryProblem(X, y, C=C, kernel=kernel, **kw)


@functools.lru_cache(maxsize=None)
def optimum(n=30, seed=3, C=1.0):
    """``(X, y, C, alpha, b, primal, dual)`` of the library's SMO on :func:`blobs` to a gap of 1e-12."""
    from .. import SMO, solve

    X, y, C = blobs(n, seed, C)
    r = solve(SMO(), _problem(X, y, C), tol=1e-12, max_iter=200_000)
    return X, y, C, np.array(r.state.alpha, dtype=np.float64), float(r.state.b), float(r.primal), float(r.dual)


# ---- 01: the hinge loss ---------------------------------------------------------------------------


def hinge_losses(w, b, X, y):
    """Hinge loss of every point, max(0, 1 - y_i (w'x_i + b)); shape (n,)."""
    margins = y * (X @ w + b)  # y_i f(x_i)
    return np.maximum(0.0, 1.0 - margins)


def _hinge_cases():
    rng = np.random.default_rng(101)
    cases = []
    for t in range(6):
        n, d = rng.integers(3, 8), rng.integers(1, 4)
        X = rng.normal(size=(n, d))
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        cases.append(Case(f"random points, n = {n}, d = {d}",
                          dict(w=rng.normal(size=d), b=float(rng.normal()), X=X, y=y)))
    X = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, -1.0], [3.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    cases.insert(1, Case("a point on the margin, one beyond it, two on the wrong side",
                         dict(w=np.array([1.0, -0.5]), b=0.0, X=X, y=y)))
    cases.insert(2, Case("w = 0 and b = 0: every loss is 1", dict(w=np.zeros(2), b=0.0, X=X, y=y)))
    cases.append(Case("the bias alone decides", dict(w=np.zeros(2), b=2.0, X=X, y=y),
                      hint="f(x) = w'x + b: did you leave out b?"))
    return cases


def _hinge_drive(fn):
    X, y, C, alpha, b, P, _ = optimum()
    w = X.T @ (alpha * y)
    mine = np.asarray(fn(w, b, X, y), dtype=np.float64)
    P_mine = 0.5 * float(w @ w) + C * float(mine.sum())
    ok = relative(P_mine, P) < 1e-9
    return ok, (f"with your losses the primal at SMO's optimum (notebook 4's 30 blobs, C = {C:g}) is "
                f"P = {P_mine:.10g}; the solver reports P = {P:.10g}" + ("" if ok else ": they differ"))


HINGE_LOSSES = Exercise(
    name="hinge_losses", notebook="01", title="The hinge loss of every point",
    nudge="the margin y_i f(x_i) decides: from which margin on is the loss 0, how does it grow below?",
    signature="hinge_losses(w, b, X, y) -> array of shape (n,)",
    intro=(r"Write `hinge_losses(w, b, X, y)`: the loss $\max(0,\, 1 - y_i (w^\top x_i + b))$ of every point, an "
           r"array of shape $(n,)$. It is $0$ on or beyond the margin and grows linearly inside it."),
    equation="loss_i = max(0, 1 - y_i f(x_i)) with f(x) = w'x + b: 0 where the margin y_i f(x_i) is at least 1",
    reference=hinge_losses, cases=_hinge_cases, output="array",
    mistakes=(
        Mistake(lambda w, b, X, y: 1.0 - y * (X @ w + b),
                "some of your losses are negative: a point beyond its margin has loss 0, not a negative loss"),
        Mistake(lambda w, b, X, y: np.maximum(0.0, 1.0 + y * (X @ w + b)),
                "your loss grows for well-classified points: it is 1 MINUS the margin y_i f(x_i)"),
        Mistake(lambda w, b, X, y: np.maximum(0.0, 1.0 - y * (X @ w)),
                "your losses ignore b: f(x) = w'x + b, the bias belongs inside the margin"),
        Mistake(lambda w, b, X, y: np.maximum(0.0, 1.0 - (X @ w + b)),
                "your losses ignore the labels: the margin is y_i f(x_i), the score times the label"),
        Mistake(lambda w, b, X, y: np.maximum(0.0, 2.0 - y * (X @ w + b)),
                "your hinge starts at margin 2: the loss is max(0, 1 - y_i f(x_i)), 0 from margin 1 on (on the "
                "margin itself)"),
    ),
    drive=_hinge_drive,
)


# ---- 01: its subgradient --------------------------------------------------------------------------


def hinge_subgradient(w, X, y, C):
    """A subgradient of P(w) = 1/2 ||w||^2 + C sum_i max(0, 1 - y_i w'x_i) (no bias); shape (d,).

    The points with margin < 1 (strictly) contribute -C y_i x_i; a point exactly on the margin
    contributes 0, as in the course's Algorithm 1.
    """
    active = y * (X @ w) < 1.0  # the points whose hinge is on its sloped part
    return w - C * (X[active].T @ y[active])


def _subgradient_cases():
    rng = np.random.default_rng(102)
    cases = []
    for t in range(6):
        n, d = rng.integers(3, 9), rng.integers(1, 4)
        cases.append(Case(f"random points, n = {n}, d = {d}",
                          dict(w=rng.normal(size=d), X=rng.normal(size=(n, d)),
                               y=np.where(rng.random(n) < 0.5, -1.0, 1.0), C=float(rng.choice([0.1, 1.0, 10.0])))))
    X = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, -1.0], [0.0, 0.0]])
    y = np.array([1.0, -1.0, -1.0, 1.0])
    w = np.array([0.5, 0.5])  # margins 1, -1, 0.5, 0: the first point sits exactly on the margin
    cases.insert(1, Case("a point exactly on the margin (y_i w'x_i = 1), and a zero row",
                         dict(w=w, X=X, y=y, C=1.0),
                         hint="a point with margin exactly 1 sits at its hinge's kink: it may add anything from "
                              "-C y_i x_i (counted) to 0 (left out), but nothing outside that segment"))
    cases.insert(2, Case("w = 0: every point is active", dict(w=np.zeros(2), X=X, y=y, C=2.0)))
    cases.append(Case("every margin above 1: only the regulariser remains",
                      dict(w=np.array([4.0, 4.0]), X=X[:2] * [[1, 1], [-1, 1]], y=np.array([1.0, 1.0]), C=1.0)))
    return cases


def _hinge_subgradient_accept(inputs, value, expected):
    """Another right subgradient: a point exactly on its margin (y_i w'x_i = 1) sits at the hinge's kink, where the
    subdifferential of C max(0, 1 - y_i w'x_i) is the whole segment {-theta C y_i x_i : 0 <= theta <= 1}; the
    reference takes theta = 0, and any theta in [0, 1] for each such point is as right (a bounded least-squares fit
    of the thetas decides)."""
    from scipy.optimize import lsq_linear

    w, X, y, C = inputs.values()
    margins = y * (X @ w)
    on = np.abs(margins - 1.0) <= 1e-9  # at the kink, up to rounding
    if not on.any():
        return False
    base = w - C * (X[(margins < 1.0) & ~on].T @ y[(margins < 1.0) & ~on])  # the sloped hinges, theta = 1
    A = -C * (X[on] * y[on, None]).T  # (d, points at the kink): column i is -C y_i x_i
    theta = lsq_linear(A, np.asarray(value, dtype=np.float64) - base, bounds=(0.0, 1.0)).x
    return agree("array", value, base + A @ theta)


def _subgradient_drive(fn, steps=200):
    """Subgradient descent w <- w - g(w) / (t + 1) with ``fn``, each call checked at the w the run reached."""
    from .. import PrimalSubgradient, iterate

    X, y, C = blobs()
    watched, record = watch(fn, hinge_subgradient, "array", _hinge_subgradient_accept)
    w = np.zeros(X.shape[1])
    for t in range(steps - 1):
        w = w - (1.0 / (t + 1)) * np.asarray(watched(w, X, y, C), dtype=np.float64)
    wrong = watch_report(record, "step")
    if wrong:
        return False, wrong
    problem = _problem(X, y, C)
    library = np.asarray(list(iterate(PrimalSubgradient("1/t"), problem, max_iter=steps - 1))[-1].w)

    def P(v):
        return 0.5 * float(v @ v) + C * float(np.maximum(0.0, 1.0 - y * (X @ v)).sum())

    return True, (f"your subgradient was right at every one of {steps - 1} steps of subgradient descent "
                  f"(step 1/t): P = {P(w):.6g} at the end, as with PrimalSubgradient(step_size='1/t') "
                  f"(P = {P(library):.6g}), against the optimum P* = {optimum()[5]:.6g} (subgradient descent is slow)")


HINGE_SUBGRADIENT = Exercise(
    name="hinge_subgradient", notebook="01", title="A subgradient of the primal",
    nudge=("differentiate the terms one by one: the regulariser, then each hinge on the side of its kink "
           "where its point sits (which side is flat?)"),
    signature="hinge_subgradient(w, X, y, C) -> array of shape (d,)",
    intro=(r"**Derive, then write.** Take $P(w) = \tfrac12 \|w\|^2 + C \sum_i \max(0,\, 1 - y_i w^\top x_i)$ (no "
           r"bias: $b = 0$). Differentiate it term by term where it is differentiable: the regulariser, a hinge whose "
           r"point has $y_i w^\top x_i < 1$, and one whose point has $y_i w^\top x_i > 1$. At a kink, "
           r"$y_i w^\top x_i = 1$, the hinge has two one-sided slopes: which vectors are subgradients there? Then write "
           r"`hinge_subgradient(w, X, y, C)` returning one subgradient of $P$ at $w$, shape $(d,)$; at a kink any "
           r"valid choice is accepted (the solver above takes the flat side). Once your function is right, the check "
           r"runs subgradient descent with it and checks it at every step."),
    equation=("g(w) = w - C * (sum of y_i x_i over the points with y_i w'x_i < 1): the regulariser gives w, each "
              "hinge on its sloped part gives -C y_i x_i, a hinge past its kink gives 0, and one exactly at its kink "
              "anything between the two"),
    kind="derive",
    reference=hinge_subgradient, cases=_subgradient_cases, output="array", accept=_hinge_subgradient_accept,
    mistakes=(
        Mistake(lambda w, X, y, C: -C * (X[y * (X @ w) < 1].T @ y[y * (X @ w) < 1]),
                "the regulariser 1/2 ||w||^2 is missing from your subgradient: it contributes w"),
        Mistake(lambda w, X, y, C: w + C * (X[y * (X @ w) < 1].T @ y[y * (X @ w) < 1]),
                "the hinges' part has the wrong sign: the derivative of 1 - y_i w'x_i in w is -y_i x_i"),
        Mistake(lambda w, X, y, C: w - (X[y * (X @ w) < 1].T @ y[y * (X @ w) < 1]),
                "the hinges' part is off by the factor C: every hinge is multiplied by C"),
    ),
    drive=_subgradient_drive,
)


# ---- 02: the KKT table ----------------------------------------------------------------------------

KKT_CHOICES = ("zero", "free", "bound", "violated")


def kkt_category(alpha_i, margin_i, C, tol):
    """The KKT category of a point from its multiplier and its margin y_i f(x_i).

    "zero" (alpha_i = 0, margin >= 1), "free" (0 < alpha_i < C, margin = 1), "bound" (alpha_i = C,
    margin <= 1), each up to ``tol`` (alpha relative to C, the margin absolutely); "violated"
    when the margin breaks its category's condition.
    """
    if alpha_i <= tol * C:
        return "zero" if margin_i >= 1.0 - tol else "violated"
    if alpha_i >= C - tol * C:
        return "bound" if margin_i <= 1.0 + tol else "violated"
    return "free" if abs(margin_i - 1.0) <= tol else "violated"


@functools.lru_cache(maxsize=None)
def _gaussian_optimum():
    from .. import SMO, data, solve

    X, y = data.overlapping_blobs(60, seed=1)
    problem = _problem(np.asarray(X, dtype=float), np.asarray(y, dtype=float), 1.0, "gaussian", gamma=0.5)
    r = solve(SMO(), problem, tol=1e-12, max_iter=200_000)
    alpha = np.array(r.state.alpha, dtype=np.float64)
    f = problem.gram @ (alpha * problem.y) + r.state.b
    return alpha, np.asarray(problem.y) * f, 1.0


def _kkt_cases():
    alpha, margins, C = _gaussian_optimum()
    cases = [
        Case("alpha = 0 beyond the margin", dict(alpha_i=0.0, margin_i=2.5, C=1.0, tol=1e-6)),
        Case("alpha = C on the wrong side", dict(alpha_i=1.0, margin_i=-0.4, C=1.0, tol=1e-6)),
        Case("a free point on its margin", dict(alpha_i=0.3, margin_i=1.0, C=1.0, tol=1e-6)),
        Case("alpha = 0 exactly ON the margin (allowed)", dict(alpha_i=0.0, margin_i=1.0, C=1.0, tol=1e-6),
             hint="alpha_i = 0 requires y_i f(x_i) >= 1, not > 1: a point on the margin may have alpha_i = 0"),
        Case("alpha = C exactly ON the margin (allowed)", dict(alpha_i=5.0, margin_i=1.0, C=5.0, tol=1e-6),
             hint="alpha_i = C requires y_i f(x_i) <= 1, not < 1"),
        Case("alpha = 0 inside the margin: violated", dict(alpha_i=0.0, margin_i=0.5, C=1.0, tol=1e-6)),
        Case("alpha = C beyond the margin: violated", dict(alpha_i=2.0, margin_i=1.7, C=2.0, tol=1e-6)),
        Case("a free point off its margin: violated", dict(alpha_i=0.4, margin_i=0.8, C=1.0, tol=1e-6)),
        Case("a free point off its margin, outside: violated", dict(alpha_i=0.4, margin_i=1.3, C=1.0, tol=1e-6)),
        Case("alpha within tol of C, margin within tol of 1",
             dict(alpha_i=10.0 - 1e-9, margin_i=1.0 + 1e-8, C=10.0, tol=1e-6),
             hint="compare with tolerances: alpha_i >= C - tol C counts as alpha_i = C, and the margin conditions "
                  "hold up to tol"),
        Case("alpha within tol of 0", dict(alpha_i=1e-9, margin_i=1.0 - 1e-8, C=1.0, tol=1e-6)),
    ]
    order = np.argsort(np.abs(margins - 1.0))  # the points nearest their margin first, then the rest
    for t in order[::4]:
        cases.append(Case(f"point {t} of notebook 2's solved gaussian problem",
                          dict(alpha_i=float(alpha[t]), margin_i=float(margins[t]), C=C, tol=1e-6)))
    return cases


def _kkt_drive(fn):
    alpha, margins, C = _gaussian_optimum()
    answers = [str(fn(float(a), float(m), C, 1e-6)).strip().lower() for a, m in zip(alpha, margins)]
    counts = {c: answers.count(c) for c in KKT_CHOICES}
    ok = counts["violated"] == 0
    return ok, ("on notebook 2's solved gaussian problem (60 points, C = 1) your function finds "
                f"{counts['zero']} points with alpha = 0, {counts['free']} free and {counts['bound']} at C, "
                f"and {counts['violated']} violations" + (": the solver's optimum satisfies the KKT conditions" if ok
                                                          else ": but SMO's optimum violates none"))


KKT_CATEGORY = Exercise(
    name="kkt_category", notebook="02", title="The KKT category of a point",
    nudge=("start from the two complementary-slackness products, alpha_i times the slack of the margin "
           "constraint and (C - alpha_i) times xi_i: each vanishes, and no slack is negative"),
    signature="kkt_category(alpha_i, margin_i, C, tol) -> 'zero' | 'free' | 'bound' | 'violated'",
    intro=(r"**Derive, then write.** With the slacks $\xi_i \ge 0$, complementary slackness says "
           r"$\alpha_i (y_i f(x_i) - 1 + \xi_i) = 0$ and $(C - \alpha_i)\, \xi_i = 0$ at the optimum. For each kind of "
           r"multiplier, $\alpha_i = 0$, $0 < \alpha_i < C$ and $\alpha_i = C$, work out what these force on the margin "
           r"$y_i f(x_i)$. Then write `kkt_category(alpha_i, margin_i, C, tol)`, with `margin_i` $= y_i f(x_i)$: "
           r"return `'zero'`, `'free'` or `'bound'` by the multiplier when the margin satisfies what you derived, and "
           r"`'violated'` when it does not. Compare up to `tol`: $\alpha_i \le \mathrm{tol}\, C$ counts as $0$, "
           r"$\alpha_i \ge C - \mathrm{tol}\, C$ as $C$, and each margin condition holds up to `tol`. Mind the "
           r"erratum above."),
    equation=("complementary slackness: alpha_i (y_i f(x_i) - 1 + xi_i) = 0 and (C - alpha_i) xi_i = 0 with xi_i >= 0, "
              "so alpha_i = 0 needs y_i f(x_i) >= 1, 0 < alpha_i < C needs y_i f(x_i) = 1, alpha_i = C needs "
              "y_i f(x_i) <= 1 (each up to tol)"),
    kind="derive",
    reference=kkt_category, cases=_kkt_cases, output="str", choices=KKT_CHOICES,
    mistakes=(
        Mistake(lambda a, m, C, tol: ("zero" if m > 1 else "violated") if a <= tol * C else
                ("bound" if m < 1 else "violated") if a >= C - tol * C else
                ("free" if abs(m - 1) <= tol else "violated"),
                "the MIT 9.520 notes print 'alpha = 0 <=> y f(x) > 1' and 'alpha = C <=> y f(x) < 1'; only the "
                "one-way statements hold: a point exactly on the margin may have any alpha in [0, C]"),
        Mistake(lambda a, m, C, tol: ("zero" if m <= 1 + tol else "violated") if a <= tol * C else
                ("bound" if m >= 1 - tol else "violated") if a >= C - tol * C else
                ("free" if abs(m - 1) <= tol else "violated"),
                "your conditions for alpha_i = 0 and alpha_i = C are swapped: which points may carry no weight, "
                "those beyond the margin or those inside it?"),
        Mistake(lambda a, m, C, tol: ("bound" if m >= 1 - tol else "violated") if a <= tol * C else
                ("zero" if m <= 1 + tol else "violated") if a >= C - tol * C else
                ("free" if abs(m - 1) <= tol else "violated"),
                "your names 'zero' and 'bound' are swapped: 'zero' is alpha_i = 0, 'bound' is alpha_i = C (at the "
                "bound of the box)"),
        Mistake(lambda a, m, C, tol: ("zero" if m >= 1 else "violated") if a == 0 else
                ("bound" if m <= 1 else "violated") if a == C else
                ("free" if m == 1 else "violated"),
                "you compared exactly: a solver's alpha and margins are right only up to rounding, compare with tol"),
    ),
    drive=_kkt_drive,
)


# ---- 02: the dual objective ----------------------------------------------------------------------


def dual_objective(alpha, y, K):
    """D(alpha) = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij."""
    v = alpha * y  # alpha_i y_i
    return float(np.sum(alpha) - 0.5 * v @ K @ v)


def _dual_cases():
    from .. import SMO, iterate

    rng = np.random.default_rng(103)
    X, y, C = blobs(12, seed=5)
    K = X @ X.T
    cases = [Case("alpha = 0", dict(alpha=np.zeros(len(y)), y=y, K=K))]
    for t in range(4):
        cases.append(Case(f"random alpha in [0, C], linear kernel, n = {len(y)}",
                          dict(alpha=rng.uniform(0, C, len(y)), y=y, K=K)))
    states = list(iterate(SMO("max_violating_pair"), _problem(X, y, C), max_iter=40))
    for s in states[3::9]:
        cases.append(Case(f"SMO's alpha after {s.n_iter} steps", dict(alpha=np.array(s.alpha), y=y, K=K)))
    Xg = rng.normal(size=(7, 2))
    Kg = np.exp(-0.5 * ((Xg[:, None, :] - Xg[None, :, :]) ** 2).sum(-1))
    yg = np.array([1.0, -1, 1, 1, -1, -1, 1])
    cases.append(Case("a gaussian kernel, n = 7", dict(alpha=rng.uniform(0, 2, 7), y=yg, K=Kg)))
    return cases


def _dual_drive(fn):
    X, y, C, alpha, b, P, D = optimum()
    mine = float(fn(alpha, y, X @ X.T))
    ok = relative(mine, D) < 1e-9
    return ok, (f"at SMO's optimum of notebook 4's 30 blobs your dual is D = {mine:.10g}; the primal there is "
                f"P = {P:.10g}: {'equal, strong duality' if ok else 'they should agree (strong duality)'}")


DUAL_OBJECTIVE = Exercise(
    name="dual_objective", notebook="02", title="The dual objective",
    nudge="two terms: the sum of the multipliers, and half a quadratic form whose matrix carries the labels",
    signature="dual_objective(alpha, y, K) -> float",
    intro=(r"Write `dual_objective(alpha, y, K)`: "
           r"$D(\alpha) = \sum_i \alpha_i - \tfrac12 \sum_{i,j} \alpha_i \alpha_j y_i y_j K_{ij}$, one number. The check "
           r"also evaluates it at the solver's optimum, where it must equal the primal."),
    equation="D(alpha) = sum_i alpha_i - 1/2 alpha'Q alpha with Q_ij = y_i y_j K_ij",
    reference=dual_objective, cases=_dual_cases,
    mistakes=(
        Mistake(lambda a, y, K: float(a.sum() - 0.5 * a @ K @ a),
                "your quadratic term ignores the labels: Q_ij = y_i y_j K_ij"),
        Mistake(lambda a, y, K: float(a.sum() - (a * y) @ K @ (a * y)), "your quadratic term lacks the factor 1/2"),
        Mistake(lambda a, y, K: float(a.sum() + 0.5 * (a * y) @ K @ (a * y)),
                "your quadratic term is added: it is subtracted (D is concave)"),
        Mistake(lambda a, y, K: float(-0.5 * (a * y) @ K @ (a * y)), "the linear term sum_i alpha_i is missing"),
    ),
    drive=_dual_drive,
)


# ---- 03: the coordinate step of dual coordinate ascent -------------------------------------------


def dca_update(alpha_i, g_i, Q_ii, C):
    """The new alpha_i: the maximiser over [0, C] of the dual along coordinate i.

    With Q_ii > 0: clip(alpha_i + g_i / Q_ii, 0, C).  With Q_ii = 0 (a zero row) the dual is linear
    along the coordinate, with slope g_i: go to C when it rises, to 0 when it falls, stay when flat.
    """
    if Q_ii > 0:
        return min(max(alpha_i + g_i / Q_ii, 0.0), C)  # the vertex, clipped to the box
    if g_i > 0:
        return C
    if g_i < 0:
        return 0.0
    return alpha_i


@functools.lru_cache(maxsize=None)
def _dca_states(steps=70):
    """States of the library's DualCoordinateAscent on a small problem with a zero row."""
    from .. import DualCoordinateAscent, iterate

    X, y, C = blobs(10, seed=7, C=0.5, zero_row=True)
    problem = _problem(X, y, C)
    states = list(iterate(DualCoordinateAscent(random_state=1, shrinking=False), problem, max_iter=steps))
    return X, y, C, np.asarray(problem.Q), states


def _dca_cases():
    X, y, C, Q, states = _dca_states()
    cases = [
        Case("the vertex inside the box", dict(alpha_i=0.2, g_i=0.3, Q_ii=2.0, C=1.0)),
        Case("clip at C", dict(alpha_i=0.5, g_i=4.0, Q_ii=1.0, C=1.0),
             hint="here the top of the parabola lies above C"),
        Case("clip at 0", dict(alpha_i=0.5, g_i=-4.0, Q_ii=1.0, C=1.0), hint="here the top of the parabola lies below 0"),
        Case("alpha at C, pushed further up", dict(alpha_i=1.0, g_i=0.5, Q_ii=3.0, C=1.0)),
        Case("alpha at 0, moving inside", dict(alpha_i=0.0, g_i=0.5, Q_ii=3.0, C=1.0)),
        Case("a zero row (Q_ii = 0): the dual rises along the coordinate", dict(alpha_i=0.0, g_i=1.0, Q_ii=0.0, C=2.0),
             hint="with Q_ii = 0 the dual is linear along the coordinate, with slope g_i: it has no top (never divide "
                  "by Q_ii = 0)"),
        Case("a zero row, slope down", dict(alpha_i=1.5, g_i=-1.0, Q_ii=0.0, C=2.0),
             hint="with Q_ii = 0 and g_i < 0 the dual falls as alpha_i grows"),
        Case("a zero row with g_i = 0: the dual is flat along the coordinate", dict(alpha_i=0.7, g_i=0.0, Q_ii=0.0, C=2.0),
             hint="with Q_ii = 0 and g_i = 0 every alpha_i in [0, C] gives the same dual: the step does not move"),
        Case("a large C", dict(alpha_i=3.0, g_i=7.0, Q_ii=0.5, C=1e6)),
    ]
    for prev, s in zip(states[:-1], states[1:]):
        if s.n_iter % 5 == 1 or s.i == 0:
            i = s.i
            cases.append(Case(f"DualCoordinateAscent's step {s.n_iter} (coordinate {i})",
                              dict(alpha_i=float(prev.alpha[i]), g_i=float(prev.grad[i]), Q_ii=float(Q[i, i]), C=C)))
    return cases


def dca_run(update, gradient_update, Q, C, epochs):
    """Dual coordinate ascent in cyclic order from alpha = 0 with the given steps; yields (step, alpha)."""
    n = Q.shape[0]
    alpha, grad = np.zeros(n), np.ones(n)  # g = 1 - Q alpha
    step = 0
    for _ in range(epochs):
        for i in range(n):
            new = float(update(float(alpha[i]), float(grad[i]), float(Q[i, i]), C))
            delta = new - alpha[i]
            alpha = alpha.copy()
            alpha[i] = new
            grad = np.asarray(gradient_update(grad.copy(), Q, i, delta), dtype=np.float64)
            step += 1
            yield step, alpha


def _dca_compare(update, gradient_update, what):
    """Dual coordinate ascent with the student's step (or gradient update), watched call by call, then its dual
    against the library's optimum."""
    from .. import DualCoordinateAscent, solve

    X, y, C = blobs()
    problem = _problem(X, y, C)
    Q = np.asarray(problem.Q)
    epochs = 300
    if what == "step":
        update, record = watch(update, dca_update, "float")
    else:
        gradient_update, record = watch(gradient_update, dca_gradient_update, "array")
    alpha = None
    for _, alpha in dca_run(update, gradient_update, Q, C, epochs):
        if record["first"] is not None:
            break
    wrong = watch_report(record, "coordinate step")
    if wrong:
        return False, wrong
    D = float(alpha.sum() - 0.5 * alpha @ Q @ alpha)
    D_star = float(solve(DualCoordinateAscent(random_state=0), problem, tol=1e-12, max_iter=10**6).dual)
    ok = relative(D, D_star) < 1e-7
    return ok, (f"dual coordinate ascent with your {what} ({epochs} epochs on notebook 4's 30 blobs) reaches "
                f"D = {D:.10g}; the library's solve() reaches D* = {D_star:.10g}" + ("" if ok else ": it stops short"))


DCA_UPDATE = Exercise(
    name="dca_update", notebook="03", title="One coordinate step, clipped to the box",
    nudge=("expand D(alpha + t e_i) in t: which coefficient is g_i, which Q_ii? Then keep alpha_i + t in the "
           "box"),
    signature="dca_update(alpha_i, g_i, Q_ii, C) -> float",
    intro=(r"**Derive, then write.** Fix every multiplier but $\alpha_i$ and move it by $t$. Show that the dual "
           r"$D(\alpha + t e_i)$ is a polynomial in $t$ whose coefficients are $D(\alpha)$, $g_i$ (the gradient "
           r"$g = \mathbb{1} - Q\alpha$ at the current point) and $Q_{ii}$; find the $t$ that maximises it subject to "
           r"$0 \le \alpha_i + t \le C$; then write `dca_update(alpha_i, g_i, Q_ii, C)` returning the new $\alpha_i$. "
           r"Treat $Q_{ii} = 0$ too (a zero row with the linear kernel): what does the dual look like along the "
           r"coordinate then? Where every point of $[0, C]$ is a maximiser, do not move: return $\alpha_i$. Once it "
           r"passes, the check runs dual coordinate ascent with your step and compares the optimum it reaches with "
           r"the library's."),
    equation=("D(alpha + t e_i) = D(alpha) + t g_i - Q_ii t^2 / 2. With Q_ii > 0 this parabola is largest at "
              "t = g_i / Q_ii, and on the interval 0 <= alpha_i + t <= C at that top or, if the top lies outside, at "
              "the nearer end. With Q_ii = 0 it is the line t g_i: go to the end it rises towards, and stay if g_i = 0"),
    kind="derive", reference=dca_update, cases=_dca_cases,
    mistakes=(
        Mistake(lambda a, g, q, C: a + g / q,
                "your new alpha_i is outside [0, C]: you found the top of the parabola, but the step maximises over "
                "the box only (a clip missing)"),
        Mistake(lambda a, g, q, C: max(a + g / q, 0.0), "your new alpha_i is above C: the box has two ends (clip at C too)"),
        Mistake(lambda a, g, q, C: min(max(a - g / q, 0.0), C),
                "your step goes the wrong way: the slope of D(alpha + t e_i) at t = 0 is g_i, so the dual rises "
                "towards the side g_i points to"),
        Mistake(lambda a, g, q, C: min(max(g / q, 0.0), C),
                "your answer is the length of the best step t, not the new alpha_i = alpha_i + t"),
        Mistake(lambda a, g, q, C: min(max(a + g / (2 * q), 0.0), C),
                "your step is half the right one: mind the 1/2 in 1/2 alpha'Q alpha when you expand D(alpha + t e_i)"),
        Mistake(lambda a, g, q, C: 0.0 if q == 0 and g == 0 else dca_update(a, g, q, C),
                "here Q_ii = 0 and g_i = 0: the dual is flat along the coordinate, every alpha_i in [0, C] is as good, "
                "and the step does not move: return alpha_i, not 0"),
    ),
    drive=lambda fn: _dca_compare(fn, dca_gradient_update, "step"),
)


def dca_gradient_update(grad, Q, i, delta):
    """The gradient g = 1 - Q alpha after alpha_i moved by delta: g - delta Q[:, i] (a new array)."""
    return grad - delta * Q[:, i]


def _dca_gradient_cases():
    X, y, C, Q, states = _dca_states()
    rng = np.random.default_rng(104)
    Qs = Q[:5, :5]
    cases = [
        Case("a small Q, coordinate 2", dict(grad=rng.normal(size=5), Q=Qs, i=2, delta=0.25)),
        Case("delta = 0: nothing changes", dict(grad=rng.normal(size=5), Q=Qs, i=1, delta=0.0)),
        Case("a negative delta", dict(grad=rng.normal(size=5), Q=Qs, i=4, delta=-0.7)),
        Case("the zero row: its column is 0", dict(grad=rng.normal(size=len(y)), Q=Q, i=0, delta=0.5)),
    ]
    for prev, s in zip(states[:-1], states[1:]):
        if s.n_iter % 6 == 1 and s.delta != 0:
            cases.append(Case(f"DualCoordinateAscent's step {s.n_iter} (coordinate {s.i})",
                              dict(grad=np.array(prev.grad), Q=Q, i=int(s.i), delta=float(s.delta))))
    return cases


DCA_GRADIENT_UPDATE = Exercise(
    name="dca_gradient_update", notebook="03", title="Keeping the gradient up to date",
    nudge="g = 1 - Q alpha is linear in alpha: a change of alpha_i alone reaches g through one column of Q",
    signature="dca_gradient_update(grad, Q, i, delta) -> array of shape (n,)",
    intro=(r"**Derive, then write.** The gradient of the dual is $g = \mathbb{1} - Q\alpha$. When $\alpha_i$ alone "
           r"moves by $\delta$, which entries of $g$ change, and by how much? Write "
           r"`dca_gradient_update(grad, Q, i, delta)` returning the new gradient in $O(n)$, not by recomputing "
           r"$Q\alpha$ ($O(n^2)$). Return a new array and leave `grad` as it is: a solver's states are a film of the "
           r"run, and a step that writes into the previous state spoils it."),
    equation="g = 1 - Q alpha, so moving alpha_i by delta changes every entry: g_t becomes g_t - delta Q_ti",
    kind="derive",
    reference=dca_gradient_update, cases=_dca_gradient_cases, output="array",
    mistakes=(
        Mistake(lambda g, Q, i, d: g + d * Q[:, i],
                "your gradient moves the wrong way: g = 1 - Q alpha, so raising alpha_i lowers g by delta Q e_i"),
        Mistake(lambda g, Q, i, d: g - d * Q[i, i],
                "every entry changes by its own amount, delta Q_ti: use the whole column, not Q_ii"),
        Mistake(lambda g, Q, i, d: g - d * Q[:, (i + 1) % len(g)],
                "you used the column of the next coordinate, i + 1: the column that moves g is that of the "
                "coordinate that moved, Q[:, i]"),
        Mistake(lambda g, Q, i, d: g - d * Q[:, i - 1],
                "you used the column of the coordinate before, i - 1: the column that moves g is that of the "
                "coordinate that moved, Q[:, i]"),
        Mistake(lambda g, Q, i, d: np.where(np.arange(len(g)) == i, g - d * Q[i, i], g),
                "only g_i changed in your answer: every entry of g changes, since g_t depends on alpha_i through Q_ti"),
    ),
    drive=lambda fn: _dca_compare(dca_update, fn, "gradient update"),
)


# ---- 04: SMO's bounds and pair step --------------------------------------------------------------


def smo_bounds(alpha_i, alpha_j, y_i, y_j, C):
    """The segment [L, H] of alpha_j on the line y_i alpha_i + y_j alpha_j = const inside [0, C]^2."""
    if y_i != y_j:  # alpha_j - alpha_i is constant
        return max(0.0, alpha_j - alpha_i), min(C, C + alpha_j - alpha_i)
    return max(0.0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)  # alpha_i + alpha_j is constant


@functools.lru_cache(maxsize=None)
def _smo_states():
    from .. import SMO, data, iterate

    cases = []
    for seed, rule, C in ((3, "random", 1.0), (4, "max_violating_pair", 0.5), (5, "second_order", 2.0)):
        X, y = data.overlapping_blobs(16, seed=seed)
        problem = _problem(np.asarray(X, float), np.asarray(y, float), C)
        states = list(iterate(SMO(rule, random_state=seed), problem, max_iter=40))
        labels = np.asarray(y, dtype=np.float64)
        cases.extend((C, labels, s) for s in states[1:] if s.i >= 0)
    return cases


def _smo_bounds_cases():
    cases = [
        Case("y_i != y_j, both inside", dict(alpha_i=0.3, alpha_j=0.5, y_i=1.0, y_j=-1.0, C=1.0)),
        Case("y_i = y_j, both inside", dict(alpha_i=0.3, alpha_j=0.5, y_i=1.0, y_j=1.0, C=1.0),
             hint="with y_i = y_j the line through the square has slope -1 in the (alpha_i, alpha_j) plane"),
        Case("y_i = y_j, the sum above C", dict(alpha_i=0.8, alpha_j=0.7, y_i=-1.0, y_j=-1.0, C=1.0)),
        Case("y_i != y_j, alpha_j above alpha_i", dict(alpha_i=0.1, alpha_j=0.9, y_i=-1.0, y_j=1.0, C=1.0),
             hint="with y_i != y_j the line through the square has slope +1 in the (alpha_i, alpha_j) plane"),
        Case("both at 0, y_i = y_j: the segment is a point", dict(alpha_i=0.0, alpha_j=0.0, y_i=1.0, y_j=1.0, C=1.0)),
        Case("both at C, y_i = y_j", dict(alpha_i=2.0, alpha_j=2.0, y_i=1.0, y_j=1.0, C=2.0)),
        Case("alpha_i at C, y_i != y_j", dict(alpha_i=3.0, alpha_j=1.0, y_i=1.0, y_j=-1.0, C=3.0)),
    ]
    for C, y, s in _smo_states()[::4]:
        cases.append(Case(f"SMO's pair ({s.i}, {s.j}) at step {s.n_iter}",
                          dict(alpha_i=s.alpha_i_old, alpha_j=s.alpha_j_old, y_i=float(y[s.i]), y_j=float(y[s.j]),
                               C=C)))
    return cases


def smo_pair_update(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
    """SMO's step on the pair: (new alpha_i, new alpha_j).

    eta > 0: alpha_j + y_j (E_i - E_j) / eta clipped to [L, H].  eta <= 0: psi(t) = t y_j (E_i - E_j) - eta t^2 / 2
    has no interior maximum: the end (L or H) where psi is larger when it is positive there (H on a tie; the
    checker accepts either end), else no move.
    alpha_i moves to keep y_i alpha_i + y_j alpha_j constant.
    """
    slope = y_j * (E_i - E_j)  # the derivative of the dual along the line, at t = 0
    if eta > 0:
        new_j = min(max(alpha_j + slope / eta, L), H)
    else:
        tL, tH = L - alpha_j, H - alpha_j
        psi_L = slope * tL - 0.5 * eta * tL * tL
        psi_H = slope * tH - 0.5 * eta * tH * tH
        if psi_H > 0 and psi_H >= psi_L:
            new_j = H
        elif psi_L > 0:
            new_j = L
        else:
            new_j = alpha_j
    new_i = alpha_i + y_i * y_j * (alpha_j - new_j)
    return new_i, new_j


def _smo_pair_tie(inputs, value, expected):
    """Another right pair step: with eta <= 0 an end (L or H) or no move whose dual value psi is the
    reference's (a tie, as when psi is the same at both ends), with alpha_i on the constraint's line."""
    ai, aj, yi, yj, Ei, Ej, eta, L, H = inputs.values()
    if eta > 0:  # psi is strictly concave: one maximiser, the reference's
        return False
    new_i, new_j = value
    if not any(agree("float", new_j, end) for end in (L, H, aj)):
        return False
    if not agree("float", new_i, ai + yi * yj * (aj - new_j)):
        return False

    def psi(t):
        return t * yj * (Ei - Ej) - 0.5 * eta * t * t

    return agree("float", psi(new_j - aj), psi(expected[1] - aj))


def _smo_pair_cases():
    cases = [
        Case("y_i != y_j, the vertex inside", dict(alpha_i=0.2, alpha_j=0.3, y_i=1.0, y_j=-1.0, E_i=-0.1, E_j=0.2,
                                                 eta=2.0, L=0.1, H=1.0)),
        Case("y_i = y_j = +1, the vertex inside", dict(alpha_i=0.4, alpha_j=0.3, y_i=1.0, y_j=1.0, E_i=0.3, E_j=-0.1,
                                                     eta=4.0, L=0.0, H=0.7),
             hint="here y_j = +1: a step that is right only when y_j = -1 (the CISC 371 notes' eq. 30.13) fails here"),
        Case("clip at H", dict(alpha_i=0.5, alpha_j=0.5, y_i=-1.0, y_j=1.0, E_i=3.0, E_j=-2.0, eta=1.0, L=0.0, H=1.0),
             hint="here the top of psi lies beyond H: alpha_j stops at H, and alpha_i follows it along the line"),
        Case("clip at L", dict(alpha_i=0.5, alpha_j=0.5, y_i=1.0, y_j=1.0, E_i=-3.0, E_j=2.0, eta=1.0, L=0.2, H=1.0),
             hint="here the top of psi lies below L: alpha_j stops at L, and alpha_i follows it along the line"),
        Case("eta = 0 (two identical points): go to the better end",
             dict(alpha_i=0.3, alpha_j=0.3, y_i=1.0, y_j=-1.0, E_i=-0.5, E_j=0.5, eta=0.0, L=0.0, H=1.0),
             hint="eta <= 0: the dual along the line has no interior maximum (never divide by eta); "
                  "compare psi(t) = t y_j (E_i - E_j) - eta t^2 / 2 at the two ends t = L - alpha_j and t = H - alpha_j"),
        Case("eta < 0, the dual rises as much at both ends: either end",
             dict(alpha_i=0.3, alpha_j=0.3, y_i=1.0, y_j=1.0, E_i=0.0, E_j=0.0, eta=-0.5, L=0.0, H=0.6),
             hint="eta <= 0: psi(t) = t y_j (E_i - E_j) - eta t^2 / 2 has no interior maximum; here psi is the "
                  "same at both ends and positive: take either end (alpha_j = L or H), not alpha_j itself"),
        Case("eta = 0 and E_i = E_j: the dual is flat, no end is better",
             dict(alpha_i=0.2, alpha_j=0.5, y_i=1.0, y_j=-1.0, E_i=0.4, E_j=0.4, eta=0.0, L=0.3, H=1.0),
             hint="eta <= 0: take an end only where psi > 0; where psi = 0 at both ends, staying is as good"),
        Case("y_i = y_j = -1", dict(alpha_i=0.6, alpha_j=0.1, y_i=-1.0, y_j=-1.0, E_i=0.2, E_j=0.5, eta=1.5,
                                    L=0.0, H=0.7)),
    ]
    for C, y, s in _smo_states()[1::3]:
        cases.append(Case(f"SMO's pair ({s.i}, {s.j}) at step {s.n_iter}, eta = {s.eta:.3g}",
                          dict(alpha_i=s.alpha_i_old, alpha_j=s.alpha_j_old, y_i=float(y[s.i]), y_j=float(y[s.j]),
                               E_i=s.E_i, E_j=s.E_j, eta=s.eta, L=s.L, H=s.H)))
    return cases


def smo_run(bounds, pair, K, y, C, steps):
    """SMO from alpha = 0 with the maximal violating pair; yields (step, alpha) with the given bounds and step."""
    n = len(y)
    alpha, grad = np.zeros(n), np.ones(n)  # g = 1 - Q alpha, Q = y y' K
    for step in range(1, steps + 1):
        v = y * grad  # y_t g_t = y_t - f_t; E_t = b - v_t
        up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
        i = int(np.argmax(np.where(up, v, -np.inf)))
        j = int(np.argmin(np.where(low, v, np.inf)))
        if not v[i] - v[j] > 1e-12:
            return
        L, H = bounds(float(alpha[i]), float(alpha[j]), float(y[i]), float(y[j]), C)
        eta = float(K[i, i] + K[j, j] - 2 * K[i, j])
        ai, aj = pair(float(alpha[i]), float(alpha[j]), float(y[i]), float(y[j]), -float(v[i]), -float(v[j]), eta,
                      float(L), float(H))
        da_i, da_j = float(ai) - alpha[i], float(aj) - alpha[j]
        alpha = alpha.copy()
        alpha[i], alpha[j] = float(ai), float(aj)
        grad = grad - da_i * y[i] * y * K[:, i] - da_j * y[j] * y * K[:, j]
        yield step, alpha


def _smo_compare(bounds, pair, what):
    """SMO with the student's bounds (or pair step), watched call by call, then its dual against the library's."""
    X, y, C = blobs()
    K = X @ X.T
    steps = 5000
    if what == "bounds":
        bounds, record = watch(bounds, smo_bounds, "pair")
    else:
        pair, record = watch(pair, smo_pair_update, "pair", _smo_pair_tie)
    alpha, t = None, 0
    for t, alpha in smo_run(bounds, pair, K, y, C, steps):
        if record["first"] is not None:
            break
    wrong = watch_report(record, "pair step")
    if wrong:
        return False, wrong
    v = alpha * y
    D = float(alpha.sum() - 0.5 * v @ K @ v)
    D_star = optimum()[6]
    ok = relative(D, D_star) < 1e-7
    return ok, (f"SMO (maximal violating pair) with your {what} converges in {t} pair steps on notebook 4's 30 blobs "
                f"to D = {D:.10g}; the library's solve() reaches D* = {D_star:.10g}" + ("" if ok else ": it stops short"))


SMO_BOUNDS = Exercise(
    name="smo_bounds", notebook="04", title="SMO's bounds L and H",
    nudge=("for each label pattern, the constant combination of alpha_i and alpha_j is a line: where does it "
           "cross the sides of the square [0, C]^2?"),
    signature="smo_bounds(alpha_i, alpha_j, y_i, y_j, C) -> (L, H)",
    intro=(r"**Derive, then write.** The pair step keeps $y_i \alpha_i + y_j \alpha_j$ constant (so that "
           r"$\sum_t y_t \alpha_t = 0$ still holds), and both multipliers must stay in $[0, C]$. For each label "
           r"pattern, $y_i = y_j$ and $y_i \ne y_j$, work out which combination of $\alpha_i$ and $\alpha_j$ stays "
           r"constant and draw the line it defines through the square $[0, C]^2$ (axes $\alpha_i$ and $\alpha_j$). "
           r"Then write `smo_bounds(alpha_i, alpha_j, y_i, y_j, C)` returning `(L, H)`: the smallest and the largest "
           r"$\alpha_j$ on the segment that the square cuts out of the line."),
    equation=("y_i != y_j: alpha_j - alpha_i is constant, L = max(0, alpha_j - alpha_i), H = min(C, C + alpha_j - "
              "alpha_i); y_i = y_j: alpha_i + alpha_j is constant, L = max(0, alpha_i + alpha_j - C), "
              "H = min(C, alpha_i + alpha_j)"),
    kind="derive", reference=smo_bounds, cases=_smo_bounds_cases, output="pair", parts=("L", "H"),
    mistakes=(
        Mistake(lambda ai, aj, yi, yj, C: smo_bounds(aj, ai, yj, yi, C),
                "your (L, H) bound alpha_i, not alpha_j (i and j swapped): read the segment on the alpha_j axis"),
        Mistake(lambda ai, aj, yi, yj, C: smo_bounds(ai, aj, -yi, yj, C),
                "the two label patterns are swapped: y_i != y_j keeps alpha_j - alpha_i constant, y_i = y_j keeps "
                "alpha_i + alpha_j constant"),
        Mistake(lambda ai, aj, yi, yj, C: (aj - ai, C + aj - ai) if yi != yj else (ai + aj - C, ai + aj),
                "your segment leaves the square: the multipliers stay in [0, C], so L >= 0 and H <= C"),
        Mistake(lambda ai, aj, yi, yj, C: (max(0.0, aj - ai), C + aj - ai) if yi != yj else
                (max(0.0, ai + aj - C), ai + aj),
                "your H can pass C: alpha_j <= C too, so H is the smaller of C and the line's own end"),
    ),
    drive=lambda fn: _smo_compare(fn, smo_pair_update, "bounds"),
)

SMO_PAIR_UPDATE = Exercise(
    name="smo_pair_update", notebook="04", title="SMO's step on the pair",
    nudge=("psi is a parabola in t: find its top, then keep alpha_j + t in [L, H]; and alpha_i must stay on "
           "the line"),
    signature="smo_pair_update(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H) -> (new_alpha_i, new_alpha_j)",
    intro=(r"**Derive, then write.** Move the pair along its line: $\alpha_j \to \alpha_j + t$ and "
           r"$\alpha_i \to \alpha_i - y_i y_j t$. Show that the dual changes by "
           r"$\psi(t) = t\, y_j (E_i - E_j) - \tfrac12 \eta t^2$, where $E_t = f(x_t) - y_t$ and "
           r"$\eta = K_{ii} + K_{jj} - 2 K_{ij}$, and find the $t$ that maximises $\psi$ subject to "
           r"$L \le \alpha_j + t \le H$. For $\eta \le 0$, $\psi$ has no interior maximum: take the end ($L$ or $H$) "
           r"where $\psi$ is larger if it is positive there (either end on a tie), else leave $\alpha_j$. Write "
           r"`smo_pair_update(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H)` returning the new "
           r"`(alpha_i, alpha_j)`. (The CS229 handout's $\eta = 2K_{ij} - K_{ii} - K_{jj}$ is the negative of this "
           r"one.) Once it passes, the check runs SMO with your step."),
    equation=("psi(t) = t y_j (E_i - E_j) - eta t^2 / 2; for eta > 0 its top is at t = y_j (E_i - E_j) / eta, so the "
              "new alpha_j is alpha_j + y_j (E_i - E_j) / eta clipped to [L, H]; then alpha_i moves by "
              "y_i y_j (alpha_j - new alpha_j), with the clipped new alpha_j, so that y_i alpha_i + y_j alpha_j is unchanged"),
    kind="derive", reference=smo_pair_update, cases=_smo_pair_cases, output="pair", parts=("alpha_i", "alpha_j"),
    accept=_smo_pair_tie,
    mistakes=(
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: _pair_with(ai, aj, yi, yj, eta, L, H, (Ej - Ei) / eta),
                "this is the CISC 371 notes' eq. 30.13, alpha_j + s_ij (E_j - E_i): an erratum. Differentiate psi at "
                "t = 0: the slope there is y_j (E_i - E_j) (notebook 4, step 3)"),
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: _pair_with(ai, aj, yi, yj, eta, L, H, -yj * (Ei - Ej) / eta),
                "your step goes the wrong way along the line: that is the CS229 handout's alpha_j - y_j (E_i - E_j) / "
                "eta, written for its eta = 2 K_ij - K_ii - K_jj <= 0; here eta = K_ii + K_jj - 2 K_ij >= 0 is its "
                "negative, so the sign of the step flips"),
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: _pair_with(ai, aj, yi, yj, eta, L, H, (Ei - Ej) / eta),
                "your step has the wrong sign when y_j = -1: the factor y_j is missing (the slope of psi at t = 0 is "
                "y_j (E_i - E_j))"),
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: _pair_unclipped_i(ai, aj, yi, yj, Ei, Ej, eta, L, H),
                "alpha_j is right, but alpha_i moved by the UNCLIPPED step: alpha_i must follow the clipped alpha_j, "
                "or the pair leaves its line y_i alpha_i + y_j alpha_j = const"),
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: (ai + yi * yj * (aj - (aj + yj * (Ei - Ej) / eta)),
                                                          aj + yj * (Ei - Ej) / eta),
                "your new alpha_j leaves the segment [L, H]: the best point of the segment is the top of psi clipped "
                "to it (a clip missing)"),
        Mistake(lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: (2 * ai - smo_pair_update(ai, aj, yi, yj, Ei, Ej, eta, L, H)[0],
                                                          smo_pair_update(ai, aj, yi, yj, Ei, Ej, eta, L, H)[1]),
                "alpha_j is right, alpha_i moved the wrong way: along the line y_i alpha_i + y_j alpha_j = const, "
                "alpha_i changes by -y_i y_j times the change of alpha_j"),
    ),
    drive=lambda fn: _smo_compare(smo_bounds, fn, "pair step"),
)


def _pair_unclipped_i(ai, aj, yi, yj, Ei, Ej, eta, L, H):
    """The mistake of moving alpha_i by the unclipped step of alpha_j (alpha_j itself clipped)."""
    if not eta > 0:
        raise ValueError("only for eta > 0")
    unclipped = aj + yj * (Ei - Ej) / eta
    return ai + yi * yj * (aj - unclipped), min(max(unclipped, L), H)


def _pair_with(ai, aj, yi, yj, eta, L, H, step):
    """A pair step with the given (wrong) step of alpha_j, clipped, for the mistakes above."""
    if not eta > 0:
        raise ValueError("only for eta > 0")
    new_j = min(max(aj + step, L), H)
    return ai + yi * yj * (aj - new_j), new_j


EXERCISES = (HINGE_LOSSES, HINGE_SUBGRADIENT, KKT_CATEGORY, DUAL_OBJECTIVE, DCA_UPDATE, DCA_GRADIENT_UPDATE,
             SMO_BOUNDS, SMO_PAIR_UPDATE)

__all__ = ["EXERCISES"]
