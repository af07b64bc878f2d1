"""The derivations check what they claim, show their checks by the display rules, and catch wrong formulas.

Display rules, tested over every step of every model: no displayed line reads "X = X"; no step
shows the bare word "numeric" or a bare True/False; every SymPy symbol has a name that renders
(no spaces or parentheses) and is named in the step's own mathematics; notes, checks and
instances are Markdown with the mathematics in $...$, not ASCII; sources name real documents.
"""

import json
import re

import numpy as np
import pytest
import sympy as sp
from oracles import binary_dual_optimum

from svmteach import derivations
from svmteach.derivations import CAVEAT, DEFINITION, ERRATUM, FAILED, SOURCES, STATUSES, VERIFIED
from svmteach.derivations import binary, dual_cd, smo
from svmteach.derivations import __main__ as derivations_cli
from svmteach.derivations.__main__ import main as derivations_main

#: the derivations are computed once per test process (derivations.steps' cache), and this group keeps every test
#: that reads them on one worker of a parallel run, which computes them once (with test_derivation*.py)
pytestmark = pytest.mark.xdist_group("derivations")

EXPECTED_ERRATA = {
    ("binary soft margin", "alpha_j = C <=> y_j f(x_j) < 1", "MIT 9.520 lecture"),
    ("binary soft margin", "alpha_j = 0 <=> y_j f(x_j) > 1", "MIT 9.520 lecture"),
    ("SMO", "alpha_j update of eq. 30.13", "CISC 371 notes"),
    ("SMO", "SMO is not steepest descent", "CISC 371 notes"),
    ("Weston-Watkins", "block subproblem, the W term", "Weston-Watkins dual blog post"),
    ("Weston-Watkins", "alpha_{i y_i}: the sum over [n]", "Weston-Watkins dual blog post"),
    ("Weston-Watkins", "block objective: the sum over [n]", "Weston-Watkins dual blog post"),
    ("Crammer-Singer", "hinge: max or min over the rivals", "Multiclass dual solvers slides"),
    ("Crammer-Singer", "the bounds C_i^m", "Multiclass dual solvers slides"),
    ("Crammer-Singer", "Algorithm 3, line 6", "Multiclass dual solvers slides"),
    ("Crammer-Singer", "Taylor expansion's quadratic term", "Multiclass dual solvers slides"),
    ("Crammer-Singer", "KKT conditions of the CS dual", "Multiclass dual solvers slides"),
    ("Crammer-Singer", "Check for violation: the bound C_i^m", "Multiclass dual solvers slides"),
    ("binary soft margin", "MIT 9.520's non-separable primal: xi >= 0 missing", "MIT 9.520 lecture"),
    ("binary soft margin", "the closest two points: of the hulls", "MIT 9.520 lecture"),
    # issue 46: the errata no model's derivation meets (svmteach/derivations/course_material.py)
    ("course material", "Tikhonov regularization: the loss is not squared", "MIT 9.520 lecture"),
    ("course material", "the Matlab line: K + I*I for K + lambda I", "MIT 9.520 lecture"),
    ("course material", "Towards the Dual: the box loses C", "MIT 9.520 lecture"),
    ("course material", "Interpreting the solution: alpha_j = C, then alpha_i", "MIT 9.520 lecture"),
    ("course material", "the non-separable case: the quantifier over w", "MIT 9.520 lecture"),
    ("course material", "eq. 30.13: no clip, alpha_j can turn negative", "CISC 371 notes"),
    ("course material", "Algorithm 1: a constant step does not converge", "Multiclass dual solvers slides"),
    ("course material", "the classes: 0..k-1 in the symbols, 1..k in the sums", "Multiclass dual solvers slides"),
    ("course material", "w_{y_i}: the sum reuses the index i", "Weston-Watkins dual blog post"),
}
EXPECTED_CAVEATS = {("binary soft margin", "dL/dc = 0 => c_i = alpha_i y_i", "MIT 9.520 lecture"),
                    # the ECE 532 notes define their own sense of "dual" and print lambda alpha'K alpha: conventions
                    ("regularized least squares", "the representer rewrite is not the dual", "ECE 532 notes"),
                    ("regularized least squares", "the penalty on alpha is not L2", "ECE 532 notes"),
                    ("course material", "RLS: (K + lambda I) c = Y needs K invertible", "MIT 9.520 lecture"),
                    ("course material", "b from any correctly classified support vector", "CISC 371 notes"),
                    ("course material", "dual RLS: alpha = (K + lambda I)^{-1} y is one solution", "ECE 532 notes")}
