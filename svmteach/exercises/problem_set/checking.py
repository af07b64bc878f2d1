"""Checking a student's numeric answer to a pen-and-paper problem, without ever showing the right one.

:func:`check_answer` computes the expected value with the problem's own ``answer()`` (once per process),
reads the student's value as an array of floats and compares entry by entry.  An entry is right when it agrees
with the computed one to the problem's tolerance (a computed value) or, unless the right entry is a whole number
(a count is given exactly), to :data:`HAND_DIGITS` significant digits (a value worked out by hand, rounded or cut
off: |got - x| below one unit in the 4th significant digit of x).
An entry given to 2 or 3 significant digits that agrees as far as it goes is *close*: the answer is then
"close: give more digits", never "wrong".  A wrong answer is told which entries are off and, when every wrong
entry is off in one way a problem names (:attr:`PenProblem.slips`, the problem's own usual mistakes) or one
usual way (the sign flipped, a factor 2, a square or a square root), which slip explains it: the hint names the
slip, never the value.
"""

from __future__ import annotations

import functools
import html
import math
from dataclasses import dataclass

import numpy as np

RIGHT, CLOSE, WRONG, WRONG_SHAPE, NOT_ATTEMPTED, UNREADABLE, NO_ANSWER = (
    "right", "close", "wrong", "wrong shape", "not attempted yet", "not a number", "no numeric answer")

#: the significant digits a hand computation gives, and the course asks for (the Problems heading says so)
HAND_DIGITS = 4

#: The usual slips a wrong answer is tested for, after the problem's own (:attr:`PenProblem.slips`), in this
#: order: (name, value the slip gives from the right one ``x``, hint).  The hint says what the wrong value is
#: against the right one, never what the value is, and guesses no cause: the cause differs from problem to
#: problem (a problem names its own).
SLIPS = (
    ("sign", lambda x: -x, "the sign is flipped: check which way the inequality, the step or the label goes"),
    ("factor 2", lambda x: 2 * x, "it is twice the right value: a factor 2 too many, or a factor 1/2 lost"),
    ("factor 1/2", lambda x: x / 2, "it is half the right value: a factor 1/2 too many, or a factor 2 lost"),
    ("square", lambda x: x * x, "it is the square of the right value: a squared quantity where the quantity is meant?"),
    ("square root", lambda x: np.sqrt(np.abs(x)),
     "it is the square root of the right value: a quantity where its square is meant?"),
)


def significant_digits(x: float) -> int:
    """The significant digits of ``x`` as Python writes it shortest (0.6127 -> 4, 2.0 -> 1, 1e-05 -> 1): what a
    typed number holds."""
    if not math.isfinite(x) or x == 0:
        return 0
    mantissa = repr(abs(float(x))).split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return max(len(mantissa), 1)


def _unit(x: np.ndarray, digits: int) -> np.ndarray:
    """One unit in the ``digits``-th significant digit of each entry of ``x`` (0 where x is 0)."""
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(np.abs(x)))
    return np.where(x == 0, 0.0, 10.0 ** (exponent - digits + 1))


def agree_by_hand(got: np.ndarray, x: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Entry by entry: ``got`` is ``x`` to the tolerance or, where ``x`` is not a whole number (a count, an index, a
    small integer is given exactly), to :data:`HAND_DIGITS` significant digits."""
    got, x = np.asarray(got, dtype=float), np.asarray(x, dtype=float)
    exact = np.isclose(got, x, rtol=rtol, atol=atol)
    with np.errstate(invalid="ignore"):
        hand = (np.abs(got - x) < _unit(x, HAND_DIGITS) * (1 - 1e-9)) & (x != np.round(x))  # a count is exact
    return exact | hand


def _close(got: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Entry by entry: ``got`` has 2 or 3 significant digits and agrees with ``x`` to as many (rounded or cut off)."""
    out = np.zeros(got.shape, dtype=bool)
    for k, (g, e) in enumerate(zip(got.ravel(), x.ravel())):
        digits = significant_digits(g)
        if 2 <= digits < HAND_DIGITS and e != round(e):
            out.ravel()[k] = abs(g - e) < float(_unit(np.array(e), digits)) * (1 - 1e-9)
    return out


@dataclass
class AnswerResult:
    """What :func:`check_answer` returns.

    Attributes
    ----------
    name : str, the problem;  status : one of ``"right"``, ``"close"`` (right as far as its digits go, too few of
    them), ``"wrong"``, ``"wrong shape"``,
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
        colour = {RIGHT: "#1a7f37", CLOSE: "#9a6700", WRONG: "#cf222e", WRONG_SHAPE: "#cf222e", UNREADABLE: "#cf222e"}.get(
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

    ok = agree_by_hand(got, expected, p.rtol, p.atol)
    if ok.all():
        by_hand = not np.all(np.isclose(got, expected, rtol=p.rtol, atol=p.atol))
        return AnswerResult(name, RIGHT, f"to {HAND_DIGITS} significant digits" if by_hand else "")
    close = ~ok & _close(got, expected)
    if np.all(ok | close):
        where = _entries(np.flatnonzero(close.ravel()), expected.size)
        return AnswerResult(name, CLOSE, (f"{where + ' ' if where else ''}right as far as {'their' if where else 'its'} "
                                          f"digits go: give {HAND_DIGITS} significant digits"))
    wrong = np.flatnonzero(~(ok | close).ravel())
    where = _entries(wrong, expected.size)
    g, x = got.ravel()[wrong], expected.ravel()[wrong]
    hint = ""
    for slip, text in p.slips:  # the problem's own usual mistakes first, each a whole wrong answer: all of it agrees
        value = np.broadcast_to(as_array(slip()), expected.shape)
        if np.all(agree_by_hand(got, value, p.rtol, p.atol)):
            hint = text
            break
    if not hint:
        for _, slip, text in SLIPS:
            with np.errstate(all="ignore"):
                if np.all(agree_by_hand(g, slip(x), p.rtol, p.atol)):
                    hint = text
                    break
    more = ("; " + _entries(np.flatnonzero(close.ravel()), expected.size) + " close (give more digits)"
            if close.any() else "")
    return AnswerResult(name, WRONG, (f"{where} off" if where else "") + more, hint)
