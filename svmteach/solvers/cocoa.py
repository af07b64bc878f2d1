"""CoCoA+: the linear multiclass and binary duals solved on row chunks where they live, certified by the global
duality gap.

Ma, Smith, Jaggi, Jordan, Richtarik and Takac, "Adding vs. averaging in distributed primal-dual optimization"
(ICML 2015); Smith, Forte, Ma, Takac, Jordan and Jaggi, "CoCoA: a general framework for communication-efficient
distributed optimization" (JMLR 18, 2018).  The dual (:mod:`svmteach.losses.base`) is

.. math::  D(\\alpha) = \\sum_k \\ell(\\alpha_{[k]}) - \\tfrac12 \\|\\textstyle\\sum_k W_k\\|_F^2, \\qquad
           W_k = A(\\alpha_{[k]})^\\top X_{[k]},

separable over the parts k but for the shared W (the binary dual is the case :math:`W = w`,
:math:`A(\\alpha) = \\alpha \\circ y`, :math:`\\ell(\\alpha) = \\sum_i \\alpha_i`: :class:`PartKind` says which
functions compute each).  A round: every part, given W, improves its block of alpha on CoCoA+'s local subproblem
(:math:`\\max_{\\Delta} \\ell(\\alpha_{[k]} + \\Delta) - \\langle W, \\Delta W_k \\rangle - \\tfrac{\\sigma'}{2}
\\|\\Delta W_k\\|^2`, :math:`\\sigma' = K`) by ``local_epochs`` epochs of the loss's sequential solver (binary: dual
coordinate ascent; no shrinking); the parts' changes are added, :math:`W \\leftarrow W + \\sum_k \\Delta W_k`.
With :math:`\\sigma' = K` adding is safe: D never falls.  The parts hold their rows scaled by
:math:`\\sqrt{K}` (:mod:`svmteach.chunked_problem`), so that those epochs, run against :math:`W/\\sqrt{K}`,
are the local subproblem's exact block steps.  One part is the sequential solver, epoch for epoch.

Each round sends W (k x d) to every part and brings back each part's :math:`W_k` (k x d), computed from its
alpha (so W is :math:`\\sum_k W_k` to rounding, never drifting).  A measure sums, over the parts, the primal's
penalty, the dual's linear term and the largest KKT violation (:func:`~svmteach.objectives.multiclass_sample_terms`):
the gap certifies the whole model as in memory.  A part whose worker was lost is rebuilt from X, its alpha
started again at 0 and its share taken out of W (the dual stays feasible, the certificate exact).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import objectives as obj
from ..losses.base import EPS
from .state import ThreePartState
from .base import DEFAULT_EPOCHS, Solver, check_problem, check_random_state, seed_from
from .registry import BINARY_SOLVERS, MULTICLASS_SOLVERS

#: How many times a round is tried again after a worker was lost (each time the lost parts start again).
RETRIES = 3


class PartKind(NamedTuple):
    """What a part's kind of problem (multiclass or binary) computes: the one place CoCoA+ tells the two apart
    (module-level functions, so that a worker receives them by name).

    Attributes
    ----------
    model : str, the name of the model in the local solver's state (``"W"`` (k, d), ``"w"`` (d,)), replaced by the
        shared model before each round's epochs.
    weights : ``(part, alpha) ->`` the part's share of the model, on its (scaled) rows.
    terms : ``(part, alpha, V) -> (penalty, linear, kkt)``, the part's sums in the objectives at the model V.
    rounding : ``(part, alpha, V) ->`` a bound on the rounding of the part's share of P - D at V.
    """

    model: str
    weights: Any
    terms: Any
    rounding: Any


def multiclass_rounding(part, alpha, V):
    """:func:`~svmteach.objectives.multiclass_gap_rounding` of a part, alpha in float64."""
    return obj.multiclass_gap_rounding(part, np.asarray(alpha, dtype=np.float64), V)


MULTICLASS = PartKind(model="W", weights=obj.multiclass_weights, terms=obj.multiclass_sample_terms,
                      rounding=multiclass_rounding)
BINARY = PartKind(model="w", weights=obj.linear_weights, terms=obj.linear_sample_terms,
                  rounding=obj.linear_part_rounding)


def part_kind(problem) -> PartKind:
    """The :class:`PartKind` of a chunked problem's parts."""
    return BINARY if problem.binary else MULTICLASS