EXPECTED_DEFINITIONS = {("binary soft margin", "Lagrangian"), ("Weston-Watkins", "Lagrangian"),
                        ("Crammer-Singer", "Lagrangian"), ("Lee-Lin-Wahba", "Lagrangian"),
                        ("maximum-margin regression", "Lagrangian")}
SHORT_KEYS = ("binary", "smo", "dual_cd", "primal_subgradient", "ww", "cs", "llw", "mmr", "rls")


def cached_steps(models=None):
    """What ``derivations.all_steps(models)`` returns, from the per-process cache of ``derivations.steps``
    (each model is derived once per test process, here and in the other files that ask for it; the tests
    that patch a formula call ``all_steps`` to derive afresh)."""
    keys = list(derivations.MODELS) if models is None else models
    return [s for key in keys for s in derivations.steps(key)]


@pytest.fixture(scope="module")
def steps():
    return cached_steps()


def _key(s):
    return (s.model, s.name, s.source.split(",")[0])


# ---- what is checked ----------------------------------------------------------------------------

def test_nothing_fails_and_every_status_is_known(steps):
    assert [(s.model, s.name, s.check) for s in steps if s.status == FAILED] == []
    assert {s.status for s in steps} == {VERIFIED, ERRATUM, CAVEAT, DEFINITION}
    assert set(STATUSES) == {VERIFIED, ERRATUM, CAVEAT, DEFINITION, FAILED}


def test_the_errata_and_caveats_are_exactly_the_confirmed_ones(steps):
    assert {_key(s) for s in steps if s.status == ERRATUM} == EXPECTED_ERRATA
    assert {_key(s) for s in steps if s.status == CAVEAT} == EXPECTED_CAVEATS
    assert {(s.model, s.name) for s in steps if s.status == DEFINITION} == EXPECTED_DEFINITIONS
    for s in steps:
        if s.status in (ERRATUM, CAVEAT):  # what the source prints, and why it is wrong, are kept
            assert s.printed_formula and len(s.note) > 80, s.name


def test_a_verified_step_says_what_it_compared(steps):
    for s in steps:
        if s.status != VERIFIED:
            continue
        if s.kind == "numeric":
            assert re.fullmatch(r"max relative difference (0|\de-\d\d) over \d+ random instances", s.verdict), s.name
            assert s.source.startswith("svmteach.") and "random instances" in s.check
            assert int(s.verdict.split(" over ")[1].split()[0]) >= 5
        else:
            assert "SymPy" in s.check and s.instance and s.on, s.name
    numeric = [s for s in steps if s.kind == "numeric"]
    assert len(numeric) >= 13  # cross-checks against the library's own functions


def test_definitions_check_nothing_and_say_so(steps):
    for s in steps:
        if s.status == DEFINITION:
            assert s.summary.startswith("\u2254 definition") and "nothing to check" in s.summary


