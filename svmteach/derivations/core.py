"""The building blocks of a derivation: a checked :class:`Step` and the functions that make one.

A step states one formula of the course in general form (``formula``, LaTeX written by
hand) and records how the computer checked it on a small instance: which instance
(``instance``), what was compared (``check``), and the outcome (``status`` and a one-line
``summary``).  The SymPy object the check produced on the instance is kept in ``expr``.

Statuses
--------
``"verified"``    SymPy (or a numeric comparison with the code that runs) confirmed the step;
``"erratum"``     a source prints something else, and SymPy confirmed the printed form is wrong;
``"caveat"``      the source's statement holds only under a condition it does not state;
``"definition"``  the step defines something (a Lagrangian): there is nothing to check;
``"failed"``      a check did not hold (``python -m svmteach.derivations`` then exits non-zero).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np
import sympy as sp

VERIFIED, ERRATUM, CAVEAT, DEFINITION, FAILED = "verified", "erratum", "caveat", "definition", "failed"
STATUSES = (VERIFIED, ERRATUM, CAVEAT, DEFINITION, FAILED)
SYMBOLIC, NUMERIC = "sympy", "numeric"

#: The course's source documents and papers, by the short name a step's ``source`` starts with.
SOURCES = {
    "Lee, Lin and Wahba (2004)": "Y. Lee, Y. Lin, G. Wahba, \u201cMulticategory support vector machines: theory and "
                                 "application to the classification of microarray data and satellite radiance data\u201d, "
                                 "Journal of the American Statistical Association 99(465), 67-81, 2004",
    "Dogan, Glasmachers and Igel (2016)": "\u00dc. Do\u011fan, T. Glasmachers, C. Igel, \u201cA unified view on "
                                          "multi-class support vector classification\u201d, Journal of Machine "
                                          "Learning Research 17(45), 1-32, 2016",
    "Weston-Watkins dual blog post": "\u201cThe Weston-Watkins SVM dual problem\u201d, blog post, 6 November 2020",
    "CISC 371 notes": "CISC 371 (Queen's University), Class 30, \u201cSupport Vector Machine \u2013 Dual "
                      "Formulation\u201d, lecture notes",
    "Multiclass dual solvers slides": "\u201cOptimizing SVM Multiclass Dual Solvers: Using GPU to power fast SVM "
                                      "solvers\u201d, slides",
    "MIT 9.520 lecture": "L. Rosasco, \u201cRegularized Least Squares and Support Vector Machines\u201d, MIT 9.520, "
                         "Class 06, 27 February 2012",
    "ECE 532 notes": "ECE 532 (University of Wisconsin-Madison), Lecture 24, \u201cDuality\u201d, lecture notes",
    "Platt (1998)": "J. Platt, Sequential minimal optimization: a fast algorithm for training support vector "
                    "machines, Microsoft Research MSR-TR-98-14, 1998",
    "Blondel, Fujino and Ueda (2014)": "M. Blondel, A. Fujino, N. Ueda, Large-scale multiclass support vector "
                                       "machine training via Euclidean projection onto the simplex, ICPR 2014",
    "Wang and Scott (2021)": "Y. Wang, C. Scott, An exact solver for the Weston-Watkins SVM subproblem, ICML 2021",
    "Rifkin and Lippert (2007)": "R. Rifkin, R. Lippert, Notes on regularized least squares, MIT-CSAIL-TR-2007-025",
}

#: Longest LaTeX of an instance expression that a display shows (longer ones stay in ``expr``).
SHOWN_MAX = 400


@dataclass
class Step:
    """One step of a derivation, as a notebook shows it and the command line reports it.

    Attributes
    ----------
    model, name : str
        The model (as the command line lists it) and the step's name within it.
    formula : str
        What the step states, in general form (LaTeX, no ``$``): the quantity and what it equals.
    source : str
        The document and passage it follows, e.g. "CISC 371 notes, eq. 30.13", or for a
        cross-check with the code, the function checked, e.g. "svmteach.objectives.dual".
    status : str
        One of :data:`STATUSES`.
    note : str
        Why the step holds, or what the source prints and why it is wrong (Markdown, math in ``$``).
    check : str
        What the computer compared and what came out (Markdown, math in ``$``).
    on : str
        The instance in a few plain words ("on a 3-point instance"), for the one-line summary.
    verdict : str
        The outcome in a few plain words ("holds", "max relative difference 2e-16 ...").
    instance : str
        The instance in full (Markdown, math in ``$``).
    expr : SymPy object or None
        What the check produced on the instance.
    shown : str
        A short LaTeX line showing the check's result on the instance ("" when too long).
    printed_formula : str
        For errata and caveats: what the source prints (LaTeX, general form).
    printed : SymPy object or None
        For errata: the printed form on the instance.
    kind : str
        ``"sympy"`` for a symbolic check, ``"numeric"`` for a comparison with the code.
    """

    model: str
    name: str
    formula: str
    source: str
    status: str
    note: str = ""
    check: str = ""
    on: str = ""
    verdict: str = ""
    instance: str = ""
    expr: object = field(default=None, repr=False)
    shown: str = ""
    printed_formula: str = ""
    printed: object = field(default=None, repr=False)
    kind: str = SYMBOLIC

    @property
    def latex(self) -> str:
        """The step's formula (LaTeX, general form)."""
        return self.formula

    @property
    def summary(self) -> str:
        """The check in one plain-text line, e.g. "✔ checked by SymPy on a 3-point instance: holds"."""
        if self.status == DEFINITION:
            return "\u2254 definition: nothing to check"
        if self.status == FAILED:
            return f"\u2718 FAILED {self.on}: {self.verdict}"
        if self.kind == NUMERIC and self.status == ERRATUM:
            return f"\u270e erratum confirmed {self.on}: {self.verdict}"
        if self.kind == NUMERIC:
            return f"\u2714 checked against {self.source}: {self.verdict}"
        if self.status == ERRATUM:
            return f"\u270e erratum confirmed by SymPy {self.on}: {self.verdict}"
        if self.status == CAVEAT:
            return f"\u26a0 caveat, checked by SymPy {self.on}: {self.verdict}"
        return f"\u2714 checked by SymPy {self.on}: {self.verdict}"

    def as_dict(self) -> dict:
        d = {"model": self.model, "step": self.name, "status": self.status, "source": self.source,
             "summary": self.summary, "formula": self.formula, "note": self.note, "check": self.check,
             "instance": self.instance, "shown": self.shown}
        if self.printed_formula:
            d["printed_formula"] = self.printed_formula
        return d


