"""SymPy derivations of every Lagrangian, dual, gradient and update the course uses.

One module per model (:mod:`binary`, :mod:`smo`, :mod:`dual_cd`, :mod:`weston_watkins`,
:mod:`crammer_singer`, :mod:`rls`); each ``steps()`` returns a list of :class:`Step`:
a name, the SymPy expression, its LaTeX, the passage of the course material it
follows, and a status:

- ``"verified"``: SymPy confirmed the identity (the difference simplifies to 0, or a
  solve / substitution gives the claimed result), or a numeric cross-check against the
  function a solver calls agreed;
- ``"erratum"``: the course material prints something else, and SymPy confirmed that
  the printed form really differs from the derived one (the note says where and why);
- ``"failed"``: a check did not hold.

``python -m svmteach.derivations`` prints them all (``--json`` for machines) and exits
non-zero if any failed.  A notebook shows one model's steps with :func:`show`.
"""

from __future__ import annotations

from . import binary, crammer_singer, dual_cd, rls, smo, weston_watkins
from .core import ERRATUM, FAILED, VERIFIED, Step

MODELS = {
    "binary": binary,
    "smo": smo,
    "dual_cd": dual_cd,
    "weston_watkins": weston_watkins,
    "crammer_singer": crammer_singer,
    "rls": rls,
}


def all_steps(models=None) -> list[Step]:
    """Every step of the given models (all by default), derived and checked now."""
    names = list(MODELS) if models is None else list(models)
    for name in names:
        if name not in MODELS:
            raise ValueError(f"models must be among {tuple(MODELS)}, got {name!r}")
    return [step for name in names for step in MODELS[name].steps()]


def errata(models=None) -> list[Step]:
    """The places where the course material differs from the derivation."""
    return [s for s in all_steps(models) if s.status == ERRATUM]


def show(model: str):
    """Display a model's steps one by one in a notebook (Markdown + LaTeX)."""
    from IPython.display import Markdown, display

    for step in all_steps([model]):
        badge = {VERIFIED: "verified", ERRATUM: "**erratum**", FAILED: "**FAILED**"}[step.status]
        display(Markdown(f"**{step.name}** ({badge}; {step.source})\n\n$${step.latex}$$\n\n{step.note}"))


__all__ = ["Step", "MODELS", "all_steps", "errata", "show", "VERIFIED", "ERRATUM", "FAILED"]
