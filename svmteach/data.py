"""Data sets for the course: small generated 2-D teaching sets, iris and digits, LIBSVM files.

Every generator takes ``n`` and ``seed`` and returns ``(X, y)`` as NumPy arrays;
binary sets use labels -1 / +1, multiclass sets 0 .. k-1.  Nothing is downloaded:
iris and digits ship with scikit-learn.
"""

from __future__ import annotations

import numpy as np


def _rng(seed):
    return np.random.default_rng(seed)


def _check_n(n, minimum=2):
    if isinstance(n, bool) or int(n) != n or n < minimum:
        raise ValueError(f"n must be an integer >= {minimum}, got {n!r}")
    return int(n)


def separable_blobs(n: int = 40, margin: float = 1.0, seed=0):
    """Two Gaussian clouds split by the line x1 = x2 with an empty band of half-width ``margin``.

    Points that fall inside the band are pushed out along the normal, so the
    hard-margin SVM exists and its margin is at least ``margin``.
    """
    n = _check_n(n)
    rng = _rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    normal = np.array([1.0, -1.0]) / np.sqrt(2.0)
    X = rng.normal(scale=1.0, size=(n, 2)) + np.outer(y, 2.0 * margin * normal)
    along = X @ normal
    push = np.where(y * along < margin, margin - y * along, 0.0)
    X = X + np.outer(y * push, normal)
    return X, y


def overlapping_blobs(n: int = 60, spread: float = 1.3, seed=0):
    """Two Gaussian clouds that overlap, so that C matters and some slacks are positive."""
    n = _check_n(n)
    rng = _rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    centers = np.where(y[:, None] > 0, np.array([1.0, 1.0]), np.array([-1.0, -1.0]))
    return centers + rng.normal(scale=spread, size=(n, 2)), y


def moons(n: int = 100, noise: float = 0.15, seed=0):
    """Two interleaved half circles (scikit-learn's ``make_moons``), labels -1 / +1."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=_check_n(n), noise=noise, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def circles(n: int = 100, noise: float = 0.08, factor: float = 0.5, seed=0):
    """A disc inside a ring (scikit-learn's ``make_circles``): no line separates them."""
    from sklearn.datasets import make_circles

    X, y = make_circles(n_samples=_check_n(n), noise=noise, factor=factor, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def xor(n: int = 100, noise: float = 0.25, seed=0):
    """Four clusters at (+-1, +-1) labelled by the sign of x1 * x2."""
    n = _check_n(n)
    rng = _rng(seed)
    corners = rng.choice([-1.0, 1.0], size=(n, 2))
    X = corners + rng.normal(scale=noise, size=(n, 2))
    return X, np.sign(corners[:, 0] * corners[:, 1])


def multiclass_blobs(n: int = 90, k: int = 3, spread: float = 0.9, seed=0):
    """``k`` Gaussian clouds around a circle, labels 0 .. k-1 (for the multiclass notebooks)."""
    n = _check_n(n)
    if isinstance(k, bool) or int(k) != k or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    rng = _rng(seed)
    y = np.arange(n) % k
    angles = 2 * np.pi * y / k
    centers = 2.5 * np.column_stack([np.cos(angles), np.sin(angles)])
    return centers + rng.normal(scale=spread, size=(n, 2)), y


def synthetic_multiclass(n: int = 10_000, d: int = 784, k: int = 10, separation: float = 0.5,
                         flip: float = 0.05, seed=0, dtype=np.float32):
    """A large multiclass problem for benchmarks: k Gaussian classes in d dimensions.

    Class m has mean ``separation * c_m`` (``c_m`` standard normal), every point adds
    standard normal noise, rows are divided by sqrt(d) (norms near 1, as for
    normalised images), and a fraction ``flip`` of the labels is redrawn at random, so
    that the classes overlap.  Returns ``(X, y)`` with X of ``dtype`` (float32: half the
    memory traffic) and y in 0 .. k-1.
    """
    n = _check_n(n)
    for name, v, low in (("d", d, 1), ("k", k, 2)):
        if isinstance(v, bool) or int(v) != v or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    if not 0.0 <= flip <= 1.0:
        raise ValueError(f"flip must be in [0, 1], got {flip!r}")
    rng = _rng(seed)
    centers = rng.standard_normal((k, d), dtype=np.float32)
    y = rng.integers(0, k, n)
    X = rng.standard_normal((n, d), dtype=np.float32)
    X += np.float32(separation) * centers[y]
    X *= np.float32(1.0 / np.sqrt(d))
    redraw = rng.random(n) < flip
    y[redraw] = rng.integers(0, k, int(redraw.sum()))
    return X.astype(dtype, copy=False), y


def iris(classes=None, features=None):
    """Fisher's iris (150 x 4, 3 classes) from scikit-learn.

    ``classes``: keep only these class indices (e.g. ``(1, 2)`` for a binary
    problem); ``features``: keep only these columns (e.g. ``(2, 3)`` to plot).
    """
    from sklearn.datasets import load_iris

    data = load_iris()
    X, y = data.data, data.target
    if classes is not None:
        keep = np.isin(y, classes)
        X, y = X[keep], y[keep]
    if features is not None:
        X = X[:, list(features)]
    return X, y


def digits(scale: bool = True):
    """The 8 x 8 handwritten digits (1797 x 64, 10 classes) from scikit-learn, pixels in [0, 1]."""
    from sklearn.datasets import load_digits

    data = load_digits()
    X = data.data / 16.0 if scale else data.data
    return X, data.target


def load_libsvm(path, n_features=None):
    """Read a LIBSVM / SVMlight text file (``label index:value ...`` per line) into a dense ``(X, y)``.

    A malformed line raises a ValueError that starts with ``line N:`` (1-based) and shows
    the line; a file without samples (empty, or only comments) raises a ValueError too.
    """
    import io

    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(str(path), n_features=n_features)
    except ValueError as err:
        # find the first line that does not parse on its own, to say where the file is wrong
        with open(path, "rb") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    load_svmlight_file(io.BytesIO(line), n_features=n_features)
                except ValueError as line_err:
                    text = line.decode("utf-8", "replace").rstrip("\n")
                    raise ValueError(f"line {number}: {line_err} in {text!r} ({path})") from None
        raise ValueError(f"{path}: {err}") from None
    if X.shape[0] == 0:
        raise ValueError(f"{path} holds no samples: a LIBSVM file has one 'label index:value ...' line per sample")
    return X.toarray(), y


TEACHING_SETS = {
    "separable": separable_blobs,
    "overlapping": overlapping_blobs,
    "moons": moons,
    "circles": circles,
    "xor": xor,
}