def shown_line(*parts) -> str:
    """Join LaTeX pieces (strings or SymPy objects) into one line, or "" if it is too long to show."""
    text = " ".join(p if isinstance(p, str) else sp.latex(p) for p in parts)
    return text if len(text) <= SHOWN_MAX else ""


def is_zero(expr, cases=()) -> bool:
    """True when ``expr`` simplifies to 0 (for every substitution in ``cases``, if given)."""
    for sub in (cases or [{}]):
        e = sp.sympify(expr).subs(sub)
        if isinstance(e, sp.MatrixBase):
            if not all(sp.simplify(sp.expand(v)) == 0 for v in e):
                return False
        elif sp.simplify(sp.expand(e)) != 0:
            return False
    return True


def _difference(lhs, rhs):
    if isinstance(lhs, (sp.MatrixBase, list)) or isinstance(rhs, (sp.MatrixBase, list)):
        return sp.Matrix(lhs) - sp.Matrix(rhs)
    return lhs - rhs


def cases_phrase(cases) -> str:
    return f" for each of the {len(cases)} sign patterns of the labels" if cases else ""


def identity(model, name, formula, lhs, rhs, source, *, note, on, instance, quantity, cases=(),
             how="") -> Step:
    """A step whose check is that ``lhs - rhs`` simplifies to 0 on the instance (for every case).

    ``lhs`` is what SymPy computed (a derivative, a substitution, a solve); ``rhs`` is the
    step's claimed form of it.  ``quantity`` (LaTeX) names ``lhs`` in the displayed line
    ``quantity = rhs``; ``how`` says how ``lhs`` was computed.
    """
    ok = is_zero(_difference(lhs, rhs), cases)
    check = (f"{how + '; ' if how else ''}SymPy simplified the difference between the computed value and "
             f"the claimed form to $0${cases_phrase(cases)}")
    if not ok:
        check = f"{how + '; ' if how else ''}the difference does not simplify to $0${cases_phrase(cases)}"
    expr = sp.Matrix(rhs) if isinstance(rhs, list) else rhs
    shown = shown_line(quantity, "=", expr)
    return Step(model, name, formula, source, VERIFIED if ok else FAILED, note, check, on,
                "holds" if ok else "the two sides differ", instance, expr, shown)


def computed(model, name, formula, source, ok: bool, *, note, on, instance, check, verdict="holds",
             expr=None, shown="", status=VERIFIED, printed_formula="", printed=None) -> Step:
    """A step whose check is a Boolean computed by SymPy (a solve, a set, a substitution)."""
    return Step(model, name, formula, source, status if ok else FAILED, note, check, on,
                verdict if ok else "the check did not hold", instance, expr, shown,
                printed_formula, printed)


