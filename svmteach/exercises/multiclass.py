"""Exercises of notebooks 06 to 08: the Weston-Watkins gradient and Shark's step, the Crammer-Singer
partial gradient, the simplex projection and Blondel's block update, the relative duality gap and
the multiclass primal.

Labels are integer codes 0 .. k-1; W is (k, d), one weight vector per class, with no bias.  The
solver runs that check a student's step (Shark's coordinate steps, Blondel's block steps) are
written here in plain NumPy and compared, at the end, with the library's own optimum.
"""

from __future__ import annotations

import functools

import numpy as np

from .core import Case, Exercise, Mistake, Variant, relative, watch, watch_report

#: the hint for a W read as d x k (one column per class, as some lecture notes write it)
ORIENTATION = ("your function is right when W comes as d x k (one column per class): in this course W is k x d, "
               "row m is w_m (as scikit-learn's coef_), so the score w_m'x_i is row i of X times row m of W, "
               "the (i, m) entry of X W'")
ORIENTATION_REMINDER = ("In this course W is k x d: row m is w_m (as scikit-learn's coef_), one row per class.")

# ---- shared small problems ------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def clouds(n=30, k=3, seed=0):
    """Four (or k) clouds of the course (``data.multiclass_blobs``) with labels coded 0 .. k-1."""
    from .. import data

    X, y = data.multiclass_blobs(n, k=k, seed=seed)
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return np.asarray(X, dtype=np.float64), codes.astype(np.int64)


@functools.lru_cache(maxsize=None)
def library_optimum(loss, C=1.0, M=1.0, n=30, k=3, seed=0):
    """``(primal, dual, W)`` of the library's MulticlassSVC on :func:`clouds`, to a relative gap of 1e-11."""
    from .. import MulticlassSVC

    X, codes = clouds(n, k, seed)
    model = MulticlassSVC(C=C, loss=loss, M=M, tol=1e-11, max_iter=100_000, random_state=0, fit_intercept=False).fit(X, codes)
    return float(model.result_.primal), float(model.result_.dual), np.asarray(model.coef_, dtype=np.float64)


# ---- 06: the Weston-Watkins gradient ---------------------------------------------------------------


def ww_gradient(W, X, y, M):
    """Gradient of the Weston-Watkins dual (minimised) in alpha_ij: M (w_{y_i} - w_j)'x_i - 1, 0 at j = y_i.

    Shape (n, k): row i holds the gradient of sample i's block; its y_i entry is 0 (that entry is
    not free: alpha_{i y_i} = -sum of the others).
    """
    S = X @ W.T  # scores s_ij = w_j'x_i
    s_y = S[np.arange(len(y)), y]  # s_{i y_i}
    G = M * (s_y[:, None] - S) - 1.0
    G[np.arange(len(y)), y] = 0.0
    return G


def shark_step(grad_ij, alpha_ij, sqnorm_i, M, C):
    """Shark's greedy step m on alpha_ij (and -m on alpha_{i y_i}): -grad / (2 M^2 ||x_i||^2), clipped so that
    alpha_ij + m stays in [0, C].  A zero row (||x_i|| = 0): the dual is linear, go to the bound it falls towards."""
    curvature = 2.0 * M * M * sqnorm_i  # d^2 f / dm^2 along e_j - e_{y_i}
    if curvature > 0:
        m = -grad_ij / curvature
    else:
        m = np.inf if grad_ij < 0 else -np.inf
    return float(min(max(alpha_ij + m, 0.0), C) - alpha_ij)  # the clipped step


def shark_run(X, y, k, C, M, gradient, step, epochs, record=None):
    """Shark's coordinate steps in cyclic order from alpha = 0; yields (visit, alpha).

    For each visited sample: its gradient row from ``gradient``, then moves on the coordinate with the
    largest KKT violation (at most 10 k of them, until the violation is below 1e-12), each of length
    ``step(...)``; the gradient of the other rivals is kept up to date as notebook 6 derives.
    """
    n, d = X.shape
    alpha, W = np.zeros((n, k)), np.zeros((k, d))
    visit = 0
    for _ in range(epochs):
        for i in range(n):
            x, yi, q = X[i], int(y[i]), float(X[i] @ X[i])
            g = np.asarray(gradient(W.copy(), X[i : i + 1].copy(), y[i : i + 1].copy(), M), dtype=np.float64)[0]
            a = alpha[i].copy()
            for _ in range(10 * k):
                violation = np.where(((g < 0) & (a < C)) | ((g > 0) & (a > 0)), np.abs(g), 0.0)
                violation[yi] = 0.0
                j = int(np.argmax(violation))
                if violation[j] < 1e-12:
                    break
                if record is not None:
                    record.append((float(g[j]), float(a[j]), q, M, C))
                m = float(step(float(g[j]), float(a[j]), q, M, C))
                a[j] += m
                a[yi] -= m
                g = g + M * M * m * q  # every rival's gradient rises by M^2 m q ...
                g[j] += M * M * m * q  # ... and that of j by as much again
                g[yi] = 0.0
            delta = a - alpha[i]
            alpha = alpha.copy()
            alpha[i] = a
            W = W - M * delta[:, None] * x[None, :]  # W = -M alpha' X
            visit += 1
            yield visit, alpha


def _ww_dual(alpha, X, y, M):
    """The Weston-Watkins dual (maximised): sum_{j != y_i} alpha_ij - 1/2 ||W||^2 with W = -M alpha' X."""
    W = -M * alpha.T @ X
    mask = np.ones_like(alpha, dtype=bool)
    mask[np.arange(len(y)), y] = False
    return float(alpha[mask].sum() - 0.5 * np.sum(W * W))


