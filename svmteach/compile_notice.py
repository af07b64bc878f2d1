"""A line that says so when a fit or an explorer step compiles the package's machine code (first use).

A first fit with a new solver or a new input type (float32, a sparse X, a kernel) spends tens of seconds in
numba's compiler before its first step; later processes load the compiled code from numba's cache in a fraction
of a second.  Inside :func:`compile_notice` the first compilation of one of the package's functions prints
``svmteach: compiling ...`` at once, and the time it took when the block ends, on ``sys.stderr`` (in a notebook,
under the running cell), so that a user knows why nothing has happened yet.  Numba's event API tells a real
compilation (``numba:compile``) from a load out of the cache, which says nothing.

Set the environment variable ``SVMTEACH_COMPILE_NOTICE=0`` to silence it (the test suite does: a notebook's
checked outputs are the same whether its process compiled or loaded the code).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from functools import lru_cache

_PACKAGE = __name__.split(".")[0]
_depth = threading.local()  # nested blocks (an estimator's fit calls solve): the outermost one listens


def enabled() -> bool:
    """False where ``SVMTEACH_COMPILE_NOTICE`` is set to 0 (or ``false``, ``no``, ``off``)."""
    return os.environ.get("SVMTEACH_COMPILE_NOTICE", "1").strip().lower() not in {"0", "false", "no", "off"}


@lru_cache(maxsize=1)  # one class, made on first use: numba is imported only by a fit
def _listener_class():
    from numba.core import event

    class FirstCompile(event.Listener):
        """Prints once, on the first compilation of one of the package's functions."""

        def __init__(self, what, out):
            self.what, self.out, self.started = what, out, None

        def on_start(self, ev):
            if self.started is not None:
                return
            dispatcher = (ev.data or {}).get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            if module.split(".")[0] != _PACKAGE:
                return
            self.started = time.perf_counter()
            print(f"svmteach: compiling {self.what} for this input type (first use on this machine: "
                  "about 10-60 s; cached for later runs) ...", file=self.out, flush=True)

        def on_end(self, ev):
            pass

    return FirstCompile


@contextmanager
def compile_notice(what: str = "the solver", out=None):
    """Within the block, the first compilation of the package's numba code prints a line naming ``what``; at the
    end of the block, the seconds it took (only where something compiled)."""
    depth = getattr(_depth, "value", 0)
    if depth or not enabled():
        _depth.value = depth + 1
        try:
            yield
        finally:
            _depth.value = depth
        return
    from numba.core import event

    listener = _listener_class()(what, sys.stderr if out is None else out)
    _depth.value = 1
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
        _depth.value = 0
        if listener.started is not None:
            print(f"svmteach: compiled in {time.perf_counter() - listener.started:.0f} s", file=listener.out,
                  flush=True)

