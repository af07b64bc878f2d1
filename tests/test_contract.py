"""The solver contract (:class:`svmteach.solvers.base.Solver`), checked for every solver the package exports.

Every solver class in :mod:`svmteach.solvers` (binary and multiclass, and any added later: they are
found, not listed) inherits ``Solver``; its ``State`` is a ``NamedTuple`` whose docstring documents
every field; the solver modules build states and step pictures by keyword only; ``coefficients``
hands back NumPy arrays whatever array library the problem lives in; ``advance`` with ``tol`` stops
early, at a measured state whose reported objectives are those of the coefficients it returns
(recomputed here from the course's formulas), and without ``tol`` takes the steps it was asked for.
"""

import ast
import inspect
import pathlib
import re

import array_api_strict as xps
import numpy as np
import pytest
from conftest import random_binary

import svmteach
import svmteach.solvers as solvers
from svmteach import BinaryProblem, MulticlassProblem
from svmteach.backend import to_numpy
from svmteach.losses import LOSSES
from svmteach.solvers.base import Solver
from svmteach.solvers.state import ThreePartState

PACKAGE = pathlib.Path(svmteach.__file__).parent
#: The public solver classes every user may name (more may be exported; all are checked).
PUBLIC = {"SMO", "DualCoordinateAscent", "PrimalSubgradient", "WWExact", "WWShark", "CSBlondel", "ParallelBlock"}


def exported_solvers():
    """Every class exported by svmteach.solvers that steps (a solver), whatever it inherits."""
    return sorted(
        (obj for obj in vars(solvers).values()
         if inspect.isclass(obj) and not issubclass(obj, tuple) and callable(getattr(obj, "step", None))),
        key=lambda cls: cls.__name__,
    )


def make(cls):
    """The solver with its defaults, seeded where it draws random numbers."""
    return cls(random_state=0) if "random_state" in inspect.signature(cls).parameters else cls()


