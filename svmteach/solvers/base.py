"""The solver contract, :class:`Solver`, and the two drivers every solver shares: :func:`iterate` and :func:`solve`.

A base class rather than a :class:`typing.Protocol`, so that the shared defaults are written once
and ``issubclass(cls, Solver)`` is a check ``tests/test_contract.py`` can make.  A solver holds
hyperparameters only; its members:

- ``name``, and ``State``: a :class:`~svmteach.solvers.state.ThreePartState` built by keyword: the
  iterate (at least ``n_iter``, ``alpha``, ``primal``, ``dual``, ``gap``, the relative duality gap, and
  ``kkt``, the KKT violation, current after ``measure``), the step's picture and the engine's
  bookkeeping, each a ``NamedTuple`` whose docstring gives every field's shape;
- ``init(problem)``, and ``step(problem, state)``: one pure step (it never writes into ``state``
  or ``problem``, so a list of states is a true film of the run);
- ``advance(problem, state, n_steps, tol=None)``: up to ``n_steps`` steps by the fast path where
  there is one (the same mathematics as ``step``); with ``tol`` it returns the first measured
  ``converged`` state, measuring when its :class:`~svmteach.solvers.stopping.StoppingRule` says;
- ``measure(problem, state)``: the state with its objectives evaluated;
- ``converged(state, tol)``: :func:`gap_reached` on the state's gap;
- ``steps_per_epoch`` (one pass over the data) and ``steps_between_measures`` (the chunk
  :func:`solve` asks ``advance`` for, one epoch by default);
- ``violation(state)``: a KKT violation the last ``advance`` computed for free, or NaN;
- ``warm_start(problem, state)``: a state of another run (another C, say) projected into this
  problem's box, its caches recomputed, measured; :func:`iterate` and :func:`solve` apply it to
  every ``state=`` after :func:`check_state`;
- ``coefficients(problem, state)``: ``(alpha, b)`` (binary) or ``(alpha, W)`` (multiclass) as
  NumPy arrays; consumers ask for these, never for a field by name;
- ``step_picture(state)``: what the step that made ``state`` did, its ``picture`` part (the ``State``'s
  ``Picture`` NamedTuple, each field's shape in its docstring); a picture or a sentence of the step
  (:mod:`svmteach.widgets.narration`) reads it by its type;
- ``sample_violations(problem, state)``: (n,) each sample's KKT violation at ``coefficients``, computed when
  asked (a pass over the data; :mod:`~svmteach.solvers.violations`), what "4 samples still violate KKT" counts;
- ``still_is_fixed_point``: an epoch that moves no dual variable proves no later one will, so
  :func:`solve` stops there, not converged.  (A stagnant dual is no such sign: it reaches its
  optimum to rounding long before the primal does.)

**Stopping, written once.**  :class:`~svmteach.solvers.stopping.StoppingRule` is the policy: a run stops
only on a measured gap at most ``tol`` (``converged``); :func:`solve` drives one (the cheap stop measures
when ``violation`` is small, or on a geometric schedule; a NaN gap or a fixed point stops it, not
converged), and every ``advance`` with ``tol`` asks one whether to measure and whether the measure stops.
The last state :func:`solve` returns is always measured; ``record_history=True`` or ``fast=False``
measure after every chunk, with the clock paused.
"""

from __future__ import annotations

import math
import numbers
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..compile_notice import compile_notice
from ..kernels import KERNELS
from ..losses import MulticlassLoss
from ..losses.base import mathematics_class
from ..problems import Problem
from .stopping import (KKT_PER_TOL, MIN_CHUNKS_BETWEEN_MEASURES, NEGATIVE_GAP, InfeasibleStateError,  # noqa: F401
                       StoppingRule, gap_reached, next_threshold_factor)

HISTORY_KEYS = ("n_iter", "time", "primal", "dual", "gap", "kkt")

#: :func:`solve`'s default budget: this many epochs (passes over the data), and at least ``DEFAULT_STEPS`` sample
#: visits (:meth:`Solver.default_max_iter`).
DEFAULT_EPOCHS = 1000
DEFAULT_STEPS = 100_000


