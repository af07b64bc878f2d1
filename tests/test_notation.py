"""The guide's notation promise, read against every notebook (issue 46, section 2): within a notebook a symbol of
the guide's table keeps one meaning, the table's where the table says it holds, except where the guide itself
declares a deliberate reuse.

What is read: the guide's table (``| symbol | meaning | where |``), its exceptions (the sentence after "with these
exceptions" above the table, and a row's parenthesis "(notebook 05 writes ...)" / "(notebook 03: ...)"); and, per
lesson notebook, its Markdown cells (the problem statements are synced into them) and the worked solutions of its
problems (the teacher's edition inserts them).

The classifier (:func:`definitions`) finds where a single-letter symbol is *defined*, not merely used:

- a formula ``$S = ...$`` (also ``:=``, ``\\equiv``; ``S`` may carry a subscript or an argument list) that opens its
  math span and that the prose introduces: "let", "with", "where", "write", "define", "denote", or a noun just
  before it ("the hyperplane $H = ...$");
- a phrase: "let $S$ be ...", "where $S$ is ...", "$S$ denotes ...", "$S$ stands for ...", "write $S$ for ...".

A formula whose right side is only numbers or a single symbol (``$C = 1$``, ``$C_i^m = C$``) gives a value, not a
meaning, and is not a definition; neither is one whose right side applies the symbol itself (``H_k = H(w_k, b_k)``).

Each definition gets a *meaning key*, coarse on purpose, since a derivation writes one meaning many ways
(``W = \\alpha^\\top X`` and ``W = \\sum_i \\alpha_i x_i^\\top``): a set-builder ``\\{x : ...\\}`` is "a set", any other
formula "a formula"; a phrase is its first four words, compared with the other phrases only.  Two keys of one kind
that differ, for one symbol in one notebook, are a clash (so a set and a formula: the hyperplane $H$ and the total
hinge loss $H$).  Against the table, only what can be decided is checked: a symbol whose one table row is "the
number of ...", defined in a notebook that row covers by a formula that is not a value (``d = e_j - y_i y_j e_i``),
is a clash.  What the form cannot tell (two formulas of different meanings) is left to the reader: the test is a
floor, not a proof.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GUIDE = NOTEBOOKS / "00_guide.ipynb"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("00"))

GREEK = ("alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|phi|"
         "chi|psi|omega")
#: a single-letter symbol: a Latin letter or a Greek letter's command, not followed by another letter
LETTER = rf"(?:\\(?:{GREEK})(?![A-Za-z])|[A-Za-z](?![A-Za-z]))"
#: what may follow the letter before the relation: sub- and superscripts, primes, an argument list
DECOR = r"(?:\s*(?:[_^](?:\{[^{}]*\}|\\?[A-Za-z0-9]+)|'|\^\\ast|\([^()]*\)))*"
RELATION = r"(?:=|:=|\\equiv|\\coloneqq)"
FORMULA = re.compile(rf"^\s*(?P<sym>{LETTER}){DECOR}\s*{RELATION}(?P<rhs>.*)$", re.DOTALL)
#: the prose just before a math span that introduces a formula as a definition
INTRODUCED = re.compile(r"(?:\b(?:let|with|where|write|writing|define|defining|denote|denoting)|"
                        r"\bthe [a-z-]+)\s*$", re.IGNORECASE)
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$]+)\$", re.DOTALL)
SYMBOL = rf"\$(?P<sym>{LETTER}){DECOR}\$"
PHRASES = [re.compile(p, re.IGNORECASE) for p in (
    rf"\blet {SYMBOL} be (?P<what>[^.;:$]+)",
    rf"\bwhere {SYMBOL} is (?P<what>[^.;:$]+)",
    rf"{SYMBOL} (?:denotes|stands for) (?P<what>[^.;:$]+)",
    rf"\bwrite {SYMBOL} for (?P<what>[^.;:$]+)",
)]
#: a right side that is one symbol (``C``, ``-C_i``, ``\\alpha_j^{\\rm old}``)
ONE_SYMBOL = re.compile(rf"[-+]?\s*{LETTER}(?:\s*[_^](?:\{{[^{{}}]*\}}|\\?[A-Za-z0-9]+))*")
#: a right side that is a number: digits and arithmetic only, once fractions and infinity are read as numbers
NUMBER = re.compile(r"[\s\d.,+\-/*^{}()]*")


def is_value(rhs: str) -> bool:
    """Whether ``rhs`` gives a value (a number, or one symbol), not a meaning."""
    return bool(ONE_SYMBOL.fullmatch(rhs) or NUMBER.fullmatch(re.sub(r"\\(?:[td]?frac|infty|cdot|times)", "", rhs)))


@dataclass(frozen=True)
class Definition:
    symbol: str
    meaning: str  # the meaning key
    quote: str  # the definition as written, for the failure message
    value_only: bool = False
    phrase: bool = False  # a phrase's key is compared with the other phrases' only


def base(symbol_source: str) -> str | None:
    m = re.match(rf"\s*({LETTER})", symbol_source)
    return m.group(1) if m else None


def meaning_of_formula(sym: str, rhs: str) -> tuple[str, bool] | None:
    """The meaning key of ``sym = rhs``, and whether it only gives a value; None for a self-reference."""
    first = re.split(rf"\s*(?:{RELATION}|\\le|\\ge|<|>)\s*", rhs.strip())[0].strip().rstrip(".,;")
    if re.search(rf"(?<![A-Za-z\\]){re.escape(sym)}\s*\(", first):
        return None  # H_k = H(w_k, b_k): the symbol at another argument
    if is_value(first):
        return "a value", True
    if first.startswith(r"\{") and re.search(r":|\\mid", first):
        return "a set", False
    return "a formula", False


def definitions(text: str, symbols: set[str]) -> list[Definition]:
    """The definitions of ``symbols`` in ``text`` (Markdown with $...$ mathematics), in order; see the module."""
    found = []
    for m in MATH.finditer(text):
        body = m.group(1) or m.group(2)
        f = FORMULA.match(body)
        if not f or f.group("sym") not in symbols:
            continue
        before = text[max(0, m.start() - 40):m.start()]
        if not INTRODUCED.search(before):
            continue
        key = meaning_of_formula(f.group("sym"), f.group("rhs"))
        if key is not None:
            found.append(Definition(f.group("sym"), key[0], body.strip(), key[1]))
    for pattern in PHRASES:
        for m in pattern.finditer(text):
            if m.group("sym") in symbols:
                what = " ".join(re.findall(r"[a-z-]+", m.group("what").lower())[:4])
                found.append(Definition(m.group("sym"), what, m.group(0).strip(), phrase=True))
    return found


def clashes(text: str, symbols: set[str], counts: set[str] = frozenset()) -> list[str]:
    """Each symbol defined in ``text`` with two meanings, as "S: 'first' / 'second'"; ``counts``: the symbols whose
    table meaning is a number of things, which a formula that is not a value contradicts."""
    by_symbol: dict[str, list[Definition]] = {}
    for d in definitions(text, symbols):
        by_symbol.setdefault(d.symbol, []).append(d)
    found = []
    for sym, defs in by_symbol.items():
        meant = [d for d in defs if not d.value_only]
        if sym in counts and meant:
            found.append(f"${sym}$: the table's count / {meant[0].quote!r}")
        for phrase in (False, True):
            keys = {}
            for d in meant:
                if d.phrase == phrase:
                    keys.setdefault(d.meaning, d)
            if len(keys) > 1:
                a, b = list(keys.values())[:2]
                found.append(f"${sym}$: {a.quote!r} / {b.quote!r}")
    return found


# --- the guide ---------------------------------------------------------------------------------------------------

def guide_notation() -> str:
    nb = nbformat.read(GUIDE, as_version=4)
    (cell,) = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Notation")]
    return cell


def table(notation: str) -> list[tuple[list[str], str, str]]:
    """The table's rows as (single-letter symbols, meaning, where)."""
    rows = []
    for line in notation[notation.index("| symbol |"):].splitlines()[2:]:
        if not line.startswith("|"):
            break
        symbol, meaning, where = (part.strip() for part in line.strip("|").split("|"))
        letters = [b for s in re.findall(r"\$([^$]+)\$", symbol) if (b := base(s)) is not None]
        rows.append((letters, meaning, where))
    return rows


