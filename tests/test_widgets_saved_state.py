"""Stripping the saved widget models that no output shows (svmteach.widgets.saved_state), on copies."""

import json
import shutil
from pathlib import Path

from svmteach.widgets.saved_state import STATE_KEY, main, models_in_use, strip_file, strip_unused_widget_state

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"


def _model(name, refs=()):
    return {"model_name": name, "state": {"children": [f"IPY_MODEL_{r}" for r in refs], "layout": None}}


def _notebook(shown, models):
    def view(m):
        return {"application/vnd.jupyter.widget-view+json": {"model_id": m, "version_major": 2}, "text/plain": "x"}

    cells = [{"cell_type": "code", "source": "", "outputs": [{"output_type": "display_data", "data": view(m)}]}
             for m in shown]
    return {"cells": cells, "metadata": {"widgets": {STATE_KEY: {"state": models, "version_major": 2}}}}


def test_keeps_what_is_shown_and_what_it_refers_to_transitively():
    models = {"aa": _model("VBoxModel", ["bb", "cc"]), "bb": _model("HBoxModel", ["dd"]), "cc": _model("LayoutModel"),
              "dd": _model("ButtonModel"), "ee": _model("VBoxModel", ["ff"]), "ff": _model("ButtonModel"),
              "11": {"model_name": "LinkModel", "state": {"source": ["IPY_MODEL_dd", "value"],
                                                          "target": ["IPY_MODEL_cc", "value"]}},
              "22": {"model_name": "LinkModel", "state": {"source": ["IPY_MODEL_ff", "value"],
                                                          "target": ["IPY_MODEL_dd", "value"]}}}
    nb = _notebook(["aa"], models)
    assert models_in_use(nb) == {"aa", "bb", "cc", "dd", "11"}
    assert strip_unused_widget_state(nb) == (5, 3)  # ee, ff (a replaced explorer) and the link to ff go
    assert set(nb["metadata"]["widgets"][STATE_KEY]["state"]) == {"aa", "bb", "cc", "dd", "11"}
    assert strip_unused_widget_state({"cells": [], "metadata": {}}) == (0, 0)  # no saved state: nothing to do


def test_on_a_copy_of_a_course_notebook(tmp_path, capsys):
    path = tmp_path / "04_smo.ipynb"
    shutil.copy(NOTEBOOKS / "04_smo.ipynb", path)
    before = json.loads(path.read_text())
    if not before.get("metadata", {}).get("widgets"):
        return  # executed without saved widget state: nothing to strip
    assert main([str(path)]) == 0
    after = json.loads(path.read_text())
    saved = after["metadata"]["widgets"][STATE_KEY]["state"]
    kept, removed = (int(w) for w in capsys.readouterr().out.split("kept ")[1].split(" widget models, removed "))
    assert len(saved) == kept and kept + removed == len(before["metadata"]["widgets"][STATE_KEY]["state"])
    # everything an output shows, and everything those refer to, is still there
    for model in models_in_use(after):
        assert model in saved
    assert after["cells"] == before["cells"]  # only the metadata changed
    assert strip_file(path) == (kept, 0)  # a second run removes nothing