class SolveResult(NamedTuple):
    """What :func:`solve` returns (in the spirit of SciPy's ``OptimizeResult``).

    Attributes
    ----------
    state : the final solver state.
    n_iter : int, steps taken.
    converged : bool, whether the relative duality gap reached ``tol``.
    primal, dual, gap, kkt : float, the objectives, relative gap and KKT violation at the end.
    history : dict of lists (keys ``HISTORY_KEYS``) or None. ``time`` is solver time in
        seconds, with the clock paused while the objectives are evaluated.
    states : list of states (step-by-step runs with ``record_states=True``) or None.
    interrupted : bool, True when a KeyboardInterrupt (Ctrl-C) stopped the run: the result is then its
        last completed state, measured (its gap certifies it as any other's), and ``converged`` only if
        that gap reached ``tol``.
    rounding : float, a bound on the rounding error of ``primal - dual`` (``Solver.gap_rounding``),
        computed when the gap reached ``tol``; NaN otherwise.
    reason : str, why a run whose gap reached ``tol`` is not ``converged`` (float64 cannot resolve that
        gap: ``rounding > tol * |primal|``), else "".
    """

    state: Any
    n_iter: int
    converged: bool
    primal: float
    dual: float
    gap: float
    kkt: float
    history: dict | None
    states: list | None
    interrupted: bool = False
    rounding: float = math.nan
    reason: str = ""


