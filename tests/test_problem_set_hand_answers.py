"""check_answer judges a hand computation as a person does it: 4 significant digits, rounded or cut off, are right;
2 or 3 digits that agree as far as they go are "close", never "wrong"; and each problem's own usual mistakes are
named for what they are (issue 46), not by a generic slip with a guessed cause."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from svmteach.exercises.problem_set import check_answer, expected_answer, problem, problems
from svmteach.exercises.problem_set.cells import HEADING
from svmteach.exercises.problem_set.checking import CLOSE, RIGHT, WRONG, significant_digits

WITH_ANSWER = [p.name for p in problems() if p.answer is not None]


def rounded(x, digits):
    """Each entry written with ``digits`` significant digits, rounded (Python's format, independent of the checker)."""
    return np.vectorize(lambda v: float(f"{v:.{digits - 1}e}"))(np.asarray(x, dtype=float))


def cut_off(x, digits):
    """Each entry cut off (truncated towards 0) after ``digits`` significant digits, with exact decimal arithmetic."""
    from decimal import ROUND_DOWN, Decimal

    def one(v):
        if v == 0:
            return 0.0
        d = Decimal(repr(float(v)))
        quantum = Decimal(1).scaleb(d.adjusted() - digits + 1)
        return float(d.quantize(quantum, rounding=ROUND_DOWN))

    return np.vectorize(one)(np.asarray(x, dtype=float))


@pytest.mark.parametrize("name", WITH_ANSWER)
def test_four_significant_digits_rounded_or_cut_off_are_right(name):
    x = rounded(expected_answer(name), 10)  # a computed 0.9999999999 is a 1 by hand
    for value in (rounded(x, 4), cut_off(x, 4)):
        r = check_answer(name, value)
        assert r.passed and r.status == RIGHT, (name, value, r)


@pytest.mark.parametrize("name", WITH_ANSWER)
def test_three_digits_are_close_never_wrong(name):
    x = rounded(expected_answer(name), 10)
    for value in (rounded(x, 3), cut_off(x, 3)):
        r = check_answer(name, value)
        assert r.status != WRONG, (name, value, r)
        whole = x == np.round(x)
        if np.all(whole | np.isclose(value, x, rtol=problem(name).rtol, atol=problem(name).atol)):
            assert r.passed, (name, value, r)  # nothing lost to the rounding
        elif not np.all(np.abs(value - x) < 10.0 ** (np.floor(np.log10(np.abs(np.where(x == 0, 1, x)))) - 3)):
            assert r.status == CLOSE and not r.passed and "give 4 significant digits" in r.text(), (name, value, r)


def test_the_issues_cases():
    # 05.3 and 08.6: the teacher's edition prints 4 digits, which were WRONG at rtol 1e-6
    for name in ("05.3", "08.6"):
        x = expected_answer(name)
        printed = [f"{v:.4f}" for v in x]
        solution = problem(name).solution
        assert all(s.lstrip("-") in solution for s in printed), (name, printed)
        assert check_answer(name, [float(s) for s in printed]).passed
    assert check_answer("01.1", 2.1213).passed and check_answer("01.1", 2.121).passed
    assert check_answer("01.1", 2.12).status == CLOSE


def test_a_count_is_exact_and_a_wrong_value_is_still_wrong():
    x = expected_answer("08.2")  # kernel evaluations: whole numbers
    assert not check_answer("08.2", x * (1 + 2e-4)).passed
    assert check_answer("01.1", float(expected_answer("01.1")) * 1.01).status == WRONG
    assert check_answer("06.2", rounded(expected_answer("06.2"), 4)).passed  # 2/3 as 0.6667
    assert check_answer("06.2", cut_off(expected_answer("06.2"), 4)).passed  # and as 0.6666


def test_significant_digits_of_a_typed_number():
    assert [significant_digits(v) for v in (0.6127, 2.0, 1e-05, 2.1213203435596424, 120.0, -0.25)] == [4, 1, 1, 17, 2, 2]


def test_the_heading_states_the_precision_without_any_answer():
    assert "4 significant digits" in HEADING and "close" in HEADING
    numbers = {float(s) for s in re.findall(r"\d+\.\d+", HEADING)}
    answers = {round(float(v), 3) for name in WITH_ANSWER for v in np.ravel(expected_answer(name))}
    assert numbers and not {round(v, 3) for v in numbers} & answers
    assert math.isclose(min(numbers), math.pi, rel_tol=1e-3)


# ---- each problem's own mistakes, named for what they are ------------------------------------------------------

NAMED = [  # (problem, the wrong answer a student gives, words its hint must say, words it must not say)
    ("06.1", lambda: 0.5, "M^2", "factor 1/2 lost"),  # M not squared
    ("06.1", lambda: 4.0, "other way up", None),
    ("07.2", lambda: [0.125, 0.125], "outside the interval", "factor"),  # C = 1/16 left unclipped
    ("07.2", lambda: [0.5, 0.0625], "x = 2", None),  # ||x||^2 dropped
    ("07.2", lambda: [-0.125, -0.0625], "alpha^0", None),  # the rival's entry
    ("05.5", lambda: [0.0, 1.0, 0.0], "1 + lambda", "twice"),  # not shrunk
    ("05.5", lambda: [0.0, 0.5, 0.5], "not a training point", None),
    ("02.3", lambda: [1.0, 0.5, 0.5, -1.0], "box", None),  # 02.2's hard margin
    ("02.3", lambda: [0.25, 0.125, 0.125, -1.0], "free support vector", None),  # b from the bound point
    ("02.3", lambda: [0.25, 0.25, 0.25, 0.0], "sum_i y_i alpha_i = 0", None),
    ("03.3", lambda: [1.0, 0.5, 0.5], "free bias", "factor 2 lost"),  # 02.2's alpha, the penalty forgotten
    ("01.6", lambda: math.sqrt(2.0), "2/||w||", "in front of a square"),  # the hard margin, or 1/||w||
    ("01.6", lambda: 1 / math.sqrt(2.0), "||w|| itself", None),
]


@pytest.mark.parametrize("name, wrong, says, not_says", NAMED, ids=[f"{n}: {w()}" for n, w, _, _ in NAMED])
def test_a_named_mistake_gets_its_own_diagnosis(name, wrong, says, not_says):
    r = check_answer(name, wrong())
    assert r.status == WRONG, r
    assert says in r.hint, r
    if not_says:
        assert not_says not in r.hint, r
    for v in np.ravel(expected_answer(name)):  # the hint never shows the right value
        if abs(v - round(v)) > 1e-9:
            assert f"{v:.3g}" not in r.text(), r


def test_every_named_slip_is_reached_and_computes_a_wrong_answer():
    for p in problems():
        for slip, hint in p.slips:
            value = slip()
            assert not np.allclose(np.asarray(value, dtype=float), expected_answer(p.name)), (p.name, hint)
            assert check_answer(p.name, value).hint == hint, (p.name, hint)