def notebook_numbers(where: str) -> set[int]:
    """"all", "01-05", "02, 06 (05)" -> the notebooks a row covers (a parenthesised notebook is an exception)."""
    where = re.sub(r"\(.*?\)", "", where)
    if where.strip() == "all":
        return set(range(1, 10))
    found = set()
    for a, b in re.findall(r"(\d\d)(?:\s*-\s*(\d\d))?", where):
        found |= set(range(int(a), int(b or a) + 1))
    return found


#: a symbol in the subject of a reuse clause: "$g$ for ...", "$b$ and $x$ for ...", "$p$, $u$, which ..."
SUBJECT = re.compile(r"\$([^$]+)\$(?= for |\s+and \$|,\s*\$|, which )")


def declared_reuses(notation: str) -> set[tuple[str, int]]:
    """(symbol, notebook) pairs the guide declares a deliberate reuse, read from its words: each clause of the
    sentence after "with these exceptions" ("$Q$ for the eigenvectors of $K$ in notebook 5's ...": $Q$, not $K$),
    and a row's parenthesis "(notebook 05 writes $\\mu_k$ for ...)" or "(notebook 03: ...)" (the row's symbol)."""
    def letters(sources):
        return {b for s in sources if (b := base(s)) is not None}

    def numbers(clause):
        return {int(a or b) for a, b in re.findall(r"notebook (\d+)|problem (\d\d)\.\d+", clause)}

    pairs = set()
    intro = notation[:notation.index("| symbol |")]
    start = intro.find("with these exceptions")
    for clause in intro[start:].split(";") if start >= 0 else []:
        pairs |= {(s, n) for s in letters(SUBJECT.findall(clause)) for n in numbers(clause)}
    for symbols, meaning, _ in table(notation):
        for paren in re.findall(r"\(([^()]*notebook[^()]*)\)", meaning):
            for n, written in re.findall(r"notebook (\d+) writes \$([^$]+)\$", paren):
                pairs |= {(s, int(n)) for s in letters([written])}
            for n in re.findall(r"notebook (\d+):", paren):
                pairs |= {(s, int(n)) for s in symbols}
    return pairs


