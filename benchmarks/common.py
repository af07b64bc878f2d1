"""Helpers shared by the benchmark scripts: timing, the machine's description, tables, a text-like data set."""

from __future__ import annotations

import statistics
import time

import numpy as np


def best_of(fn, repeat=3):
    """Median wall time of ``fn()`` over ``repeat`` runs, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def machine() -> str:
    """One line naming the CPU, its cores, the threads numba and the BLAS use now, and the library versions."""
    import numba
    import sklearn

    from harness import machine as cpu_and_threads

    line = f"{cpu_and_threads()}, numba {numba.__version__}, scikit-learn {sklearn.__version__}"
    try:
        from importlib.metadata import version

        line += f", liblinear-official {version('liblinear-official')}"
    except Exception:  # not installed: the scripts say so where they need it
        pass
    return line


def table(rows, header):
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def first_reaching(runs, target):
    """The first (loosest) run whose suboptimality is at most ``target``: ``(tol, time, subopt)``."""
    for tol, t, s in runs:
        if s <= target:
            return tol, t, s
    return runs[-1]


def text_like(n=20_000, d=50_000, words=30, k=20, noise=0.5, flip=0.05, seed=0):
    """A generated text-like multiclass problem: ``(X, y)``, X an (n, d) ``scipy.sparse.csr_matrix``.

    Each row draws ``words`` column indices from Zipf's law of word frequencies (column j of a
    shuffled vocabulary with probability proportional to 1 / rank), counts them (a repeated word
    is one nonzero: about ``words`` nonzeros a row, fewer for the frequent words), weights each
    count c as ``1 + log c`` (sublinear term frequency) and scales the row to unit norm.  The
    labels follow a sparse linear rule: ``k`` random weight vectors, each on 1% of the vocabulary,
    give scores ``s = X w_m`` plus Gaussian noise of ``noise`` times their spread; the label is
    the highest score, then a fraction ``flip`` of the labels is redrawn at random.
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    rank = rng.permutation(d)  # which column is the most frequent word, the second, ...
    p = 1.0 / np.arange(1, d + 1)
    cols = rank[rng.choice(d, size=n * words, p=p / p.sum())]
    rows = np.repeat(np.arange(n), words)
    X = sp.csr_matrix((np.ones(n * words), (rows, cols)), shape=(n, d))  # duplicates summed: word counts
    X.data = 1.0 + np.log(X.data)
    X = sp.csr_matrix(sp.diags(1.0 / np.sqrt(X.multiply(X).sum(axis=1).A1)) @ X)  # unit rows
    X.sort_indices()
    W = sp.random(k, d, density=0.01, random_state=rng, data_rvs=rng.standard_normal, format="csr")
    S = (X @ W.T).toarray()
    S += noise * S.std() * rng.standard_normal(S.shape)
    y = S.argmax(axis=1)
    redraw = rng.random(n) < flip
    y[redraw] = rng.integers(0, k, int(redraw.sum()))
    return X, y
