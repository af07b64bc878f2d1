"""A solver's state in three parts (:mod:`svmteach.solvers.state`): fields read by name from their part,
replaced in their part, each name in one part only; a state pickles and compares as a tuple of its parts."""

import pickle

import numpy as np
import pytest
from conftest import random_binary

from svmteach import BinaryProblem
from svmteach.solvers import SMO, DualCoordinateAscent
from svmteach.solvers.state import NoFields, ThreePartState
from typing import NamedTuple


class It(NamedTuple):
    n_iter: int
    alpha: object


class Pic(NamedTuple):
    i: int = -1


class Eng(NamedTuple):
    seed: int


class Toy(ThreePartState):
    __slots__ = ()
    Iterate, Picture, Engine = It, Pic, Eng


def test_fields_are_read_and_replaced_in_their_part():
    s = Toy.of(n_iter=0, alpha=np.zeros(2), seed=7)  # the picture's default fills i
    assert (s.n_iter, s.i, s.seed) == (0, -1, 7)
    t = s._replace(n_iter=1, i=3)
    assert t.iterate == It(1, s.alpha) and t.picture == Pic(3) and t.engine is s.engine
    assert s.n_iter == 0 and s.i == -1  # a new state; the old one is untouched
    u = s._replace(picture=Pic(5), seed=8)  # a whole part by its name, beside a field
    assert (u.i, u.seed) == (5, 8)
    assert Toy.fields() == ("n_iter", "alpha", "i", "seed")
    assert list(s.flat()) == list(Toy.fields())


def test_unknown_names_are_refused_naming_them():
    s = Toy.of(n_iter=0, alpha=None, seed=0)
    with pytest.raises(AttributeError, match="'gap'"):
        s.gap
    with pytest.raises(ValueError, match="'gap'"):
        s._replace(gap=1.0)
    with pytest.raises(TypeError, match="'gap'"):
        Toy.of(n_iter=0, alpha=None, seed=0, gap=1.0)


def test_a_name_in_two_parts_is_refused_when_the_class_is_made():
    class Again(NamedTuple):
        n_iter: int

    with pytest.raises(TypeError, match="n_iter"):
        class Bad(ThreePartState):
            __slots__ = ()
            Iterate, Picture, Engine = It, Again, NoFields


@pytest.mark.parametrize("solver", [SMO(), DualCoordinateAscent()], ids=["smo", "dual_cd"])
def test_a_solvers_state_pickles_and_keeps_its_parts(solver):
    X, y = random_binary(30, 3, seed=1)
    problem = BinaryProblem(X, y, C=1.0)
    state = solver.step(problem, solver.step(problem, solver.init(problem)))
    back = pickle.loads(pickle.dumps(state._replace(rows=None)))
    assert type(back) is type(state) and back.picture == state.picture
    np.testing.assert_array_equal(back.alpha, state.alpha)
    assert state.iterate.n_iter == state.n_iter == 2
