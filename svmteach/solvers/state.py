"""A solver's state in three parts: the iterate, the step's picture, the engine's bookkeeping.

- ``state.iterate``: what the run has computed (``n_iter``, ``alpha``, the cached gradient or ``W``, the
  measures ``primal``, ``dual``, ``gap``, ``kkt``): what a result is made of;
- ``state.picture``: what the last step did (the pair, the coordinate, the block, the step size): what a
  figure draws, and nothing later steps need;
- ``state.engine``: how the run goes on (visiting orders, shrinking, seeds, caches): the same on the step
  path and the fast path, of no interest to a result.

Each part is a ``NamedTuple``.  A field is also read by its own name (``state.alpha``), and
``state._replace(alpha=...)`` replaces it in its part, so a reader need not know which part holds it;
``State.of(**fields)`` builds a state from its fields, each given once.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple


class NoFields(NamedTuple):
    """A part with nothing in it (a solver whose steps leave nothing to draw, or keep no bookkeeping)."""


class ThreePartState(NamedTuple("ThreePartState", [("iterate", Any), ("picture", Any), ("engine", Any)])):
    """Base of every solver's state: a subclass names its three parts' ``NamedTuple`` classes."""

    __slots__ = ()
    Iterate: ClassVar[type]
    Picture: ClassVar[type] = NoFields
    Engine: ClassVar[type] = NoFields

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        names = cls.fields()
        twice = sorted({f for f in names if names.count(f) > 1} | (set(names) & set(ThreePartState._fields)))
        if twice:
            raise TypeError(f"{cls.__name__}: the fields {twice} are in more than one part (or name a part)")
        cls._part_of = {name: ~k for k, name in enumerate(ThreePartState._fields)}  # a whole part: ~its index
        for k, Part in enumerate((cls.Iterate, cls.Picture, cls.Engine)):
            cls._part_of.update(dict.fromkeys(Part._fields, k))
            for name in Part._fields:  # state.alpha reads state.iterate.alpha (a property: tuple's own
                if name not in cls.__dict__:  # names, such as index, must not hide a field)
                    setattr(cls, name, property(lambda self, k=k, name=name: getattr(tuple.__getitem__(self, k), name),
                                                doc=f"``{cls._fields[k]}.{name}``"))

    @classmethod
    def fields(cls) -> tuple:
        """Every field's name, part by part."""
        return (*cls.Iterate._fields, *cls.Picture._fields, *cls.Engine._fields)

    @classmethod
    def of(cls, **fields):
        """The state with these fields (a part's defaults fill what is not given); an unknown name is refused."""
        unknown = set(fields) - set(cls.fields())
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {sorted(unknown)}; its fields are {cls.fields()}")
        return cls(*(Part(**{f: fields[f] for f in Part._fields if f in fields})
                     for Part in (cls.Iterate, cls.Picture, cls.Engine)))

    def _replace(self, **changes):
        """A copy with ``changes``: whole parts by their names, or fields by theirs, each in its part (one
        ``_replace`` a part changed; the parts left as they were are the same objects)."""
        parts, fields, part_of = list(tuple.__iter__(self)), ({}, {}, {}), self._part_of
        for name, value in changes.items():
            k = part_of.get(name)
            if k is None:
                unknown = sorted(set(changes) - set(part_of))
                raise ValueError(f"{type(self).__name__} has no field {unknown}; its fields are {type(self).fields()}")
            if k < 0:
                parts[~k] = value
            else:
                fields[k][name] = value
        for k, mine in enumerate(fields):
            if mine:
                parts[k] = parts[k]._replace(**mine)
        return tuple.__new__(type(self), parts)

    def flat(self) -> dict:
        """Every field by name, in the order of :meth:`fields`."""
        return {name: getattr(part, name) for part in tuple.__iter__(self) for name in type(part)._fields}
