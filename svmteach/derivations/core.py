"""The building blocks of a derivation: named steps, checked claims, errata, numeric cross-checks."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

VERIFIED, FAILED, ERRATUM = "verified", "failed", "erratum"


@dataclass
class Step:
    """One step of a derivation, as a notebook shows it and the command line reports it.

    ``expr`` is the SymPy expression (or equation) the step establishes; ``source`` says
    which passage of the course material it follows, e.g. "seed 000, 'Derivatives'".
    """

    model: str
    name: str
    expr: object
    source: str
    status: str
    note: str = ""
    printed: object = field(default=None, repr=False)

    @property
    def latex(self) -> str:
        return sp.latex(self.expr)

    def as_dict(self) -> dict:
        d = {"model": self.model, "step": self.name, "status": self.status, "source": self.source,
             "note": self.note, "latex": self.latex}
        if self.printed is not None:
            d["printed"] = sp.latex(self.printed)
        return d


def is_zero(expr, cases=()) -> bool:
    """True when ``expr`` simplifies to 0 (for every substitution in ``cases``, if given)."""
    for sub in (cases or [{}]):
        e = sp.simplify(sp.expand(sp.sympify(expr).subs(sub)))
        if isinstance(e, sp.MatrixBase):
            if not all(sp.simplify(v) == 0 for v in e):
                return False
        elif e != 0:
            return False
    return True


def claim(model, name, lhs, rhs, source, note="", cases=()) -> Step:
    """A step asserting ``lhs = rhs``, verified by simplifying the difference to 0."""
    ok = is_zero(sp.Matrix(lhs) - sp.Matrix(rhs) if isinstance(lhs, (sp.MatrixBase, list)) else lhs - rhs, cases)
    expr = sp.Eq(lhs, rhs, evaluate=False) if not isinstance(lhs, (sp.MatrixBase, list)) else sp.Eq(
        sp.Matrix(lhs), sp.Matrix(rhs), evaluate=False)
    return Step(model, name, expr, source, VERIFIED if ok else FAILED, note)


def holds(model, name, expr, truth: bool, source, note="") -> Step:
    """A step whose check is a Boolean computed by SymPy (a solve, a limit, a substitution)."""
    return Step(model, name, expr, source, VERIFIED if truth else FAILED, note)


def erratum(model, name, printed, derived, source, note, cases=()) -> Step:
    """Where the course material prints ``printed`` but the derivation gives ``derived``.

    The step is an erratum only if SymPy confirms that the two really differ (for at
    least one of ``cases``); if they turn out equal the claim of an error is itself
    wrong and the step fails.
    """
    diff = printed - derived
    differs = not is_zero(diff, cases)
    return Step(model, name, sp.Eq(sp.Symbol("derived"), derived, evaluate=False) if not isinstance(
        derived, sp.MatrixBase) else derived, source, ERRATUM if differs else FAILED, note, printed)


def numeric(model, name, ours, derived, source, note="", rtol=1e-9, atol=1e-10) -> Step:
    """A numeric cross-check: the solver's own value against the lambdified derivation."""
    ours, derived = np.asarray(ours, dtype=float), np.asarray(derived, dtype=float)
    ok = ours.shape == derived.shape and np.allclose(ours, derived, rtol=rtol, atol=atol)
    return Step(model, name, sp.Symbol("numeric"), source, VERIFIED if ok else FAILED,
                note + ("" if ok else f" (solver {ours.ravel()[:4]} vs derived {derived.ravel()[:4]})"))


def real_symbols(names, **kw):
    return sp.symbols(names, real=True, **kw)


def sign_cases(ys):
    """Every assignment of +1 / -1 to the label symbols ``ys``."""
    from itertools import product

    return [dict(zip(ys, signs)) for signs in product([1, -1], repeat=len(ys))]


def counterexample(model, name, printed, point, conditions, source, note) -> Step:
    """An erratum shown by a point: every condition holds there, the printed statement does not.

    ``printed`` and ``conditions`` are SymPy relations; ``point`` substitutes their symbols.
    """
    conditions_hold = all(bool(sp.simplify(c.subs(point))) for c in conditions)
    printed_holds = bool(sp.simplify(printed.subs(point)))
    ok = conditions_hold and not printed_holds
    return Step(model, name, printed, source, ERRATUM if ok else FAILED, note, printed)