def random_multiclass(n, d, k, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(scale=2.0, size=(k, d))[y] + rng.normal(size=(n, d))
    return X, y


def chunked_problem(X, y, loss=None):
    """The problem as a dask array in two row chunks, solved in this process (CoCoA's; TypeError without dask):
    binary without a ``loss``."""
    try:
        import dask.array as da
    except ImportError:
        raise TypeError("dask is not installed") from None
    from svmteach.chunked_problem import ChunkedBinaryProblem, ChunkedMulticlassProblem, Here

    Xd = da.from_array(X, chunks=(len(X) // 2, X.shape[1]))
    if loss is None:
        return ChunkedBinaryProblem(Xd, y, C=1.0, executor=Here())
    return ChunkedMulticlassProblem(Xd, y, C=1.0, loss=loss, executor=Here())


def problems_for(cls, wrap=np.asarray):
    """The small problems ``cls`` solves: a linear binary one (first) if it is a binary solver, and one for
    each loss of the registry (read at the call: a loss registered later is tried too) that it accepts if it
    is a multiclass one (its declared ``binary`` and ``multiclass``: the interior point is both)."""
    found = []
    if cls.binary:
        X, y = random_binary(n=40, d=3, seed=1)
        try:
            found.append(chunked_problem(X, y) if cls.chunked else BinaryProblem(wrap(X), y, C=1.0, kernel="linear"))
        except TypeError:  # no dask here
            pass
    if not cls.multiclass:
        return found
    X, y = random_multiclass(n=40, d=3, k=4, seed=1)
    for loss in LOSSES:
        try:
            # a solver of kernel problems only (the working sets) gets the gaussian kernel's
            kernel = "linear" if "linear" in cls.kernels or wrap is not np.asarray else "rbf"
            problem = (chunked_problem(X, y, loss) if cls.chunked else
                       MulticlassProblem(wrap(X), y, C=1.0, loss=loss, kernel=kernel))
            make(cls).init(problem)
        except (TypeError, ValueError):  # a loss this package or this solver does not have
            continue
        found.append(problem)
    return found


def is_binary(problem) -> bool:
    """Whether ``problem`` is a binary one, in memory or chunked."""
    return isinstance(problem, BinaryProblem) or getattr(problem, "binary", False)


CASES = [pytest.param(cls, p, id=f"{cls.__name__}-{getattr(p, 'loss', 'binary')}")
         for cls in exported_solvers() for p in problems_for(cls)]


def test_every_exported_solver_is_a_Solver():
    found = exported_solvers()
    assert PUBLIC <= {cls.__name__ for cls in found}  # the scan sees the public solvers
    not_solvers = [cls.__name__ for cls in found if not issubclass(cls, Solver)]
    assert not not_solvers, f"these solvers do not inherit svmteach.solvers.base.Solver: {not_solvers}"
    for cls in found:
        assert isinstance(cls.name, str) and cls.name, cls
        assert isinstance(cls.still_is_fixed_point, (bool, property)), cls
        assert not getattr(cls, "__abstractmethods__", None), (cls, cls.__abstractmethods__)
    assert all(problems_for(cls) for cls in found)  # every solver solves some problem here


def documented_names(doc):
    """The names numpydoc ``Attributes`` sections document: ``a : ...`` and ``a, b : ...``, several a line."""
    names = set()
    for section in doc.split("Attributes")[1:]:
        for group in re.findall(r"((?:\w+,\s*)*\w+)\s+:", section):
            names.update(n.strip() for n in group.split(","))
    return names


@pytest.mark.parametrize("cls", exported_solvers(), ids=lambda c: c.__name__)
def test_state_is_in_three_parts_with_every_field_documented(cls):
    """The iterate (with the fields a result is made of), the step's picture, the engine's bookkeeping: each
    a NamedTuple whose numpydoc documents every field."""
    State = cls.State
    assert inspect.isclass(State) and issubclass(State, ThreePartState), State
    assert State._fields == ("iterate", "picture", "engine")
    assert {"n_iter", "primal", "dual", "gap", "kkt"} <= set(State.Iterate._fields)
    # alpha in the iterate; a chunked solver's stays with its parts, read through a documented property
    assert "alpha" in State.Iterate._fields or (cls.chunked and isinstance(State.__dict__.get("alpha"), property)
                                                and State.alpha.__doc__)
    for Part in (State.Iterate, State.Picture, State.Engine):
        assert issubclass(Part, tuple) and hasattr(Part, "_fields"), Part
        # a part may extend another NamedTuple class: either documents its fields
        docs = "\n".join(c.__doc__ or "" for c in Part.__mro__ if issubclass(c, tuple) and c is not tuple)
        missing = [f for f in Part._fields if f not in documented_names(docs)]
        assert not missing, f"{Part.__name__}'s docstring does not document {missing}"


def test_documented_names_reads_numpydoc_lines():
    doc = "S.\n\n    Attributes\n    ----------\n    n_iter : int;  seed : int.\n    L, H : float, bounds.\n"
    assert documented_names(doc) == {"n_iter", "seed", "L", "H"}
    assert documented_names("no section: x : int") == set()


def namedtuple_classes(tree):
    """Names of the classes a module defines with ``NamedTuple`` or ``ThreePartState`` (a state) as a base."""
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any(getattr(f, "id", getattr(f, "attr", None)) in ("NamedTuple", "ThreePartState")
                    for f in (getattr(b, "func", b) for b in node.bases))}  # NamedTuple or NamedTuple("...", fields)


def positional_constructions(tree, named):
    """``(line, call)`` of each call of a state or picture class with positional arguments, or of ``_make``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        callee = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        owner = func.value if isinstance(func, ast.Attribute) else None
        owner_name = getattr(owner, "id", getattr(owner, "attr", ""))
        if callee in named or callee == "State" or callee.endswith(("State", "Picture")):
            if node.args:
                found.append((node.lineno, ast.unparse(func)))
        elif callee == "_make" and (owner_name in named or owner_name.endswith(("State", "Picture"))):
            found.append((node.lineno, ast.unparse(func)))
    return found


def solver_modules():
    return sorted(p for folder in ("solvers", "losses") for p in (PACKAGE / folder).glob("*.py"))


def test_states_and_pictures_are_built_by_keyword():
    modules = {p: ast.parse(p.read_text()) for p in solver_modules()}
    named = set().union(*(namedtuple_classes(t) for t in modules.values()))
    assert {"SMOState", "DualCDState", "PairPicture", "CoordinatePicture"} <= named  # the scan sees them
    bad = [f"{p.relative_to(PACKAGE)}:{line} {call}(...)" for p, t in modules.items()
           for line, call in positional_constructions(t, named)]
    assert not bad, "states built positionally:\n" + "\n".join(bad)


def test_the_keyword_check_catches_positional_construction():
    tree = ast.parse("S = SMOState(1, 2)\nT = self.State(n_iter=1)\nU = Pic._make(x)\nV = WState(*t)\n")
    assert [line for line, _ in positional_constructions(tree, {"Pic"})] == [1, 3, 4]


@pytest.mark.parametrize("cls, problem", CASES)
def test_coefficients_are_numpy_arrays(cls, problem):
    solver = make(cls)
    state = solver.init(problem)
    for _ in range(5):
        state = solver.step(problem, state)
    alpha, second = solver.coefficients(problem, state)
    expected = state.alpha
    if cls.chunked:  # alpha stays where its chunks live: a dask array, computed here for the comparison
        assert type(alpha).__module__.startswith("dask.") and alpha.shape == tuple(expected.shape)
        alpha, expected = alpha.compute(), expected.compute()
    assert type(alpha) is np.ndarray and alpha.shape == tuple(expected.shape)
    np.testing.assert_array_equal(alpha, to_numpy(expected))
    if is_binary(problem):
        assert isinstance(second, float)  # the bias b (0.0 for the solvers without one)
    else:
        # the model: W (k, d), or on a kernel problem the training scores S (n, k) (svmteach.multiclass_model)
        shape = (problem.k, problem.n_features) if problem.kernel.is_linear else (problem.n_samples, problem.k)
        assert type(second) is np.ndarray and second.shape == shape


@pytest.mark.parametrize("cls", exported_solvers(), ids=lambda c: c.__name__)
def test_coefficients_come_back_to_numpy_from_array_api_strict(cls):
    for problem in problems_for(cls, wrap=xps.asarray):
        solver = make(cls)
        state = solver.step(problem, solver.init(problem))
        assert not isinstance(state.alpha, np.ndarray)  # the run stayed in the problem's library
        alpha, second = solver.coefficients(problem, state)
        alpha = alpha.compute() if cls.chunked else alpha  # a dask array (its parts are NumPy, where they live)
        assert type(alpha) is np.ndarray
        assert isinstance(second, float) if is_binary(problem) else type(second) is np.ndarray


def primal_from_coefficients(problem, alpha, second):
    """The course's primal at what ``coefficients`` returned, in NumPy: the binary formula, or the multiclass
    loss's own ``sample_losses`` at the scores recomputed from the returned W (no switch on its name)."""
    if getattr(problem, "chunked", False):  # its parts, here in this process (rows scaled by problem.scale), as one
        parts, X = problem.parts, np.vstack([np.asarray(p.X) / problem.scale for p in problem.parts])
        problem = (BinaryProblem(X, np.concatenate([p.y for p in parts]), C=problem.C) if problem.binary else
                   MulticlassProblem(X, np.concatenate([p.classes[p.codes] for p in parts]), C=problem.C,
                                     loss=problem.loss))
        alpha = alpha.compute()
    X, C = np.asarray(to_numpy(problem.X), dtype=np.float64), float(problem.C)
    if isinstance(problem, BinaryProblem):  # linear kernel: w = X'(alpha y)
        y = np.asarray(to_numpy(problem.y), dtype=np.float64)
        w = X.T @ (alpha * y)
        return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w + second)).sum()
    if problem.kernel.is_linear:
        W = second
        S = X @ W.T  # (n, k) scores w_m'x_i, recomputed here
        norm = (W * W).sum()
    else:  # a kernel problem's model is its training scores: recomputed from alpha by the whole Gram matrix
        from svmteach.kernels import gram

        A = np.asarray(problem.loss_object.weight_rows(problem, alpha), dtype=np.float64)
        S = (gram(X, X, problem.kernel) + problem.kernel_offset) @ A
        np.testing.assert_allclose(second, S, atol=1e-9 * max(1.0, np.abs(S).max()))
        norm = (A * S).sum()
    losses = np.asarray(problem.loss_object.sample_losses(problem, S), dtype=np.float64)  # the loss's own formula
    return 0.5 * norm + np.asarray(to_numpy(problem.C_i), dtype=np.float64) @ losses


