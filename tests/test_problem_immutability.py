"""A problem is built once by its constructor and never changes: every attribute refuses a later write or
delete, naming it; ``with_C`` makes a new problem that shares the arrays and validates C alone; the
validation functions (:mod:`svmteach.validation`) refuse bad input naming the argument they were given."""

import copy
import inspect
import pickle
from functools import cached_property

import numpy as np
import pytest
from conftest import random_binary
from scipy import sparse

import svmteach.problems as problems
from svmteach import BinaryProblem, MulticlassProblem
from svmteach import validation as v
from svmteach.rows import DesignMatrix


def _problems():
    X, y = random_binary(n=12, d=3, seed=1)
    w = np.linspace(0.0, 2.0, 12)
    y3 = np.arange(12) % 3
    return [
        BinaryProblem(X, y, C=2.0, kernel="rbf", gamma=0.5, sample_weight=w),
        BinaryProblem(sparse.csr_array(X), y, C=0.5, bias=1.0),
        MulticlassProblem(X, y3, C=3.0, loss="cs", M=0.5, sample_weight=w, bias=2.0),
        MulticlassProblem(sparse.csr_array(X), y3, loss="llw"),
    ]


IDS = ["binary-rbf-weights", "binary-sparse-bias", "multiclass-cs-weights-bias", "multiclass-sparse-llw"]


def _public_names(p):
    """Every attribute a reader sees: the stored ones and the properties (cached or not) of its class."""
    computed = inspect.getmembers(type(p), lambda m: isinstance(m, (property, cached_property)))
    return sorted(set(vars(p)) | {n for n, _ in computed})


@pytest.mark.parametrize("which", range(4), ids=IDS)
def test_every_attribute_refuses_a_write_and_a_delete_naming_it(which):
    p = _problems()[which]
    if isinstance(p, BinaryProblem):
        p.gram, p.Q  # the cached arrays computed: refused once they are there too
    else:
        p.X  # the matrix with its bias column, made on first use
    names = _public_names(p)
    assert {"X", "C", "C_i", "classes", "sample_weight", "bias"} <= set(names)
    for name in names + ["something_new"]:
        before = vars(p).get(name)
        with pytest.raises(AttributeError, match=f"^{name} cannot be set: a {type(p).__name__} is immutable"):
            setattr(p, name, 1.0)
        with pytest.raises(AttributeError, match=f"^{name} cannot be deleted"):
            delattr(p, name)
        assert vars(p).get(name) is before


def test_no_attribute_is_patched_past_the_constructor():
    """The problems' source writes no attribute behind ``__setattr__``'s back (the frozen dataclasses did, 26 times)."""
    assert "object.__setattr__" not in inspect.getsource(problems)


def _same(a, b):
    if isinstance(a, DesignMatrix):
        return isinstance(b, DesignMatrix) and a.bias == b.bias and _same(a.data, b.data)
    if sparse.issparse(a):
        return sparse.issparse(b) and (a != b).nnz == 0
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("which", range(4), ids=IDS)
def test_with_C_shares_the_arrays_and_equals_the_problem_built_with_that_C(which, monkeypatch):
    p = _problems()[which]
    if isinstance(p, BinaryProblem):
        p.gram  # computed before: shared
    for check in ("check_X", "check_labels", "check_sample_weight", "make_kernel", "check_kernel_psd"):
        monkeypatch.setattr(problems, check, None)  # with_C validates C alone: X, y, w are never looked at again
    q = p.with_C(7.0)
    assert type(q) is type(p) and q.C == 7.0 and p.C != 7.0
    shared = set(vars(p)) - {"C", "C_i"}
    assert shared and all(vars(q)[name] is vars(p)[name] for name in shared)  # the same objects, not copies
    np.testing.assert_array_equal(q.C_i, 7.0 * (np.ones(p.n_samples) if p.sample_weight is None else p.sample_weight))
    assert not q.C_i.flags.writeable
    with pytest.raises(AttributeError, match="^C cannot be set"):
        q.C = 1.0
    monkeypatch.undo()
    # oracle: the problem built from scratch with C = 7 (X as the problem holds it, bias already appended)
    X = p.X[:, :-1] if p.bias is not None else p.X
    if isinstance(p, BinaryProblem):
        y = p.classes[(np.asarray(p.y) > 0).astype(int)]
        fresh = BinaryProblem(X, y, C=7.0, kernel=p.kernel, sample_weight=p.sample_weight, bias=p.bias)
    else:
        fresh = MulticlassProblem(X, p.classes[p.codes], C=7.0, loss=p.loss, M=p.M, sample_weight=p.sample_weight,
                                  bias=p.bias)
    built = fresh.built_fields()  # not the arrays computed on first use (a binary X is built, a multiclass X is not)
    assert set(built) == set(q.built_fields())
    for name in built:
        assert _same(vars(q)[name], built[name]), name
    if isinstance(p, BinaryProblem):
        assert q.gram is p.gram
        for name in ("gram", "Q", "diag"):
            np.testing.assert_array_equal(getattr(q, name), getattr(fresh, name))


