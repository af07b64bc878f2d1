"""Sample and class weights: each sample's share of the penalty, :math:`C_i = C\\,w_i`.

scikit-learn's ``LinearSVC`` and ``SVC`` (and LIBLINEAR / LIBSVM below them) weight a sample by
scaling its C: the dual box of sample i becomes :math:`[0, C_i]`.  A class weight multiplies the
weight of every sample of that class, so the two combine as a product.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.class_weight import compute_class_weight

from ..validation import check_labels


def check_class_weight(value, name: str = "class_weight"):
    """``None``, ``"balanced"`` or a dict ``{label: weight}`` with finite weights >= 0."""
    if value is None or (isinstance(value, str) and value == "balanced"):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be None, 'balanced' or a dict {{label: weight}}, got {value!r}")
    for label, weight in value.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name}[{label!r}] must be a number, got {type(weight).__name__}")
        if not (np.isfinite(weight) and weight >= 0):
            raise ValueError(f"{name}[{label!r}] must be finite and >= 0, got {weight}")
    return value


def sample_weights(y, sample_weight, class_weight):
    """The (n,) weights :math:`w_i` = ``sample_weight[i]`` times the weight of sample i's class, or None
    when both are None (every :math:`C_i = C`).

    ``class_weight="balanced"`` gives class c the weight ``n / (k * n_c)``, as scikit-learn's
    :func:`~sklearn.utils.class_weight.compute_class_weight` (which computes it here); a label of the
    dict that is not in ``y`` is a ValueError naming ``class_weight``.  ``sample_weight`` is checked by
    the problem (:func:`svmteach.validation.check_sample_weight`), naming it.
    """
    if class_weight is None:
        return sample_weight
    n = np.shape(y)[0] if np.ndim(y) else 0
    classes, codes = check_labels(y, n, "y")
    try:
        per_class = compute_class_weight(class_weight, classes=classes, y=classes[codes])
    except ValueError as error:
        raise ValueError(f"class_weight: {error}") from None
    w = per_class[codes]
    if sample_weight is None:
        return w
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    if sample_weight.shape != w.shape:
        raise ValueError(f"sample_weight must have shape ({n},) (one weight per sample), got shape {sample_weight.shape}")
    return sample_weight * w
