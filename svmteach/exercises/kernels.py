"""Exercises of notebook 05: a Gram matrix for the Gaussian kernel, and the leave-one-out residuals of
regularized least squares from one inverse (no refitting)."""

from __future__ import annotations

import numpy as np

from .binary import dca_gradient_update, dca_run, dca_update
from .core import Case, Exercise, Mistake, relative, watch, watch_report


def gaussian_gram(X, Z, gamma):
    """K_ij = exp(-gamma ||x_i - z_j||^2) for the rows of X (n, d) and Z (m, d); shape (n, m)."""
    D2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)  # squared distances, computed directly
    return np.exp(-gamma * D2)


def _gram_cases():
    rng = np.random.default_rng(105)
    cases = []
    for n, m, d in ((4, 2, 2), (3, 3, 2), (2, 5, 3), (6, 4, 1)):
        X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d))
        cases.append(Case(f"{n} points against {m} points in {d} dimensions",
                          dict(X=X, Z=Z, gamma=float(rng.choice([0.5, 1.0, 2.0])))))
    X = rng.normal(size=(3, 2))
    cases.insert(1, Case("X against itself: ones on the diagonal", dict(X=X, Z=X.copy(), gamma=1.0)))
    cases.append(Case("duplicate points", dict(X=np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]]),
                                               Z=np.array([[1.0, 2.0], [3.0, -1.0]]), gamma=0.7)))
    cases.append(Case("gamma tiny: every entry near 1", dict(X=X, Z=rng.normal(size=(2, 2)), gamma=1e-8)))
    cases.append(Case("gamma huge: far points give 0", dict(X=X, Z=X[:2] + 0.1, gamma=1e3)))
    return cases


def _gram_drive(fn):
    """Dual coordinate ascent on the moons with the student's Gram matrix, against the library's solver."""
    from .. import BinaryProblem, DualCoordinateAscent, data, solve

    X, y = data.moons(40, seed=0)
    X, y = np.asarray(X, float), np.asarray(y, float)
    watched, record = watch(fn, gaussian_gram, "array")
    K = np.asarray(watched(X, X, 2.0), dtype=np.float64)
    wrong = watch_report(record, "call")
    if wrong:
        return False, wrong
    Q = y[:, None] * y[None, :] * K
    epochs = 300
    alpha = None
    for _, alpha in dca_run(dca_update, dca_gradient_update, Q, 1.0, epochs):
        pass
    D = float(alpha.sum() - 0.5 * alpha @ Q @ alpha)
    D_star = float(solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=2.0),
                         tol=1e-12, max_iter=10**6).dual)
    ok = relative(D, D_star) < 1e-7
    return ok, (f"dual coordinate ascent on your Gram matrix (the moons, gamma = 2, C = 1) reaches D = {D:.10g}; "
                f"the library's gaussian-kernel solve() reaches D* = {D_star:.10g}")


GAUSSIAN_GRAM = Exercise(
    name="gaussian_gram", notebook="05", title="A Gram matrix for the Gaussian kernel",
    nudge="each entry needs the squared Euclidean distance between one row of X and one row of Z",
    signature="gaussian_gram(X, Z, gamma) -> array of shape (n, m)",
    intro=(r"Write `gaussian_gram(X, Z, gamma)`: the matrix of $\exp(-\gamma \|x_i - z_j\|^2)$ for the rows of `X` "
           r"$(n \times d)$ and `Z` $(m \times d)$, of shape $(n, m)$. The check also runs dual coordinate ascent on "
           r"your matrix."),
    equation=("K_ij = exp(-gamma ||x_i - z_j||^2), where ||x_i - z_j||^2 is the sum over the d features of the squared "
              "differences (gamma is 1/sigma^2 in the MIT 9.520 notes, 1/(2 sigma^2) in others)"),
    reference=gaussian_gram, cases=_gram_cases, output="array",
    mistakes=(
        Mistake(lambda X, Z, g: np.exp(-g * np.sqrt(((X[:, None] - Z[None]) ** 2).sum(2))),
                "that is the Laplacian kernel: the Gaussian uses the SQUARED distance"),
        Mistake(lambda X, Z, g: np.exp(g * ((X[:, None] - Z[None]) ** 2).sum(2)),
                "your entries grow with the distance: the exponent is -gamma ||x - z||^2, so far points give small values"),
        Mistake(lambda X, Z, g: np.exp(-((X[:, None] - Z[None]) ** 2).sum(2) / g),
                "you divided the squared distance by gamma: multiply by it (gamma = 1/sigma^2)"),
        Mistake(lambda X, Z, g: np.exp(-g * (X @ Z.T)), "your kernel uses the inner product x'z: the Gaussian "
                                                         "kernel depends on the distance ||x - z||"),
        Mistake(lambda X, Z, g: np.exp(-g * np.abs(X[:, None] - Z[None]).sum(2)),
                "you summed absolute differences: the squared Euclidean distance sums their squares"),
    ),
    drive=_gram_drive,
)


def loo_residuals(K, y, lam):
    """Leave-one-out residuals y_i - f_{-i}(x_i) of RLS, c_i / [G^{-1}]_ii with G = K + lam I; shape (n,)."""
    G_inv = np.linalg.inv(K + lam * np.eye(len(y)))  # the inverse of G = K + lambda I
    c = G_inv @ y  # the RLS coefficients on all the data
    return c / np.diag(G_inv)


