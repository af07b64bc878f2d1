"""Checking a student's numeric answer to a pen-and-paper problem, without ever showing the right one.

:func:`check_answer` computes the expected value with the problem's own ``answer()`` (once per process),
reads the student's value as an array of floats and compares entry by entry with the problem's tolerance.
A wrong answer is told which entries are off and, when every wrong entry is off in the same usual way,
which slip explains it (the sign flipped, a factor 2, a square or a square root): the hint names the slip,
never the value.
"""

from __future__ import annotations

import functools
import html
from dataclasses import dataclass

import numpy as np

RIGHT, WRONG, WRONG_SHAPE, NOT_ATTEMPTED, UNREADABLE, NO_ANSWER = (
    "right", "wrong", "wrong shape", "not attempted yet", "not a number", "no numeric answer")

#: The usual slips a wrong answer is tested for, in this order: (name, value the slip gives from the right
#: one ``x``, hint).  The hint says what to look for, never what the value is.
SLIPS = (
    ("sign", lambda x: -x, "the sign is flipped: check which way the inequality, the step or the label goes"),
    ("factor 2", lambda x: 2 * x,
     "it is twice the right value: a factor 1/2 lost (in front of a square, or 2/||w|| against 1/||w||)?"),
    ("factor 1/2", lambda x: x / 2,
     "it is half the right value: a factor 2 lost (in front of a square, or 2/||w|| against 1/||w||)?"),
    ("square", lambda x: x * x, "it is the square of the right value: a squared norm where the norm is meant?"),
    ("square root", lambda x: np.sqrt(np.abs(x)),
     "it is the square root of the right value: a norm where its square is meant?"),
)


@dataclass
class AnswerResult:
    """What :func:`check_answer` returns.

    Attributes
    ----------
    name : str, the problem;  status : one of ``"right"``, ``"wrong"``, ``"wrong shape"``,
    ``"not attempted yet"``, ``"not a number"``, ``"no numeric answer"``;  passed : bool (status right);
    message : str, what is wrong in plain words (never the right value);  hint : str, the slip, or ''.
    """

    name: str
    status: str
    message: str = ""
    hint: str = ""

    @property
    def passed(self) -> bool:
        return self.status == RIGHT

    def __bool__(self):
        return self.passed

    def text(self) -> str:
        head = f"Problem {self.name}: {self.status.upper() if self.status == WRONG else self.status}"
        lines = [head + (f" ({self.message})" if self.message else "")]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    __str__ = text

    def __repr__(self):
        return self.text()

    def _repr_html_(self):
        colour = {RIGHT: "#1a7f37", WRONG: "#cf222e", WRONG_SHAPE: "#cf222e", UNREADABLE: "#cf222e"}.get(
            self.status, "#6e7781")
        lines = self.text().split("\n")
        body = html.escape("\n".join(lines[1:]))
        pre = f"<pre style='margin:0.2em 0 0 1em'>{body}</pre>" if body else ""
        return f"<div><b style='color:{colour}'>{html.escape(lines[0])}</b>{pre}</div>"


def as_array(value) -> np.ndarray:
    """A value as a float array: a number, a list or tuple of numbers, a NumPy array, a SymPy number or matrix."""
    if hasattr(value, "tolist") and not isinstance(value, np.ndarray):  # a SymPy matrix
        value = value.tolist()
    return np.asarray(value, dtype=float)


@functools.lru_cache(maxsize=None)
def _expected(name: str) -> np.ndarray:
    from . import problem

    p = problem(name)
    return as_array(p.answer())


def expected_answer(name: str) -> np.ndarray:
    """The computed answer of problem ``name`` (a float array, read-only), for the teacher's edition."""
    from . import problem

    if problem(name).answer is None:
        raise ValueError(f"problem {name} has no numeric answer")
    out = _expected(name).copy()
    out.flags.writeable = False
    return out


def _said(error) -> str:
    """What an exception raised while reading an answer says (its type too, but for the TypeError / ValueError of
    a value that is not numbers)."""
    try:
        return str(error) if type(error) in (TypeError, ValueError) else f"{type(error).__name__}: {error}"
    except Exception:  # noqa: BLE001 - an exception whose message itself raises
        return type(error).__name__


def _entries(indices, size) -> str:
    if size == 1:
        return ""
    names = [str(k + 1) for k in indices]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"entr{'y' if len(names) == 1 else 'ies'} {listed} of {size}"


def check_answer(name: str, value) -> AnswerResult:
    """Compare the student's ``value`` with the computed answer of problem ``name``; see the module docstring.

    ``value`` is a number, or a list, tuple or array of numbers in the order the statement asks for;
    ``None`` means not attempted yet.  Only an unknown ``name`` raises (a ValueError listing the names).
    """
    from . import problem

    p = problem(name)
    if p.answer is None:
        return AnswerResult(name, NO_ANSWER, "this problem is graded from the written solution")
    if value is None or value is NotImplemented:
        return AnswerResult(name, NOT_ATTEMPTED, "replace None by your answer")
    expected = _expected(name)
    try:
        got = as_array(value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:  # noqa: BLE001 - an answer whose __array__ or tolist raises is a failed result
        return AnswerResult(name, UNREADABLE, f"{type(value).__name__} cannot be read as numbers: {_said(e)}")
    if got.shape != expected.shape:
        if got.size == expected.size and got.squeeze().shape == expected.squeeze().shape:
            got = got.reshape(expected.shape)
        else:
            want = ("one number" if expected.size == 1 else f"{expected.size} numbers" if expected.ndim == 1
                    else f"an array of shape {expected.shape}")
            return AnswerResult(name, WRONG_SHAPE, f"the answer is {want}; got shape {got.shape}")
    if not np.all(np.isfinite(got)) and not np.array_equal(np.isfinite(got), np.isfinite(expected)):
        return AnswerResult(name, WRONG, "NaN or infinity where a finite number is expected")

    def close(a, b):
        return np.isclose(a, b, rtol=p.rtol, atol=p.atol)

    ok = close(got, expected)
    if ok.all():
        return AnswerResult(name, RIGHT)
    wrong = np.flatnonzero(~ok.ravel())
    where = _entries(wrong, expected.size)
    g, x = got.ravel()[wrong], expected.ravel()[wrong]
    hint = ""
    for _, slip, text in SLIPS:
        with np.errstate(all="ignore"):
            if np.all(close(g, slip(x))):
                hint = text
                break
    return AnswerResult(name, WRONG, f"{where} off" if where else "", hint)