def definition(model, name, formula, source, note) -> Step:
    """A step that defines something (a Lagrangian): nothing is checked, and it is not counted as verified."""
    return Step(model, name, formula, source, DEFINITION, note, "nothing to check: the step defines the symbol",
                "", "", "")


def erratum(model, name, formula, printed_formula, printed, derived, source, *, note, on, instance, cases=(),
            also=(), verdict="the printed formula differs from the derived one") -> Step:
    """Where a source prints ``printed`` but the derivation gives ``derived``.

    It is an erratum only if SymPy confirms that the two really differ (for at least one
    of ``cases``) and every extra condition in ``also`` (pairs ``(text, bool)``) holds;
    otherwise the claim of an error is itself wrong and the step fails.
    """
    diff = _difference(printed, derived)
    differs = not is_zero(diff, cases)
    extra = all(bool(ok) for _, ok in also)
    shown = ""
    for sub in (cases or [{}]):  # the difference where it is not 0, if it is short enough to show
        value = sp.sympify(diff).subs(sub)
        value = value.applyfunc(sp.factor) if isinstance(value, sp.MatrixBase) else sp.factor(value)
        if value != 0 and not (isinstance(value, sp.MatrixBase) and value.is_zero_matrix):
            shown = shown_line(r"\text{printed} - \text{derived} =", value)
            break
    where = (" for at least one sign pattern of the labels" if cases and len(cases) > 1 else "")
    check = f"SymPy: the printed form minus the derived one is not $0${where}"
    if also:
        check += "; " + "; ".join(text for text, _ in also)
    if not differs:
        check = "SymPy: the printed form equals the derived one, so the claimed erratum is wrong"
    return Step(model, name, formula, source, ERRATUM if differs and extra else FAILED, note, check, on,
                verdict if differs and extra else "the claimed error was not confirmed", instance, derived,
                shown, printed_formula, printed)


def counterexample(model, name, formula, printed_formula, printed, point, conditions, source, *, note, on,
                   instance, point_latex) -> Step:
    """An erratum shown by a point: every condition holds there, the printed statement does not.

    ``printed`` and ``conditions`` are SymPy relations; ``point`` substitutes their symbols.
    """
    conditions_hold = all(bool(sp.simplify(c.subs(point))) for c in conditions)
    printed_holds = bool(sp.simplify(printed.subs(point)))
    ok = conditions_hold and not printed_holds
    check = (f"at the point {point_latex} SymPy finds every condition true "
             f"({'yes' if conditions_hold else 'no'}) and the printed statement false "
             f"({'yes' if not printed_holds else 'no'})")
    shown = shown_line(r",\ ".join(f"{sp.latex(k)} = {sp.latex(v)}" for k, v in point.items()),
                       r"\quad \text{satisfies every condition, and}\quad", printed, r"\ \text{is false there}")
    return Step(model, name, formula, source, ERRATUM if ok else FAILED, note, check, on,
                "a point satisfies every condition but not the printed statement" if ok
                else "the counterexample does not hold", instance, printed, shown, printed_formula, printed)


def relative_difference(ours, derived) -> float:
    """``max|ours - derived| / max|derived|`` (0 when both are 0; inf when the shapes differ)."""
    ours, derived = np.asarray(ours, dtype=float), np.asarray(derived, dtype=float)
    if ours.shape != derived.shape:
        return np.inf
    scale = max(float(np.max(np.abs(derived), initial=0.0)), float(np.max(np.abs(ours), initial=0.0)))
    err = float(np.max(np.abs(ours - derived), initial=0.0))
    return 0.0 if err == 0.0 else (err / scale if scale > 0 else np.inf)


def numeric(model, name, formula, source, pairs, *, note, what, rtol=1e-9) -> Step:
    """The code's own values against the derivation's, over several random instances.

    ``pairs`` is a list of ``(ours, derived)`` arrays, one per instance; the step is verified
    when the largest relative difference is at most ``rtol``.
    """
    worst = max(relative_difference(a, b) for a, b in pairs)
    ok = worst <= rtol
    amount = "0" if worst == 0 else f"{worst:.0e}"
    verdict = f"max relative difference {amount} over {len(pairs)} random instances"
    check = (f"{what}: the value the code computes against the value of the derived formula, "
             f"largest relative difference {amount} over {len(pairs)} random instances (tolerance {rtol:.0e})")
    return Step(model, name, formula, source, VERIFIED if ok else FAILED, note, check, "", verdict,
                f"{len(pairs)} random instances from a fixed random generator", None, "", kind=NUMERIC)


def real_symbols(names, **kw):
    return sp.symbols(names, real=True, **kw)


def sign_cases(ys):
    """Every assignment of +1 / -1 to the label symbols ``ys``."""
    return [dict(zip(ys, signs)) for signs in product([1, -1], repeat=len(ys))]
