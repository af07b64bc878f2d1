"""``svmteach.classroom()``: one line that makes the classroom size the default of the explorers made after it."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import svmteach  # noqa: E402
from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer, MulticlassExplorer, RLSPathExplorer, SimplexProjectionExplorer  # noqa: E402
from svmteach.widgets.figure import FIGURE_DPI, SIZES  # noqa: E402


@pytest.fixture
def switch_back():
    yield
    svmteach.classroom(False)


def explorers(size=None):
    X, y = data.overlapping_blobs(20, seed=1)
    X3, y3 = data.multiclass_blobs(24, k=3, seed=2)
    extra = {} if size is None else {"size": size}
    return [BinaryExplorer(X, y, **extra), MulticlassExplorer(X3, y3, **extra), RLSPathExplorer(X, y, **extra),
            SimplexProjectionExplorer(**extra)]


def test_classroom_makes_every_explorer_made_after_it_classroom_sized(switch_back):
    before = explorers()
    assert svmteach.classroom() == "classroom"
    after = explorers()
    for old, new in zip(before, after):
        assert old.size.name == "notebook" and new.size.name == "classroom"  # the ones made before keep theirs
        # drawn at the classroom width, in pixels, with the classroom fonts
        assert round(new.fig.get_figwidth() * FIGURE_DPI) == SIZES["classroom"].width_px
        assert new.status.layout.width == f"{SIZES['classroom'].width_px}px"
        labels = [t for t in new.fig.findobj(matplotlib.text.Text) if t.get_text() and t.get_visible()]
        assert max(t.get_fontsize() for t in labels) >= SIZES["classroom"].font - 1
    assert all(ex.size.name == "wide" for ex in explorers("wide"))  # a size given is kept
    assert svmteach.classroom(False) == "notebook"
    assert all(ex.size.name == "notebook" for ex in explorers())


def test_classroom_takes_true_or_false_only(switch_back):
    with pytest.raises(TypeError, match="on must be True or False"):
        svmteach.classroom("yes")
    assert "classroom" in dir(svmteach) and callable(svmteach.classroom)
    assert np.all([ex.size.name == "notebook" for ex in explorers()])
