"""The checker every exercise shares: run a student's function on generated cases, compare with the
reference, and say in plain words where it first goes wrong.

An :class:`Exercise` declares its reference solution (plain NumPy), a generator of seeded cases,
the kind of value it returns, the usual mistakes (each a wrong function and the hint that goes
with it) and, optionally, a ``drive`` function that runs a solver with the student's step
plugged in.  :func:`run_check` never raises for a student's mistake: an exception (``SystemExit``
too: only ``KeyboardInterrupt`` goes through), a value of the wrong type or shape or one that cannot
be read (its ``__array__`` raises), NaN, a modified input, a function that goes wrong after some
correct calls or that does not return within :data:`CASE_TIME_LIMIT` all become a failed
:class:`CheckResult` naming the first failing case.

The student's function runs in a daemon thread that the checker waits for at most the time limit
(a thread, not a signal: it works in Jupyter on Linux, macOS and Windows).  Past it the thread is
asked to stop (an exception raised into it at its next Python instruction); a function stuck inside
a C call cannot be stopped that way and is left running in the background, and the result says so.
Every function of this module runs on a private copy of the module's namespace taken at import, so
a student's function that rebinds or rewrites ``agree`` (or any name here) cannot change a verdict.
"""

from __future__ import annotations

import copy
import ctypes
import functools
import html
import inspect
import math
import numbers
import re
import threading
import traceback
import types
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Two numbers agree when ``|got - expected| <= RTOL |expected| + ATOL scale`` (scale: the case's
#: largest expected entry, at least 1): room for another order of summation, not for a wrong formula.
RTOL = 1e-7
ATOL = 1e-9

PASSED, FAILED, NOT_ATTEMPTED = "passed", "failed", "not attempted yet"

#: Seconds one call of the student's function may take on one case, and the solver run with it:
#: past them the check fails and says so (an infinite loop, most likely).
CASE_TIME_LIMIT = 10.0
RUN_TIME_LIMIT = 120.0


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
class Variant:
    """Another reading of the inputs that a student may have assumed (W as d x k): ``transform(inputs)``
    gives the inputs in that reading; when the student's function returns the expected answer on them,
    ``hint`` names the misreading.  ``reminder``: what to say when the student's function raises a shape
    error (the misreading may be one of several mistakes there)."""

    transform: Callable
    hint: str
    reminder: str = ""


#: LaTeX commands of the intros that the plain-text statement spells otherwise (any other \name becomes name)
_COMMANDS = {"le": "<=", "leq": "<=", "ge": ">=", "geq": ">=", "ne": "!=", "neq": "!=", "to": "->", "dots": "...",
             "ldots": "...", "cdot": "*", "partial": "d", "star": "*", "quad": " ", "qquad": " ", "top": "'",
             "left": "", "right": "", "times": "x", "mathbb": "", "mathrm": "", "text": "", "operatorname": ""}


def plain(markdown: str) -> str:
    """The plain-text reading of an intro: no $, no backslash, no markdown emphasis or code ticks."""
    text = markdown.replace(r"\tfrac12", "1/2").replace(r"\hat\beta", "beta_hat").replace("^\\top", "'")
    text = re.sub(r"\\t?frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    text = re.sub(r"\\([,;! ])", " ", text).replace(r"\{", "{").replace(r"\}", "}").replace(r"\|", "||")
    text = re.sub(r"(\w?)\\([A-Za-z]+)", lambda m: m.group(1) + (" " if m.group(1) else "")
                  + _COMMANDS.get(m.group(2), m.group(2)), text)  # Q\alpha -> Q alpha
    # x_{ij} -> x_ij, but alpha_{i y_i} and sum_{j != y_i} keep their braces
    text = re.sub(r"_\{([^{}]*)\}", lambda m: "_" + (m.group(1) if re.fullmatch(r"\w+", m.group(1))
                                                        else "{" + m.group(1) + "}"), text)
    text = re.sub(r"\^\{([^{}]*)\}", r"^\1", text)
    text = re.sub(r"(?<![_{\w])\{([^{}]*)\}", r"\1", text)  # the braces left by \text{...} and friends
    text = text.replace("$", "").replace("`", "").replace("**", "")
    return re.sub(r"[ \t]+", " ", text).strip()


@dataclass(frozen=True)
class Exercise:
    """One exercise of the course.

    Attributes
    ----------
    name : str, the key for :func:`~svmteach.exercises.check`.
    notebook : str, the notebook that teaches the concept (``"03"``).
    title, signature : str, what the student reads first.
    intro : str, the statement in markdown with LaTeX: the one source of the notebook's intro cell
        (:func:`~svmteach.exercises.notebooks.sync_intros`) and of :attr:`statement`, its plain text.
    equation : str, the relevant equation in plain text: the third tier of hints (a third failing check of the
        exercise, or ``check(..., hint=3)``; the second for an exercise without a ``nudge``); the solution code is
        never printed.
    nudge : str, the second tier: which quantity, which constraint to look at, never the result in words.
    reference : the reference solution (self-contained: it uses only ``np`` and ``math``).
    cases : ``cases() -> list[Case]``, seeded and reproducible.
    output : ``"float"``, ``"str"``, ``"array"`` (the shape of the expected value), ``"pair"``
        (a tuple of two floats), ``"answers"`` (a tuple of words, one per entry of ``parts``, each one of
        its ``choices``) or ``"indices"`` (a set of point numbers, each one of ``choices``).
    mistakes : the usual mistakes; the first that gives what the student's function gives, on the failing
        case and on every other case where both can be read, explains it.
    kind : ``"implement"`` (the statement gives the formula), ``"derive"`` (it gives the problem: the
        student derives the step, then writes it) or ``"predict"`` (the student predicts what a cell further
        down will show, before running it, and returns the prediction from a function of no arguments; the
        reference computes the truth with the library or scikit-learn).
    variants : :class:`Variant` readings of the inputs the student may have assumed.
    parts : for ``output="pair"``, the names of the two entries (``("L", "H")``); for ``"answers"``, what each
        answer is about (``("the rule", "the reason")``); for ``"indices"``, what one and several of the
        points are (``("a support vector", "support vectors")``).
    drive : ``drive(fn) -> (ok, message)`` or None: a solver run with ``fn`` plugged in.
    choices : for ``output="str"``, the accepted answers; for ``"answers"``, one tuple of them per part;
        for ``"indices"``, the point numbers there are.
    accept : ``accept(inputs, value, expected) -> bool`` or None: True when ``value`` (read as
        ``output`` says) is another right answer than the reference's (a tie between two ends).
    """

    name: str
    notebook: str
    title: str
    signature: str
    intro: str
    equation: str
    reference: Callable
    cases: Callable[[], list]
    output: str = "float"
    mistakes: tuple = ()
    kind: str = "implement"
    variants: tuple = ()
    parts: tuple = ()
    drive: Callable | None = None
    choices: tuple = ()
    accept: Callable | None = None
    nudge: str = ""

    @property
    def statement(self) -> str:
        """The intro in plain text (for the terminal and the catalog)."""
        return plain(self.intro)

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
        lines = [f"case {self.case} ({self.label}): {self.problem}"]
        if self.inputs:  # a prediction has none
            lines.append(f"  inputs:   {self.inputs}")
        if self.expected:
            lines.append(f"  expected: {self.expected}")
        if self.got:
            lines.append(f"  got:      {self.got}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


#: the hint tiers: 1 names the case and what is wrong with the answer; 2 adds a nudge (which quantity, which
#: constraint; the equation for an exercise without one); 3 adds the equation of the step
HINT_TIERS = (1, 2, 3)


@dataclass
class CheckResult:
    """What :func:`~svmteach.exercises.check` returns.

    Attributes
    ----------
    name : str;  status : ``"passed"``, ``"failed"`` or ``"not attempted yet"``.
    passed : bool;  n_cases : int, cases run;  n_passed : int, cases passed before the first failure.
    failure : :class:`Failure` or None;  solver_run : str, what the run with the student's step did
    ('' when none was run).  tier : 1, 2 or 3, the hints shown;  nudge : str, the nudge shown from tier 2 on;
    equation : str, the equation shown at tier 3 (at tier 2 where the exercise has no nudge; '' before).
    """

    name: str
    status: str
    n_cases: int
    n_passed: int
    failure: Failure | None = None
    solver_run: str = ""
    tier: int = 1
    equation: str = ""
    nudge: str = ""
    prediction: bool = False  # an exercise of kind "predict": its second tier is the reasoning, not an equation

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
        behind = "the reasoning" if self.prediction else "the equation"
        if self.nudge:
            parts.append(f"  a nudge: {self.nudge}")
        if self.equation:
            parts.append(f"  {behind}: {self.equation}")
        elif self.nudge:
            parts.append(f"  (still stuck? run the check again, or exercises.check({self.name!r}, your_function, "
                         f"hint=3), for the equation behind this step)")
        elif self.tier < 2:
            what = (f"{behind} behind this prediction" if self.prediction else
                    "a nudge (which quantity, which constraint), and once more for the equation behind this step")
            parts.append(f"  (stuck? run the check again, or exercises.check({self.name!r}, your_function, hint=2), "
                         f"for {what})")
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


def show(value, full: bool = False) -> str:
    """A short plain-text form of a value: numbers to 6 significant digits, small arrays in full.

    With ``full`` every number is written as Python's repr writes it, to full precision: an input of
    10 - 1e-9 reads 9.999999999, not 10."""
    if value is NotImplemented:
        return "NotImplemented"
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value)) if full else f"{float(value):.6g}"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(show(v, full) for v in value) + ")"
    if isinstance(value, np.ndarray):
        style = dict(floatmode="unique") if full else dict(precision=5, suppress_small=False)
        if value.size <= 16:
            return np.array2string(value, separator=", ", max_line_width=400, **style).replace("\n", "")
        return (f"array of shape {value.shape}, first entries "
                f"{np.array2string(value.ravel()[:4], separator=', ', **(style if full else dict(precision=4)))}")
    if isinstance(value, list):
        return show(np.asarray(value), full) if len(value) <= 16 else f"list of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:120]


def show_inputs(inputs: dict) -> str:
    """The inputs of a case at full precision (:func:`show` with ``full``)."""
    return ", ".join(f"{k}={show(v, full=True)}" for k, v in inputs.items())


# ---- reading what the function returned --------------------------------------------------------


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def coerce(kind: str, got, expected, choices=()):
    """``(value, problem)``: the returned value in the form of ``expected``, or a plain-words problem."""
    if kind == "float":
        if isinstance(got, np.ndarray) and got.shape == ():
            got = got[()]
        if not _is_real(got):
            what = f"an array of shape {got.shape}" if isinstance(got, np.ndarray) else show(got)
            return None, f"returned {what} ({type(got).__name__}), expected one number"
        value = float(got)
        if math.isnan(value):
            return None, "returned NaN"
        return value, ""
    if kind == "str":
        if not isinstance(got, str):
            return None, f"returned {show(got)} ({type(got).__name__}), expected one of {', '.join(map(repr, choices))}"
        text = str.lower(str.strip(got))  # str's own methods: a plain str, whatever subclass came back
        if text not in choices:
            return None, f"returned {text!r}, which is not one of {', '.join(map(repr, choices))}"
        return text, ""
    if kind == "answers":
        return _coerce_answers(got, expected, choices)
    if kind == "indices":
        return _coerce_indices(got, choices)
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
            turned = " (the transpose of the expected shape)" if arr.ndim == 2 and arr.shape == expected.shape[::-1] else ""
            return None, f"returned an array of shape {arr.shape}, expected shape {expected.shape}{turned}"
        if np.isnan(arr).any():
            return None, f"returned NaN at index {tuple(int(t) for t in np.argwhere(np.isnan(arr))[0])}"
        return arr, ""
    raise ValueError(f"unknown output kind {kind!r}")


def word(text) -> str:
    """A word of an answer as the checker compares it: lower case, '-' and spaces as '_'."""
    return re.sub(r"[\s-]+", "_", str.strip(str(text))).lower()


def _coerce_answers(got, expected, choices):
    """A tuple of words, one per part (:func:`word`), each one of its part's ``choices``."""
    if isinstance(got, str) or not isinstance(got, (tuple, list)) or len(got) != len(expected):
        return None, (f"returned {show(got)} ({type(got).__name__}), expected a tuple of {len(expected)} answers, "
                      f"in this order: " + "; ".join(f"one of {', '.join(map(repr, c))}" for c in choices))
    words = []
    for k, (v, allowed) in enumerate(zip(got, choices)):
        if not isinstance(v, str) or word(v) not in allowed:
            return None, f"answer {k + 1} of your tuple is {show(v)}, which is not one of {', '.join(map(repr, allowed))}"
        words.append(word(v))
    return tuple(words), ""


def _coerce_indices(got, choices):
    """The point numbers of the answer, sorted without repeats; each must be one of ``choices``."""
    if isinstance(got, (str, bytes, dict)) or _is_real(got) or got is None:
        return None, f"returned {show(got)} ({type(got).__name__}), expected a list of point numbers"
    try:
        values = list(got)
    except TypeError:
        return None, f"returned {show(got)} ({type(got).__name__}), expected a list of point numbers"
    out = set()
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or float(v) != int(v):
            return None, f"returned {show(v)} among the point numbers: each must be a whole number"
        if int(v) not in choices:
            return None, f"returned point {int(v)}, but the points are numbered {choices[0]} to {choices[-1]}"
        out.add(int(v))
    return tuple(sorted(out)), ""


def agree(kind: str, got, expected) -> bool:
    """True when ``got`` equals ``expected`` to RTOL / ATOL (strings, words and point numbers: exactly)."""
    if kind == "str":
        return got == expected
    if kind == "answers":
        return (isinstance(got, (tuple, list)) and len(got) == len(expected)
                and all(isinstance(g, str) and word(g) == word(e) for g, e in zip(got, expected)))
    if kind == "indices":
        try:
            return sorted({int(v) for v in got}) == sorted({int(v) for v in expected})
        except (TypeError, ValueError):
            return False
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


class _Stop(BaseException):
    """Raised into a student's function that ran past its time limit, to end it (a BaseException: the
    student's ``except Exception`` does not swallow it)."""


def _stop(worker):
    """Ask ``worker`` to stop: raise :class:`_Stop` in it at its next Python instruction (CPython)."""
    set_async_exc = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async_exc is not None and worker.ident is not None:
        set_async_exc(ctypes.c_ulong(worker.ident), ctypes.py_object(_Stop))


def _within(limit, call):
    """Run ``call()`` in a daemon thread and wait at most ``limit`` seconds.

    Returns ``("returned", value)``, ``("raised", exception)`` (any but KeyboardInterrupt, which is
    raised here) or ``("timed out", still_running)``: past the limit the thread is stopped
    (:func:`_stop`), which a function inside a long C call ignores: it then runs on, a daemon.
    """
    box = {}

    def target():
        try:
            box["returned"] = call()
        except _Stop:
            pass
        except BaseException as e:  # noqa: BLE001 - SystemExit too: a student's error is a result
            box["raised"] = e

    worker = threading.Thread(target=target, name="svmteach-exercise-check", daemon=True)
    worker.start()
    try:
        worker.join(limit)
    except KeyboardInterrupt:  # the user stops the check: stop the function too
        _stop(worker)
        raise
    if worker.is_alive():
        _stop(worker)
        worker.join(1.0)
        return "timed out", worker.is_alive()
    if isinstance(box.get("raised"), KeyboardInterrupt):
        raise box["raised"]
    return ("raised", box["raised"]) if "raised" in box else ("returned", box.get("returned"))


def _raised(e) -> str:
    """What an exception from the student's code says, with the line it came from."""
    try:
        frame = traceback.extract_tb(e.__traceback__)[-1]
        return f"raised {type(e).__name__}: {e} (at line {frame.lineno}: {(frame.line or '').strip()!r})"
    except Exception:  # noqa: BLE001 - an exception whose message itself raises
        return f"raised {type(e).__name__}"


def _timed_out(limit, still_running, what) -> str:
    after = (" It is still running in the background (inside a call that cannot be interrupted): restart "
             "the kernel to stop it." if still_running else " It was stopped.")
    return f"{what} did not return within {limit:g} s: an infinite loop?{after}"


def _read(fn, case: Case, given: dict, ex: Exercise, expected):
    """In the worker thread: call ``fn`` on ``given`` (fresh copies of the case's inputs) and read its
    answer.  Returns ``(value, shown, problem)``: the answer in the form of ``expected`` (or None), the
    answer as text, and '' or what went wrong in plain words; ``value`` is NotImplemented for a stub.
    Everything that runs the student's code (the call, and reading the answer: ``__array__``,
    ``__float__``, ``__repr__``) runs here, under the time limit."""
    try:
        with np.errstate(all="ignore"):
            got = fn(*given.values())
    except NotImplementedError:
        return NotImplemented, "NotImplemented", ""
    except (KeyboardInterrupt, _Stop):
        raise
    except BaseException as e:  # noqa: BLE001 - a student's error is a result, never a crash of the checker
        return None, "", _raised(e)
    if got is NotImplemented:
        return NotImplemented, "NotImplemented", ""
    try:
        shown = show(got) if got is not None else ""
        for key, before in case.inputs.items():
            change = _changed(before, given[key])
            if change:
                return None, shown, (f"modified its input {key!r} ({change}); the step must leave its inputs "
                                     "untouched and return new values (copy an array before changing it)")
        value, problem = coerce(ex.output, got, expected, ex.choices)
    except (KeyboardInterrupt, _Stop):
        raise
    except BaseException as e:  # noqa: BLE001 - an answer whose __array__, __float__ or __repr__ raises
        return None, "", f"returned a {type(got).__name__} that cannot be read as the answer: {_raised(e)}"
    return value, shown, problem


def _attempt(fn, case: Case, ex: Exercise, expected, limit: float):
    """``(value, shown, problem)`` of :func:`_read`, within ``limit`` seconds."""
    given = copy.deepcopy(case.inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome, out = _within(limit, lambda: _read(fn, case, given, ex, expected))
    if outcome == "returned":
        return out
    if outcome == "raised":  # reading the answer went wrong in a way _read could not even describe
        return None, "", f"returned something that cannot be read as the answer ({type(out).__name__})"
    return None, "", _timed_out(limit, out, "it")


def _right(ex: Exercise, case: Case, value, expected) -> bool:
    """Whether ``value`` is the reference's answer, or another right one (``ex.accept``)."""
    if agree(ex.output, value, expected):
        return True
    return ex.accept is not None and bool(ex.accept(copy.deepcopy(case.inputs), value, expected))


def _check_limit(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def run_check(ex: Exercise, fn, time_limit: float = CASE_TIME_LIMIT,
              run_time_limit: float = RUN_TIME_LIMIT, tier: int = 1) -> CheckResult:
    """Run ``fn`` on every case of ``ex``; see :func:`_run_check` (a prediction's result says so)."""
    result = _run_check(ex, fn, time_limit, run_time_limit, tier)
    result.prediction = ex.kind == "predict"
    return result


def _run_check(ex: Exercise, fn, time_limit: float = CASE_TIME_LIMIT,
               run_time_limit: float = RUN_TIME_LIMIT, tier: int = 1) -> CheckResult:
    """Run ``fn`` on every case of ``ex``; the first failure stops the check (see the module docstring).

    ``time_limit``: seconds each call may take; ``run_time_limit``: seconds for the solver run; ``tier``: 1
    names the failing case and what is wrong with the answer, 2 adds the exercise's nudge, 3 its equation.
    """
    time_limit = _check_limit(time_limit, "time_limit")
    run_time_limit = _check_limit(run_time_limit, "run_time_limit")
    nudge = ex.nudge if tier >= 2 else ""
    equation = ex.equation if tier >= 3 or (tier == 2 and not ex.nudge) else ""
    if not callable(fn):
        return CheckResult(ex.name, FAILED, 0, 0, Failure(0, "", "", "", show(fn), f"{show(fn)} is not a function",
                                                          f"pass the function itself: check({ex.name!r}, my_function)"),
                           tier=tier)
    cases = ex.cases()
    for number, case in enumerate(cases, start=1):
        expected = ex.reference(*copy.deepcopy(case.inputs).values())
        value, shown, problem = _attempt(fn, case, ex, expected, time_limit)
        if value is NotImplemented:
            if number == 1:
                return CheckResult(ex.name, NOT_ATTEMPTED, len(cases), 0)
            value, problem = None, "returned NotImplemented (or raised NotImplementedError) on this case only"
        if not problem and not _right(ex, case, value, expected):
            problem = "wrong value" + _what_is_wrong(ex, value, expected)
        if problem:
            if "modified its input" in problem:
                hint = ""  # the problem says what to do
            else:  # a listed mistake that gives the same answers explains it best, then a misread input
                hint = _explain(ex, fn, cases, number - 1, value, problem, expected, time_limit) or case.hint or ""
            expected_text = show(expected)
            if value is not None and shown and show(value) == expected_text:  # alike to 6 digits: show them in full
                expected_text, shown = show(expected, full=True), show(value, full=True)
            if ex.kind == "predict":  # the expected value IS the answer: never shown, the problem names what is wrong
                expected_text = ""
            failure = Failure(number, case.label, show_inputs(case.inputs), expected_text, shown, problem, hint)
            return CheckResult(ex.name, FAILED, len(cases), number - 1, failure, tier=tier, equation=equation, nudge=nudge)
    # the first case once more, last: a function that keeps state between calls shows it here
    first = ex.reference(*copy.deepcopy(cases[0].inputs).values())
    again, shown, problem = _attempt(fn, cases[0], ex, first, time_limit)
    if again is NotImplemented:
        problem = "returned NotImplemented (or raised NotImplementedError) on this call only"
    if problem or not _right(ex, cases[0], again, first):
        failure = Failure(1, cases[0].label + ", called again after every other case", show_inputs(cases[0].inputs),
                          "" if ex.kind == "predict" else show(first), shown,
                          problem or "a different answer from the first call with the same inputs",
                          "a step must depend only on its arguments: does your function keep something between "
                          "calls (a counter, a global, a default list that grows)?")
        return CheckResult(ex.name, FAILED, len(cases), len(cases), failure, tier=tier, equation=equation, nudge=nudge)
    run = ""
    if ex.drive is not None:
        outcome, out = _within(run_time_limit, lambda: _drive(ex, fn))
        if outcome == "returned":
            ok, run = out
        elif outcome == "raised":  # a student's function may fail only inside the run
            ok, run = False, f"the solver run with your function stopped: {_raised(out)}"
        else:
            ok, run = False, _timed_out(run_time_limit, out, "the solver run with your function")
        if not ok:
            return CheckResult(ex.name, FAILED, len(cases), len(cases), None, run, tier=tier, equation=equation, nudge=nudge)
    return CheckResult(ex.name, PASSED, len(cases), len(cases), None, run)


def _drive(ex: Exercise, fn):
    """In the worker thread: the solver run with ``fn`` plugged in, ``(ok, message)`` as a bool and a str."""
    ok, message = ex.drive(fn)
    return bool(ok), str(message)


# ---- saying what is wrong with an answer, and why ---------------------------------------------------


def _factor(r: float) -> str:
    """A ratio in words: 2, 1/2, -3, or to 4 digits."""
    for q in (1, 2, 3, 4):
        p = r * q
        if abs(p - round(p)) <= 1e-9 * max(1.0, abs(p)) and round(p) != 0:
            return f"{round(p)}" if q == 1 else f"{round(p)}/{q}"
    return f"{r:.4g}"


def _scaled(value, expected) -> str:
    """' (a sign error?)' or ' (a factor off)' when ``value`` is a constant multiple of ``expected``, else ''."""
    g, e = np.asarray(value, dtype=np.float64).ravel(), np.asarray(expected, dtype=np.float64).ravel()
    if not (np.isfinite(g).all() and np.isfinite(e).all()) or not np.any(e != 0):
        return ""
    c = float(g @ e / (e @ e))  # the best factor, by least squares
    if not np.isfinite(c) or agree("array", c, 1.0) or not agree("array", g, c * e):
        return ""
    if agree("float", c, -1.0):
        return ": it is the negative of the expected value (a sign error?)"
    if agree("float", c, 0.0):
        return ""
    simple = any(abs(c * q - round(c * q)) <= 1e-9 * max(1.0, abs(c * q)) and 0 < abs(round(c * q)) <= 4
                 for q in (1, 2, 3, 4))
    if e.size == 1 and not simple:
        return ""  # one number is always some multiple of another: only a simple factor (2, 1/2, 3/4) says something
    whole = "every entry of your answer is" if e.size > 1 else "your answer is"
    return f": {whole} {_factor(c)} times the expected value (a wrong scale, by a factor {_factor(c)})"


def _what_is_wrong(ex: Exercise, value, expected) -> str:
    """What is wrong with a wrong answer, in words, from the answer alone: a sign, a scale, which entry of a pair,
    two entries swapped; '' when none of these says it."""
    if ex.output == "str":
        return ""
    if ex.output == "answers":
        wrong = [name for name, v, e in zip(ex.parts, value, expected) if word(v) != word(e)]
        right = [name for name in ex.parts if name not in wrong]
        said = (f": your answer about {wrong[0]} is wrong" if len(wrong) == 1
                else f": your answers about {' and '.join(wrong)} are wrong")
        return said + (f" (about {' and '.join(right)}: right)" if right else "")
    if ex.output == "indices":
        one, many = ex.parts or ("one of them", "the points asked for")  # ("a support vector", "support vectors")
        extra = sorted(set(value) - set(expected))
        missing = len(set(expected) - set(value))
        said = []
        if extra:
            points = ", ".join(map(str, extra))
            said.append(f"point {points} of your answer is not {one}" if len(extra) == 1
                        else f"points {points} of your answer are not {many}")
        if missing:
            said.append(f"{missing} of the {many} {'are' if missing > 1 else 'is'} missing from your answer")
        return ": " + "; ".join(said) if said else ""
    if ex.output == "pair":
        names = ex.parts or ("the first entry", "the second entry")
        right = [agree("float", v, e) for v, e in zip(value, expected)]
        if right[0] != right[1]:
            good, bad = (names[0], names[1]) if right[0] else (names[1], names[0])
            return f": {good} is right, {bad} is wrong" + _scaled(value[right.index(False)], expected[right.index(False)])
        if agree("float", value[0], expected[1]) and agree("float", value[1], expected[0]):
            return f": the two entries are swapped ({names[0]} comes first)"
    text = _scaled(value, expected)
    return text + (first_difference(value, expected) if ex.output == "array" else "")


def _gives(mistake: Mistake, inputs: dict, value, problem: str, expected, kind: str) -> bool:
    """Whether ``mistake`` gives, on ``inputs``, the wrong answer the student gave (``value``, or NaN said in
    ``problem``); False where the mistake does not apply (it raises) or gives the right answer there."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            wrong = mistake.fn(*copy.deepcopy(inputs).values())
        if value is None:  # NaN from the student and NaN from the mistake count as the same answer
            return "NaN" in problem and bool(np.isnan(np.asarray(wrong, dtype=float)).any())
        return not agree(kind, wrong, expected) and agree(kind, value, wrong)
    except Exception:  # noqa: BLE001 - a mistake that does not apply to this case
        return False


def _agrees_elsewhere(mistake: Mistake, ex: Exercise, inputs: dict, value) -> bool | None:
    """On another case: whether the student's answer ``value`` is the mistake's (None where the mistake does not apply)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            wrong = mistake.fn(*copy.deepcopy(inputs).values())
        return agree(ex.output, value, wrong)
    except Exception:  # noqa: BLE001 - a mistake that does not apply to this case
        return None


def _explain(ex: Exercise, fn, cases: list, index: int, value, problem: str, expected, time_limit: float) -> str:
    """The hint for the student's failure on ``cases[index]``.

    A listed mistake explains it when it gives the student's answer on this case AND on every other case where
    both can be read (two mistakes may agree on one case: the CS229 handout's sign and a missing y_j when
    y_j = -1); else a :class:`Variant` reading of the inputs on which the student's function is right (W as d x k).
    """
    case = cases[index]
    candidates = []
    if value is not None or "NaN" in problem:
        candidates = [m for m in ex.mistakes if _gives(m, case.inputs, value, problem, expected, ex.output)]
    if candidates:
        limit = min(time_limit, 2.0)
        for other in cases[:index] + cases[index + 1 :]:
            reference = ex.reference(*copy.deepcopy(other.inputs).values())
            mine, _, trouble = _attempt(fn, other, ex, reference, limit)
            if "did not return within" in trouble:
                break  # a slow function: judge on the cases seen so far
            if trouble or mine is None or mine is NotImplemented:
                continue
            candidates = [m for m in candidates if _agrees_elsewhere(m, ex, other.inputs, mine) is not False]
            if not candidates:
                break
        if candidates:
            return candidates[0].hint
    for variant in ex.variants:
        try:
            given = variant.transform(copy.deepcopy(case.inputs))
        except Exception:  # noqa: BLE001 - a reading that does not apply to this case
            continue
        mine, _, trouble = _attempt(fn, Case(case.label, given), ex, expected, min(time_limit, 2.0))
        if not trouble and mine is not None and mine is not NotImplemented and agree(ex.output, mine, expected):
            return variant.hint
    if problem.startswith("raised") and re.search(r"shape|mismatch|align|broadcast|dimension", problem):
        shapes = ", ".join(f"{k} has shape {v.shape}" for k, v in case.inputs.items() if isinstance(v, np.ndarray))
        reminders = " ".join(v.reminder for v in ex.variants if v.reminder)
        return f"the shapes do not fit together: here {shapes}." + (f" {reminders}" if reminders else "")
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


def watch(fn, reference, output: str, accept=None):
    """``(watched, record)``: ``fn`` for a solver run, with every call checked against ``reference`` on the same
    arguments (to RTOL / ATOL, or another right answer by ``accept``).

    The run follows the student's answers, never the reference's: a step written in another, algebraically equal
    form differs from the reference in its last bits, and a run that compared whole paths would turn that into
    another pair choice many steps later and call right work wrong.  Here each call is judged where it is made, on
    the state the student's own run reached.  ``record["first"]`` is None, or ``(call, inputs, got, expected,
    problem)`` of the first call that is wrong; ``record["calls"]`` counts the calls.
    """
    names = list(inspect.signature(reference).parameters)
    record = {"calls": 0, "first": None}

    def watched(*args):
        record["calls"] += 1
        given = copy.deepcopy(args)  # as they came: the student's function may change its arguments
        got = fn(*args)
        if record["first"] is None:
            expected = reference(*copy.deepcopy(given))
            inputs = dict(zip(names, given))
            with np.errstate(all="ignore"):
                value, problem = coerce(output, got, expected)
                if not problem and not agree(output, value, expected) and not (
                        accept is not None and accept(copy.deepcopy(inputs), value, expected)):
                    problem = "wrong value"
            if problem:
                record["first"] = (record["calls"], inputs, got, expected, problem)
        return got

    return watched, record


def watch_report(record, what: str = "call") -> str:
    """The first wrong call of a watched run in words ('' when none was wrong)."""
    if record["first"] is None:
        return ""
    call, inputs, got, expected, problem = record["first"]
    said = f"returned {show(got)}" if problem == "wrong value" else problem
    if problem == "wrong value" and show(got) == show(expected):
        said, shown = f"returned {show(got, full=True)}", show(expected, full=True)
    else:
        shown = show(expected)
    return (f"the run with your function differs from the step at {what} {call}: on the state the run reached "
            f"there ({show_inputs(inputs)}) your function {said}, the step gives {shown}")


def relative(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


# ---- the checker's own copy of this module ---------------------------------------------------------


def _seal(namespace: dict):
    """Give every function of this module a private copy of ``namespace`` (taken now, at import) to look
    its names up in, and make the module's names copies too: a student's function that rebinds
    ``core.agree`` or rewrites ``core.agree.__code__`` changes neither what the checker calls nor how."""
    own = [name for name, v in namespace.items()
           if isinstance(v, types.FunctionType) and v.__module__ == namespace["__name__"]]
    private = dict(namespace)

    def clone(fn, globals_):
        new = types.FunctionType(fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
        new.__kwdefaults__ = copy.copy(fn.__kwdefaults__)
        return functools.update_wrapper(new, fn, updated=())

    for name in own:
        private[name] = clone(namespace[name], private)
    for name in own:
        namespace[name] = clone(namespace[name], private)


_seal(globals())
