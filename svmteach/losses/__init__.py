"""The multiclass losses, one module each, and the registry that names them.

A loss object owns its primal, dual, gradient, box, KKT measure, its block problem solved exactly
and its interior-point programme (``embedding``); see :class:`~svmteach.losses.base.MulticlassLoss`
for the contract.  Solvers, objectives, estimators and explorers ask ``problem.loss_object``; the
loss's name is compared here only.  Adding a loss is one module (its mathematics and its compiled row kernels,
:mod:`~svmteach.losses.row_kernels`) and one entry in :data:`PACKAGE_LOSSES` (or :func:`register_loss` at run
time, from outside the package).

========  ================================  ==============================================
name      class                             primal loss of sample i
========  ================================  ==============================================
``"ww"``  :class:`WestonWatkins`            :math:`\\sum_{j \\ne y_i} \\max(0, 1 - M (w_{y_i} - w_j)^\\top x_i)`
``"cs"``  :class:`CrammerSinger`            :math:`\\max(0, 1 + \\max_{m \\ne y_i} w_m^\\top x_i - w_{y_i}^\\top x_i)`
``"llw"`` :class:`LeeLinWahba`              :math:`\\sum_{m \\ne y_i} \\max(0, 1 + w_m^\\top x_i)`, with :math:`\\sum_m w_m = 0`
``"mmr"`` :class:`MaximumMarginRegression`  :math:`\\max(0, 1 - w_{y_i}^\\top x_i)`, with :math:`\\sum_m w_m = 0`
========  ================================  ==============================================
"""

from .base import MulticlassLoss
from .row_kernels import check_kernels
from .crammer_singer import CrammerSinger
from .lee_lin_wahba import LeeLinWahba
from .maximum_margin_regression import MaximumMarginRegression
from .weston_watkins import WestonWatkins

#: Every multiclass loss by its name (the estimators' and problems' ``loss=`` value).
LOSSES = {}


def register_loss(loss):
    """Add the loss object ``loss`` to :data:`LOSSES` under its ``name`` and return it: from then on every
    consumer (problems, estimators, solvers, explorers) takes ``loss=name``.  A TypeError naming ``loss``
    for anything but a :class:`MulticlassLoss`, a ValueError for a name that is empty or taken."""
    if not isinstance(loss, MulticlassLoss):
        raise TypeError(f"loss must be a MulticlassLoss instance, got {type(loss).__name__} {loss!r}")
    if not isinstance(loss.name, str) or not loss.name or loss.name in LOSSES:
        raise ValueError(f"loss: its name must be a new non-empty string, got {loss.name!r} (taken: {tuple(LOSSES)})")
    check_kernels(loss)
    LOSSES[loss.name] = loss
    return loss


#: The package's own losses, registered below; the compiled drivers are built (and cached on disk) for their row
#: kernels (:mod:`svmteach.solvers.numba_multiclass`).  A loss added with :func:`register_loss` gets its own.
PACKAGE_LOSSES = (WestonWatkins(), CrammerSinger(), LeeLinWahba(), MaximumMarginRegression())

for _loss in PACKAGE_LOSSES:
    register_loss(_loss)


def get_loss(name):
    """The loss object called ``name`` (a key of :data:`LOSSES`); a ValueError naming ``loss`` otherwise."""
    if isinstance(name, MulticlassLoss):
        return name
    if not isinstance(name, str) or name not in LOSSES:
        raise ValueError(f"loss must be one of {tuple(LOSSES)}, got {name!r}")
    return LOSSES[name]


__all__ = ["LOSSES", "PACKAGE_LOSSES", "get_loss", "register_loss", "MulticlassLoss", "WestonWatkins", "CrammerSinger", "LeeLinWahba",
           "MaximumMarginRegression"]