def _loo_cases():
    rng = np.random.default_rng(106)
    cases = []
    for n, lam in ((5, 1.0), (8, 0.1), (6, 10.0), (10, 0.5)):
        X = rng.normal(size=(n, 2))
        K = gaussian_gram(X, X, 1.0)
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        cases.append(Case(f"gaussian kernel, n = {n}, lambda = {lam:g}", dict(K=K, y=y, lam=lam)))
    X = rng.normal(size=(6, 3))
    cases.append(Case("linear kernel, real-valued targets", dict(K=X @ X.T, y=rng.normal(size=6), lam=0.3)))
    X = rng.normal(size=(5, 2))
    cases.append(Case("lambda tiny (1e-6), K nonsingular", dict(K=gaussian_gram(X, X, 2.0), y=rng.normal(size=5),
                                                                lam=1e-6)))
    cases.append(Case("lambda huge: f is near 0, so the residual is near y",
                      dict(K=gaussian_gram(X, X, 1.0), y=rng.normal(size=5), lam=1e8)))
    return cases


def _refit_residuals(K, y, lam, points):
    """y_i - f_{-i}(x_i) by refitting without point i, for each i in ``points``."""
    out = []
    n = len(y)
    for i in points:
        keep = np.arange(n) != i
        c = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(n - 1), y[keep])
        out.append(y[i] - K[i, keep] @ c)
    return np.array(out)


def _loo_drive(fn):
    from .. import data

    X, y = data.moons(30, noise=0.2, seed=0)
    X, y = np.asarray(X, float), np.asarray(y, float)
    K = gaussian_gram(X, X, 2.0)
    mine = np.asarray(fn(K, y, 0.3), dtype=np.float64)
    refit = _refit_residuals(K, y, 0.3, range(len(y)))
    err = float(np.max(np.abs(mine - refit)) / max(1.0, float(np.max(np.abs(refit)))))
    ok = err < 1e-8
    return ok, (f"on 30 moons (gaussian kernel, gamma = 2, lambda = 0.3) your residuals match 30 refits, each "
                f"without its point, to {err:.1e} (relative)" if ok else
                f"on the moons your residuals differ from refitting without each point by {err:.3g}")


LOO_RESIDUALS = Exercise(
    name="loo_residuals", notebook="05", title="Leave-one-out residuals without refitting",
    nudge=("everything comes from the inverse of G = K + lambda I: the coefficients, and one number per point "
           "on the inverse's diagonal"),
    signature="loo_residuals(K, y, lam) -> array of shape (n,)",
    intro=(r"**Derive, then write.** Regularized least squares fits $c = (K + \lambda I)^{-1} y$ and predicts "
           r"$f(x_t) = \sum_s c_s K_{st}$. Write `loo_residuals(K, y, lam)` returning the $n$ leave-one-out residuals "
           r"$y_i - f_{-i}(x_i)$ ($f_{-i}$ trained without point $i$) from the one inverse "
           r"$G^{-1}$ of $G = K + \lambda I$ (as in the text), without refitting. To find the formula: (1) show that $f_{-i}$ is also the "
           r"fit on all $n$ points with $y_i$ replaced by $f_{-i}(x_i)$; (2) the fitted values $K G^{-1} y$ are linear "
           r"in $y$: deduce $y_i - f_{-i}(x_i) = (y_i - f(x_i)) / (1 - (K G^{-1})_{ii})$; (3) simplify the numerator "
           r"and the denominator with $K G^{-1} = I - \lambda G^{-1}$. The check compares your residuals with refits that each leave "
           r"one point out."),
    equation=("y_i - f_{-i}(x_i) = (y_i - f(x_i)) / (1 - (K G^{-1})_ii) = c_i / (G^{-1})_ii, with G = K + lambda I "
              "and c = G^{-1} y, because y - K G^{-1} y = lambda G^{-1} y = lambda c and 1 - (K G^{-1})_ii = "
              "lambda (G^{-1})_ii"),
    kind="derive", reference=loo_residuals, cases=_loo_cases, output="array",
    mistakes=(
        Mistake(lambda K, y, lam: np.linalg.solve(K + lam * np.eye(len(y)), y) / np.diag(K + lam * np.eye(len(y))),
                "you divided by the diagonal of K + lambda I; the formula divides by the diagonal of its INVERSE"),
        Mistake(lambda K, y, lam: y - K @ np.linalg.solve(K + lam * np.eye(len(y)), y),
                "that is the training residual y - f(x), with the point in the fit; the leave-one-out residual is "
                "larger, by the factor 1 / (1 - (K G^{-1})_ii)"),
        Mistake(lambda K, y, lam: np.linalg.solve(K + lam * np.eye(len(y)), y),
                "that is c = G^{-1} y itself: step (3) divides it by something"),
        Mistake(lambda K, y, lam: -loo_residuals(K, y, lam),
                "your residuals have the wrong sign: the residual is y_i - f_{-i}(x_i)"),
    ),
    drive=_loo_drive,
)

EXERCISES = (GAUSSIAN_GRAM, LOO_RESIDUALS)
