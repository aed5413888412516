"""Pieces of one serial stage in forked copies of this process: the other cores at a build's end.

After extraction a build runs single-threaded stages over the whole corpus (``RELATED_TO`` is the
largest: 14 s of a 21,000-paper update on two cores), then writes files that do not depend on
each other (``graph_exports.outputs``). A forked child sees the parent's graph and
arrays as they are, with nothing pickled on the way in; it computes one piece and sends back its
result, pickled through a pipe. Pieces should return compact data (NumPy arrays, not millions of
small objects), or the pickling costs what the child saved.

Nothing depends on a child: one that fails (killed, out of memory, any error) has its piece
computed again here, so the result is the same, and raised the same, as without children.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

__all__ = ["Pending", "fork_map", "split"]

T = TypeVar("T")
R = TypeVar("R")


def split(n: int, parts: int) -> list[range]:
    """``range(n)`` as ``parts`` consecutive ranges of near-equal length (none empty when
    ``n >= parts``).

    >>> split(5, 2)
    [range(0, 2), range(2, 5)]
    """
    parts = max(1, min(parts, n))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [range(lo, hi) for lo, hi in zip(bounds, bounds[1:], strict=False)]


def fork_map(function: Callable[[T], R], items: Sequence[T], *, processes: int) -> list[R]:
    """``[function(item) for item in items]``, with ``items[1:]`` computed at once in forked
    children while this process computes ``items[0]`` (give as many items as processes to use).

    Serial when ``processes`` is 1, there is one item, or the system has no ``fork``.
    """
    if processes < 2 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    children: list[_Child | None] = []
    try:
        for item in items[1:]:
            children.append(_Child.start(function, item))
        results = [function(items[0])]
        for index, child in enumerate(children, start=1):
            found = child.result() if child is not None else _MISSING
            children[index - 1] = None
            results.append(function(items[index]) if found is _MISSING else cast(R, found))
        return results
    finally:
        for child in children:
            if child is not None:
                child.kill()


_MISSING = object()


def _taken() -> Any:
    raise RuntimeError("Pending.result() was already taken")


class Pending(Generic[R]):
    """``function()`` computed in a forked child while this process goes on (with ``processes``
    above 1 and ``fork``), or here when :meth:`result` is asked for."""

    def __init__(self, function: Callable[[], R], *, processes: int) -> None:
        self._function = function
        self._child = (
            _Child.start(lambda _: function(), None)
            if processes > 1 and hasattr(os, "fork")
            else None
        )

    def result(self) -> R:
        """The child's result (waiting for it), or ``function()`` computed here when there is no
        child or it failed."""
        child, self._child = self._child, None
        function, self._function = self._function, _taken  # (its data can go once it is done)
        if child is not None:
            found = child.result()
            if found is not _MISSING:
                return cast(R, found)
        return function()

    def cancel(self) -> None:
        """Stop the child, if its result was not taken (a build that failed on the way)."""
        child, self._child = self._child, None
        if child is not None:
            child.kill()


class _Child:
    """A forked process computing ``function(item)``; its pickled result comes through a pipe."""

    def __init__(self, pid: int, read: int) -> None:
        self.pid, self._read = pid, read

    @classmethod
    def start(cls, function: Callable[[T], R], item: T) -> _Child | None:
        """The child, or None when no process could be forked (the piece is computed here)."""
        try:
            read, write = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return None
        if pid == 0:  # the child: compute, send, leave at once (no atexit, no finalisers)
            code = 1
            try:
                os.close(read)
                data = pickle.dumps(function(item), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
                code = 0
            except BaseException:  # noqa: BLE001 - the parent computes the piece again
                pass
            finally:
                os._exit(code)
        os.close(write)
        return cls(pid, read)

    def result(self) -> object:
        """The child's result, or ``_MISSING`` when it did not finish well."""
        read, self._read = self._read, -1
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if os.waitstatus_to_exitcode(status) != 0:
            return _MISSING
        try:
            return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a truncated message: compute the piece here
            return _MISSING

    def kill(self) -> None:
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        if self._read >= 0:
            with contextlib.suppress(OSError):
                os.close(self._read)
