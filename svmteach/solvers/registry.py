"""The one registry of solvers, and the one factory that builds a solver from its name.

:data:`SOLVERS` holds every solver class by its ``name``; :func:`register_solver` adds one.  A
consumer (estimator, explorer) never picks a class by name itself: it asks :func:`make_solver`, which
refuses, naming ``solver``, a name not registered or a solver that cannot do what is asked (the kind of
problem, the loss, a sparse X, the kernel, the bias), as the class declares it
(:class:`~svmteach.solvers.base.Solver`'s capabilities), and passes it the parameters its ``__init__``
takes.  :data:`BINARY_SOLVERS` and :data:`MULTICLASS_SOLVERS` are live views of the registry.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from ..kernels import canonical_kernel_name
from .base import Solver

#: Every solver class by its name.
SOLVERS: dict[str, type[Solver]] = {}

#: The kinds of problem, each with the capability that says a solver class solves it.
KINDS = {"binary": lambda cls: cls.binary, "multiclass": lambda cls: cls.multiclass}


def register_solver(cls: type[Solver]) -> type[Solver]:
    """Add the solver class ``cls`` to :data:`SOLVERS` under its ``name`` (usable as a class decorator).

    A TypeError unless it is a :class:`~svmteach.solvers.base.Solver` subclass with a name; a
    ValueError when another class holds that name (one name, one algorithm).
    """
    if not (isinstance(cls, type) and issubclass(cls, Solver)):
        raise TypeError(f"solver must be a subclass of Solver, got {cls!r}")
    if not isinstance(cls.name, str) or not cls.name:
        raise TypeError(f"solver {cls.__name__} must have a name (a non-empty str), got {cls.name!r}")
    if SOLVERS.get(cls.name, cls) is not cls:
        raise ValueError(f"solver {cls.name!r} is already registered, as {SOLVERS[cls.name].__name__}")
    SOLVERS[cls.name] = cls
    return cls


class SolverView(Mapping):
    """The registered solvers of one kind of problem, by name: a live view of :data:`SOLVERS`."""

    def __init__(self, kind: str):
        self.kind, self.solves_kind = kind, KINDS[kind]

    def __getitem__(self, name):
        cls = SOLVERS[name]
        if not self.solves_kind(cls):
            raise KeyError(name)
        return cls

    def __iter__(self):
        return (name for name, cls in SOLVERS.items() if self.solves_kind(cls))

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"SolverView({self.kind!r}: {list(self)})"


#: The binary solvers by name.
BINARY_SOLVERS = SolverView("binary")
#: The multiclass solvers by name.
MULTICLASS_SOLVERS = SolverView("multiclass")


def multiclass_solver_names(loss) -> tuple:
    """The names of the solvers of the loss object ``loss``, its default first.

    One name per algorithm: a registered class held to one loss (``loss_class``) that subclasses another
    registered class stands for it on that loss (CSBlondel for ExactBlock on Crammer-Singer).
    """
    classes = [cls for cls in MULTICLASS_SOLVERS.values() if cls.solves(loss)]
    names = [cls.name for cls in classes
             if not any(other is not cls and other.loss_class is not None and issubclass(other, cls)
                        for other in classes)]
    return tuple(sorted(names, key=lambda name: name != loss.default_solver))


def make_solver(name: str, kind: str, *, loss=None, sparse: bool = False, kernel: str | None = None,
                bias: bool | None = None, chunked: bool = False, defaults: Mapping | None = None, **params) -> Solver:
    """The registered solver ``name`` for a problem of ``kind`` ("binary" or "multiclass").

    It is checked against what is asked, each refusal naming ``solver``: the multiclass ``loss`` object
    it must solve, a sparse X (``sparse``), the ``kernel`` by name, ``bias`` (True: the unpenalised
    bias of the binary dual, False: none), ``chunked`` (a dask X, solved where its chunks live, or in memory:
    each solver does one of the two); their defaults ask nothing.  ``params`` are the caller's
    parameters (``random_state``, ``selection``, ``cache_size``, ...): the solver gets those its
    ``__init__`` names (all of them if it takes ``**kwargs``), and ``bias`` when asked; one it does not
    take is refused (:func:`constructor_parameters`) unless ``defaults`` holds it at that value (a parameter
    an estimator offers every solver, left at its default).
    """
    choices = solver_choices(kind, loss)
    check_solver(name, kind, loss)
    cls = SOLVERS[name]
    if sparse and not cls.takes_sparse:
        able = tuple(n for n in choices if SOLVERS[n].takes_sparse)
        raise TypeError(f"solver={name!r} does not take sparse X; the solvers that do are {able}, "
                        "or pass X.toarray()")
    if bool(chunked) != cls.chunked:
        able = tuple(n for n in choices if SOLVERS[n].chunked == bool(chunked))
        raise ValueError(f"solver={name!r} solves " + ("data in memory; a dask X is solved where it lives by "
                         if chunked else "a dask X chunked by rows; X here is in memory: use ") + f"{able} (solver=None "
                         "chooses it)" + ("; or compute X first (X.compute())" if chunked else ""))
    kernel = None if kernel is None else canonical_kernel_name(getattr(kernel, "name", kernel))
    if kernel is not None and kernel not in cls.kernels:
        able = tuple(n for n in choices if kernel in SOLVERS[n].kernels)
        raise ValueError(f"solver={name!r} does not take kernel={kernel!r} (it takes {cls.kernels}); the solvers "
                         f"that do are {able}")
    if bias is not None and bias not in cls.bias_options:
        able = tuple(n for n in choices if bias in SOLVERS[n].bias_options)
        with_or_without = "with an unpenalised bias b" if bias else "without a bias"
        raise ValueError(f"solver={name!r} does not solve the problem {with_or_without} (fit_intercept={bias} in "
                         f"the estimators): it solves the problem {'with' if cls.bias_options[0] else 'without'} "
                         f"one only; the solvers that do are {able}")
    takes = inspect.signature(cls).parameters
    if bias is not None and ("bias" in takes or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes.values())):
        # checked above against bias_options; a solver with one option need not name it
        params = {**params, "bias": bias}
    return cls(**constructor_parameters(cls, params, defaults))


def solver_choices(kind: str, loss=None) -> tuple:
    """The names of the registered solvers of problems of ``kind``; for "multiclass", of the loss object ``loss``."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {tuple(KINDS)}, got {kind!r}")
    if kind == "multiclass" and loss is None:
        raise TypeError("the solvers of a multiclass problem are those of its loss: got loss=None")
    return multiclass_solver_names(loss) if kind == "multiclass" else tuple(BINARY_SOLVERS)


