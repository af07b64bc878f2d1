"""The derivations verify, the errata are the ones SymPy confirms, and a wrong sign in a solver is caught."""

import json

import pytest

from svmteach import derivations
from svmteach.derivations import ERRATUM, FAILED, VERIFIED
from svmteach.derivations.__main__ import main as derivations_main

EXPECTED_ERRATA = {
    ("binary soft margin", "alpha_j = C <=> y_j f(x_j) < 1", "seed 003"),
    ("binary soft margin", "alpha_j = 0 <=> y_j f(x_j) > 1", "seed 003"),
    ("binary soft margin", "dL/dc = 0 => c_i = alpha_i y_i", "seed 003"),
    ("SMO", "alpha_j update of eq. 30.13", "seed 001"),
    ("Weston-Watkins", "block subproblem, the W term", "seed 000"),
    ("Crammer-Singer", "the bounds C_i^m", "seed 002"),
    ("Crammer-Singer", "Algorithm 3, line 6", "seed 002"),
    ("Crammer-Singer", "Taylor expansion's quadratic term", "seed 002"),
    ("Crammer-Singer", "KKT conditions of the CS dual", "seed 002"),
}


@pytest.fixture(scope="module")
def steps():
    return derivations.all_steps()


def test_every_identity_verifies(steps):
    failed = [(s.model, s.name, s.note) for s in steps if s.status == FAILED]
    assert failed == []
    assert {s.status for s in steps} == {VERIFIED, ERRATUM}
    assert set(derivations.MODELS) == {"binary", "smo", "dual_cd", "weston_watkins", "crammer_singer", "rls"}


def test_the_errata_are_exactly_the_confirmed_ones(steps):
    found = {(s.model, s.name, s.source.split(",")[0]) for s in steps if s.status == ERRATUM}
    assert found == EXPECTED_ERRATA
    for s in steps:
        if s.status == ERRATUM:
            assert s.printed is not None and len(s.note) > 40  # the printed form and the reason are kept


def test_every_step_names_its_source_and_renders(steps):
    for s in steps:
        assert s.source and s.name and isinstance(s.latex, str)
    numeric = [s for s in steps if s.source.startswith("svmteach.")]
    assert len(numeric) >= 12  # cross-checks against the solvers' own functions


def test_a_wrong_sign_in_a_solver_fails_the_cross_check(monkeypatch):
    from svmteach import objectives

    original = objectives.multiclass_gradient
    monkeypatch.setattr(objectives, "multiclass_gradient", lambda p, S: -original(p, S))
    bad = [s for s in derivations.all_steps(["weston_watkins", "crammer_singer"]) if s.status == FAILED]
    assert {s.name for s in bad} >= {"objectives.multiclass_gradient"}


def test_a_wrong_smo_step_fails_the_cross_check(monkeypatch):
    from svmteach.solvers import smo as smo_module

    real = smo_module.pair_update

    def flipped(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, C):  # the printed eq. 30.13: no y_j
        out = list(real(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, C))
        out[3] = aj + (vi - vj) / (Kii + Kjj - 2 * Kij)
        return tuple(out)

    monkeypatch.setattr(smo_module, "pair_update", flipped)
    bad = [s.name for s in derivations.all_steps(["smo"]) if s.status == FAILED]
    assert any("pair_update" in name for name in bad)


def test_command_line_table_and_json(capsys):
    assert derivations_main(["--model", "dual_cd"]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and "dual coordinate ascent" in out
    assert derivations_main(["--json", "--model", "smo"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"model", "step", "status", "source", "note"} <= set(rows[0])
    assert any(r["status"] == "erratum" for r in rows)


def test_unknown_model_is_refused():
    with pytest.raises(ValueError, match="^models must be among"):
        derivations.all_steps(["svr"])

