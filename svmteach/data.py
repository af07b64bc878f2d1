"""Data sets for the course: small generated 2-D teaching sets, iris and digits, LIBSVM files.

Every generator takes ``n`` and ``seed`` and returns ``(X, y)`` as NumPy arrays; binary
sets use labels -1 / +1, multiclass sets 0 .. k-1.  Nothing is downloaded: iris and digits
ship with scikit-learn.  A LIBSVM file is read into a SciPy CSR matrix, never a dense one.
"""

from __future__ import annotations

import math
import re

import numpy as np


def _rng(seed):
    return np.random.default_rng(seed)


def _check_n(n, minimum=2):
    if isinstance(n, bool) or int(n) != n or n < minimum:
        raise ValueError(f"n must be an integer >= {minimum}, got {n!r}")
    return int(n)


def _check_scale(value, name: str) -> float:
    """A noise or spread ``value`` as a finite float >= 0 (0: the points on their centres), or raise naming it."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number >= 0 (a standard deviation), got {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be >= 0 and finite (a standard deviation), got {value!r}")
    return float(value)


def _check_indices(values, name: str, size: int, what: str) -> list:
    """``values`` as a non-empty list of integers in [0, size), or raise naming ``name``."""
    import numbers

    many = what + ("es" if what.endswith("s") else "s")

    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of {what} indices, got {type(values).__name__} {values!r}") from None
    if not values:
        raise ValueError(f"{name} is empty: keep at least one of the {size} {many} (indices 0 .. {size - 1})")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must hold {what} indices (integers 0 .. {size - 1}), got {v!r}")
        if not 0 <= v < size:
            raise ValueError(f"{name} has {v}, which is not a {what} index: iris has {size} {many}, 0 .. {size - 1}")
    return [int(v) for v in values]


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
    spread = _check_scale(spread, "spread")
    rng = _rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    centers = np.where(y[:, None] > 0, np.array([1.0, 1.0]), np.array([-1.0, -1.0]))
    return centers + rng.normal(scale=spread, size=(n, 2)), y


def moons(n: int = 100, noise: float = 0.15, seed=0):
    """Two interleaved half circles (scikit-learn's ``make_moons``), labels -1 / +1."""
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=_check_n(n), noise=_check_scale(noise, "noise"), random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def circles(n: int = 100, noise: float = 0.08, factor: float = 0.5, seed=0):
    """A disc inside a ring (scikit-learn's ``make_circles``): no line separates them."""
    from sklearn.datasets import make_circles

    X, y = make_circles(n_samples=_check_n(n), noise=_check_scale(noise, "noise"), factor=factor, random_state=seed)
    return X, np.where(y == 1, 1.0, -1.0)


def xor(n: int = 100, noise: float = 0.25, seed=0):
    """Four clusters at (+-1, +-1) labelled by the sign of x1 * x2."""
    n = _check_n(n)
    noise = _check_scale(noise, "noise")
    rng = _rng(seed)
    corners = rng.choice([-1.0, 1.0], size=(n, 2))
    X = corners + rng.normal(scale=noise, size=(n, 2))
    return X, np.sign(corners[:, 0] * corners[:, 1])


def multiclass_blobs(n: int = 90, k: int = 3, spread: float = 0.9, seed=0):
    """``k`` Gaussian clouds around a circle, labels 0 .. k-1 (for the multiclass notebooks)."""
    n = _check_n(n)
    if isinstance(k, bool) or int(k) != k or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    if n < k:  # y = i mod k: classes k - n .. k - 1 would have no sample
        raise ValueError(f"n={n} is smaller than k={int(k)}: each of the k classes needs a sample, so n >= k")
    spread = _check_scale(spread, "spread")
    rng = _rng(seed)
    y = np.arange(n) % k
    angles = 2 * np.pi * y / k
    centers = 2.5 * np.column_stack([np.cos(angles), np.sin(angles)])
    return centers + rng.normal(scale=spread, size=(n, 2)), y


def rings(n: int = 60, noise: float = 0.15, seed=0):
    """Three noisy concentric rings (radii 1, 2, 3; radial noise ``noise``), labels 0 (inside) .. 2 (outside): no
    straight boundary separates them (notebook 9)."""
    n = _check_n(n)
    noise = _check_scale(noise, "noise")
    rng = _rng(seed)
    y = np.arange(n) % 3
    r = 1.0 + y + noise * rng.standard_normal(n)
    t = rng.uniform(0, 2 * np.pi, n)
    return np.c_[r * np.cos(t), r * np.sin(t)], y


def three_moons(n: int = 60, noise: float = 0.12, seed=0):
    """Three interleaved half circles of radius 1 (scikit-learn's two moons and one more), labels 0 .. 2: class 0
    an upper arc at (0, 0), class 1 a lower arc at (1, 0.5), class 2 an upper arc at (2, 0) (notebook 9)."""
    n = _check_n(n)
    noise = _check_scale(noise, "noise")
    rng = _rng(seed)
    y = np.arange(n) % 3
    t = rng.uniform(0, np.pi, n)
    centre = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]])[y]
    sign = np.where(y == 1, -1.0, 1.0)  # class 1 opens upwards, between the other two
    return centre + np.c_[np.cos(t), sign * np.sin(t)] + noise * rng.standard_normal((n, 2)), y


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
    if classes is not None:  # checked: an index out of range kept nothing (an empty X), one in features an IndexError
        keep = np.isin(y, _check_indices(classes, "classes", 3, "class"))
        X, y = X[keep], y[keep]
    if features is not None:
        X = X[:, _check_indices(features, "features", X.shape[1], "feature")]
    return X, y


