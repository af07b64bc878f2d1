"""Matplotlib drawing shared by the explorers (svmteach.widgets) and the notebooks' static figures.

No widgets here.  ``palette``: the one class palette (class m is colour m in every figure) and
the region painter; ``regions``: the grid, class regions of any classifier, score lines;
``binary``: half-planes, margins, KKT outlines and solver curves of a binary SVM;
``parabola`` and ``smo_box``: one step of dual coordinate ascent and of SMO; ``shark_path``, ``simplex`` and
``working_set``: one step of the multiclass solvers (a Weston-Watkins block, a Crammer-Singer projection, a working
set's sub-problem).
The explorers create these artists once and update them in place.
"""

from .binary import binary_legend, binary_legend_handles, decision_values, draw_binary, draw_curves, kkt_outlines
from .palette import class_colors, class_indices, draw_class_regions, region_colors
from .regions import cell_grid, class_legend, data_box, draw_decision_regions, draw_score_lines, scatter_classes

__all__ = [
    "binary_legend", "binary_legend_handles", "decision_values", "draw_binary", "draw_curves", "kkt_outlines",
    "class_colors", "class_indices", "draw_class_regions", "region_colors",
    "cell_grid", "class_legend", "data_box", "draw_decision_regions", "draw_score_lines", "scatter_classes",
]
