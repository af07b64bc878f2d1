"""Editing an explorer's data by clicking, as in LIBSVM's svm-toy: add a point, remove the nearest one; and by
dragging a point to a new place.

Each returns new arrays (the explorer then rebuilds its problem); removing never takes the
last point of a class, so the problem stays valid.
"""

from __future__ import annotations

import numpy as np

#: What a click does in each mode of an explorer's "click" control.
ADD, REMOVE = "add", "remove"


def _finite_point(x1, x2, what):
    """``(x1, x2)`` as a float array, or a TypeError / ValueError naming ``x1, x2`` (``what`` was not done)."""
    try:
        point = np.array([x1, x2], dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"x1, x2 must be finite numbers, got ({x1!r}, {x2!r})") from None
    if point.shape != (2,) or not np.all(np.isfinite(point)):
        raise ValueError(f"x1, x2 must be finite numbers, got ({x1!r}, {x2!r}): {what}")
    return point


def with_point(X, y, x1, x2, label):
    """``(X, y)`` with the point ``(x1, x2)`` of class ``label`` appended.

    Raises a ValueError naming ``x1, x2`` (and leaves the data as it was) unless both are finite numbers.
    """
    point = _finite_point(x1, x2, "the point was not added")
    return np.vstack([X, point]), np.append(y, label)


def without_nearest(X, y, x1, x2):
    """``(X, y, removed)``: the data without the point nearest to ``(x1, x2)``.

    ``removed`` is its index, or None (and the data unchanged) when it is the last of its class.  Raises
    a ValueError naming ``x1, x2`` unless both are finite numbers (NaN is nearest to nothing: argmin
    would pick point 0).
    """
    x1, x2 = _finite_point(x1, x2, "no point was removed")
    i = int(np.argmin((X[:, 0] - x1) ** 2 + (X[:, 1] - x2) ** 2))
    if np.sum(y == y[i]) <= 1:
        return X, y, None
    keep = np.arange(len(y)) != i
    return X[keep], y[keep], i


def with_point_moved(X, i, x1, x2):
    """A copy of ``X`` with point ``i`` at ``(x1, x2)`` (a drag: the labels stay).

    Raises a ValueError naming ``x1, x2`` (and leaves the data as it was) unless both are finite numbers, and an
    IndexError naming ``i`` unless it is a point of ``X``.
    """
    point = _finite_point(x1, x2, "the point was not moved")
    if not (isinstance(i, (int, np.integer)) and -len(X) <= i < len(X)):
        raise IndexError(f"i must index one of the {len(X)} points, got {i!r}")
    X = np.array(X, dtype=np.float64)
    X[i] = point
    return X


def nearest_within(points_px, at_px, radius_px):
    """The index of the point nearest to ``at_px`` among ``points_px`` ((n, 2) display pixels) when it is at
    most ``radius_px`` away, else None: what a press picks up for a drag."""
    d2 = np.sum((np.asarray(points_px, dtype=np.float64) - np.asarray(at_px, dtype=np.float64)) ** 2, axis=1)
    i = int(np.argmin(d2))
    return i if d2[i] <= radius_px ** 2 else None


def click_action(event, default):
    """What a matplotlib click does: ``(ADD, other_class)`` or ``(REMOVE, None)``.

    ``default`` is the mode chosen in the explorer's control (``(ADD, False)`` or
    ``(REMOVE, None)``); shift-click or right-click adds a point of the *other* class,
    ctrl-click or a middle click removes the nearest point, whatever the mode.
    """
    key = event.key or ""
    if event.button == 2 or key.startswith("control") or key.startswith("ctrl"):
        return REMOVE, None
    if event.button == 3 or key.startswith("shift"):
        return ADD, True
    return default