@pytest.mark.parametrize("which", [0, 2], ids=IDS[::2])
@pytest.mark.parametrize("C, exc, match", [(0, ValueError, "^C must be positive"), (np.nan, ValueError, "^C must be"),
                                           ("1", TypeError, "^C must be a positive number")])
def test_with_C_refuses_a_bad_C_naming_it(which, C, exc, match):
    p = _problems()[which]
    with pytest.raises(exc, match=match):
        p.with_C(C)


@pytest.mark.parametrize("which", range(4), ids=IDS)
def test_a_copy_or_a_pickle_is_the_same_immutable_problem(which):
    p = _problems()[which]
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is type(p) and set(vars(q)) == set(vars(p))
        assert all(_same(vars(q)[name], vars(p)[name]) for name in vars(p))
        with pytest.raises(AttributeError, match="^C cannot be set"):
            q.C = 1.0


def test_the_repr_says_what_the_problem_is():
    X, y = random_binary(n=12, d=3)
    assert repr(BinaryProblem(X, y, C=2.0)).startswith("BinaryProblem(n_samples=12, n_features=3, C=2, kernel=")
    assert repr(MulticlassProblem(X, np.arange(12) % 3, loss="cs")) == \
        "MulticlassProblem(n_samples=12, n_features=3, C=1, loss='cs')"
    assert repr(MulticlassProblem(X, np.arange(12) % 3, loss="ww", kernel="rbf", gamma=0.5)) == \
        ("MulticlassProblem(n_samples=12, n_features=3, C=1, loss='ww', "
         "kernel=Kernel(name='gaussian', gamma=0.5, degree=3, coef0=1.0))")


@pytest.mark.parametrize("call, exc, match", [
    (lambda: v.check_X(np.ones(3), "A"), ValueError, "^A must be 2-D"),
    (lambda: v.check_X(np.full((2, 2), np.nan), "A"), ValueError, "^A contains NaN or infinity"),
    (lambda: v.check_X(sparse.csr_array(np.eye(2)), "A"), TypeError, "^A is a sparse matrix"),
    (lambda: v.check_X(np.array([["a", "b"]]), "A"), TypeError, "^A has dtype"),
    (lambda: v.check_sparse_X(sparse.csr_array((0, 2)), "A"), ValueError, "^A is empty"),
    (lambda: v.placed(sparse.csr_array(np.eye(2)), "gpu", "A"), TypeError, "^A is sparse: sparse data is solved"),
    (lambda: v.check_labels([0, 1], 3, "t"), ValueError, "^t has 2 labels but X has 3 samples"),
    (lambda: v.check_labels([0.5, 1.0], 2, "t"), ValueError, "^t holds non-integer floats"),
    (lambda: v.check_sample_weight([1.0, -1.0], 2, name="sw"), ValueError, "^sw has negative weights"),
    (lambda: v.check_sample_weight([0.0, 0.0], 2, name="sw"), ValueError, "^sw is zero for every sample"),
    (lambda: v.check_sample_weight([1.0], 2, name="sw"), ValueError, r"^sw must have shape \(2,\)"),
    (lambda: v.check_positive(-1.0, "tol"), ValueError, "^tol must be positive and finite"),
    (lambda: v.check_positive(True, "tol"), TypeError, "^tol must be a positive number"),
    (lambda: v.check_C(0.0), ValueError, "^C must be positive"),
    (lambda: v.check_bias(0.0, "B"), ValueError, r"^B must be positive and finite \(or None for no constant"),
    (lambda: v.check_squared_norms(np.array([1e308]), name="A"), ValueError, "^A overflows"),
])
def test_the_validation_functions_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_the_validation_functions_return_readonly_copies():
    X = np.arange(6.0).reshape(3, 2)
    out = v.check_X(X, bias=1.0)
    assert not out.flags.writeable and not np.shares_memory(out, X) and out.shape == (3, 3)
    w = v.check_sample_weight([1, 2, 0], 3)
    assert w.dtype == np.float64 and not w.flags.writeable
    assert v.check_bias(None) is None and v.with_bias_column(X, None) is X
