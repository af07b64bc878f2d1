"""Tick labels for an axis that carries log10 values on a linear scale (the explorers' objective and
relative-gap axes): each tick reads as the value it stands for, and no two ticks read the same.

A whole power reads "1e-3".  Between powers the label is the value itself with as few significant
digits as keep the labels of the axis apart (at least 3): over less than a decade (a relative gap
going from 0.9982 to 1) three digits gave "0.999" twice, so the formatter adds digits until the
labels differ (up to :data:`MAX_DIGITS`).
"""

from __future__ import annotations

from matplotlib.ticker import Formatter

#: The fewest and the most significant digits a label between two powers of ten gets.
MIN_DIGITS, MAX_DIGITS = 3, 8


def power_label(v, digits=MIN_DIGITS):
    """The label of the log10 value ``v``: "1e2" at a whole power, else ``10**v`` to ``digits`` significant digits."""
    if abs(v - round(v)) < 1e-9:
        return f"1e{int(round(v))}"
    return f"{10.0 ** v:.{digits}g}"


def fewest_digits(values, min_digits=MIN_DIGITS, max_digits=MAX_DIGITS):
    """The fewest significant digits, from ``min_digits``, that give the log10 ``values`` different labels
    (:func:`power_label`); ``max_digits`` if none does (ticks closer than that are not told apart)."""
    values = list(values)
    for digits in range(min_digits, max_digits):
        if len({power_label(v, digits) for v in values}) == len(values):
            return digits
    return max_digits


class PowerFormatter(Formatter):
    """Matplotlib formatter for an axis of log10 values: :func:`power_label` with the :func:`fewest_digits` of the
    ticks in view.

    Matplotlib hands the ticks to :meth:`set_locs` before it labels them, so the number of digits is chosen
    for the axis as a whole; a single call (the cursor readout) uses the digits of the last ticks."""

    def __init__(self):
        self.digits = MIN_DIGITS

    def set_locs(self, locs):
        super().set_locs(locs)
        shown = list(locs)
        if self.axis is not None:  # the locator also returns ticks just outside the view: they are not drawn
            lo, hi = sorted(self.axis.get_view_interval())
            shown = [v for v in locs if lo - 1e-12 <= v <= hi + 1e-12] or shown
        self.digits = fewest_digits(shown)

    def __call__(self, x, pos=None):
        return power_label(x, self.digits)


def log10_axis(axis, nbins=4):
    """Tick ``axis`` (``ax.yaxis``) of log10 values: at most ``nbins`` ticks, whole powers where the view holds
    two or more, each labelled by a :class:`PowerFormatter` of its own (a formatter belongs to one axis)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins, integer=True))
    axis.set_major_formatter(PowerFormatter())
    return axis