def _ww_compare(gradient, step, what, C=1.0, M=1.0, epochs=60):
    """Shark's steps with the student's gradient (or step), watched call by call, then the dual they reach against
    the library's optimum."""
    X, y = clouds()
    k = int(y.max()) + 1
    if what == "gradient":
        gradient, record = watch(gradient, ww_gradient, "array")
    else:
        step, record = watch(step, shark_step, "float")
    alpha = None
    for _, alpha in shark_run(X, y, k, C, M, gradient, step, epochs):
        if record["first"] is not None:
            break
    wrong = watch_report(record, "call")
    if wrong:
        return False, wrong
    D = _ww_dual(alpha, X, y, M)
    D_star = library_optimum("ww", C, M)[1]
    ok = relative(D, D_star) < 1e-6
    return ok, (f"Shark's coordinate steps with your {what} ({epochs} epochs on three clouds, C = {C:g}, M = {M:g}) reach "
                f"D = {D:.10g}; the library's MulticlassSVC reaches D* = {D_star:.10g}" + ("" if ok else ": it stops short"))


def _ww_gradient_cases():
    rng = np.random.default_rng(107)
    cases = []
    for n, k, d, M in ((4, 3, 2, 1.0), (5, 4, 3, 0.5), (3, 2, 2, 1.0), (6, 5, 2, 2.0)):
        X = rng.normal(size=(n, d))
        y = rng.integers(0, k, n)
        cases.append(Case(f"n = {n}, k = {k}, d = {d}, M = {M:g}", dict(W=rng.normal(size=(k, d)), X=X, y=y, M=M)))
    X = rng.normal(size=(3, 2))
    cases.insert(1, Case("W = 0: every rival entry is -1", dict(W=np.zeros((3, 2)), X=X, y=np.array([0, 2, 1]), M=1.0)))
    X0 = X.copy()
    X0[1] = 0.0
    cases.append(Case("a zero row", dict(W=rng.normal(size=(3, 2)), X=X0, y=np.array([1, 1, 0]), M=1.0)))
    Xc, yc = clouds()
    cases.append(Case("three clouds at the library's optimum", dict(W=library_optimum("ww")[2], X=Xc, y=yc, M=1.0)))
    return cases


WW_GRADIENT = Exercise(
    name="ww_gradient", notebook="06", title="The gradient of the Weston-Watkins dual",
    nudge=("which rows of W move when alpha_ij moves (remember alpha_{i y_i} moves with it), and what does "
           "the linear term give?"),
    signature="ww_gradient(W, X, y, M) -> array of shape (n, k)",
    intro=(r"**Derive, then write.** The Weston-Watkins dual, minimised, is "
           r"$f(\alpha) = \tfrac12 \|W\|_F^2 - \sum_i \sum_{j \ne y_i} \alpha_{ij}$ with $W = -M \alpha^\top X$ "
           r"(row $m$ of $W$ is $w_m = -M \sum_i \alpha_{im} x_i$) and $\alpha_{i y_i} = -\sum_{j \ne y_i} \alpha_{ij}$, "
           r"so only the rival entries are free. Differentiate $f$ in a free $\alpha_{ij}$, remembering that "
           r"$\alpha_{i y_i}$ moves with it, and write the result with the scores $w_m^\top x_i$. Then write "
           r"`ww_gradient(W, X, y, M)` returning the $(n, k)$ array of these derivatives, with $0$ in the column "
           r"$y_i$ of each row (that entry is not free). `W` is $(k, d)$, `X` is $(n, d)$, `y` holds class codes "
           r"$0, \dots, k-1$."),
    equation=("df/d alpha_ij = M (w_{y_i} - w_j)'x_i - 1 for j != y_i: moving alpha_ij by t moves w_j by -M t x_i and "
              "w_{y_i} by +M t x_i, and the linear term by -t"),
    kind="derive", reference=ww_gradient, cases=_ww_gradient_cases, output="array",
    mistakes=(
        Mistake(lambda W, X, y, M: M * ((X @ W.T)[np.arange(len(y)), y][:, None] - X @ W.T) - 1.0,
                "your column y_i is not 0: the entry j = y_i is not a free variable, set it to 0"),
        Mistake(lambda W, X, y, M: -ww_gradient(W, X, y, M),
                "that is the NEGATIVE gradient (the hinge's argument): f is minimised, differentiate f itself"),
        Mistake(lambda W, X, y, M: ww_gradient(W, X, y, 1.0),
                "your gradient ignores M: W = -M alpha' X, so the margin scale multiplies the score difference"),
        Mistake(lambda W, X, y, M: ww_gradient(-W, X, y, M),
                "your score difference is the wrong way round: it is w_{y_i} - w_j (own class minus rival)"),
        Mistake(lambda W, X, y, M: ww_gradient(W, X, y, M) + np.where(np.arange(W.shape[0])[None, :] == y[:, None], 0, 1),
                "your constant is off: the dual's linear term is -sum alpha_ij, so each derivative has -1"),
    ),
    variants=(Variant(lambda inputs: {**inputs, "W": inputs["W"].T.copy()}, ORIENTATION, ORIENTATION_REMINDER),),
    drive=lambda fn: _ww_compare(fn, shark_step, "gradient"),
)


