"""Type hints on the public API: every public callable in ``svmteach.__all__`` annotates each parameter and
its return, and ``typing.get_type_hints`` resolves every annotation (a string naming a missing type fails).

For the public classes, their public methods defined in the package count too (properties by their getter);
for the solver classes, the ``__init__`` and the methods of the :class:`~svmteach.solvers.base.Solver`
contract (a family's internal hooks are not part of the public API).
"""

from __future__ import annotations

import inspect
import typing

import pytest

import svmteach
from svmteach.solvers.base import Solver

CONTRACT = {name for name in vars(Solver) if not name.startswith("_")} | {"__init__"}


def _methods(cls):
    """``(name, function)`` for the public methods of ``cls`` defined in the package, nearest class first."""
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("svmteach"):
            continue
        for name, member in vars(klass).items():
            if name in seen or (name.startswith("_") and name != "__init__"):
                continue
            if issubclass(cls, Solver) and name not in CONTRACT:
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            elif hasattr(member, "func"):  # functools.cached_property
                member = member.func
            if inspect.isfunction(member):
                seen.add(name)
                yield name, member


def public_callables():
    """``(qualified name, function)`` for every public callable of the flat API."""
    for name in svmteach.__all__:
        obj = getattr(svmteach, name)
        if inspect.isclass(obj):
            if issubclass(obj, tuple):  # a NamedTuple's fields are its annotations
                continue
            for attr, member in _methods(obj):
                yield f"{name}.{attr}", member
        else:
            yield name, obj


def unannotated(function):
    """The parameters (and ``return``) of ``function`` that carry no annotation."""
    signature = inspect.signature(function)
    missing = [p.name for p in signature.parameters.values()
               if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               and p.annotation is p.empty]
    if signature.return_annotation is signature.empty:
        missing.append("return")
    return missing


CALLABLES = dict(public_callables())


def test_the_scan_sees_the_public_api():
    assert {"BinarySVC.__init__", "BinarySVC.fit", "BinarySVC.predict", "MulticlassSVC.decision_function",
            "BinaryProblem.with_C", "gram", "make_kernel", "SMO.__init__", "SMO.step", "iterate",
            "solve"} <= set(CALLABLES)
    assert "WWExact.picture" not in CALLABLES  # a family's hook, not the contract


def test_the_check_flags_a_missing_annotation_and_an_unresolvable_one():
    def bare(x, y: int = 1): ...

    def dangling(x: NoSuchType) -> int: ...  # noqa: F821

    assert unannotated(bare) == ["x", "return"]
    assert unannotated(dangling) == []
    with pytest.raises(NameError):
        typing.get_type_hints(dangling)


def test_every_public_signature_is_annotated():
    missing = {name: m for name, function in CALLABLES.items() if (m := unannotated(function))}
    assert missing == {}


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_every_annotation_resolves(name):
    typing.get_type_hints(CALLABLES[name])