def test_the_hard_margin_is_reached_at_the_finite_C_the_step_reports():
    """Against an independent QP solver: the soft-margin solution equals the hard one from C* on."""
    step = next(s for s in derivations.steps("binary") if s.name == "hard margin at a finite C")
    assert step.status == VERIFIED and r"\left[\frac{1}{2}, \infty\right)" in step.shown
    X = np.array([[2.0, 0.0], [0.0, 0.0], [3.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    K = X @ X.T
    _, hard = binary_dual_optimum(K, y, 1e6, bias=True)
    np.testing.assert_allclose(hard, [0.5, 0.5, 0.0], atol=1e-5)
    for C in (0.5, 0.6, 10.0):
        np.testing.assert_allclose(binary_dual_optimum(K, y, C, bias=True)[1], hard, atol=1e-5)
    below = binary_dual_optimum(K, y, 0.4, bias=True)[1]
    assert np.linalg.norm(X.T @ (below * y) - X.T @ (hard * y)) > 0.1  # a different hyperplane below C*


# ---- display rules, over every step ---------------------------------------------------------------

SEPARATOR = r"\\Rightarrow|\\implies|\\iff|\\Leftrightarrow|\\qquad|\\quad"
RELATION = r"(?<![\\<>!])=|\\le(?![a-z])|\\ge(?![a-z])|\\leq|\\geq|\\in(?![a-z])|\\approx|<|>"


def _split_top_level(latex, pattern):
    """Split a LaTeX line where ``pattern`` matches outside braces."""
    pieces, depth, start = [], 0, 0
    for m in re.finditer(r"[{}]|" + pattern, latex):
        tok = m.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth == 0:
            pieces.append(latex[start:m.start()])
            start = m.end()
    pieces.append(latex[start:])
    return pieces


def _statements(latex):
    """The statements of a displayed line (split at arrows and quads), each split into its sides."""
    return [[re.sub(r"\\[,;:! ]|\s", "", side) for side in _split_top_level(statement, RELATION)]
            for statement in _split_top_level(latex, SEPARATOR)]


def _displayed(s):
    return [("formula", s.formula), ("shown", s.shown), ("printed", s.printed_formula)]


def test_rule_no_line_reads_x_equals_x(steps):
    bad = []
    for s in steps:
        for where, latex in _displayed(s):
            for sides in _statements(latex):
                bad += [(s.name, where, a) for a, b in zip(sides, sides[1:]) if a and a == b]
        if isinstance(s.expr, sp.Equality) and s.expr.lhs == s.expr.rhs:
            bad.append((s.name, "expr", str(s.expr)))
    assert bad == []


def test_the_x_equals_x_rule_itself_catches_an_identity():
    assert _statements(r"\frac{\partial L}{\partial b} = \frac{\partial L}{\partial b}") == [
        [r"\frac{\partialL}{\partialb}", r"\frac{\partialL}{\partialb}"]]
    assert _statements(r"\alpha_i \le C \;\Rightarrow\; y_i f(x_i) \ge 1, \quad a = b") == [
        [r"\alpha_i", "C"], ["y_if(x_i)", "1,"], ["a", "b"]]


def test_rule_no_bare_numeric_true_or_false(steps):
    for s in steps:
        for where, text in _displayed(s) + [("summary", s.summary), ("check", s.check)]:
            assert not re.search(r"(?<![\w-])(numeric|True|False)(?![\w-])", text), (s.name, where, text)
        assert not isinstance(s.expr, (sp.logic.boolalg.BooleanAtom, bool)), s.name
        assert s.expr != sp.Symbol("numeric")


def _symbols(s):
    found = set()
    for obj in (s.expr, s.printed):
        if isinstance(obj, sp.Basic):
            found |= obj.free_symbols
    return found


def test_rule_symbol_names_render(steps):
    for s in steps:
        for sym in _symbols(s):
            assert not re.search(r"[\s()]", sym.name), (s.name, sym.name)


def test_rule_no_symbol_the_review_found_undefined(steps):
    """F_2, V, z, a, s, v, h_2, h_3 were single letters no step defined; y_i f(x_i) was one symbol."""
    banned = re.compile(r"(F_?\d*|V|z|a\d?|s\d|v\d|h_\d|y_i f\(x_i\)|yf)")
    assert [(s.name, sym.name) for s in steps for sym in _symbols(s) if banned.fullmatch(sym.name)] == []


def test_rule_latex_is_balanced(steps):
    for s in steps:
        pieces = [s.formula, s.shown, s.printed_formula] + re.findall(r"\$([^$]*)\$", s.note + s.instance + s.check)
        for latex in pieces:
            depth = 0
            for ch in re.sub(r"\\[{}]", "", latex):
                depth += {"{": 1, "}": -1}.get(ch, 0)
                assert depth >= 0, (s.name, latex)
            assert depth == 0, (s.name, latex)
            assert len(re.findall(r"\\left(?![a-z])", latex)) == len(re.findall(r"\\right(?![a-z])", latex)), s.name


def _math_segments(s):
    prose = " ".join([s.note, s.instance, s.check])
    return s.formula + " " + s.printed_formula + " " + " ".join(re.findall(r"\$([^$]*)\$", prose))


def _base(name):
    base = re.split(r"[_^[]", name)[0].rstrip("0123456789")
    for suffix in ("hat", "tilde", "bar"):
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    return base


def test_rule_every_symbol_is_named_in_the_step(steps):
    """Each symbol the check uses appears in the step's own formula or mathematics (so it is defined there)."""
    missing = []
    for s in steps:
        math = _math_segments(s)
        for sym in _symbols(s):
            base = _base(sym.name)
            token = "\\" + base if len(base) > 1 and base.isalpha() and base not in ("new",) else base
            if base.startswith("\\"):
                continue  # a symbol named by its LaTeX, e.g. the RKHS norm
            if not re.search(re.escape(token) + r"(?![A-Za-z])", math):
                missing.append((s.model, s.name, sym.name))
    assert missing == []


def _outside_math(text):
    text = re.sub(r"\$[^$]*\$", " ", text)
    return re.sub(r"`[^`]*`", " ", text)


def test_rule_prose_is_markdown_with_latex_not_ascii_math(steps):
    ascii_math = re.compile(r"[_^\\=<>|]|\b(alpha|beta|lambda|xi|eta|sqrt|Delta|delta)\b")
    for s in steps:
        for where in ("note", "check", "instance"):
            text = getattr(s, where)
            assert text.count("$") % 2 == 0, (s.name, where)
            assert not ascii_math.search(_outside_math(text)), (s.name, where, _outside_math(text))
        assert "$" not in s.summary and "\\" not in s.summary and "\n" not in s.summary, s.name


def test_sources_name_the_documents_never_development_files(steps, capsys, monkeypatch):
    monkeypatch.setattr(derivations_cli, "all_steps", cached_steps)  # the same steps, not derived twice more
    for s in steps:
        assert "seed" not in (s.source + s.note + s.check + s.instance).lower(), s.name
        assert s.source.startswith("svmteach.") or any(s.source.startswith(doc) for doc in SOURCES), s.source
    assert derivations_main([]) == 0
    table = capsys.readouterr().out
    assert derivations_main(["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert "seed" not in table.lower() and "seed" not in json.dumps(rows).lower()
    assert re.search(r"\n\d+ verified, 24 errata, 6 caveats, 5 definitions, 0 failed\n$", table)
    assert {"model", "step", "status", "source", "summary", "formula", "note", "check"} <= set(rows[0])


# ---- the notebook API -------------------------------------------------------------------------------

def test_steps_accepts_displayed_names_and_short_keys():
    for key in SHORT_KEYS:
        names = [s.name for s in derivations.steps(key)]
        model = derivations.steps(key)[0].model
        assert [s.name for s in derivations.steps(model)] == names
    assert derivations.steps("ww")[0].model == "Weston-Watkins"
    assert derivations.steps("cs")[0].model == "Crammer-Singer"
    assert {s.model for s in derivations.steps("primal_subgradient")} == {"primal subgradient"}


def test_check_is_one_collapsed_line_that_opens_on_the_instance():
    c = derivations.check("binary", "stationarity in w")
    assert repr(c) == str(c) == "\u2714 checked by SymPy on a 3-point instance: holds"
    html = c._repr_html_()
    assert html.startswith("<details") and html.endswith("</details>")
    summary = re.search(r"<summary>(.*?)</summary>", html).group(1)
    assert summary == repr(c) and html.count("<summary>") == 1
    assert "$$" in html and "Instance" in html and "x_i" in html
    assert "erratum confirmed" in repr(derivations.check("smo", "alpha_j update of eq. 30.13"))
    assert repr(derivations.check("binary", "dL/dc = 0 => c_i = alpha_i y_i")).startswith("\u26a0 caveat")
    numeric = derivations.check("rls", "rls.solve_dual")
    assert re.fullmatch(r"\u2714 checked against svmteach\.rls\.solve_dual: max relative difference \S+ over 5 "
                        r"random instances", repr(numeric))


def test_check_of_a_model_is_a_table_of_one_liners():
    table = derivations.check("SMO")
    assert len(table) == len(derivations.steps("smo"))
    lines = repr(table).splitlines()
    assert len(lines) == len(table) and all("\u2714" in ln or "\u270e" in ln for ln in lines)
    html = table._repr_html_()
    assert html.startswith("<table") and html.count("<details") == len(table)


def test_unknown_names_are_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match=r"model must be one of .*'ww'.*got 'svr'"):
        derivations.check("svr")
    with pytest.raises(ValueError, match=r"step_name must be one of .*'stationarity in w'.*got 'nope'"):
        derivations.check("binary", "nope")
    with pytest.raises(ValueError, match="model must be one of"):
        derivations.all_steps(["svr"])


def test_show_and_errata_still_work_for_notebooks():
    pytest.importorskip("IPython")
    derivations.show("dual_cd")
    assert {s.name for s in derivations.errata(["binary"])} == {
        "alpha_j = C <=> y_j f(x_j) < 1", "alpha_j = 0 <=> y_j f(x_j) > 1",
        "MIT 9.520's non-separable primal: xi >= 0 missing", "the closest two points: of the hulls"}


# ---- wrong formulas are caught --------------------------------------------------------------------

def test_a_wrong_derived_coefficient_fails(monkeypatch):
    def wrong(i=0):  # b = g_i - Q_ii alpha_i: the sign of the second term flipped
        g = dual_cd.gradient(dual_cd.alpha)
        return -dual_cd.Q[i, i] / 2, g[i] - dual_cd.Q[i, i] * dual_cd.alpha[i]

    monkeypatch.setattr(dual_cd, "coefficients", wrong)
    failed = {s.name for s in derivations.all_steps(["dual_cd"]) if s.status == FAILED}
    assert {"coefficient b of x", "DualCoordinateAscent.step: a, b"} <= failed
    c = derivations.Check(next(s for s in derivations.all_steps(["dual_cd"]) if s.name == "coefficient b of x"))
    assert repr(c).startswith("\u2718 FAILED") and "FAILED" in c._repr_html_()
    assert derivations_main(["--model", "dual_cd"]) == 1


def test_the_printed_smo_update_as_the_derivation_fails(monkeypatch):
    real = smo.unclipped_update

    def printed():  # eq. 30.13 as printed: no y_j, E_j - E_i
        _, E, eta = real()
        return smo.a[smo.J] + (E[smo.J] - E[smo.I]) / eta, E, eta

    monkeypatch.setattr(smo, "unclipped_update", printed)
    failed = {s.name for s in derivations.all_steps(["smo"]) if s.status == FAILED}
    # the derivation no longer matches, the erratum is no longer confirmed, and the solver disagrees
    assert {"unconstrained optimum of alpha_j", "alpha_j update of eq. 30.13", "pair_update: unclipped alpha_j"} <= failed


def test_a_wrong_kkt_table_fails(monkeypatch):
    real = binary.margin_set
    monkeypatch.setattr(binary, "margin_set", lambda value, C_value=1: sp.Complement(real(value, C_value), sp.FiniteSet(1)))
    failed = {s.name for s in derivations.all_steps(["binary"]) if s.status == FAILED}
    assert failed == {"KKT: alpha_i = 0", "KKT: 0 < alpha_i < C", "KKT: alpha_i = C"}


def test_a_wrong_sign_in_a_solver_fails_the_cross_check(monkeypatch):
    from svmteach import objectives

    original = objectives.multiclass_gradient
    monkeypatch.setattr(objectives, "multiclass_gradient", lambda p, S: -original(p, S))
    bad = [s for s in derivations.all_steps(["ww", "cs"]) if s.status == FAILED]
    # the slides' violation is measured with the library's gradient at its optimum: it fails with it
    assert {s.name for s in bad} == {"objectives.multiclass_gradient", "Check for violation: the bound C_i^m"}
    assert len(bad) == 3


def test_a_wrong_smo_step_fails_the_cross_check(monkeypatch):
    from svmteach.solvers import numba_smo as smo_module

    real = smo_module.pair_update

    def flipped(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, Ci, Cj):  # the printed eq. 30.13: no y_j
        out = list(real(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, Ci, Cj))
        out[3] = aj + (vi - vj) / (Kii + Kjj - 2 * Kij)
        return tuple(out)

    monkeypatch.setattr(smo_module, "pair_update", flipped)
    bad = [s.name for s in derivations.all_steps(["smo"]) if s.status == FAILED]
    assert bad == ["pair_update: unclipped alpha_j"]


def test_an_erratum_that_is_not_one_fails():
    from svmteach.derivations.core import erratum

    x = sp.Symbol("x", real=True)
    step = erratum("m", "n", "x^2", "x \\cdot x", x * x, x ** 2, "CISC 371 notes", note="", on="", instance="")
    assert step.status == FAILED and "not confirmed" in step.summary


# ---- Lee-Lin-Wahba --------------------------------------------------------------------------------

def test_lee_lin_wahba_is_registered_by_its_keys_and_name():
    names = [s.name for s in derivations.steps("llw")]
    assert [s.name for s in derivations.steps("lee_lin_wahba")] == names
    assert [s.name for s in derivations.steps("Lee-Lin-Wahba")] == names
    assert {s.model for s in derivations.steps("llw")} == {"Lee-Lin-Wahba"}
    assert {"stationarity in W", "the multiplier nu", "W from row-centred alphas", "dual objective",
            "weak duality: the gap as a sum of nonnegative terms", "strong duality on an instance",
            "gradient of the dual", "Hessian of the block", "the block's solution: clip at the root",
            "KKT: alpha_im = 0", "KKT: 0 < alpha_im < C", "KKT: alpha_im = C"} <= set(names)
    assert sum(s.kind == "numeric" for s in derivations.steps("llw")) == 5


def test_lee_lin_wahba_without_the_multiplier_nu_fails(monkeypatch):
    """Forgetting nu (W = -alpha'X, not row-centred) breaks the weights, strong duality and the cross-check."""
    import sympy as sp

    from svmteach.derivations import lee_lin_wahba

    monkeypatch.setattr(lee_lin_wahba, "centring", lambda kk=3: sp.eye(kk))
    failed = {s.name for s in derivations.all_steps(["llw"]) if s.status == FAILED}
    assert {"W from row-centred alphas", "the weights sum to zero for every alpha", "strong duality on an instance",
            "weak duality: the gap as a sum of nonnegative terms", "get_loss('llw').weights"} <= failed
    assert not failed & {"the multiplier nu", "dual objective", "stationarity in W"}  # they never use W(alpha)


def test_a_wrong_lee_lin_wahba_library_fails_the_cross_check(monkeypatch):
    import numpy as np

    from svmteach.losses import get_loss
    from svmteach.losses import lee_lin_wahba as llw_module

    loss = get_loss("llw")
    original = loss.gradient
    monkeypatch.setattr(loss, "gradient", lambda p, S: -original(p, S))
    def no_T(u, C, k, out, points):  # the T / k term dropped
        out[:] = np.clip(u, 0.0, C)

    monkeypatch.setattr(llw_module, "block_row", no_T)
    bad = {s.name for s in derivations.all_steps(["llw"]) if s.status == FAILED}
    assert bad == {"get_loss('llw').gradient", "lee_lin_wahba.block_row"}


# ---- maximum-margin regression ---------------------------------------------------------------------

MMR_STEPS = ["Lagrangian", "stationarity in W", "the multiplier nu", "W from centred alphas", "dual objective",
             "gradient of the dual", "the block of one sample is exact", "the block's solution: clip the vertex"]


def test_maximum_margin_regression_is_registered_by_its_keys_and_name():
    names = [s.name for s in derivations.steps("mmr")]
    assert [s.name for s in derivations.steps("maximum_margin_regression")] == names
    assert [s.name for s in derivations.steps("maximum-margin regression")] == names
    assert {s.model for s in derivations.steps("mmr")} == {"maximum-margin regression"}
    assert set(MMR_STEPS) <= set(names)  # the names a notebook calls
    assert {"stationarity in xi_i", "the weights sum to zero for every alpha",
            "weak duality: the gap as a sum of nonnegative terms", "strong duality on an instance",
            "the block's curvature", "KKT: alpha_{iy_i} = 0", "KKT: 0 < alpha_{iy_i} < C",
            "KKT: alpha_{iy_i} = C"} <= set(names)
    assert {s.status for s in derivations.steps("mmr") if s.name != "Lagrangian"} == {VERIFIED}
    assert {s.name for s in derivations.steps("mmr") if s.kind == "numeric"} == {
        "get_loss('mmr').weights", "get_loss('mmr').gradient", "get_loss('mmr').dual", "get_loss('mmr').primal",
        "maximum_margin_regression.block"}
    assert derivations.check("mmr", "the block's solution: clip the vertex").step.status == VERIFIED


def test_maximum_margin_regression_without_the_multiplier_nu_fails(monkeypatch):
    """Forgetting nu (W = alpha'X, not row-centred) breaks the weights, both dualities, the block's curvature and
    the cross-checks with the library."""
    import sympy as sp

    from svmteach.derivations import maximum_margin_regression as mmr

    monkeypatch.setattr(mmr, "centring", lambda kk=3: sp.eye(kk))
    failed = {s.name for s in derivations.all_steps(["mmr"]) if s.status == FAILED}
    assert {"W from centred alphas", "the weights sum to zero for every alpha", "strong duality on an instance",
            "weak duality: the gap as a sum of nonnegative terms", "the block of one sample is exact",
            "the block's curvature", "get_loss('mmr').weights", "maximum_margin_regression.block"} <= failed
    assert not failed & {"the multiplier nu", "dual objective", "stationarity in W"}  # they never use W(alpha)


def test_a_wrong_maximum_margin_regression_library_fails_the_cross_check(monkeypatch):
    from svmteach.losses import get_loss
    from svmteach.losses import maximum_margin_regression as mmr_module

    loss = get_loss("mmr")
    original = loss.gradient
    monkeypatch.setattr(loss, "gradient", lambda p, S: -original(p, S))

    def block_without_the_centring(s, a, y, q, C, params, rest, look, scratch, picture):  # h = q, not q (k-1)/k
        a[y] = min(max(a[y] - (s[y] - 1.0) / q, 0.0), C)
        return 0.0, 1

    monkeypatch.setattr(mmr_module, "block", block_without_the_centring)
    bad = {s.name for s in derivations.all_steps(["mmr"]) if s.status == FAILED}
    assert bad == {"get_loss('mmr').gradient", "maximum_margin_regression.block"}


# ---- Weston-Watkins: the course's notation --------------------------------------------------------

def test_weston_watkins_uses_the_course_notation_w_k_by_d_and_classes_from_0():
    """Issue 28, section 5: W is k x d (row m is w_m, as coef_) and classes are 0..k-1 in the WW checks too."""
    from svmteach.derivations import weston_watkins as ww

    assert ww.weights().shape == (ww.k, ww.d) and ww.labels == (0, 1, 2)
    steps = {s.name: s for s in derivations.steps("ww")}
    assert steps["objectives.multiclass_weights: W is k x d"].status == VERIFIED  # the library's coef_ layout
    assert "y = (0, 1, 2)" in steps["stationarity in W"].instance
    assert r"\Delta_{y_i j} x_i^\top" in steps["stationarity in W"].formula
    assert r"\alpha_i x_i^\top" in steps["W = -M sum_i alpha_i x_i'"].formula
    assert "M\\,(w_{y_i} - w_j)^\\top x_i" in steps["gradient of the dual"].formula
    for s in steps.values():  # no formula is in the post's d x k form, no symbol in its 1-based classes
        assert "W^\\top x_i" not in " ".join([s.formula, s.printed_formula, s.shown]), s.name
        assert not re.search(r"\\alpha_\{\d3\}|\\alpha_\{1,3\}", s.shown), s.name


def test_lee_lin_wahba_numbers_the_classes_from_0():
    """Notebook 6 states sum_{m=0}^{k-1} w_m = 0; the checks it shows say the same, with class symbols from 0."""
    from svmteach.derivations import lee_lin_wahba as llw

    assert llw.labels == (1, 2, 0) and {str(s) for s in llw.Wsym[0, :]} == {"w_0,1", "w_0,2"}
    for s in derivations.steps("llw"):
        text = " ".join([s.formula, s.note, s.instance, s.check, s.shown])
        assert "m=1}^k" not in text and "(2, 3, 1)" not in text, s.name
    assert "y = (1, 2, 0)" in derivations.check("llw", "dual objective").step.instance


def test_crammer_singer_numbers_the_classes_from_0():
    """Notebook 7 numbers the classes 0..k-1 (the slides' class m is its m - 1): so do the CS checks it shows, in
    their instances, notes and symbols (alpha_1^0, lambda_1^0, delta_1^0, beta_0, the scores s_0, s_1, s_2)."""
    from svmteach.derivations import crammer_singer as cs

    assert cs.labels == (1, 2, 0) and [str(s) for s in cs.A[0, :]] == ["alpha_1^0", "alpha_1^1", "alpha_1^2"]
    for s in derivations.steps("cs"):
        text = " ".join(getattr(s, f, "") or "" for f in ("formula", "printed_formula", "note", "instance", "check",
                                                          "shown"))
        assert "(2, 3, 1)" not in text and "m=1}^k" not in text and "class $1$" not in text, s.name
        # k = 3 classes numbered 0, 1, 2: a class index 3 on a symbol is the slides' numbering from 1
        assert not re.search(r"\^\{3\}|\\beta_\{3\}|s_3|\\alpha\^3", text), s.name
    assert "y = (1, 2, 0)" in derivations.check("cs", "dual objective").step.instance
    assert "class $0$" in derivations.check("cs", "KKT conditions of the CS dual").step.instance
    assert "(s_0, s_1, s_2) = (2, 0, 2)" in derivations.check("cs", "hinge: max or min over the rivals").step.instance


def test_weston_watkins_weights_in_the_wrong_orientation_fail_the_cross_check(monkeypatch):
    from svmteach.derivations import weston_watkins as ww

    right = ww.weights
    monkeypatch.setattr(ww, "weights", lambda A=None, Xm=ww.X: right(A, Xm).T)  # the post's d x k
    failed = {s.name for s in ww.numeric_checks() if s.status == FAILED}
    assert failed == {"objectives.multiclass_weights: W is k x d"}


# ---- the library checks the notebooks moved to their teacher appendices ----------------------------

LIBRARY_CHECKS_BY_NOTEBOOK = [
    ("01", "primal_subgradient", "PrimalSubgradient.step"),
    ("02", "binary", "dual objective, objectives.dual"),
    ("03", "dual_cd", "DualCoordinateAscent.step: a, b"),
    ("03", "dual_cd", "DualCoordinateAscent.step: gradient after the step"),
    ("04", "smo", "pair_update: unclipped alpha_j"),
    ("05", "rls", "rls.solve_dual"),
    ("05", "rls", "rls.solve_primal (push-through)"),
    ("06", "ww", "objectives.multiclass_weights: W is k x d"),
    ("06", "ww", "objectives.multiclass_gradient"),
    ("06", "ww", "ww_shark.shark_inner: greedy step"),
    ("06", "ww", "ww_shark.shark_inner: gradient update"),
    ("06", "ww", "WWExact: block vector u"),
    ("06", "llw", "get_loss('llw').weights"),
    ("06", "llw", "get_loss('llw').gradient"),
    ("06", "llw", "get_loss('llw').dual"),
    ("06", "llw", "get_loss('llw').primal"),
    ("06", "llw", "lee_lin_wahba.block_row"),
    ("07", "cs", "objectives.multiclass_gradient"),
    ("07", "cs", "CSBlondel: beta_hat and z"),
]


@pytest.mark.parametrize("notebook, model, step", LIBRARY_CHECKS_BY_NOTEBOOK,
                         ids=[f"{nb}-{model}-{step}" for nb, model, step in LIBRARY_CHECKS_BY_NOTEBOOK])
def test_the_library_computes_what_the_notebooks_derive(notebook, model, step):
    """Issue 28, section 6: the "checked against svmteach.X" lines test the library, not the student, so the
    notebooks moved them to a teacher appendix or out; each named step is still a numeric check of the
    library's own function against the derivation, and it holds."""
    found = [s for s in derivations.steps(model) if s.name == step]
    assert len(found) == 1, (notebook, model, step)
    check = derivations.check(model, step)
    assert check.ok and found[0].status == VERIFIED and found[0].kind == "numeric", (notebook, found[0].verdict)