def check_solver(name, kind: str, loss=None) -> str:
    """``name`` when it is one of :func:`solver_choices`, else a ValueError naming ``solver`` (and why)."""
    choices = solver_choices(kind, loss)
    if not isinstance(name, str) or name not in choices:
        raise ValueError(f"solver must be one of {choices}, got {name!r}{why_not(name, kind, loss)}")
    return name


def why_not(name, kind: str, loss) -> str:
    """Why the registered solver ``name`` is not a choice for a problem of ``kind`` (and ``loss``); "" when
    no solver has that name."""
    cls = SOLVERS.get(name) if isinstance(name, str) else None
    if cls is None:
        return ""
    if not KINDS[kind](cls):
        return f": {name!r} solves {'multiclass' if kind == 'binary' else 'binary'} problems only"
    if not cls.solves(loss):
        return f": {name!r} does not solve the {loss.name!r} loss"
    return f": on the {loss.name!r} loss a solver derived from it stands for it"


def constructor_parameters(cls, params: dict, defaults: Mapping | None = None) -> dict:
    """The entries of ``params`` that ``cls.__init__`` takes by name (every one if it takes ``**kwargs``).

    An entry it does not take is a TypeError naming the parameter and the solver, unless ``defaults`` has
    that parameter at the same value: one left at its default, which means nothing to a solver without it.
    """
    signature = inspect.signature(cls)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
        return dict(params)
    taken = {key for key, p in signature.parameters.items() if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    defaults = {} if defaults is None else defaults
    for key, value in params.items():
        if key not in taken and not (key in defaults and _same(value, defaults[key])):
            default = f" ({defaults[key]!r})" if key in defaults else ""
            raise TypeError(f"{key}={value!r} is not a parameter of solver {cls.name!r} (it takes "
                            f"{tuple(sorted(taken))}): leave {key} at its default{default} or choose a solver that "
                            "takes it")
    return {key: value for key, value in params.items() if key in taken}


def _same(value, default) -> bool:
    """Whether ``value`` is ``default`` (equal, and of a kind that compares: an array or generator is not)."""
    if value is default:
        return True
    try:
        return bool(value == default)
    except Exception:  # noqa: BLE001 - an array's == is elementwise: not the default
        return False