def local_solver_class(problem):
    """The sequential solver of a chunked problem's parts: binary dual coordinate ascent, or the loss's default."""
    return BINARY_SOLVERS["dual_cd"] if problem.binary else MULTICLASS_SOLVERS[problem.loss_object.default_solver]


def model_shape(problem) -> tuple:
    """The shape of the model W: (k, d), or (d,) for a binary problem."""
    return (problem.n_features,) if problem.binary else (problem.k, problem.n_features)


class CoCoAIterate(NamedTuple):
    """What a CoCoA+ run has computed after ``n_iter`` rounds.

    Attributes
    ----------
    n_iter : int, rounds so far.
    W : (k, d) float64 weights (d with the bias column): :math:`\\sum_k W_k`, the parts' shares summed.
    primal, dual, gap, kkt : float, measured (NaN until then; every measure sums the parts' terms).
    violation : float, the largest block violation of the last round's epochs, each against its part's local
        model: a reason for solve's cheap stop to measure, never to stop (NaN after init and warm_start).
    """

    n_iter: int
    W: Any
    primal: float
    dual: float
    gap: float
    kkt: float
    violation: float = math.nan


class CoCoAEngine(NamedTuple):
    """How a CoCoA+ run goes on, the parts' side.

    Attributes
    ----------
    parts : tuple of K handles (futures on a cluster) of the parts' problems (the problem's own, or built again
        after a lost worker).
    part_W : tuple of K (k, d) float64 arrays, each part's share :math:`W_k = A(\\alpha_{[k]})^\\top X_{[k]}`.
    part_states : tuple of K handles of each part's entry (:func:`start_part`): its sequential solver's state and
        bounds, where the part lives.
    shapes : tuple of K ``(n_k, k)``, the parts' blocks of alpha.
    lost : int, parts started again after a lost worker, over the run.
    """

    parts: tuple
    shapes: tuple
    part_W: tuple
    part_states: tuple
    lost: int = 0


class CoCoAState(ThreePartState):
    """The state of :class:`CoCoA` after ``n_iter`` rounds: ``iterate`` (:class:`CoCoAIterate`) and ``engine``
    (:class:`CoCoAEngine`); a round draws nothing (no picture).  ``alpha`` is not stored here: it stays with the
    parts (the property is a lazy view of it)."""

    __slots__ = ()
    Iterate, Engine = CoCoAIterate, CoCoAEngine

    @property
    def alpha(self):
        """(n, k) dask array ((n,) binary) of the parts' blocks of alpha, where they live: a lazy view of the parts'
        states (no task runs until it is computed; ``alpha.compute()`` brings it here)."""
        return self.per_sample(part_alpha)

    @property
    def signed_alpha(self):
        """(n,) dask array of a binary run's :math:`\\alpha_i y_i`, where the parts live (lazy, as ``alpha``)."""
        return self.per_sample(part_signed_alpha)

    def per_sample(self, fn):
        """The parts' ``fn(part, entry)`` (each of its block's shape) concatenated: a lazy dask array."""
        import dask
        import dask.array as da

        pieces = [da.from_delayed(dask.delayed(fn, pure=True)(part, entry), shape=shape, dtype=np.float64)
                  for part, entry, shape in zip(self.parts, self.part_states, self.shapes)]
        return da.concatenate(pieces, axis=0)


def start_part(part, solver):
    """A part's first entry ``(state, C_i, W_k, violation)`` (run where the part lives): its sequential solver's
    state, its samples' bounds (a warm start scales by them), its share of W and the last epochs' largest block
    violation (NaN before any)."""
    state = solver.init(part)
    return state, np.array(part.C_i), None, math.nan