TOL = 0.05  # every solver reaches it in under 40 epochs on these problems (under 50 steps for the subgradient)
EPOCHS = 300


@pytest.mark.parametrize("cls, problem", CASES)
def test_advance_with_tol_stops_early_at_a_measured_converged_state(cls, problem):
    solver = make(cls)
    start = solver.init(problem)
    n_steps = EPOCHS * solver.steps_per_epoch(problem)
    state = solver.advance(problem, start, n_steps, tol=TOL)
    assert state.n_iter - start.n_iter < n_steps, "advance ignored tol: it took every step it was allowed"
    assert solver.converged(state, TOL)
    again = solver.measure(problem, state)  # it was measured: measuring again changes nothing
    for key in ("primal", "dual", "gap", "kkt"):
        assert getattr(again, key) == pytest.approx(getattr(state, key), rel=1e-9, abs=1e-12), key
    # and what it reports is the primal of what it returns, recomputed from the formulas
    assert primal_from_coefficients(problem, *solver.coefficients(problem, state)) == pytest.approx(
        float(state.primal), rel=1e-9)
    assert 0.0 <= float(state.gap) <= TOL and float(state.dual) <= float(state.primal)


@pytest.mark.parametrize("cls, problem", CASES)
def test_advance_without_tol_takes_every_step(cls, problem):
    solver = make(cls)
    start = solver.init(problem)
    state = solver.advance(problem, start, 3)  # far from any optimum: no early stop of any kind
    assert state.n_iter == start.n_iter + 3


