"""How a notebook shows a step's check: one collapsed line that opens on the instance and the formula.

:class:`Check` wraps one :class:`~svmteach.derivations.core.Step`; its text (``repr``/``str``)
is the one-line summary and its HTML a ``<details>`` element whose ``<summary>`` is the
same line.  :class:`CheckTable` does the same for all the steps of a model.
"""

from __future__ import annotations

from html import escape

from .core import FAILED, Step

_STYLE = "margin: 0.2em 0; font-size: 0.95em"


def _math(latex: str) -> str:
    """Display LaTeX for MathJax inside HTML (escaped so that < and & survive)."""
    return f"<div>$${escape(latex, quote=False)}$$</div>" if latex else ""


def _text(label: str, markdown: str) -> str:
    return f"<div><b>{label}</b> {escape(markdown, quote=False)}</div>" if markdown else ""


class Check:
    """The check of one step: ``repr`` is its one-line summary, the HTML opens on the details."""

    def __init__(self, step: Step):
        self.step = step

    @property
    def ok(self) -> bool:
        """True unless the check failed (an erratum or a caveat is a check that succeeded)."""
        return self.step.status != FAILED

    def __repr__(self) -> str:
        return self.step.summary

    __str__ = __repr__

    def details_html(self) -> str:
        s = self.step
        body = [_math(s.formula)]
        if s.printed_formula:
            body.append(f"<div><b>The source prints</b> ({escape(s.source)}):</div>{_math(s.printed_formula)}")
        body += [_text("Why:", s.note), _text("Instance:", s.instance), _text("Checked:", s.check)]
        if s.shown:
            body.append(f"<div><b>On the instance:</b></div>{_math(s.shown)}")
        if not s.printed_formula:
            body.append(_text("Source:", s.source))
        return "".join(part for part in body if part)

    def _repr_html_(self) -> str:
        return (f'<details style="{_STYLE}"><summary>{escape(self.step.summary)}</summary>'
                f'<div style="margin-left: 1.5em">{self.details_html()}</div></details>')


class CheckTable:
    """The one-line checks of every step of a model, as a compact table."""

    def __init__(self, model: str, steps: list[Step]):
        self.model = model
        self.checks = [Check(s) for s in steps]

    def __len__(self) -> int:
        return len(self.checks)

    def __iter__(self):
        return iter(self.checks)

    def __repr__(self) -> str:
        width = max(len(c.step.name) for c in self.checks)
        return "\n".join(f"{c.step.name:{width}}  {c}" for c in self.checks)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        rows = "".join(f'<tr><td style="text-align: left; vertical-align: top">{escape(c.step.name)}</td>'
                       f'<td style="text-align: left">{c._repr_html_()}</td></tr>' for c in self.checks)
        return (f'<table><thead><tr><th style="text-align: left">{escape(self.model)}: step</th>'
                f'<th style="text-align: left">check</th></tr></thead><tbody>{rows}</tbody></table>')
