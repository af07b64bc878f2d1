"""Matplotlib drawing of the solvers' states (no widgets here: svmteach.widgets builds on these)."""

from .binary import draw_binary, draw_curves

__all__ = ["draw_binary", "draw_curves"]