def part_weights(part, alpha, kind, scale):
    """The part's share of the weights, :math:`W_k = A(\\alpha_{[k]})^\\top X_{[k]}` (its rows are scaled)."""
    W = kind.weights(part, alpha)
    return W if scale == 1.0 else W / scale


def local_round(part, entry, solver, V, epochs, kind, scale):
    """The part's next entry: ``epochs`` epochs of its sequential solver against the scaled model ``V`` (a solver
    whose ``advance`` returns at an epoch where it would decide is called again, to the end of the epochs)."""
    state, C_i = entry[:2]
    state = state._replace(**{kind.model: V})
    target = state.n_iter + epochs * solver.steps_per_epoch(part)
    while state.n_iter < target:
        before = state.n_iter
        state = solver.advance(part, state, target - state.n_iter)
        if state.n_iter == before:
            break
    return state, C_i, part_weights(part, state.alpha, kind, scale), float(solver.violation(state))


def news(entry):
    """What a round brings back from a part: ``(W_k, violation)``."""
    return entry[2], entry[3]


def part_terms(part, entry, V, kind):
    """``(penalty, linear, kkt)`` of the part at the model ``V`` (``kind.terms``)."""
    return kind.terms(part, entry[0].alpha, V)


def part_rounding(part, entry, V, kind):
    """The part's share of the gap's rounding bound (``kind.rounding``)."""
    return kind.rounding(part, entry[0].alpha, V)


def warm_part(part, entry, solver, kind, scale):
    """A part's state of another C (or weights) scaled into ``part``'s bounds, made feasible: ``(entry, W_k)``."""
    state, old_C = entry[:2]
    new_C = np.asarray(part.C_i, dtype=np.float64)
    if len(old_C) != part.n_samples:
        raise ValueError(f"state.part_states: a part has {len(old_C)} samples, but the problem's has {part.n_samples}")
    ratio = np.divide(new_C, old_C, out=np.zeros_like(new_C), where=old_C > 0)
    alpha = np.asarray(state.alpha)
    state = solver.warm_start(part, state._replace(alpha=alpha * (ratio if alpha.ndim == 1 else ratio[:, None])))
    return state, new_C, part_weights(part, state.alpha, kind, scale), math.nan


def part_alpha(part, entry):
    """A part's block of alpha (n_k, k), or (n_k,) for a binary part, from its entry."""
    return np.asarray(entry[0].alpha)


def part_signed_alpha(part, entry):
    """A binary part's :math:`\\alpha_i y_i` (n_k,), from its entry."""
    return np.asarray(entry[0].alpha) * np.asarray(part.y)


