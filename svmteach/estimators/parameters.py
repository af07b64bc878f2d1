"""The estimators' parameters: one validator per parameter, run from a declarative table."""

from __future__ import annotations

import numpy as np

from ..solvers import base
from ..solvers.base import check_choice

def check_tol(tol) -> float:
    """The estimators' ``tol``: a positive finite number (a TypeError / ValueError naming it otherwise)."""
    return base.check_tol(tol, "tol", positive=True)


def check_max_iter(max_iter) -> int:
    """The estimators' ``max_iter``: a positive integer."""
    return base.check_max_iter(max_iter, "max_iter")


def check_flag(value, name: str) -> bool:
    """A bool (or NumPy bool) parameter, or a TypeError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_optional_max_iter(max_iter):
    """None (the solver's default) or a positive integer."""
    return None if max_iter is None else check_max_iter(max_iter)


def check_choice_of(options):
    """A validator of a parameter that must be one of ``options``."""
    return lambda value, name: check_choice(name, value, tuple(options))


def checked_by_solver(value, name):
    """A parameter the solver validates when it is made (``cache_size``), naming it."""
    return value


def checked_by_problem(value, name):
    """A parameter the problem validates when it is built (C, the kernel and its constants, M, device)."""
    return value


class ValidatedParameters:
    """Estimators whose parameters are validated from one declarative table, ``PARAMETERS``.

    ``PARAMETERS`` maps each ``__init__`` parameter to a validator ``f(value, name) -> value`` that
    raises a TypeError / ValueError naming the parameter (in the spirit of scikit-learn's
    ``_parameter_constraints``); :meth:`checked_params` runs them all, in ``fit``, before any work.
    """

    PARAMETERS: dict = {}

    def checked_params(self) -> dict:
        """Every parameter, validated: ``{name: value}``."""
        params = self.get_params(deep=False)
        missing = set(params) - set(self.PARAMETERS)
        assert not missing, f"{type(self).__name__}.PARAMETERS has no validator for {sorted(missing)}"
        return {name: self.PARAMETERS[name](value, name) for name, value in params.items()}


def check_intercept_scaling(value, name: str = "intercept_scaling") -> float:
    """A positive finite number: the value of the constant feature that carries the intercept."""
    from ..problems import check_bias

    if value is None:
        raise TypeError(f"{name} must be a positive number, got None")
    return check_bias(value, name)


def _shared_parameters() -> dict:
    """The validators of the parameters both linear-model estimators share beyond their model: the
    intercept, class weights, warm start and progress (imported here, after the checks they use)."""
    from .progress import check_verbose
    from .weights import check_class_weight

    return {"fit_intercept": check_flag, "intercept_scaling": check_intercept_scaling,
            "class_weight": check_class_weight, "warm_start": check_flag, "verbose": check_verbose}


#: ``PARAMETERS`` entries of BinarySVC and MulticlassSVC alike (:func:`_shared_parameters`).
SHARED_PARAMETERS = _shared_parameters()
