"""The checker every exercise shares: run a student's function on generated cases, compare with the
reference, and say in plain words where it first goes wrong.

An :class:`Exercise` declares its reference solution (plain NumPy), a generator of seeded cases,
the kind of value it returns, the usual mistakes (each a wrong function and the hint that goes
with it) and, optionally, a ``drive`` function that runs a solver with the student's step
plugged in.  :func:`run_check` never raises for a student's mistake: an exception, a value of the
wrong type or shape, NaN, a modified input or a function that goes wrong after some correct
calls all become a failed :class:`CheckResult` naming the first failing case.
"""

from __future__ import annotations

import copy
import html
import math
import numbers
import traceback
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Two numbers agree when ``|got - expected| <= RTOL |expected| + ATOL scale`` (scale: the case's
#: largest expected entry, at least 1): room for another order of summation, not for a wrong formula.
RTOL = 1e-7
ATOL = 1e-9

PASSED, FAILED, NOT_ATTEMPTED = "passed", "failed", "not attempted yet"


@dataclass(frozen=True)
class Case:
    """One set of arguments, passed positionally, with a plain-words label ("clip at H, y_i = y_j")."""

    label: str
    inputs: dict
    hint: str | None = None  # said when the function fails here and no listed mistake explains it


@dataclass(frozen=True)
class Mistake:
    """A usual wrong answer: ``fn`` computes it from the same arguments; ``hint`` explains it."""

    fn: Callable
    hint: str


@dataclass(frozen=True)
class Exercise:
    """One exercise of the course.

    Attributes
    ----------
    name : str, the key for :func:`~svmteach.exercises.check`.
    notebook : str, the notebook that teaches the concept (``"03"``).
    title, signature, statement : str, what the student reads.
    reference : the reference solution (self-contained: it uses only ``np`` and ``math``).
    cases : ``cases() -> list[Case]``, seeded and reproducible.
    output : ``"float"``, ``"str"``, ``"array"`` (the shape of the expected value) or ``"pair"``
        (a tuple of two floats).
    mistakes : the usual mistakes, first match wins.
    hint : the hint when no mistake matches.
    drive : ``drive(fn) -> (ok, message)`` or None: a solver run with ``fn`` plugged in.
    choices : for ``output="str"``, the accepted answers.
    """

    name: str
    notebook: str
    title: str
    signature: str
    statement: str
    reference: Callable
    cases: Callable[[], list]
    output: str = "float"
    mistakes: tuple = ()
    hint: str = ""
    drive: Callable | None = None
    choices: tuple = ()

    def __repr__(self):
        return f"Exercise({self.name!r}, notebook {self.notebook}: {self.title})"


@dataclass
class Failure:
    """The first failing case: where, with what, what was expected, what came back, and why."""

    case: int
    label: str
    inputs: str
    expected: str
    got: str
    problem: str
    hint: str

    def text(self) -> str:
        lines = [f"case {self.case} ({self.label}): {self.problem}", f"  inputs:   {self.inputs}"]
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.got:
            lines.append(f"  got:      {self.got}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


@dataclass
class CheckResult:
    """What :func:`~svmteach.exercises.check` returns.

    Attributes
    ----------
    name : str;  status : ``"passed"``, ``"failed"`` or ``"not attempted yet"``.
    passed : bool;  n_cases : int, cases run;  n_passed : int, cases passed before the first failure.
    failure : :class:`Failure` or None;  solver_run : str, what the run with the student's step did
    ('' when none was run).
    """

    name: str
    status: str
    n_cases: int
    n_passed: int
    failure: Failure | None = None
    solver_run: str = ""

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def __bool__(self):
        return self.passed

    def text(self) -> str:
        if self.status == NOT_ATTEMPTED:
            return f"{self.name}: not attempted yet (the function still returns NotImplemented)"
        if self.passed:
            head = f"{self.name}: passed, {self.n_cases} of {self.n_cases} cases"
            return head + (f"\n{self.solver_run}" if self.solver_run else "")
        head = (f"{self.name}: FAILED after {self.n_passed} of {self.n_cases} cases" if self.failure is not None
                else f"{self.name}: FAILED in the solver run (all {self.n_cases} cases passed)")
        parts = [head]
        if self.failure is not None:
            parts.append(self.failure.text())
        if self.solver_run:
            parts.append(self.solver_run)
        return "\n".join(parts)

    __str__ = text

    def __repr__(self):
        return self.text()

    def _repr_html_(self):
        colour = {PASSED: "#1a7f37", FAILED: "#cf222e", NOT_ATTEMPTED: "#6e7781"}[self.status]
        lines = self.text().split("\n")
        head = html.escape(lines[0])
        body = html.escape("\n".join(lines[1:]))
        pre = f"<pre style='margin:0.2em 0 0 1em'>{body}</pre>" if body else ""
        return f"<div><b style='color:{colour}'>{head}</b>{pre}</div>"


# ---- showing values in plain words --------------------------------------------------------------


def show(value) -> str:
    """A short plain-text form of a value: numbers to 6 significant digits, small arrays in full."""
    if value is NotImplemented:
        return "NotImplemented"
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(show(v) for v in value) + ")"
    if isinstance(value, np.ndarray):
        if value.size <= 16:
            return np.array2string(value, precision=5, separator=", ", suppress_small=False,
                                   max_line_width=200).replace("\n", "")
        return f"array of shape {value.shape}, first entries {np.array2string(value.ravel()[:4], precision=4, separator=', ')}"
    if isinstance(value, list):
        return show(np.asarray(value)) if len(value) <= 16 else f"list of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:120]


def show_inputs(inputs: dict) -> str:
    return ", ".join(f"{k}={show(v)}" for k, v in inputs.items())


# ---- reading what the function returned --------------------------------------------------------


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def coerce(kind: str, got, expected, choices=()):
    """``(value, problem)``: the returned value in the form of ``expected``, or a plain-words problem."""
    if kind == "float":
        if isinstance(got, np.ndarray) and got.shape == ():
            got = got[()]
        if not _is_real(got):
            return None, f"returned {show(got) if not isinstance(got, np.ndarray) else f'an array of shape {got.shape}'} ({type(got).__name__}), expected one number"
        value = float(got)
        if math.isnan(value):
            return None, "returned NaN"
        return value, ""
    if kind == "str":
        if not isinstance(got, str):
            return None, f"returned {show(got)} ({type(got).__name__}), expected one of {', '.join(map(repr, choices))}"
        if got.strip().lower() not in choices:
            return None, f"returned {got!r}, which is not one of {', '.join(map(repr, choices))}"
        return got.strip().lower(), ""
    if kind == "pair":
        if isinstance(got, np.ndarray) and got.shape == (2,):
            got = tuple(got.tolist())
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return None, f"returned {show(got)} ({type(got).__name__}), expected a pair of numbers (a, b)"
        values = []
        for v in got:
            v, problem = coerce("float", v, None)
            if problem:
                return None, f"in the pair it {problem}"
            values.append(v)
        return tuple(values), ""
    if kind == "array":
        if got is None or isinstance(got, (str, bytes, dict, tuple)) or _is_real(got):
            return None, f"returned {show(got)} ({type(got).__name__}), expected an array of shape {expected.shape}"
        try:
            arr = np.asarray(got, dtype=np.float64)
        except (TypeError, ValueError):
            return None, f"returned a {type(got).__name__} that is not an array of numbers"
        if arr.shape != expected.shape:
            return None, f"returned an array of shape {arr.shape}, expected shape {expected.shape}"
        if np.isnan(arr).any():
            return None, f"returned NaN at index {tuple(int(t) for t in np.argwhere(np.isnan(arr))[0])}"
        return arr, ""
    raise ValueError(f"unknown output kind {kind!r}")


def agree(kind: str, got, expected) -> bool:
    """True when ``got`` equals ``expected`` to RTOL / ATOL (strings: exactly)."""
    if kind == "str":
        return got == expected
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    finite = np.isfinite(e)
    if not np.array_equal(np.isfinite(g), finite) or not np.array_equal(g[~finite], e[~finite]):
        return False
    scale = max(1.0, float(np.max(np.abs(e[finite]))) if finite.any() else 1.0)
    return bool(np.all(np.abs(g[finite] - e[finite]) <= RTOL * np.abs(e[finite]) + ATOL * scale))


def first_difference(got, expected) -> str:
    """Where two arrays first differ, in words."""
    g, e = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if g.shape == () or g.size == 1:
        return ""
    scale = max(1.0, float(np.nanmax(np.abs(e))) if np.isfinite(e).any() else 1.0)
    bad = ~(np.abs(g - e) <= RTOL * np.abs(e) + ATOL * scale)
    bad &= ~((g == e) & ~np.isfinite(e))
    if not bad.any():
        return ""
    idx = tuple(int(t) for t in np.argwhere(bad)[0])
    where = idx[0] if len(idx) == 1 else idx
    return f" (first difference at index {where}: expected {e[idx]:.6g}, got {g[idx]:.6g}; {int(bad.sum())} of {e.size} entries differ)"


def _changed(before, after) -> str:
    """'' when ``after`` equals ``before`` (NaN-aware), else where it changed."""
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray) or after.shape != before.shape:
            return "replaced"
        same = (after == before) | (np.isnan(after) & np.isnan(before)) if before.dtype.kind == "f" else after == before
        if np.all(same):
            return ""
        idx = tuple(int(t) for t in np.argwhere(~same)[0])
        where = idx[0] if len(idx) == 1 else idx
        return f"entry {where} changed from {before[idx]:.6g} to {after[idx]:.6g}"
    return ""


class _Attempt:
    """Calls the student's function on one case with fresh copies of its inputs."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, case: Case):
        """``(returned, problem)``: problem is '' or a plain-words description of what went wrong."""
        given = copy.deepcopy(case.inputs)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = self.fn(*given.values())
        except NotImplementedError:
            return NotImplemented, ""
        except Exception as e:  # a student's error is a result, never a crash of the checker
            frame = traceback.extract_tb(e.__traceback__)[-1]
            return None, (f"raised {type(e).__name__}: {e} (at line {frame.lineno}: "
                          f"{(frame.line or '').strip()!r})")
        for key, before in case.inputs.items():
            change = _changed(before, given[key])
            if change:
                return got, (f"modified its input {key!r} ({change}); the step must leave its inputs "
                             "untouched and return new values (copy an array before changing it)")
        return got, ""


def run_check(ex: Exercise, fn) -> CheckResult:
    """Run ``fn`` on every case of ``ex``; the first failure stops the check (see the module docstring)."""
    if not callable(fn):
        return CheckResult(ex.name, FAILED, 0, 0, Failure(0, "", "", "", show(fn), f"{show(fn)} is not a function",
                                                          f"pass the function itself: check({ex.name!r}, my_function)"))
    cases = ex.cases()
    attempt = _Attempt(fn)
    for number, case in enumerate(cases, start=1):
        expected = ex.reference(*copy.deepcopy(case.inputs).values())
        got, problem = attempt(case)
        if got is NotImplemented and not problem:
            if number == 1:
                return CheckResult(ex.name, NOT_ATTEMPTED, len(cases), 0)
            problem = "returned NotImplemented (or raised NotImplementedError) on this case only"
        value = None
        if not problem:
            value, problem = coerce(ex.output, got, expected, ex.choices)
        if not problem and not agree(ex.output, value, expected):
            problem = "wrong value" + (first_difference(value, expected) if ex.output == "array" else "")
        if problem:
            if "modified its input" in problem:
                hint = ""  # the problem says what to do
            else:  # a listed mistake that gives the same answer explains it best
                explained = value is not None or "NaN" in problem
                hint = (_hint(ex, case, got, expected) if explained else "") or case.hint or ex.hint
            failure = Failure(number, case.label, show_inputs(case.inputs), show(expected),
                              show(got) if got is not None else "", problem, hint)
            return CheckResult(ex.name, FAILED, len(cases), number - 1, failure)
    # the first case once more, last: a function that keeps state between calls shows it here
    first = ex.reference(*copy.deepcopy(cases[0].inputs).values())
    again, problem = attempt(cases[0])
    value = None
    if not problem:
        value, problem = coerce(ex.output, again, first, ex.choices)
    if problem or not agree(ex.output, value, first):
        failure = Failure(1, cases[0].label + ", called again after every other case", show_inputs(cases[0].inputs),
                          show(first), show(again) if again is not None else "",
                          problem or "a different answer from the first call with the same inputs",
                          "a step must depend only on its arguments: does your function keep something between "
                          "calls (a counter, a global, a default list that grows)?")
        return CheckResult(ex.name, FAILED, len(cases), len(cases), failure)
    run = ""
    if ex.drive is not None:
        try:
            ok, run = ex.drive(fn)
        except Exception as e:  # noqa: BLE001 - a student's function may fail only inside the run
            ok, run = False, f"the solver run with your function stopped: {type(e).__name__}: {e}"
        if not ok:
            return CheckResult(ex.name, FAILED, len(cases), len(cases), None, run)
    return CheckResult(ex.name, PASSED, len(cases), len(cases), None, run)


def _hint(ex: Exercise, case: Case, got, expected) -> str:
    """The hint of the first listed mistake that gives what ``fn`` gave on this case."""
    for mistake in ex.mistakes:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                wrong = mistake.fn(*copy.deepcopy(case.inputs).values())
            value, problem = coerce(ex.output, got, expected, ex.choices)
            if problem:
                # NaN from the student and NaN from the mistake count as the same answer
                if "NaN" in problem and np.isnan(np.asarray(wrong, dtype=float)).any():
                    return mistake.hint
                continue
            if not agree(ex.output, wrong, expected) and agree(ex.output, value, wrong):
                return mistake.hint
        except Exception:  # noqa: BLE001 - a mistake that does not apply to this case
            continue
    return ""


# ---- comparing a run driven by the student's step with the reference run --------------------------


def lockstep(student_run, reference_run, quantity: str, limit: int):
    """Advance two generators of (iteration, array) together; return the first divergence in words.

    Returns ``(None, last_reference_value, n)`` when they agree for ``limit`` iterations or until
    the reference run ends, else ``(message, None, t)``.
    """
    last = None
    t = 0
    for t, ((it, mine), (_, ref)) in enumerate(zip(student_run, reference_run)):
        if t >= limit:
            break
        mine, ref = np.asarray(mine, dtype=np.float64), np.asarray(ref, dtype=np.float64)
        if mine.shape != ref.shape:
            return (f"the run with your function diverges at iteration {it}: {quantity} has shape {mine.shape}, "
                    f"the reference run's {ref.shape}"), None, it
        if not agree("array", mine, ref):
            g, e = mine.ravel(), ref.ravel()
            bad = np.flatnonzero(~(np.abs(g - e) <= RTOL * np.abs(e) + ATOL * max(1.0, float(np.max(np.abs(e))))))
            where = np.unravel_index(int(bad[0]) if bad.size else 0, ref.shape)
            label = ", ".join(str(int(t)) for t in where)
            return (f"the run with your function diverges at iteration {it}: {quantity}[{label}] is "
                    f"{mine[where]:.6g} with your function and {ref[where]:.6g} in the reference run "
                    f"({max(bad.size, 1)} of {ref.size} entries differ)"), None, it
        last = ref
    return None, last, t


def relative(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


