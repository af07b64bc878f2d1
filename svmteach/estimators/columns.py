"""Column names of a data frame X: ``feature_names_in_`` recorded in ``fit`` and checked in ``predict``.

scikit-learn's rules (its ``validate_data`` is newer than the supported floor): ``fit`` records string
column names in ``feature_names_in_`` (or removes a stale one; mixed names are a TypeError);
``predict`` refuses names that differ or come in another order (a ValueError: columns are read by
position), and warns when only one of the two has names.  A data frame is a pandas ``DataFrame`` or
any object with ``__dataframe__`` (polars, pyarrow).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

#: At most this many names are listed in a message about unseen or missing names.
NAMES_SHOWN = 5


def column_names(X):
    """The column names of a data frame ``X`` as an object array of str, or None.

    None when ``X`` is not a data frame or its names are not strings; a TypeError when only some are.
    """
    names = None
    pandas = sys.modules.get("pandas")  # a pandas frame can only exist if pandas was imported
    if pandas is not None and isinstance(X, pandas.DataFrame):
        names = np.asarray(X.columns, dtype=object)
    elif hasattr(X, "__dataframe__"):
        names = np.asarray(list(X.__dataframe__().column_names()), dtype=object)
    if names is None or len(names) == 0:
        return None
    types = sorted({type(name).__qualname__ for name in names})
    if types == ["str"]:
        return names
    if "str" in types:
        raise TypeError(
            "Feature names are only supported if all input features have string names, but your input has "
            f"{types} as feature name / column name types. If you want feature names to be stored and "
            "validated, you must convert them all to strings, by using X.columns = X.columns.astype(str) for "
            "example. Otherwise you can remove feature / column names from your input data, or convert them "
            "all to a non-string data type."
        )
    return None


def record_features(est, X) -> None:
    """At the top of ``est.fit``, before ``X`` is converted: set ``est.feature_names_in_`` to ``X``'s
    string column names, or remove a stale one when ``X`` has none (:func:`column_names`)."""
    names = column_names(X)
    if names is not None:
        est.feature_names_in_ = names
    elif "feature_names_in_" in vars(est):
        del est.feature_names_in_


def _listed(names) -> str:
    """One ``- name`` line per name, at most ``NAMES_SHOWN`` of them and ``- ...`` for the rest."""
    lines = [f"- {name}\n" for name in names[:NAMES_SHOWN]]
    if len(names) > NAMES_SHOWN:
        lines.append("- ...\n")
    return "".join(lines)


def check_features(est, X) -> None:
    """Before ``X`` is read for prediction: its column names against ``est.feature_names_in_``.

    A ValueError when both have names and they differ (or come in another order); a UserWarning when only
    one of the two has names.
    """
    fitted = vars(est).get("feature_names_in_")
    given = column_names(X)
    kind = type(est).__name__
    if fitted is None and given is None:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {kind} was fitted without feature names", UserWarning,
                      stacklevel=3)
        return
    if given is None:
        warnings.warn(f"X does not have valid feature names, but {kind} was fitted with feature names",
                      UserWarning, stacklevel=3)
        return
    if len(fitted) == len(given) and bool(np.all(fitted == given)):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unseen = sorted(set(given) - set(fitted))
    missing = sorted(set(fitted) - set(given))
    if unseen:
        message += "Feature names unseen at fit time:\n" + _listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unseen and not missing:  # the same names, in another order (or one of them twice)
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)