def _shark_cases():
    X, y = clouds()
    record = []
    for _ in shark_run(X, y, 3, 1.0, 1.0, ww_gradient, shark_step, 3, record=record):
        pass
    cases = [
        Case("a step inside the box", dict(grad_ij=-0.5, alpha_ij=0.2, sqnorm_i=2.0, M=1.0, C=1.0)),
        Case("M = 1/2 (Shark's)", dict(grad_ij=-0.3, alpha_ij=0.1, sqnorm_i=1.5, M=0.5, C=1.0),
             hint="the curvature is 2 M^2 ||x_i||^2: with M = 1/2 it is ||x_i||^2 / 2"),
        Case("clip at C", dict(grad_ij=-10.0, alpha_ij=0.5, sqnorm_i=1.0, M=1.0, C=1.0),
             hint="return the step m that keeps alpha_ij + m in [0, C]: C - alpha_ij here"),
        Case("clip at 0", dict(grad_ij=10.0, alpha_ij=0.5, sqnorm_i=1.0, M=1.0, C=1.0),
             hint="return the step m that keeps alpha_ij + m in [0, C]: -alpha_ij here"),
        Case("a zero row: the dual is linear along the move", dict(grad_ij=-1.0, alpha_ij=0.0, sqnorm_i=0.0, M=1.0, C=2.0),
             hint="with ||x_i|| = 0 there is no curvature: never divide by it, go to the bound"),
        Case("a negative step inside", dict(grad_ij=0.4, alpha_ij=0.9, sqnorm_i=3.0, M=1.0, C=5.0)),
    ]
    for t, (g, a, q, M, C) in enumerate(record[::7]):
        cases.append(Case(f"move {7 * t + 1} of a Shark run on three clouds",
                          dict(grad_ij=g, alpha_ij=a, sqnorm_i=q, M=M, C=C)))
    return cases


SHARK_STEP = Exercise(
    name="shark_step", notebook="06", title="Shark's step size",
    nudge=("the quadratic coefficient: how many rows of W move with m, and by how much each? Then the box "
           "[0, C] for alpha_ij + m"),
    signature="shark_step(grad_ij, alpha_ij, sqnorm_i, M, C) -> float",
    intro=(r"**Derive, then write.** Shark moves $\alpha_{ij}$ (a rival, $j \ne y_i$) by $m$ and $\alpha_{i y_i}$ by "
           r"$-m$, so that the block still sums to $0$. With $W = -M \alpha^\top X$, show that the dual $f$ "
           r"(minimised) changes by a quadratic in $m$ whose linear coefficient is `grad_ij` "
           r"$= \partial f / \partial \alpha_{ij}$ and whose quadratic coefficient depends on $M$ and "
           r"$\|x_i\|^2$ (count the rows of $W$ that move). Find the $m$ that minimises it subject to "
           r"$0 \le \alpha_{ij} + m \le C$ and write `shark_step(grad_ij, alpha_ij, sqnorm_i, M, C)` returning that "
           r"step $m$ (not the new $\alpha_{ij}$); with $\|x_i\| = 0$ move to the bound $f$ falls towards. Once it "
           r"passes, the check runs Shark's steps with it."),
    equation=("f changes by m grad_ij + M^2 ||x_i||^2 m^2 (two rows of W move: w_j by -M m x_i and w_{y_i} by "
              "+M m x_i); its minimiser is m = -grad_ij / (2 M^2 ||x_i||^2), then alpha_ij + m is clipped to [0, C] "
              "and the step is the clipped value minus alpha_ij"),
    kind="derive", reference=shark_step, cases=_shark_cases,
    mistakes=(
        Mistake(lambda g, a, q, M, C: min(max(a - g / (M * M * q), 0.0), C) - a,
                "your step is twice the right one: two rows of W move, so the direction e_j - e_{y_i} has squared "
                "length 2 and the quadratic coefficient doubles"),
        Mistake(lambda g, a, q, M, C: min(max(a - g / (2 * q), 0.0), C) - a,
                "your step ignores M: each row of W = -M alpha' X moves by M m x_i, so M enters the curvature squared"),
        Mistake(lambda g, a, q, M, C: -g / (2 * M * M * q),
                "alpha_ij + m leaves [0, C] here: the step must keep it in the box (a clip missing)"),
        Mistake(lambda g, a, q, M, C: min(max(a - g / (2 * M * M * q), 0.0), C),
                "you returned the new alpha_ij: return the step m, the new alpha_ij minus alpha_ij"),
        Mistake(lambda g, a, q, M, C: min(max(a + g / (2 * M * M * q), 0.0), C) - a,
                "your step goes uphill: f is minimised, so step against its gradient"),
    ),
    drive=lambda fn: _ww_compare(ww_gradient, fn, "step"),
)


# ---- 07: Crammer-Singer ----------------------------------------------------------------------------


def cs_gradient(W, x, y):
    """Partial gradient g_i of the Crammer-Singer dual for one sample: w_m'x + [m != y]; shape (k,)."""
    g = W @ x + 1.0  # w_m'x + 1 for every class ...
    g[y] -= 1.0  # ... and Delta = 0 for the sample's own class
    return g


def project_simplex(v, z):
    """The point of {beta >= 0, sum(beta) = z} nearest to v, by sorting; shape (k,)."""
    u = np.sort(v)[::-1]  # decreasing
    css = np.cumsum(u) - z
    j = np.arange(1, len(v) + 1)
    rho = np.nonzero(u - css / j > 0)[0][-1]  # the last j with u_j > (sum_{l <= j} u_l - z) / j
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def _positive(total):
    """``total``, or a ZeroDivisionError when it is not positive (a mistake that says nothing there)."""
    if not total > 0:
        raise ZeroDivisionError("nothing to rescale")
    return total