class Solver(ABC):
    """The contract every solver fulfils (see the module docstring), with its shared defaults.

    A subclass sets ``name`` and ``State`` and defines ``init``, ``step``, ``warm_start`` and
    ``coefficients``.  Its capabilities are class attributes, read by
    :func:`~svmteach.solvers.registry.make_solver`, which refuses a solver asked for what it cannot do.

    Attributes
    ----------
    name : str
        The solver's short name.
    State : type
        The class of its states (a :class:`~svmteach.solvers.state.ThreePartState`).
    still_is_fixed_point : bool
        See the module docstring.
    binary, multiclass : bool
        Whether it solves a :class:`~svmteach.problems.BinaryProblem` / a
        :class:`~svmteach.problems.MulticlassProblem` (for the losses :meth:`solves` accepts).
    loss_class : type or None
        The one multiclass loss it solves (None: every loss).
    takes_sparse : bool
        Whether it runs on a SciPy sparse X (through :mod:`svmteach.rows`, never made dense).
    kernels : tuple of str
        The kernels it takes (:data:`~svmteach.kernels.KERNELS`).
    bias_options : tuple of bool
        The values of ``bias`` it solves with: True, the binary dual with an unpenalised bias b and its
        equality :math:`y^\\top\\alpha = 0` (LIBSVM's); False, the dual without a bias.
    bias : bool
        Whether this solver's dual has that equality (a warm start must keep it).
    explorable : bool
        Whether the explorers offer it: its steps can be watched one at a time.
    prefers_gpu : bool
        Meant for a GPU (every sample at once); slower than the sequential ones on a CPU.
    chunked : bool
        Whether it solves a chunked problem (:mod:`svmteach.chunked_problem`: a dask X, where its row chunks live)
        instead of a problem in memory.
    """

    name: str = ""
    State: type | None = None
    still_is_fixed_point: bool = False
    binary: bool = False
    multiclass: bool = False
    loss_class: type | None = None
    takes_sparse: bool = False
    kernels: tuple = KERNELS
    bias_options: tuple = (False,)
    bias: bool = False
    explorable: bool = True
    prefers_gpu: bool = False
    chunked: bool = False

    @classmethod
    def solves(cls, loss: MulticlassLoss) -> bool:
        """Whether it solves the multiclass loss object ``loss``: a multiclass solver of ``loss_class``, whose
        mathematics the loss has (not a subclass that redefines them: :func:`~svmteach.losses.base.mathematics_class`)."""
        return cls.multiclass and (cls.loss_class is None or (isinstance(loss, cls.loss_class)
                                                              and issubclass(cls.loss_class, mathematics_class(loss))))

    @abstractmethod
    def init(self, problem: Problem) -> Any:
        """The starting state of a run on ``problem``, measured."""

    @abstractmethod
    def step(self, problem: Problem, state: Any) -> Any:
        """The state after one step; pure: neither ``state`` nor ``problem`` is written."""

    @abstractmethod
    def warm_start(self, problem: Problem, state: Any) -> Any:
        """``state`` of another run made a feasible, measured state of ``problem``."""

    @abstractmethod
    def coefficients(self, problem: Problem, state: Any) -> tuple[Any, Any]:
        """The model of ``state`` as NumPy arrays: ``(alpha, b)`` (binary) or ``(alpha, W)`` (multiclass); a
        ``chunked`` solver's alpha is a dask array, where its chunks live (never gathered)."""

    def step_picture(self, state: Any) -> Any:
        """What the step that made ``state`` did: its ``picture`` part, a NamedTuple of ``State.Picture``'s type
        whose docstring gives each field's shape (a start or a warm start: the picture of no step)."""
        return state.picture

    def sample_violations(self, problem: Problem, state: Any) -> Any:
        """(n,) float64 NumPy array: each sample's KKT violation at the state's ``coefficients`` (0: its
        condition holds), a pass over the data (:func:`~svmteach.solvers.violations.box_violations`, at the
        state's b for a solver with a bias; :func:`~svmteach.solvers.violations.block_violations`, each block
        as the loss's exact block kernel measures it)."""
        from ..problems import MulticlassProblem
        from .violations import block_violations, box_violations

        alpha, model = self.coefficients(problem, state)
        if isinstance(problem, MulticlassProblem):
            return block_violations(problem, alpha, model)
        return box_violations(problem, problem.xp.asarray(alpha), float(model), self.row_cache(state))

    def converged(self, state: Any, tol: float) -> bool:
        """Whether the state's relative duality gap is at most ``tol`` (:func:`gap_reached`)."""
        return gap_reached(state.gap, tol)

    def measure(self, problem: Problem, state: Any) -> Any:
        """The state with its objectives evaluated; here the state itself (its steps keep them current)."""
        return state

    def gap_rounding(self, problem: Problem, state: Any, tight: bool = False) -> float:
        """A bound on the rounding error of the state's ``primal - dual`` in float64.

        Binary: :func:`~svmteach.objectives.gap_rounding` at ``coefficients`` with the scores
        recomputed from alpha, by Cauchy-Schwarz, or with ``tight`` from the scores' magnitudes
        (:func:`~svmteach.objectives.score_magnitudes`).  Multiclass:
        :func:`~svmteach.objectives.multiclass_gap_rounding` (``tight`` changes nothing).
        """
        from .. import objectives as obj
        from ..problems import MulticlassProblem

        if isinstance(problem, MulticlassProblem):
            alpha, W = self.coefficients(problem, state)
            xp = problem.xp
            return obj.multiclass_gap_rounding(problem, xp.asarray(alpha, dtype=xp.float64),
                                               xp.asarray(W, dtype=xp.float64))
        from .kernel_scores import exact_gradient

        alpha, b = self.coefficients(problem, state)
        alpha = problem.xp.asarray(alpha, dtype=problem.xp.float64)
        return binary_gap_rounding(problem, alpha, b, exact_gradient(problem, alpha, self.row_cache(state)), tight)

    def row_cache(self, state: Any) -> Any:
        """The kernel-row cache the run of ``state`` owns, for recomputing its gradient; None here (no cache)."""
        return None

    def violation(self, state: Any) -> float:
        """A KKT violation computed for free by the last ``advance``; NaN here: this solver has none,
        and :func:`solve` measures after every chunk."""
        return math.nan

    def steps_per_epoch(self, problem: Problem) -> int:
        """The number of steps in one pass over the data: one sample a step, ``n_samples``."""
        return problem.n_samples

    def steps_between_measures(self, problem: Problem) -> int:
        """How many steps :func:`solve` runs between two measures: one epoch."""
        return self.steps_per_epoch(problem)

    def default_max_iter(self, problem: Problem) -> int:
        """:func:`solve`'s budget when ``max_iter`` is None, in proportion to the work: ``DEFAULT_EPOCHS`` epochs,
        and at least ``DEFAULT_STEPS`` sample visits (a step visits ``n_samples / steps_per_epoch`` samples: one for
        the coordinate methods, all of them for a full-batch step, which gets ``DEFAULT_STEPS / n`` steps)."""
        per_epoch = self.steps_per_epoch(problem)
        return max(DEFAULT_EPOCHS * per_epoch, -(-DEFAULT_STEPS * per_epoch // max(problem.n_samples, 1)))

    def advance(self, problem: Problem, state: Any, n_steps: int, tol: float | None = None) -> Any:
        """Up to ``n_steps`` steps of ``step``; with ``tol``, stop at the first measured converged state.

        The state is measured when its running gap asks for it (:meth:`StoppingRule.hints`: exact for
        solvers whose steps keep the objectives current) or every ``steps_between_measures`` steps (what
        stops the others).  A last state not converged by its own measure is returned unmeasured: the caller
        measures it.
        """
        return StoppingRule(self, problem, tol).steps(lambda state: self.step(problem, state), state, n_steps,
                                                      self.steps_between_measures(problem))


def iterate(solver: Solver, problem: Problem, max_iter: int = 1000, tol: float | None = None,
            state: Any = None) -> Iterator[Any]:
    """Yield the starting state, then the state after each step.

    Stops after ``max_iter`` steps, or once ``solver.converged(state, tol)`` when ``tol`` is given
    (each state is then measured).  A ``state`` is continued through :func:`warm_start`.  The
    arguments are checked here, before the first state is asked for.
    """
    check_problem(solver, problem)
    max_iter = check_max_iter(max_iter)
    tol = None if tol is None else check_tol(tol)
    state = solver.init(problem) if state is None else warm_start(solver, problem, state)
    return _iterate(solver, problem, max_iter, tol, state)


def _iterate(solver, problem, max_iter, tol, state):
    rule = StoppingRule(solver, problem, tol)
    yield state
    for _ in range(max_iter):
        if rule.watching:
            state, stop = rule.measured(state)
            if stop:
                return
        state = solver.step(problem, state)
        yield state


def check_problem(solver, problem):
    """``problem``, when it is of a kind ``solver`` solves (its ``binary`` / ``multiclass`` capability); else a
    TypeError naming ``problem``, the solver and what it needs."""
    from ..problems import BinaryProblem, MulticlassProblem

    if bool(getattr(problem, "chunked", False)) != solver.chunked:
        raise TypeError(f"problem: {type(solver).__name__} solves " + (
            "a ChunkedMulticlassProblem or ChunkedBinaryProblem (a dask X, where its chunks live), got "
            f"{type(problem).__name__}: its data is in memory; use a solver of data in memory (WWExact, ...)"
            if solver.chunked else
            f"data in memory, got a {type(problem).__name__} (a dask X, where its chunks live): use CoCoA"))
    if solver.chunked:
        return problem
    needs = [kind for kind, able in ((BinaryProblem, solver.binary), (MulticlassProblem, solver.multiclass)) if able]
    if not isinstance(problem, tuple(needs)):
        other = ("for a MulticlassProblem use a multiclass solver (WWExact, CSBlondel, ...) or OneVsRestSVC / "
                 "OneVsOneSVC" if isinstance(problem, MulticlassProblem) else
                 "for two classes use a binary solver (SMO, DualCoordinateAscent, ...)" if isinstance(problem, BinaryProblem)
                 else "build one with BinaryProblem(X, y) or MulticlassProblem(X, y)")
        raise TypeError(f"problem: {type(solver).__name__} needs a {' or a '.join(k.__name__ for k in needs)}, got "
                        f"{type(problem).__name__}: {other}")
    return problem


def warm_start(solver, problem, state):
    """``state`` checked to be ``solver``'s, then ``solver.warm_start(problem, state)``: feasible and measured."""
    check_state(solver, state)
    return solver.warm_start(problem, state)


def check_state(solver, state):
    """Raise a TypeError naming ``state`` unless it is an instance of ``solver.State``."""
    expected = getattr(type(solver), "State", None)
    if expected is None:
        raise TypeError(f"state: solver {type(solver).__name__} cannot continue from a state (it has no State)")
    if not isinstance(state, expected):
        raise TypeError(
            f"state must be a {expected.__name__} (a state of {type(solver).__name__}), got {type(state).__name__}"
        )
    return state


def check_state_alpha(problem, alpha, shape):
    """``alpha`` of a state checked against ``problem``: its array library and its ``shape``.

    Raises a TypeError / ValueError naming ``state.alpha`` (a state of a problem with other
    samples or classes, or on another device), so that nothing broadcasts silently.
    """
    from ..backend import array_namespace

    if not hasattr(alpha, "shape"):
        raise TypeError(f"state.alpha must be an array, got {type(alpha).__name__}")
    if array_namespace(alpha) is not problem.xp:
        def name(xp):
            return getattr(xp, "__name__", type(xp).__name__)

        raise TypeError(
            f"state.alpha lives in {name(array_namespace(alpha))} but the problem's arrays in "
            f"{name(problem.xp)}: continue a run on the device it ran on"
        )
    if tuple(alpha.shape) != tuple(shape):
        raise ValueError(
            f"state.alpha has shape {tuple(alpha.shape)} but this problem needs {tuple(shape)}: "
            "a state of a problem with other samples or classes"
        )
    if not bool(problem.xp.all(problem.xp.isfinite(alpha))):
        raise ValueError("state.alpha contains NaN or infinity")
    return alpha


def check_max_iter(max_iter, name: str = "max_iter") -> int:
    """A positive integer (a Python or NumPy integer, or an integral float such as 1e6), or raise naming it."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Real):
        raise TypeError(f"{name} must be a positive integer, got {type(max_iter).__name__} {max_iter!r}")
    if not isinstance(max_iter, numbers.Integral):
        value = float(max_iter)
        if not (math.isfinite(value) and value == int(value)):
            raise ValueError(f"{name} must be a positive integer, got {max_iter!r}")
    if max_iter < 1:
        raise ValueError(f"{name} must be a positive integer, got {max_iter!r}")
    return int(max_iter)


def check_tol(tol, name: str = "tol", positive: bool = False) -> float:
    """A finite real number >= 0 (> 0 with ``positive``), or raise naming it."""
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(tol).__name__} {tol!r}")
    value = float(tol)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be {'positive' if positive else '>= 0'} and finite, got {tol!r}")
    return value


def _record(history, state, elapsed):
    history["n_iter"].append(int(state.n_iter))
    history["time"].append(elapsed)
    for key in ("primal", "dual", "gap", "kkt"):
        history[key].append(float(getattr(state, key)))


def solve(
    solver: Solver,
    problem: Problem,
    max_iter: int | None = None,
    tol: float = 1e-3,
    *,
    fast: bool = True,
    record_history: bool = False,
    record_states: bool = False,
    callback: Callable[[Any], Any] | None = None,
    state: Any = None,
) -> SolveResult:
    """Run ``solver`` on ``problem`` until the relative duality gap is at most ``tol``.

    Parameters
    ----------
    max_iter : int or None
        Most steps this call takes (SMO pairs, coordinates, sample visits or subgradient iterations).
        None: ``solver.default_max_iter(problem)``, ``DEFAULT_EPOCHS`` epochs and at least
        ``DEFAULT_STEPS`` sample visits.  A continued run counts its new steps; the result's ``n_iter``
        counts every step since the run began.
    tol : float
        Stop when the measured relative duality gap ``(P - D) / |P|`` is at most ``tol``.  The run
        also stops, not converged, on a NaN gap or after an epoch that moved no dual variable
        (solvers with ``still_is_fixed_point``).
    fast : bool
        Use ``advance``, ``steps_between_measures`` steps at a time (one history entry per chunk);
        ``False`` steps one at a time through ``step``.
    record_history : bool
        Keep the curves (``HISTORY_KEYS``), measuring every chunk with the clock paused.
    record_states : bool
        Keep every state (step-by-step runs only).
    callback : callable or None
        Called with the state after each chunk; returning True stops the run.  Under the cheap stop
        the state's ``primal``, ``dual`` and ``gap`` are those of its last measure.
    state : a state of ``solver`` or None
        Continue from it, through :func:`warm_start`.

    Notes
    -----
    A KeyboardInterrupt after the first state returns the last completed state (steps are pure),
    measured, with ``interrupted=True``.
    """
    with compile_notice(f"the {solver.name} solver"):  # a first use says it compiles
        check_problem(solver, problem)
        if max_iter is None:
            max_iter = solver.default_max_iter(problem)
        max_iter = check_max_iter(max_iter)
        tol = check_tol(tol)
        state = solver.measure(problem, solver.init(problem)) if state is None else warm_start(solver, problem, state)
        history = {k: [] for k in HISTORY_KEYS} if record_history else None
        states = [state] if (record_states and not fast) else None
        elapsed = 0.0
        if history is not None:
            _record(history, state, elapsed)
        chunk = solver.steps_between_measures(problem) if fast else 1
        # the cheap stop (stopping.py), or without it a measure after every chunk; the fixed-point watch from here
        rule = StoppingRule(solver, problem, tol, cheap=fast and history is None, state=state)
        start = int(state.n_iter)
        interrupted = False
        try:
            while not rule.done(state) and int(state.n_iter) - start < max_iter:
                n_steps = min(chunk, max_iter - (int(state.n_iter) - start))
                t0 = time.perf_counter()
                if fast:
                    state = solver.advance(problem, state, n_steps, None if rule.cheap else tol)
                else:
                    state = solver.step(problem, state)
                elapsed += time.perf_counter() - t0
                state = rule.after_chunk(state)  # measured when the rule says, the clock paused
                if history is not None:
                    _record(history, state, elapsed)
                if states is not None:
                    states.append(state)
                if callback is not None and callback(state):
                    break
                if rule.gives_up(state, n_steps):  # a NaN gap or a fixed point: not converged
                    break
        except KeyboardInterrupt:  # Ctrl-C: `state` is the last completed state (one is assigned only once whole)
            interrupted = True  # measure it below: the interrupt may fall between a step and its count
        if interrupted or rule.unmeasured:
            state = solver.measure(problem, state)  # what a result reports is always measured
        if interrupted and history is not None and history["n_iter"][-1] != int(state.n_iter):
            _record(history, state, elapsed)
        if interrupted and states is not None and states[-1] is not state:
            states.append(state)
        converged, rounding, reason = certify(solver, problem, state, tol)
        return SolveResult(
            state=state,
            n_iter=int(state.n_iter),
            converged=converged,
            primal=float(state.primal),
            dual=float(state.dual),
            gap=float(state.gap),
            kkt=float(state.kkt),
            history=history,
            states=states,
            interrupted=interrupted,
            rounding=rounding,
            reason=reason,
        )


def binary_gap_rounding(problem: Problem, alpha: Any, b: float, grad: Any, tight: bool = False) -> float:
    """:func:`~svmteach.objectives.gap_rounding` of a binary state from its gradient ``grad`` (scores
    :math:`f = y \\circ (1 - g)`): :meth:`Solver.gap_rounding`'s bound, for the solvers whose measured states carry
    the exact gradient (recomputing it costs an epoch, or a kernel row per support vector).  A cached gradient
    differs from the exact one by a few ulps of each score, which the first-order bound's slack covers."""
    from .. import objectives as obj

    xp = problem.xp
    alpha = xp.asarray(alpha, dtype=xp.float64)
    f = problem.y * (1.0 - xp.asarray(grad, dtype=xp.float64))
    magnitudes = obj.score_magnitudes(problem, alpha) if tight else None
    return obj.gap_rounding(problem, alpha, f, float(b), magnitudes)


def certify(solver, problem, state, tol):
    """``(converged, rounding, reason)`` of a measured state.

    Converged when its gap reached ``tol`` and float64 resolves that gap: the rounding bound
    (``solver.gap_rounding``, cheap then tight) is at most ``tol * |primal|``.  Else ``reason`` says
    why (huge features or C put the objectives below the rounding of their terms)."""
    if not solver.converged(state, tol):
        return False, math.nan, ""
    if float(state.primal) == 0.0:  # P = D = 0 (alpha = 0 with every hinge 0): nothing summed, nothing rounded
        return True, 0.0, ""
    P = abs(float(state.primal))
    rounding = float(solver.gap_rounding(problem, state))
    if rounding > tol * P:  # the cheap bound cannot say: the one from the scores' actual magnitudes
        rounding = float(solver.gap_rounding(problem, state, tight=True))
    if rounding <= tol * P:
        return True, rounding, ""
    return False, rounding, (
        f"float64 cannot certify this gap: the rounding error of primal - dual may be {rounding:.3g}, "
        f"{rounding / P if P else math.inf:.3g} of the primal {float(state.primal):.6g}, above tol={tol:g} "
        "(features or C so large that the objectives are below the rounding of their terms: scale the "
        "features, or use a smaller C)"
    )


def check_choice(name: str, value, choices):
    """``value``, when it is one of ``choices``; else a ValueError naming ``name`` (a TypeError when the
    choices are strings and ``value`` is not one)."""
    choices = tuple(choices)
    if all(isinstance(c, str) for c in choices) and not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}, got {type(value).__name__} {value!r}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_flag(name: str, value) -> bool:
    """``value`` as a bool when it is True or False (NumPy's too); else a TypeError naming ``name``."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_random_state(random_state):
    """``random_state`` unchanged when it is None, an integer in [0, 2**32 - 1] or a NumPy generator;
    a TypeError / ValueError naming it otherwise (nothing is drawn from a generator)."""
    import numpy as np

    if random_state is None or isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be None, an int or a NumPy generator, got {random_state!r}")
    if not 0 <= random_state <= 2**32 - 1:  # scikit-learn's range of integer seeds
        raise ValueError(f"random_state must be between 0 and 2**32 - 1, got {random_state!r}")
    return random_state


def seed_from(random_state) -> int:
    """An integer seed stored in the state, so that steps are pure and replayable."""
    import numpy as np

    check_random_state(random_state)
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    return int(random_state)