def digits(scale: bool = True):
    """The 8 x 8 handwritten digits (1797 x 64, 10 classes) from scikit-learn, pixels in [0, 1]."""
    from sklearn.datasets import load_digits

    data = load_digits()
    X = data.data / 16.0 if scale else data.data
    return X, data.target


#: The largest feature index :func:`load_libsvm` takes: a column index of a CSR matrix is an int64.
MAX_LIBSVM_INDEX = 2**63 - 1


def _check_n_features(n_features) -> int:
    """``n_features`` as an int in [1, MAX_LIBSVM_INDEX], or a TypeError / ValueError naming it."""
    import numbers

    message = f"n_features must be None or an integer >= 1 (at most 2**63 - 1), got {n_features!r}"
    if not isinstance(n_features, numbers.Real):
        raise TypeError(message)
    if isinstance(n_features, bool) or not (math.isfinite(n_features) and n_features == int(n_features)
                                            and 1 <= n_features <= MAX_LIBSVM_INDEX):
        raise ValueError(message)
    return int(n_features)


def load_libsvm(path, n_features=None):
    """Read a LIBSVM / SVMlight text file into a sparse ``(X, y)``, never making it dense.

    Each line is one sample, ``label index:value index:value ...``: the indices start at 1
    and increase strictly along the line (as LIBSVM and LIBLINEAR require), a feature left
    out is 0, a line with a label alone is a sample with no nonzero feature.  Text after
    ``#`` is a comment; blank and comment-only lines are not samples.  An SVMlight query id
    (``qid:N`` right after the label) is read and dropped: it groups samples for ranking and
    means nothing to a classifier (scikit-learn's ``load_svmlight_file`` drops it too).

    The file is parsed by scikit-learn's :func:`~sklearn.datasets.load_svmlight_file` (its compiled reader), a
    line at a time into the three arrays of the CSR format (values, column indices, row starts), so memory grows
    with the number of stored entries, never with ``n_samples * n_features``: a file of 5,000 rows over 10**6
    columns with 20 entries a row needs a few megabytes, where a dense X would need 40 GB.  A file it refuses, or
    with what LIBSVM's own reader would refuse and Python's ``int`` / ``float`` take (an underscore, another
    script's digits, an infinite or NaN number), or with an index beyond its reader's 32-bit one, is read here
    line by line (:func:`_scan_libsvm`), which takes indices up to 2**63 - 1 and names the line of an error.

    Parameters
    ----------
    path : str or path-like
    n_features : int or None
        The number of columns; None takes the largest index in the file.  Larger than that
        pads X with empty columns (to match a training file); smaller is refused.

    Returns
    -------
    X : scipy.sparse.csr_array of float64, shape (n_samples, n_features)
        Entries as written (an explicit ``index:0`` is stored), column indices sorted.
    y : (n_samples,) float64 labels.

    Raises
    ------
    ValueError
        For a malformed line, with a message that starts ``line N:`` (1-based), names what is
        wrong and shows the line: a label or value that is not a finite number, an index that is
        not an integer >= 1, indices out of order or repeated, an index above ``n_features``.
        A file without samples (empty, or only comments) is refused too.
    """
    if n_features is not None:
        n_features = _check_n_features(n_features)
    read = None if _outside_the_grammar(path) else _load_with_scikit_learn(path, n_features)
    return read if read is not None else _scan_libsvm(path, n_features)


#: A comment, and the words LIBSVM's grammar allows beside numbers; what is left of a line must be ASCII digits,
#: signs, points, exponents, colons and white space (:func:`_outside_the_grammar`).
_COMMENT, _WORDS = re.compile(rb"#[^\n]*"), re.compile(rb"qid:")
_FOREIGN = re.compile(rb"[^0-9eE.+\-:\s]")


def _outside_the_grammar(path, chunk: int = 1 << 18) -> bool:
    """Whether the file, comments left out, has a character no LIBSVM number, index or ``qid:`` has (an underscore,
    a letter, another script's digit, so an ``inf`` or ``nan`` too), read ``chunk`` bytes at a time."""
    with open(path, "rb") as f:
        rest = b""
        while True:
            data = f.read(chunk)
            block = rest + data
            cut = len(block) if not data else block.rfind(b"\n") + 1  # whole lines, but for the last
            block, rest = block[:cut], block[cut:]
            if _FOREIGN.search(_WORDS.sub(b"", _COMMENT.sub(b"", block))):
                return True
            if not data:
                return False