def notebook_text(path: Path) -> str:
    """A lesson notebook's Markdown (its synced problem statements included) and its problems' worked solutions."""
    from svmteach.exercises.problem_set import PROBLEMS

    nb = nbformat.read(path, as_version=4)
    parts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    parts += [p.solution for name, p in PROBLEMS.items() if name.startswith(path.name[:2] + ".")]
    return "\n\n".join(parts)


# --- the tests ---------------------------------------------------------------------------------------------------

def test_the_classifier_catches_a_clash_and_passes_one_meaning():
    """A synthetic notebook text with a clash is caught; the same text with the clash renamed passes (the test
    cannot pass for want of definitions); a value, a self-reference and a use are not definitions."""
    clash = ("The decision boundary is the hyperplane $H = \\{x : w^\\top x + b = 0\\}$. Later, write "
             "$H(w, b) = \\sum_i \\max(0, 1 - y_i f(x_i))$ for the total hinge loss, at $C = 1$.")
    fine = clash.replace("$H(w, b)", "$\\Xi(w, b)")
    assert [d.meaning for d in definitions(clash, {"H"})] == ["a set", "a formula"]
    assert len(clashes(clash, {"H"})) == 1 and "H" in clashes(clash, {"H"})[0]
    assert clashes(fine, {"H", "C"}) == []
    same_twice = "Let $H = \\{x : f(x) = 0\\}$. Again let $H = \\{x : w^\\top x + b = 0\\}$ and $H_k = H(w_k, b_k)$."
    assert clashes(same_twice, {"H"}) == []
    phrase = "Let $d$ be a direction of the box. In $d = 10$ dimensions, ..."
    assert clashes(phrase, {"d"}) == [] and definitions(phrase, {"d"})[0].meaning == "a direction of the"
    direction = "Let $d = e_j - y_i y_j e_i$, the direction; for $d = 10$ features ..."
    assert clashes(direction, {"d"}, counts={"d"}) and not clashes(direction.replace("$d =", "$u ="), {"d"}, {"d"})
    two_phrases = "where $L$ is the Lagrangian of the problem. Then let $L$ be the lower end of the segment."
    assert len(clashes(two_phrases, {"L"})) == 1


def test_the_guide_table_and_its_declared_reuses_are_read():
    notation = guide_notation()
    rows = table(notation)
    assert len(rows) >= 20 and all(where for _, _, where in rows)
    letters = {s for symbols, _, _ in rows for s in symbols}
    assert {"n", "d", "k", "H", "L", "C", r"\alpha"} <= letters
    reuses = declared_reuses(notation)
    assert reuses, "the guide declares its reuses in words the test reads"
    # every clause of the guide's exception sentence yields a pair (none is lost to the parser)
    intro = notation[notation.index("with these exceptions"):notation.index("| symbol |")]
    for clause in intro.split(";"):
        if "$" in clause:
            assert any(f"${s}" in clause or f"${s}_" in clause for s, _ in reuses), clause


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_symbol_has_two_meanings_in_one_notebook(path):
    notation = guide_notation()
    rows = table(notation)
    number = int(path.name[:2])
    reused = {s for s, n in declared_reuses(notation) if n == number}
    symbols = {s for letters, _, _ in rows for s in letters} - reused
    rows_of = {s: sum(s in letters for letters, _, _ in rows) for s in symbols}
    counts = {s for letters, meaning, where in rows if meaning.startswith("the number of")
              and number in notebook_numbers(where) for s in letters if rows_of.get(s) == 1} - reused
    found = clashes(notebook_text(path), symbols, counts)
    assert not found, f"{path.stem}: a symbol with two meanings (the guide's table: docs/notation.md): {found}"