@pytest.mark.parametrize("cls", [c for c in exported_solvers() if c in set(solvers.BINARY_SOLVERS.values())],
                         ids=lambda c: c.__name__)
def test_advance_honours_tol_on_array_api_strict(cls):
    problem = problems_for(cls, wrap=xps.asarray)[0]  # the binary one
    solver = make(cls)
    start = solver.init(problem)
    n_steps = EPOCHS * solver.steps_per_epoch(problem)
    state = solver.advance(problem, start, n_steps, tol=TOL)
    assert state.n_iter - start.n_iter < n_steps and solver.converged(state, TOL)
    assert solver.measure(problem, state).gap == pytest.approx(state.gap, rel=1e-9, abs=1e-12)


def test_the_shared_default_advance_stops_measured():
    """Solver.advance on a toy solver whose steps leave the gap stale: only a measure can stop it."""

    class Halving(Solver):
        name = "halving"
        State = None

        def init(self, problem):
            return dict(n_iter=0, value=1.0, gap=np.inf)

        def step(self, problem, state):
            return dict(state, n_iter=state["n_iter"] + 1, value=state["value"] / 2)  # gap left stale

        def measure(self, problem, state):
            self.measures += 1
            return dict(state, gap=state["value"])

        def converged(self, state, tol):
            return state["gap"] <= tol

        def steps_between_measures(self, problem):
            return 4

        warm_start = coefficients = None

    solver = Halving()
    solver.measures = 0
    state = solver.advance(None, solver.init(None), 100, tol=0.01)  # 1/2**7 < 0.01: measured at step 8
    assert state["n_iter"] == 8 and state["gap"] == 2.0**-8 and solver.measures == 2
    solver.measures = 0
    assert solver.advance(None, solver.init(None), 100)["n_iter"] == 100 and solver.measures == 0


@pytest.mark.parametrize("cls", exported_solvers(), ids=lambda c: c.__name__)
def test_takes_sparse_says_what_the_solver_does_with_a_csr_X(cls):
    """``takes_sparse`` is the one place the estimators learn which solvers take sparse X: it must be
    true.  A solver that says yes runs on CSR data to the objectives of the same data dense (recomputed
    from the returned coefficients); one that says no refuses it with a TypeError naming X."""
    from scipy import sparse

    assert isinstance(cls.takes_sparse, bool), cls
    dense_problems = problems_for(cls)
    csr_problems = problems_for(cls, wrap=sparse.csr_array) if cls.takes_sparse else []
    if not cls.takes_sparse:
        with pytest.raises(TypeError, match="X is sparse"):
            make(cls).init(type(dense_problems[0])(sparse.csr_array(dense_problems[0].X), dense_problems[0].y
                                                   if isinstance(dense_problems[0], BinaryProblem)
                                                   else dense_problems[0].classes[dense_problems[0].codes]))
        return
    assert len(csr_problems) == len(dense_problems)
    for dense, csr in zip(dense_problems, csr_problems):
        a = svmteach.solve(make(cls), dense, tol=1e-6, max_iter=5_000)
        b = svmteach.solve(make(cls), csr, tol=1e-6, max_iter=5_000)
        assert b.gap <= max(1e-6, a.gap) + 1e-12 and b.converged == a.converged
        assert b.primal == pytest.approx(a.primal, rel=1e-5)