def _load_with_scikit_learn(path, n_features):
    """``(X, y)`` as :func:`load_libsvm` returns them, read by :func:`sklearn.datasets.load_svmlight_file` (1-based
    indices); None where it refuses the file (which :func:`_scan_libsvm` then says why, naming the line) or reads
    what LIBSVM's grammar refuses: no sample, or a number that is not finite."""
    import scipy.sparse as sp
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64, zero_based=False)
    except (ValueError, OverflowError):  # malformed, or an index beyond its C int: said, or read, line by line
        return None
    X = sp.csr_array(X)
    if not (y.size and np.all(np.isfinite(y)) and np.all(np.isfinite(X.data))):
        return None
    index_dtype = np.int32 if max(X.shape[1], X.nnz) < 2**31 else np.int64
    X = sp.csr_array((X.data, X.indices.astype(index_dtype, copy=False), X.indptr.astype(index_dtype, copy=False)),
                     shape=X.shape, copy=False)
    return X, np.asarray(y, dtype=np.float64)


def _scan_libsvm(path, n_features):
    """:func:`load_libsvm`'s reader line by line, in Python: each refusal names its line and what is wrong."""
    import math
    from array import array

    import scipy.sparse as sp

    labels = array("d")
    values = array("d")  # the stored entries, row after row
    columns = array("q")  # their 0-based column indices
    row_starts = array("q", [0])  # row i's entries are values[row_starts[i]:row_starts[i + 1]]
    widest, widest_line = 0, 0  # the largest 1-based index seen, and its line

    def bad(number, line, why):
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        return ValueError(f"line {number}: {why} in {text!r} ({path})")

    def number_of(token):
        if b"_" in token:  # Python's float() reads "1_0" as 10; LIBSVM's strtod stops at the underscore
            return None
        try:
            value = float(token)
        except ValueError:
            return None
        return value if math.isfinite(value) else None

    with open(path, "rb") as f:
        for number, line in enumerate(f, start=1):
            tokens = line.split(b"#", 1)[0].split()
            if not tokens:
                continue  # a blank or comment-only line
            label = number_of(tokens[0])
            if label is None:
                why = " (a multilabel file, which is not supported)" if b"," in tokens[0] else ""
                raise bad(number, line, f"the label {tokens[0].decode(errors='replace')!r} is not a finite number{why}")
            entries = tokens[2:] if len(tokens) > 1 and tokens[1].startswith(b"qid:") else tokens[1:]
            previous = 0
            for token in entries:
                index, colon, value_text = token.partition(b":")
                # ASCII digits only: Python's int() also takes "1_0" (as 10), signs and other scripts' digits
                digits = index[1:] if index.startswith(b"+") else index  # strtol's optional sign
                index = int(digits) if digits.isdigit() else None
                if not colon or index is None or index < 1:
                    raise bad(number, line, f"{token.decode(errors='replace')!r} is not index:value with an "
                                            "integer index >= 1 (LIBSVM indices start at 1)")
                if index > MAX_LIBSVM_INDEX:
                    raise bad(number, line, f"feature index {index} is above {MAX_LIBSVM_INDEX} (2**63 - 1), "
                                            "the largest column a sparse matrix can index")
                if index <= previous:
                    raise bad(number, line, f"feature index {index} comes after {previous}: the indices of a "
                                            "line must be sorted and unique")
                value = number_of(value_text)
                if value is None:
                    raise bad(number, line, f"the value {value_text.decode(errors='replace')!r} of feature "
                                            f"{index} is not a finite number")
                values.append(value)
                columns.append(index - 1)  # 1-based in the file, 0-based in X
                previous = index
            if previous > widest:
                widest, widest_line = previous, number
            labels.append(label)
            row_starts.append(len(values))
    if not labels:
        raise ValueError(f"{path} holds no samples: a LIBSVM file has one 'label index:value ...' line per sample")
    if n_features is None:
        n_features = max(widest, 1)
    elif widest > n_features:
        raise ValueError(f"n_features={n_features} is too small: line {widest_line} of {path} has feature index "
                         f"{widest} (LIBSVM indices start at 1, so X needs at least {widest} columns)")
    n_features = int(n_features)
    index_dtype = np.int32 if max(n_features, len(values)) < 2**31 else np.int64
    X = sp.csr_array((np.frombuffer(values, dtype=np.float64),
                      np.frombuffer(columns, dtype=np.int64).astype(index_dtype),
                      np.frombuffer(row_starts, dtype=np.int64).astype(index_dtype)),
                     shape=(len(labels), n_features), copy=False)
    return X, np.frombuffer(labels, dtype=np.float64).copy()


TEACHING_SETS = {
    "separable": separable_blobs,
    "overlapping": overlapping_blobs,
    "moons": moons,
    "circles": circles,
    "xor": xor,
}
