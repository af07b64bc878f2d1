"""The figure size an explorer takes when its cell names none: ``"notebook"``, or ``"classroom"`` after
:func:`classroom` (``svmteach.classroom()``).

A teacher who projects the course runs ``svmteach.classroom()`` once, in the first cell, and every explorer
made after it is drawn at the classroom size (840 px wide, fonts to read from the back of a room:
:data:`svmteach.widgets.figure.SIZES`), without editing each live cell's ``size=``; ``svmteach.classroom(False)``
goes back.  An explorer given ``size=`` keeps it; an explorer made before the call keeps its size.
"""

from __future__ import annotations

#: The two sizes the switch chooses between.
NOTEBOOK, CLASSROOM = "notebook", "classroom"

_default = NOTEBOOK


def classroom(on: bool = True) -> str:
    """Make the classroom size (``on=True``) or the notebook size (``on=False``) the default of the explorers
    created from now on; returns that size's name."""
    global _default
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {type(on).__name__} {on!r}")
    _default = CLASSROOM if on else NOTEBOOK
    return _default


def default_size() -> str:
    """The size an explorer made now takes when it is given none (``size=None``)."""
    return _default