class CoCoA(Solver):
    """CoCoA+ on a :class:`~svmteach.chunked_problem.ChunkedMulticlassProblem` or
    :class:`~svmteach.chunked_problem.ChunkedBinaryProblem` (module docstring): a step is a round (every part
    ``local_epochs`` epochs, the changes added), every round measured.

    Parameters
    ----------
    random_state : int, Generator or None
        Seeds each part's sample order (part 0 as the sequential solver would be seeded).
    local_epochs : int, default 1
        Epochs each part runs on its rows per round: more work between two communications.
    """

    name = "cocoa"
    State = CoCoAState
    binary = True
    multiclass = True
    chunked = True
    takes_sparse = True
    kernels = ("linear",)
    explorable = False

    def __init__(self, random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 local_epochs: int = 1) -> None:
        self.random_state = check_random_state(random_state)
        if isinstance(local_epochs, bool) or not isinstance(local_epochs, (int, np.integer)) or local_epochs < 1:
            raise ValueError(f"local_epochs must be a positive integer, got {local_epochs!r}")
        self.local_epochs = int(local_epochs)

    def part_solvers(self, problem):
        """The sequential solver of each part (:func:`local_solver_class`), without shrinking (an epoch is every
        sample), part k seeded from the run's seed (part 0 with it)."""
        cls = local_solver_class(problem)
        seed = seed_from(self.random_state)
        return [cls(random_state=(seed + 7919 * k) % (2 ** 31 - 1), shrinking=False) for k in range(problem.n_parts)]

    def init(self, problem) -> CoCoAState:
        check_problem(self, problem)
        entries = each(problem, start_part, problem.parts, self.part_solvers(problem))
        zero = np.zeros(model_shape(problem))
        return CoCoAState.of(n_iter=0, W=zero, parts=problem.parts,
                             shapes=tuple((int(n),) + model_shape(problem)[:-1] for n in problem.sizes),
                             part_W=tuple(zero for _ in entries), part_states=tuple(entries), primal=math.nan,
                             dual=math.nan, gap=math.nan, kkt=math.nan)

    def step(self, problem, state: CoCoAState) -> CoCoAState:
        """One round (module docstring); a part lost with its worker starts again (at most ``RETRIES`` times)."""
        tries = 0
        while True:
            V = scaled_model(problem, state.W)
            done = each(problem, local_round, state.parts, state.part_states, self.part_solvers(problem),
                        shared=(V, self.local_epochs, part_kind(problem), problem.scale))
            try:
                back = problem.gather([problem.executor.submit(news, h) for h in done])
            except Exception as error:  # noqa: BLE001 - a lost worker (distributed's errors differ by version)
                tries += 1
                if tries > RETRIES or not lost_worker(error):
                    raise
                state = self.restart_lost(problem, state)
                continue
            part_W = [w for w, _ in back]
            return state._replace(n_iter=state.n_iter + 1, W=sum_parts(part_W), part_W=tuple(part_W),
                                  part_states=tuple(done), primal=math.nan, dual=math.nan, gap=math.nan,
                                  kkt=math.nan, violation=max(v for _, v in back))

    def restart_lost(self, problem, state: CoCoAState) -> CoCoAState:
        """``state`` with every part lost with its worker built again from X (:meth:`~svmteach.chunked_problem.
        ChunkedMulticlassProblem.rebuilt`), its alpha started again at 0 and its share out of W (the others as
        they were): a feasible dual point, so the certificate stays exact."""
        lost = [k for k, (part, entry) in enumerate(zip(state.parts, state.part_states))
                if not (held(part) and held(entry))]
        parts, entries, part_W = list(state.parts), list(state.part_states), list(state.part_W)
        solvers = self.part_solvers(problem)
        for k, part in zip(lost, problem.rebuilt(lost)):
            parts[k] = part
            entries[k] = problem.executor.submit(start_part, part, solvers[k])
            part_W[k] = np.zeros_like(part_W[k])
        return state._replace(parts=tuple(parts), part_states=tuple(entries), part_W=tuple(part_W),
                              W=sum_parts(part_W), lost=state.lost + len(lost))

    def measure(self, problem, state: CoCoAState) -> CoCoAState:
        V = scaled_model(problem, state.W)
        terms = problem.gather(each(problem, part_terms, state.parts, state.part_states, shared=(V, part_kind(problem))))
        penalty = math.fsum(t[0] for t in terms)
        linear = math.fsum(t[1] for t in terms)
        kkt = max(t[2] for t in terms)
        norm2 = float(np.sum(state.W * state.W))
        P, D = 0.5 * norm2 + penalty, linear - 0.5 * norm2
        return state._replace(primal=float(P), dual=float(D), gap=obj.relative_gap(P, D), kkt=float(kkt))

    def gap_rounding(self, problem, state: CoCoAState, tight: bool = False) -> float:
        """The parts' bounds (:class:`PartKind`'s ``rounding`` of each, on its scaled rows
        against the scaled model: the same bound in the whole model's units, its :math:`\\|\\delta\\|^2` term K
        times larger) summed, and the rounding of :math:`W = \\sum_k W_k` (at most :math:`K\\,\\mathrm{EPS}
        \\sum_k |W_k|` an entry) in :math:`\\|W\\|_F^2`."""
        V = scaled_model(problem, state.W)
        parts = problem.gather(each(problem, part_rounding, state.parts, state.part_states,
                                    shared=(V, part_kind(problem))))
        spread = len(state.part_W) * EPS * np.sqrt(np.sum(sum_parts([np.abs(w) for w in state.part_W]) ** 2))
        return float(math.fsum(parts) + 2.0 * spread * np.sqrt(np.sum(state.W * state.W)) + spread ** 2)

    def warm_start(self, problem, state: CoCoAState) -> CoCoAState:
        """``state`` (of another C or weights, on the same parts) scaled into ``problem``'s bounds sample by sample
        (:math:`\\alpha_i C_i^{new} / C_i^{old}`, as the estimators' warm start), made feasible and measured."""
        check_problem(self, problem)
        if len(state.part_states) != problem.n_parts or np.shape(state.W) != model_shape(problem):
            raise ValueError(f"state has {len(state.part_states)} parts and weights of shape {np.shape(state.W)}, but "
                             f"the problem has {problem.n_parts} parts and needs {model_shape(problem)}")
        done = each(problem, warm_part, problem.parts, state.part_states, self.part_solvers(problem),
                    shared=(part_kind(problem), problem.scale))
        part_W = [w for w, _ in problem.gather([problem.executor.submit(news, h) for h in done])]
        state = state._replace(W=sum_parts(part_W), parts=problem.parts, part_W=tuple(part_W),
                               part_states=tuple(done), violation=math.nan)
        return self.measure(problem, state)

    def coefficients(self, problem, state: CoCoAState) -> tuple[Any, Any]:
        """``(alpha, W)``: alpha (n, k) a dask array of the parts' blocks, where they live (the one exception to the
        contract's NumPy: a chunked run's alpha is never gathered); W (k, d) NumPy.  For a binary problem, as the
        binary solvers: ``(alpha, 0.0)``, alpha (n,) a dask array and no bias (the weights are the state's ``W``)."""
        if problem.binary:
            return state.alpha, 0.0
        return state.alpha, np.array(state.W)

    def violation(self, state: CoCoAState) -> float:
        """The last round's largest block violation (free: the parts' epochs measure it), for solve's cheap stop."""
        return state.violation

    def steps_per_epoch(self, problem) -> int:
        return 1  # a round visits every sample (local_epochs times)

    def default_max_iter(self, problem) -> int:
        """``DEFAULT_EPOCHS`` rounds per part: the rounds CoCoA+ needs grow about with the number of parts
        (``benchmarks/RESULTS.md``, "Past one machine")."""
        return DEFAULT_EPOCHS * max(problem.n_parts, 1)


