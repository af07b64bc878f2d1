"""The documentation's own code (docs/conf.py): what it does to docstrings before Sphinx reads them.
The site itself is built, warnings as errors, by .ci/run."""

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("docs_conf", Path(__file__).resolve().parent.parent / "docs" / "conf.py")
conf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conf)


def test_fitted_attribute_names_are_not_references():
    lines = ["coef_ : (1, d);  classes_", "see ``coef_`` and :attr:`coef_`, x_i, a__b"]
    conf._escape_fitted_names(None, "class", "x", None, {}, lines)
    assert lines == ["coef\\_ : (1, d);  classes\\_", "see ``coef_`` and :attr:`coef_`, x_i, a__b"]


def test_an_attributes_section_in_prose_is_one_paragraph():
    prose = ["Intro.", "", "Attributes", "----------", "a_ : int;  b_ : float;", "c_ : str,", "    more.", "",
             "Notes", "-----"]
    conf._prose_attributes(None, "class", "x", None, {}, prose)
    assert prose == ["Intro.", "", ".. rubric:: Attributes", "", "a_ : int;  b_ : float; c_ : str, more.", "",
                     "Notes", "-----"]
    numpydoc = ["Attributes", "----------", "state : the final state.", "n_iter : int, steps taken."]
    conf._prose_attributes(None, "class", "x", None, {}, numpydoc)
    assert numpydoc[0] == "Attributes"  # numpydoc entries are left to napoleon
