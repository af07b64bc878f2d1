"""The exercises' checker against a student's worst: infinite loops, SystemExit, answers that cannot be read,
a function that patches the checker; and ties that a right answer may break either way.  Each is a failed
result (or a pass for the right answer), never an exception and never a hang."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from svmteach import exercises
from svmteach.exercises import core

ref = exercises.solution


def wait_until(condition, seconds=10.0):
    """True once ``condition()`` holds, False if it does not within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def checker_threads():
    return [t for t in threading.enumerate() if t.name == "svmteach-exercise-check" and t.is_alive()]


def test_an_infinite_loop_fails_the_case_and_is_stopped():
    def loops(*args):
        while True:
            pass

    r = exercises.check("relative_gap", loops, time_limit=0.3)
    assert not r.passed and r.failure.case == 1
    assert "did not return within 0.3 s: an infinite loop? It was stopped." in r.failure.problem, r
    assert wait_until(lambda: not checker_threads())  # the loop does not run on in the background


def test_an_infinite_loop_inside_the_solver_run_fails_the_run():
    right = ref("smo_pair_update")
    calls = [0]
    n_cases = len(exercises.exercise("smo_pair_update").cases())

    def late_loop(*args):
        calls[0] += 1
        while calls[0] > n_cases + 1:  # right on the cases and the second call, then stuck in the run
            pass
        return right(*args)

    r = exercises.check("smo_pair_update", late_loop, time_limit=5, run_time_limit=0.5)
    assert not r.passed and r.failure is None
    assert "the solver run with your function did not return within 0.5 s: an infinite loop?" in r.solver_run, r
    assert wait_until(lambda: not checker_threads())


def test_a_function_blocked_in_c_code_is_reported_as_still_running():
    release = threading.Event()

    def blocked(*args):
        release.wait()  # a wait inside C: the checker cannot interrupt it
        return 0.0

    try:
        r = exercises.check("relative_gap", blocked, time_limit=0.3)
        assert not r.passed and "still running in the background" in r.failure.problem, r
    finally:
        release.set()
    assert wait_until(lambda: not checker_threads())


def test_system_exit_and_any_base_exception_are_failed_results():
    def exits(P, D):
        raise SystemExit(3)

    r = exercises.check("relative_gap", exits)
    assert not r.passed and "raised SystemExit: 3" in r.failure.problem

    class Odd(BaseException):
        pass

    def odd(P, D):
        raise Odd("not an Exception")

    r = exercises.check("relative_gap", odd)
    assert not r.passed and "raised Odd: not an Exception" in r.failure.problem


def test_keyboard_interrupt_still_stops_the_check():
    def interrupted(P, D):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        exercises.check("relative_gap", interrupted)


class Unreadable:
    """An answer whose every conversion raises."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("no array here")

    def __float__(self):
        raise RuntimeError("no number here")

    def __repr__(self):
        raise RuntimeError("no text here")


@pytest.mark.parametrize("name", ["gaussian_gram", "relative_gap", "smo_bounds", "kkt_category"])
def test_an_answer_that_cannot_be_read_is_a_failed_result(name):
    r = exercises.check(name, lambda *args: Unreadable())
    assert not r.passed and r.failure.case == 1 and "Unreadable" in r.failure.problem, r
    r = exercises.check(name, lambda *args: (Unreadable(), Unreadable()))
    assert not r.passed and r.failure.case == 1, r
    assert "no text here" in repr(r) or "Unreadable" in repr(r) or "expected" in repr(r)


def test_a_float_subclass_with_a_raising_conversion_fails():
    class Bad(float):
        def __float__(self):
            raise ValueError("no")

    r = exercises.check("relative_gap", lambda P, D: Bad(0.5))
    assert not r.passed and r.failure.case == 1


def test_patching_the_checker_does_not_pass_a_wrong_function(monkeypatch):
    # registered first so that the student's patches below are undone after the test
    for name in ("agree", "coerce", "watch", "_right"):
        monkeypatch.setattr(core, name, getattr(core, name))

    def cheats(P, D):
        core.agree = lambda *args, **kwargs: True
        core.coerce = lambda kind, got, expected, choices=(): (expected, "")
        core._right = lambda *args: True
        return 42.0

    r = exercises.check("relative_gap", cheats)
    assert not r.passed and "wrong value" in r.failure.problem, r

    code = core.agree.__code__
    try:
        def rewrites(P, D):
            core.agree.__code__ = (lambda kind, got, expected: True).__code__
            return 42.0

        r = exercises.check("relative_gap", rewrites)
        assert not r.passed and "wrong value" in r.failure.problem, r
        # the solver runs' comparisons (watch in the exercise modules) hold their own copies too
        right_then_wrong = [0]
        n_cases = len(exercises.exercise("dca_update").cases())

        def late(*args):
            right_then_wrong[0] += 1
            value = ref("dca_update")(*args)
            return value + 0.5 if right_then_wrong[0] > n_cases + 5 else value

        r = exercises.check("dca_update", late)
        assert not r.passed and "differs from the step at coordinate step" in r.solver_run, r
    finally:
        core.agree.__code__ = code
    assert exercises.check("relative_gap", ref("relative_gap")).passed


def _pair_step_taking_L_on_ties(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
    """The reference's pair step, but a tie between the two ends goes to L."""
    slope = y_j * (E_i - E_j)
    if eta > 0:
        new_j = min(max(alpha_j + slope / eta, L), H)
    else:
        tL, tH = L - alpha_j, H - alpha_j
        psi_L, psi_H = slope * tL - 0.5 * eta * tL * tL, slope * tH - 0.5 * eta * tH * tH
        new_j = L if psi_L > 0 and psi_L >= psi_H else H if psi_H > 0 else alpha_j
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def test_a_pair_step_may_break_a_tie_either_way():
    r = exercises.check("smo_pair_update", _pair_step_taking_L_on_ties)
    assert r.passed, r
    assert exercises.check("smo_pair_update", ref("smo_pair_update")).passed
    labels = [c.label for c in exercises.exercise("smo_pair_update").cases()]
    assert not any("falls both ways" in label for label in labels)  # the old label said the dual fell


def test_a_pair_step_that_stays_where_the_dual_rises_fails():
    def never_moves_without_curvature(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
        if eta <= 0:
            return alpha_i, alpha_j
        return ref("smo_pair_update")(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H)

    r = exercises.check("smo_pair_update", never_moves_without_curvature)
    assert not r.passed and "eta" in r.failure.label, r

    def wrong_end(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):  # the lower end where it is worse
        if eta <= 0 and E_i != E_j:
            return alpha_i + y_i * y_j * (alpha_j - L), L
        return ref("smo_pair_update")(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H)

    r = exercises.check("smo_pair_update", wrong_end)
    assert not r.passed, r


def test_time_limits_must_be_positive_numbers():
    for bad in (0, -1.0, float("nan"), "ten", True):
        with pytest.raises(ValueError, match="^time_limit must be a positive number of seconds"):
            exercises.check("relative_gap", ref("relative_gap"), time_limit=bad)
    with pytest.raises(ValueError, match="^run_time_limit must be"):
        exercises.check("relative_gap", ref("relative_gap"), run_time_limit=0)


def test_an_array_answer_is_read_once_into_plain_floats():
    class Sneaky(np.ndarray):
        def __eq__(self, other):  # would make every comparison true if the checker compared with it
            return np.ones(np.shape(other), dtype=bool)

    right = ref("gaussian_gram")
    r = exercises.check("gaussian_gram", lambda X, Z, g: (right(X, Z, g) + 1.0).view(Sneaky))
    assert not r.passed and "wrong value" in r.failure.problem