def scaled_model(problem, W):
    """W as the parts' scaled rows read it: :math:`W / \\sqrt{K}` (W itself for one part, bit for bit)."""
    return W if problem.scale == 1.0 else W / problem.scale


def each(problem, fn, parts, *per_part, shared=()):
    """``fn(part, *per_part[.][k], *shared)`` for every part k, where the part lives: the handles."""
    ex = problem.executor
    return [ex.submit(fn, part, *(column[k] for column in per_part), *shared) for k, part in enumerate(parts)]


def sum_parts(arrays):
    """The sum of the parts' arrays in part order, in float64."""
    total = np.zeros_like(np.asarray(arrays[0], dtype=np.float64))
    for a in arrays:
        total += a
    return total


def held(handle) -> bool:
    """Whether a part's handle still holds its value (a future whose worker was lost does not)."""
    return getattr(handle, "status", "finished") == "finished"


def lost_worker(error) -> bool:
    """Whether ``error`` says a worker (and the data it held) was lost, rather than that a task failed."""
    names = {type(error).__name__} | {t.__name__ for t in type(error).__mro__}
    text = str(error).lower()
    return bool(names & {"KilledWorker", "FutureCancelledError", "CancelledError", "CommClosedError"}) or (
        "lost" in text or "worker" in text and ("died" in text or "closed" in text))
