"""SymPy derivations of every Lagrangian, dual, gradient and update the course uses, each checked.

One module per model; each ``steps()`` returns a list of :class:`Step`: the formula in general
form, the source passage it follows, why it holds, and how the computer checked it on a small
instance (symbolically with SymPy, or numerically against the library function that a solver
calls).  A step's status is one of

- ``"verified"``: the check held (an identity simplified to 0, a solve or a set came out as
  claimed, or the library's value agreed with the derived one on random instances);
- ``"erratum"``: a source prints something else, and SymPy confirmed the printed form is wrong;
- ``"caveat"``: the source's statement needs a condition it does not state;
- ``"definition"``: the step defines a symbol (a Lagrangian): nothing to check;
- ``"failed"``: a check did not hold.

Models, by the name the command line shows and the short keys that also work:

=============================  =========================================
name                           keys
=============================  =========================================
``binary soft margin``         ``"binary"``
``SMO``                        ``"smo"``
``dual coordinate ascent``     ``"dual_cd"``
``primal subgradient``         ``"primal_subgradient"``
``Weston-Watkins``             ``"ww"``, ``"weston_watkins"``
``Crammer-Singer``             ``"cs"``, ``"crammer_singer"``
``Lee-Lin-Wahba``              ``"llw"``, ``"lee_lin_wahba"``
``maximum-margin regression``  ``"mmr"``, ``"maximum_margin_regression"``
``regularized least squares``  ``"rls"``
``kernel multiclass``          ``"kernel_multiclass"``
``course material``            ``"course_material"``
=============================  =========================================

The last, ``course material``, holds the errata of the sources that no model's derivation meets on its way
(a squared loss, a Matlab line, a lost bound, a constant step, two numberings of the classes, ...), each checked
on a small instance where the printed statement fails.

In a notebook, ``check(model, step_name)`` shows one step's check as a single collapsed line
("✔ checked by SymPy on a 3-point instance: holds") that opens on the instance and the formula;
``check(model)`` lists every step's line.  ``python -m svmteach.derivations`` prints them all
(``--json`` for machines) and exits non-zero if any failed.
"""

from __future__ import annotations

from . import (binary, course_material, crammer_singer, dual_cd, kernel_multiclass, lee_lin_wahba,
               maximum_margin_regression, primal_subgradient, rls, smo, weston_watkins)
from .core import CAVEAT, DEFINITION, ERRATUM, FAILED, SOURCES, STATUSES, VERIFIED, Step
from .display import Check, CheckTable

MODELS = {
    "binary": binary,
    "smo": smo,
    "dual_cd": dual_cd,
    "primal_subgradient": primal_subgradient,
    "weston_watkins": weston_watkins,
    "crammer_singer": crammer_singer,
    "lee_lin_wahba": lee_lin_wahba,
    "maximum_margin_regression": maximum_margin_regression,
    "rls": rls,
    "kernel_multiclass": kernel_multiclass,
    "course_material": course_material,
}
ALIASES = {"ww": "weston_watkins", "cs": "crammer_singer", "llw": "lee_lin_wahba", "mmr": "maximum_margin_regression",
           **{module.MODEL: key for key, module in MODELS.items()}}
_CACHE: dict[str, list[Step]] = {}


def model_key(model: str) -> str:
    """The key of ``model`` in :data:`MODELS`, from a key, a short key or the displayed name."""
    if isinstance(model, str):
        if model in MODELS:
            return model
        if model in ALIASES:
            return ALIASES[model]
        folded = {name.lower(): key for name, key in {**ALIASES, **{k: k for k in MODELS}}.items()}
        if model.lower() in folded:
            return folded[model.lower()]
    valid = sorted(set(MODELS) | set(ALIASES), key=str.lower)
    raise ValueError(f"model must be one of {valid}, got {model!r}")


def steps(model: str) -> list[Step]:
    """The steps of one model, derived and checked once per session (then remembered).

    ``model`` is a displayed name ("binary soft margin", "Weston-Watkins", ...) or a short key
    ("binary", "smo", "dual_cd", "primal_subgradient", "ww", "cs", "llw", "mmr", "rls").
    """
    key = model_key(model)
    if key not in _CACHE:
        _CACHE[key] = MODELS[key].steps()
    return list(_CACHE[key])


def check(model: str, step_name: str | None = None):
    """One step's check as a collapsed line (a :class:`Check`), or every step's (a :class:`CheckTable`).

    Parameters
    ----------
    model : str
        A model's displayed name or short key (see :func:`steps`).
    step_name : str, optional
        The step's name as the command line lists it (case does not matter).  Omitted: all steps.

    Raises
    ------
    ValueError
        For an unknown model or step; the message lists the valid names.
    """
    found = steps(model)
    if step_name is None:
        return CheckTable(MODELS[model_key(model)].MODEL, found)
    for step in found:
        if step.name == step_name or step.name.lower() == str(step_name).lower():
            return Check(step)
    raise ValueError(f"step_name must be one of {[s.name for s in found]} for model {model!r}, got {step_name!r}")


def all_steps(models=None) -> list[Step]:
    """Every step of the given models (all by default), derived and checked afresh."""
    keys = list(MODELS) if models is None else [model_key(m) for m in models]
    return [step for key in keys for step in MODELS[key].steps()]


def errata(models=None) -> list[Step]:
    """The places where a source prints something the derivation shows wrong."""
    keys = list(MODELS) if models is None else [model_key(m) for m in models]
    return [s for key in keys for s in steps(key) if s.status == ERRATUM]


def show(model: str):
    """Display a model's steps in a notebook: name, formula, why, and the collapsed check line."""
    from IPython.display import HTML, Markdown, display

    for step in steps(model):
        display(Markdown(f"**{step.name}** ({step.source})\n\n$${step.formula}$$\n\n{step.note}"))
        display(HTML(Check(step)._repr_html_()))


__all__ = ["Step", "Check", "CheckTable", "MODELS", "SOURCES", "STATUSES", "steps", "check", "all_steps", "errata",
           "show", "model_key", "VERIFIED", "ERRATUM", "CAVEAT", "DEFINITION", "FAILED"]
