"""Strip from a notebook's saved widget state the widget models that no output shows.

A notebook executed with ipywidgets saves, in ``metadata.widgets["application/vnd.jupyter.widget-state+json"]``,
every widget model the kernel held when it was saved: the sliders, buttons and layouts of each explorer,
but also those of explorers replaced while the notebook ran (100-127 per notebook of the course), which
JupyterLab tries to restore and complains about in the browser's console.  The models worth keeping
are those an output displays (``application/vnd.jupyter.widget-view+json``'s ``model_id``) and every
model those refer to (``"IPY_MODEL_<id>"`` in their state: children, layouts, styles), transitively.

Run it on notebooks (in place)::

    python -m svmteach.widgets.saved_state notebooks/04_smo.ipynb [more.ipynb ...]

It prints, per notebook, how many models it kept and how many it removed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

STATE_KEY = "application/vnd.jupyter.widget-state+json"
VIEW_KEY = "application/vnd.jupyter.widget-view+json"
_REFERENCE = re.compile(r"IPY_MODEL_([0-9a-fA-F]+)")


def shown_models(nb: dict) -> set:
    """The ids of the widget models that the notebook's outputs display."""
    shown = set()
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(VIEW_KEY)
            if view and "model_id" in view:
                shown.add(view["model_id"])
    return shown


def models_in_use(nb: dict) -> set:
    """The displayed models and every model they refer to, transitively (children, layouts, styles, ...)."""
    models = nb.get("metadata", {}).get("widgets", {}).get(STATE_KEY, {}).get("state", {})
    keep, todo = set(), list(shown_models(nb))
    while todo:
        model = todo.pop()
        if model in keep:
            continue
        keep.add(model)
        if model in models:
            todo.extend(_REFERENCE.findall(json.dumps(models[model])))
        if not todo:  # a link (jslink, jsdlink) is referred to by nothing: kept when both its ends are
            todo.extend(m for m, value in models.items() if m not in keep and _is_link(value)
                        and set(_REFERENCE.findall(json.dumps(value))) <= keep)
    return keep


def _is_link(value) -> bool:
    return str(value.get("model_name", "")).endswith("LinkModel")


def strip_unused_widget_state(nb: dict) -> tuple[int, int]:
    """Remove, in place, the saved widget models of ``nb`` (a notebook as a dict) that no output uses
    (:func:`models_in_use`); returns ``(kept, removed)``.  A notebook without saved widget state is left as it is."""
    saved = nb.get("metadata", {}).get("widgets", {}).get(STATE_KEY)
    if not saved or "state" not in saved:
        return 0, 0
    used = models_in_use(nb)
    before = saved["state"]
    saved["state"] = {model: value for model, value in before.items() if model in used}
    return len(saved["state"]), len(before) - len(saved["state"])


def strip_file(path) -> tuple[int, int]:
    """:func:`strip_unused_widget_state` on the notebook file ``path``, written back in nbformat's layout
    (indent 1, a final newline, non-ASCII kept); the file is not touched when nothing is removed."""
    path = Path(path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    kept, removed = strip_unused_widget_state(nb)
    if removed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return kept, removed


def main(argv=None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    for path in paths:
        kept, removed = strip_file(path)
        print(f"{path}: kept {kept} widget models, removed {removed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