def _simplex_slip(v, z, decreasing=True, divisor=1):
    """The sorting projection with a usual slip, for the mistakes: the sort's order, or theta divided by
    rho + ``divisor`` (index rho from np.nonzero, counted from 0)."""
    u = np.sort(v)[::-1] if decreasing else np.sort(v)
    css = np.cumsum(u) - z
    j = np.arange(1, len(v) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.nonzero(u - css / j > 0)[0][-1]
    if rho + divisor == 0:  # a division by 0 decides: the slip does not say what it gives
        raise ZeroDivisionError("the slip divides by 0 here")
    theta = css[rho] / (rho + divisor)
    return np.maximum(v - theta, 0.0)


def cs_block_update(alpha_i, g_i, y_i, sqnorm_i, C):
    """Blondel's exact block step: the new alpha_i from the projection of beta_hat onto the simplex of mass z.

    beta_hat = r (C_i - alpha_i) + g_i / r and z = C r with r = ||x_i||; then alpha_i = C_i - beta / r.
    (Uses ``project_simplex``.)
    """
    r = np.sqrt(sqnorm_i)
    C_i = np.where(np.arange(len(alpha_i)) == y_i, C, 0.0)  # the bounds: C for the own class, 0 for the rivals
    beta_hat = r * (C_i - alpha_i) + g_i / r
    beta = project_simplex(beta_hat, C * r)
    return C_i - beta / r


def cs_run(X, y, k, C, gradient, block, epochs, record=None):
    """Blondel's block coordinate descent in cyclic order from alpha = 0; yields (visit, alpha)."""
    n, d = X.shape
    alpha, W = np.zeros((n, k)), np.zeros((k, d))
    visit = 0
    for _ in range(epochs):
        for i in range(n):
            x, yi, q = X[i], int(y[i]), float(X[i] @ X[i])
            g = np.asarray(gradient(W.copy(), x.copy(), yi), dtype=np.float64)
            upper = np.where(np.arange(k) == yi, C, 0.0)
            if float(g.max() - g[alpha[i] < upper].min()) > 1e-12:  # Blondel's violation v_i
                if record is not None:
                    record.append((alpha[i].copy(), g.copy(), yi, q, C))
                new = np.asarray(block(alpha[i].copy(), g.copy(), yi, q, C), dtype=np.float64)
                W = W + (new - alpha[i])[:, None] * x[None, :]  # W = alpha' X
                alpha = alpha.copy()
                alpha[i] = new
            visit += 1
            yield visit, alpha


def _cs_dual(alpha, X, y):
    """The Crammer-Singer dual (maximised): sum_i alpha_i^{y_i} - 1/2 ||W||^2 with W = alpha' X."""
    W = alpha.T @ X
    return float(alpha[np.arange(len(y)), y].sum() - 0.5 * np.sum(W * W))


def _block_with(projection):
    """Blondel's block step with another projection (the student's)."""
    def block(alpha_i, g_i, y_i, sqnorm_i, C):
        r = np.sqrt(sqnorm_i)
        C_i = np.where(np.arange(len(alpha_i)) == y_i, C, 0.0)
        beta = np.asarray(projection(r * (C_i - alpha_i) + g_i / r, C * r), dtype=np.float64)
        return C_i - beta / r
    return block


def _cs_compare(gradient, block, what, C=1.0, epochs=60):
    """Blondel's block steps with the student's gradient, projection or block step, watched call by call, then the
    dual they reach against the library's optimum."""
    X, y = clouds()
    k = int(y.max()) + 1
    if what == "gradient":
        gradient, record = watch(gradient, cs_gradient, "array")
    elif what == "projection":
        projection, record = watch(block, project_simplex, "array")
        block = _block_with(projection)
    else:
        block, record = watch(block, cs_block_update, "array")
    alpha = None
    for _, alpha in cs_run(X, y, k, C, gradient, block, epochs):
        if record["first"] is not None:
            break
    wrong = watch_report(record, "call")
    if wrong:
        return False, wrong
    D = _cs_dual(alpha, X, y)
    D_star = library_optimum("cs", C)[1]
    ok = relative(D, D_star) < 1e-6
    return ok, (f"Blondel's block steps with your {what} ({epochs} epochs on three clouds, C = {C:g}) reach "
                f"D = {D:.10g}; the library's MulticlassSVC reaches D* = {D_star:.10g}" + ("" if ok else ": it stops short"))


def _cs_record():
    X, y = clouds()
    record = []
    for _ in cs_run(X, y, 3, 1.0, cs_gradient, cs_block_update, 3, record=record):
        pass
    return record


def _cs_gradient_cases():
    rng = np.random.default_rng(108)
    X, y = clouds()
    cases = [Case("W = 0", dict(W=np.zeros((3, 2)), x=np.array([1.0, -2.0]), y=1)),
             Case("k = 2", dict(W=rng.normal(size=(2, 3)), x=rng.normal(size=3), y=0)),
             Case("a zero row", dict(W=rng.normal(size=(4, 2)), x=np.zeros(2), y=3))]
    for t in range(4):
        k, d = int(rng.integers(3, 6)), int(rng.integers(1, 4))
        cases.append(Case(f"k = {k}, d = {d}", dict(W=rng.normal(size=(k, d)), x=rng.normal(size=d),
                                                   y=int(rng.integers(0, k)))))
    W = library_optimum("cs")[2]
    for i in (0, 7, 19):
        cases.append(Case(f"sample {i} of three clouds at the library's optimum", dict(W=W, x=X[i], y=int(y[i]))))
    return cases


CS_GRADIENT = Exercise(
    name="cs_gradient", notebook="07", title="The Crammer-Singer partial gradient",
    nudge=("alpha_i^m enters only w_m: differentiate 1/2 ||w_m||^2 and the linear term, and mind which "
           "classes carry the constant Delta"),
    signature="cs_gradient(W, x, y) -> array of shape (k,)",
    intro=(r"**Derive, then write.** The Crammer-Singer dual, minimised, is "
           r"$f(\alpha) = \tfrac12 \|W\|_F^2 + \sum_i \sum_m \Delta_i^m \alpha_i^m$ with $W = \alpha^\top X$ (row $m$ is "
           r"$w_m = \sum_i \alpha_i^m x_i$), $\Delta_i^m = 1$ for the rivals $m \ne y_i$ and $0$ for the own class. "
           r"Differentiate $f$ in $\alpha_i^m$ and write the result with the score $w_m^\top x_i$. Then write "
           r"`cs_gradient(W, x, y)`: the $k$ partial derivatives of one sample, an array of shape $(k,)$. `W` is "
           r"$(k, d)$ (row $m$ is $w_m$), `x` one sample $(d,)$, `y` its class code. Mind the erratum above."),
    equation=("g_i^m = w_m'x_i + Delta_i^m with Delta_i^m = 1 for m != y_i and 0 for m = y_i: the derivative of "
              "1/2 ||W||_F^2 + sum_i sum_m Delta_i^m alpha_i^m with W = alpha' X in alpha_i^m"),
    kind="derive",
    reference=cs_gradient, cases=_cs_gradient_cases, output="array",
    mistakes=(
        Mistake(lambda W, x, y: W @ x + 1.0 - 2.0 * (np.arange(W.shape[0]) == y),
                "this is the slides' Algorithm 3, line 6 (add 1, then subtract 2 at y_i): an erratum. The derivative "
                "at the own class is w_{y_i}'x_i: subtract 1, not 2"),
        Mistake(lambda W, x, y: W @ x + 1.0, "your own-class entry has a +1: Delta_i^{y_i} = 0"),
        Mistake(lambda W, x, y: W @ x, "your entries lack Delta: Delta_i^m = 1 for every rival m != y_i"),
        Mistake(lambda W, x, y: W @ x + (np.arange(W.shape[0]) == y),
                "your +1 went to the own class: it belongs to the rivals m != y_i"),
    ),
    variants=(Variant(lambda inputs: {**inputs, "W": inputs["W"].T.copy()}, ORIENTATION, ORIENTATION_REMINDER),),
    drive=lambda fn: _cs_compare(fn, cs_block_update, "gradient"),
)


def _cut_label(where, v, z):
    """A case's label that says how many entries the projection cuts to 0, counted from the data."""
    cut = int(np.count_nonzero(project_simplex(v, z) == 0))
    words = {0: "nothing is cut", 1: "one entry is cut to 0"}.get(cut, f"{cut} of the {len(v)} entries are cut to 0")
    return f"{where}: {words}"


def _simplex_cases():
    rng = np.random.default_rng(109)
    cases = [
        Case(_cut_label("inside", np.array([0.5, 0.3, 0.2]), 1.0), dict(v=np.array([0.5, 0.3, 0.2]), z=1.0)),
        Case(_cut_label("outside", np.array([2.5, 1.8, 0.9, 0.4, -0.3]), 1.0),
             dict(v=np.array([2.5, 1.8, 0.9, 0.4, -0.3]), z=1.0),
             hint="every entry is lowered by the same threshold theta and cut at 0, with theta chosen so that the "
                  "entries left sum to z"),
        Case("ties: all equal", dict(v=np.array([1.0, 1.0, 1.0]), z=1.0)),
        Case("ties at the top", dict(v=np.array([2.0, 2.0, 0.0]), z=1.0)),
        Case("an entry exactly at the threshold", dict(v=np.array([3.0, 1.0, 1.0]), z=2.0),
             hint="an entry equal to theta gets 0: count only the entries strictly above the threshold"),
        Case("all negative", dict(v=np.array([-3.0, -1.0, -2.0]), z=1.0),
             hint="the projection has mass z whatever the signs: no entry can stay negative, and the sum is z"),
        Case("one entry", dict(v=np.array([-7.0]), z=2.5)),
        Case("a mass z = 4", dict(v=np.array([2.5, 1.8, 0.9, 0.4, -0.3]), z=4.0),
             hint="the projection's entries sum to z, not to 1"),
        Case("a tiny mass", dict(v=np.array([0.3, 0.1, 0.3 - 1e-9]), z=1e-6)),
        Case("large entries", dict(v=np.array([1e6, 1e6 - 0.5, 3.0]), z=1.0)),
    ]
    for k in (4, 6):
        cases.append(Case(f"random, k = {k}", dict(v=rng.normal(size=k) * 2, z=float(rng.uniform(0.5, 3)))))
    for alpha_i, g, yi, q, C in _cs_record()[::9]:
        r = np.sqrt(q)
        C_i = np.where(np.arange(3) == yi, C, 0.0)
        cases.append(Case("Blondel's beta_hat and z of a visit on three clouds",
                          dict(v=r * (C_i - alpha_i) + g / r, z=C * r)))
    return cases


PROJECT_SIMPLEX = Exercise(
    name="project_simplex", notebook="07", title="The projection onto the simplex, by sorting",
    nudge=("one threshold theta for every entry; the entries kept are the largest: how many are they, and "
           "what must they sum to?"),
    signature="project_simplex(v, z) -> array of shape (k,)",
    intro=(r"**Derive, then write.** The point of $\{\beta \ge 0,\ \mathbb{1}^\top\beta = z\}$ nearest to `v` "
           r"minimises $\tfrac12 \|\beta - v\|^2$ there. Write its KKT conditions, with a multiplier $\theta$ for the "
           r"sum and $\kappa_m \ge 0$ for each $\beta_m \ge 0$, and show that every entry is $v_m$ lowered by one "
           r"threshold and cut at $0$. Which entries stay positive? Sort `v` in decreasing order and find how many, "
           r"and $\theta$ from their sum. Then write `project_simplex(v, z)` by sorting. Ties and entries exactly at "
           r"the threshold are among the cases."),
    equation=("beta_m = max(v_m - theta, 0) with theta = (u_1 + ... + u_rho - z) / rho, where u holds the entries of v "
              "in decreasing order and rho is the largest j with u_j > (u_1 + ... + u_j - z) / j"),
    kind="derive",
    reference=project_simplex, cases=_simplex_cases, output="array",
    mistakes=(
        Mistake(lambda v, z: np.maximum(v, 0) * z / _positive(np.maximum(v, 0).sum()),
                "cutting the negative entries and rescaling is not the nearest point: the projection subtracts the "
                "same threshold theta from every entry, then cuts at 0"),
        Mistake(lambda v, z: project_simplex(v, 1.0), "your entries sum to 1: they must sum to the mass z"),
        Mistake(lambda v, z: v - (v.sum() - z) / len(v),
                "some of your entries are negative: the simplex has beta >= 0, so cut at 0 with a larger theta"),
        Mistake(lambda v, z: _simplex_slip(v, z, divisor=2),
                "off by one in theta's divisor: an index counts from 0, so the index rho of the last entry kept means "
                "rho + 1 entries kept, and theta divides by rho + 1 (you divided by rho + 2)"),
        Mistake(lambda v, z: _simplex_slip(v, z, divisor=0),
                "off by one in theta's divisor: an index counts from 0, so the index rho of the last entry kept means "
                "rho + 1 entries kept, and theta divides by rho + 1 (you divided by rho)"),
        Mistake(lambda v, z: _simplex_slip(v, z, decreasing=False),
                "you sorted in increasing order: the entries kept are the largest, so u holds v sorted in DECREASING "
                "order and theta comes from its first rho entries"),
        Mistake(lambda v, z: project_simplex(-v, z), "you kept the smallest entries: sort in DECREASING order"),
    ),
    drive=lambda fn: _cs_compare(cs_gradient, fn, "projection"),
)


def _cs_block_cases():
    record = _cs_record()
    cases = [
        Case("alpha = 0, ||x|| = 1", dict(alpha_i=np.zeros(3), g_i=np.array([0.0, 1.0, 1.0]), y_i=0, sqnorm_i=1.0, C=1.0)),
        Case("||x||^2 = 4", dict(alpha_i=np.zeros(3), g_i=np.array([1.0, 0.5, 1.5]), y_i=1, sqnorm_i=4.0, C=2.0),
             hint="the block's Hessian is ||x_i||^2 I: beta_hat = r (C_i - alpha_i) + g_i / r with r = ||x_i|| "
                  "(the slides' Taylor expansion drops ||x_i||^2)"),
        Case("a tiny ||x||^2", dict(alpha_i=np.array([0.2, -0.1, -0.1]), g_i=np.array([0.3, 0.9, 1.2]), y_i=0,
                                    sqnorm_i=0.01, C=1.0)),
    ]
    for t, (alpha_i, g, yi, q, C) in enumerate(record[::5]):
        cases.append(Case(f"visit {5 * t + 1} of Blondel's run on three clouds",
                          dict(alpha_i=alpha_i, g_i=g, y_i=yi, sqnorm_i=q, C=C)))
    return cases


CS_BLOCK_UPDATE = Exercise(
    name="cs_block_update", notebook="07", title="Blondel's block update",
    nudge=("the substitution beta = r (C_i - alpha_i - delta): what do the bound and the equality become? "
           "Sum it over the classes for the mass"),
    signature="cs_block_update(alpha_i, g_i, y_i, sqnorm_i, C) -> array of shape (k,)",
    intro=(r"**Derive, then write.** With the other samples fixed, the dual (minimised) restricted to sample $i$'s "
           r"block is, in the move $\delta$ of the block, $g_i^\top \delta + \tfrac12 \|x_i\|^2 \|\delta\|^2$ plus a "
           r"constant, to be minimised subject to $\alpha_i + \delta \le C_i$ and $\mathbb{1}^\top \delta = 0$, where "
           r"$C_i$ is $C$ at the own class $y_i$ and $0$ elsewhere. Substitute $\beta = r (C_i - \alpha_i - \delta)$ "
           r"with $r = \|x_i\|$: show that the problem becomes the projection of "
           r"$\hat\beta = r (C_i - \alpha_i) + g_i / r$ onto a simplex $\{\beta \ge 0,\ \mathbb{1}^\top \beta = z\}$ "
           r"(which $z$?), then write `cs_block_update(alpha_i, g_i, y_i, sqnorm_i, C)` returning the new block "
           r"$\alpha_i + \delta$ (use your `project_simplex`). Once it passes, the check runs Blondel's solver with "
           r"your block step."),
    equation=("with r = ||x_i||: beta_hat = r (C_i - alpha_i) + g_i / r, z = C r (the entries of C_i sum to C and those "
              "of alpha_i to 0), beta = the projection of beta_hat onto {beta >= 0, sum beta = z}, and the new block is "
              "C_i - beta / r"),
    kind="derive", reference=cs_block_update, cases=_cs_block_cases, output="array",
    mistakes=(
        Mistake(lambda a, g, y, q, C: _block_with(project_simplex)(a, g, y, 1.0, C),
                "your step is that of ||x_i|| = 1: the quadratic term of the block is ||x_i||^2 ||delta||^2 / 2 (the "
                "slides' 'Taylor expansion' drops ||x_i||^2, an erratum), so r = ||x_i|| enters beta_hat, z and the "
                "way back"),
        Mistake(lambda a, g, y, q, C: (lambda r, Ci: Ci - project_simplex(r * (Ci - a) + g / r, C) / r)(
            np.sqrt(q), np.where(np.arange(len(a)) == y, C, 0.0)),
            "your simplex has the wrong mass: sum the substitution beta = r (C_i - alpha_i - delta) over the classes"),
        Mistake(lambda a, g, y, q, C: (lambda r, Ci: Ci + project_simplex(r * (Ci - a) + g / r, C * r) / r)(
            np.sqrt(q), np.where(np.arange(len(a)) == y, C, 0.0)),
            "your way back has the wrong sign: solve beta = r (C_i - alpha_i - delta) for the new block"),
        Mistake(lambda a, g, y, q, C: (lambda r, Ci: Ci - project_simplex(r * (Ci - a) + g / r, C * r))(
            np.sqrt(q), np.where(np.arange(len(a)) == y, C, 0.0)),
            "your way back forgets r: solve beta = r (C_i - alpha_i - delta) for the new block"),
    ),
    drive=lambda fn: _cs_compare(cs_gradient, fn, "block update"),
)


# ---- 08: the relative duality gap and the multiclass primal -----------------------------------------


def relative_gap(primal, dual):
    """(P - D) / |P|; 0 when both are 0 (the optimum of a problem whose optimum is 0)."""
    if primal == 0:
        return 0.0 if dual == 0 else float(np.copysign(np.inf, primal - dual))
    return (primal - dual) / abs(primal)


@functools.lru_cache(maxsize=None)
def _solved_values():
    from .. import SMO, BinaryProblem, data, solve

    X, y = data.overlapping_blobs(30, seed=3)
    out = []
    for C in (0.01, 1.0, 100.0):
        for tol in (1e-1, 1e-3):
            r = solve(SMO(), BinaryProblem(X, y, C=C), tol=tol)
            out.append((C, tol, float(r.primal), float(r.dual)))
    return out


def _gap_cases():
    cases = [
        Case("P = 10, D = 9", dict(primal=10.0, dual=9.0)),
        Case("at the optimum, P = D", dict(primal=3.5, dual=3.5)),
        Case("a small primal", dict(primal=2e-8, dual=1e-8),
             hint="the gap is relative to |P| itself however small P is: (P - D) / |P|"),
        Case("D = 0 (alpha = 0)", dict(primal=30.0, dual=0.0)),
        Case("D above P (an infeasible alpha): a negative gap", dict(primal=2.0, dual=2.5),
             hint="keep the sign of P - D: a negative gap shows that D is above P, which weak duality forbids "
                  "for a feasible alpha"),
        Case("P = D = 0", dict(primal=0.0, dual=0.0), hint="when P = D = 0 the gap is 0 (nothing to divide)"),
        Case("P = 0 and D < 0: an infinite gap", dict(primal=0.0, dual=-0.5),
             hint="when P = 0 and D != 0 the gap is infinite, with the sign of P - D (the statement says so)"),
        Case("P = 0 and D > 0 (an infeasible alpha): a gap of -inf", dict(primal=0.0, dual=1e-3),
             hint="when P = 0 and D != 0 the gap is infinite, with the sign of P - D (the statement says so)"),
        Case("a negative primal (not an SVM's, but the formula still holds)", dict(primal=-4.0, dual=-5.0),
             hint="divide by |P|, the absolute value"),
    ]
    for C, tol, P, D in _solved_values():
        cases.append(Case(f"SMO stopped at tol = {tol:g}, C = {C:g}", dict(primal=P, dual=D)))
    return cases


def _gap_drive(fn):
    from .. import SMO, BinaryProblem, data, solve

    X, y = data.overlapping_blobs(30, seed=3)
    r = solve(SMO(), BinaryProblem(X, y, C=1.0), tol=1e-6, record_history=True, fast=False)
    h = r.history
    watched, record = watch(fn, relative_gap, "float")
    mine = [float(watched(float(P), float(D))) for P, D in zip(h["primal"], h["dual"])]
    wrong = watch_report(record, "step")
    if wrong:
        return False, wrong
    first = next((t for t, g in enumerate(mine) if g <= 1e-6), None)
    stopped = len(mine) - 1
    same = "as solve() did" if first == stopped else f"solve() after {stopped} (a gap within rounding of 1e-6)"
    return True, (f"your gap is right at every one of the {len(mine)} steps of an SMO run on notebook 4's 30 blobs "
                  f"with tol = 1e-6: with it the run stops after {first} steps, {same}")


RELATIVE_GAP = Exercise(
    name="relative_gap", notebook="08", title="The relative duality gap",
    nudge="the difference P - D, relative to |P|, with its sign; and what to do when the primal is 0",
    signature="relative_gap(primal, dual) -> float",
    intro=(r"Every run of this notebook stopped on the relative duality gap. Write `relative_gap(primal, dual)`: "
           r"$(P - D) / |P|$, keeping its sign. When $P = 0$ there is nothing to divide by: return $0$ if $D = 0$ too, "
           r"and otherwise an infinite gap with the sign of $P - D$ (`math.inf` or `-math.inf`), as the library's "
           r"objectives do."),
    equation="gap = (P - D) / |P|; for P = 0: 0 when D = 0, +inf when D < 0, -inf when D > 0 (the sign of P - D)",
    reference=relative_gap, cases=_gap_cases,
    mistakes=(
        Mistake(lambda P, D: (P - D) / abs(D), "you divided by the dual |D|: the gap is relative to |P|, not by the dual"),
        Mistake(lambda P, D: abs(P - D) / abs(P),
                "your gap lost its sign: keep the sign of P - D, a negative gap reveals a dual above the primal"),
        Mistake(lambda P, D: P - D, "that is the absolute gap: the relative gap divides it by |P|"),
        Mistake(lambda P, D: (P - D) / P, "your gap has the wrong sign for P < 0: divide by |P|, the absolute value"),
        Mistake(lambda P, D: (P - D) / max(abs(P), 1.0), "you divided by max(|P|, 1): divide by |P| itself"),
        Mistake(lambda P, D: 0.0 if P == 0 else (P - D) / abs(P),
                "here P = 0 and D != 0: the gap is not 0 but infinite, with the sign of P - D"),
    ),
    drive=_gap_drive,
)


def multiclass_primal(W, X, y, C, loss, M):
    """The primal 1/2 ||W||_F^2 + C sum_i loss_i of Weston-Watkins (loss = "ww", margin scale M) or
    Crammer-Singer (loss = "cs", M unused)."""
    S = X @ W.T  # scores (n, k)
    n = len(y)
    s_y = S[np.arange(n), y]
    rival = np.ones_like(S, dtype=bool)
    rival[np.arange(n), y] = False
    sample_losses = {  # each loss's per-sample loss; an unknown loss is refused, never another's
        "ww": lambda: np.where(rival, np.maximum(0.0, 1.0 - M * (s_y[:, None] - S)), 0.0).sum(axis=1),  # a hinge per rival
        "cs": lambda: np.maximum(0.0, 1.0 + np.where(rival, S, -np.inf).max(axis=1) - s_y),  # the strongest rival's hinge
    }
    if loss not in sample_losses:
        raise ValueError(f"loss must be one of {tuple(sample_losses)}, got {loss!r}")
    return float(0.5 * np.sum(W * W) + C * sample_losses[loss]().sum())


def _primal_cases():
    rng = np.random.default_rng(110)
    X, y = clouds()
    cases = []
    for loss in ("ww", "cs"):
        cases.append(Case(f"{loss}: W = 0", dict(W=np.zeros((3, 2)), X=X[:6], y=y[:6], C=1.0, loss=loss, M=1.0)))
        for t in range(2):
            k, d, n = 4, 3, 7
            cases.append(Case(f"{loss}: random W, n = {n}, k = {k}",
                              dict(W=rng.normal(size=(k, d)), X=rng.normal(size=(n, d)), y=rng.integers(0, k, n),
                                   C=float(rng.choice([0.5, 2.0])), loss=loss, M=float(rng.choice([0.5, 1.0])))))
        cases.append(Case(f"{loss}: the library's solution on three clouds",
                          dict(W=library_optimum(loss)[2], X=X, y=y, C=1.0, loss=loss, M=1.0)))
    cases.append(Case("ww with M = 0.5", dict(W=rng.normal(size=(3, 2)), X=X[:8], y=y[:8], C=1.0, loss="ww", M=0.5),
                      hint="the Weston-Watkins hinge is max(0, 1 - M (w_{y_i} - w_j)'x_i)"))
    cases.append(Case("k = 2", dict(W=rng.normal(size=(2, 2)), X=X[:5], y=y[:5] % 2, C=1.0, loss="cs", M=1.0)))
    return cases


def _primal_drive(fn):
    X, y = clouds()
    lines, ok = [], True
    for loss in ("ww", "cs"):
        P, D, W = library_optimum(loss)
        mine = float(fn(W, X, y, 1.0, loss, 1.0))
        ok &= relative(mine, P) < 1e-9
        lines.append(f"{loss}: your P = {mine:.10g}, MulticlassSVC's P = {P:.10g}, D = {D:.10g}, "
                     f"relative gap {(mine - D) / abs(mine):.1e}")
    return ok, "at the library's solutions on three clouds (C = 1, M = 1):\n  " + "\n  ".join(lines)


MULTICLASS_PRIMAL = Exercise(
    name="multiclass_primal", notebook="08", title="The multiclass primal, both losses",
    nudge=("one regulariser, two losses: for ww a hinge per rival, for cs a single hinge against the "
           "strongest rival"),
    signature="multiclass_primal(W, X, y, C, loss, M) -> float",
    intro=(r"The cell above compared primal objectives. Write `multiclass_primal(W, X, y, C, loss, M)`: "
           r"$\tfrac12 \|W\|_F^2 + C \sum_i \ell_i$ with the Weston-Watkins "
           r"$\ell_i = \sum_{j \ne y_i} \max(0,\, 1 - M (w_{y_i} - w_j)^\top x_i)$ for `loss='ww'` and the "
           r"Crammer-Singer $\ell_i = \max(0,\, 1 + \max_{m \ne y_i} w_m^\top x_i - w_{y_i}^\top x_i)$ for "
           r"`loss='cs'`. `W` is $(k, d)$ (row $m$ is $w_m$), `y` holds class codes $0, \dots, k-1$."),
    equation=("P(W) = 1/2 ||W||_F^2 + C sum_i loss_i; ww: loss_i = sum over j != y_i of max(0, 1 - M (w_{y_i} - w_j)'x_i); "
              "cs: loss_i = max(0, 1 + max over m != y_i of w_m'x_i - w_{y_i}'x_i)"),
    reference=multiclass_primal, cases=_primal_cases,
    mistakes=(
        Mistake(lambda W, X, y, C, loss, M: multiclass_primal(W, X, y, C, loss, M) + C * len(y) * (loss == "ww"),
                "your Weston-Watkins sum includes j = y_i (it adds max(0, 1) = 1 per sample): it runs over the rivals "
                "j != y_i only"),
        Mistake(lambda W, X, y, C, loss, M: (0.5 * np.sum(W * W) + C * np.maximum(
            0.0, 1.0 + (X @ W.T).max(axis=1) - (X @ W.T)[np.arange(len(y)), y]).sum()) if loss == "cs" else
            multiclass_primal(W, X, y, C, loss, M),
            "your Crammer-Singer maximum includes y_i (every loss is then at least 1): it runs over the rivals "
            "m != y_i"),
        Mistake(lambda W, X, y, C, loss, M: multiclass_primal(W, X, y, C, loss, M) + 0.5 * np.sum(W * W),
                "your regulariser is ||W||_F^2: it is 1/2 ||W||_F^2"),
        Mistake(lambda W, X, y, C, loss, M: multiclass_primal(W, X, y, C, loss, 1.0),
                "your Weston-Watkins loss ignores M: the margin scale multiplies the score difference"),
    ),
    variants=(Variant(lambda inputs: {**inputs, "W": inputs["W"].T.copy()}, ORIENTATION, ORIENTATION_REMINDER),),
    drive=_primal_drive,
)

EXERCISES = (WW_GRADIENT, SHARK_STEP, CS_GRADIENT, PROJECT_SIMPLEX, CS_BLOCK_UPDATE, RELATIVE_GAP, MULTICLASS_PRIMAL)
