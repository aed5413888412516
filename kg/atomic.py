"""Files written whole or not at all.

Every file kg writes goes to a temporary file in its own folder and is renamed over the target
only when complete, so a full disk, a crash or an error half-way leaves the previous file exactly as
it was. :class:`AtomicFiles` does this for several files at once: they are renamed into place
together at the end, and a failure in any of them publishes none.

>>> import pathlib, shutil, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with AtomicFiles() as files:
...     _ = files.write_text(folder / "a.txt", "one")
...     _ = files.write_text(folder / "b.txt", "two")
>>> sorted(p.name for p in folder.iterdir())
['a.txt', 'b.txt']
>>> shutil.rmtree(folder)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .errors import ExportError

__all__ = ["AtomicFiles", "atomic_open", "write_text"]

#: Every temporary file kg writes beside a target starts so (``.kg-tmp-graph.json.x1y2``).
TEMP_PREFIX = ".kg-tmp-"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _problem(exc: OSError) -> str:
    return exc.strerror or str(exc)


class AtomicFiles:
    """Stage files and rename them all into place when the ``with`` block ends without an error.

    On an error (or :meth:`discard`) every temporary file is removed and no target changes; the
    error is raised as :class:`~kg.errors.ExportError` naming the target file.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []  # (temporary file, target)
        self._scratch: list[Path] = []

    @contextlib.contextmanager
    def open(
        self,
        path: str | Path,
        mode: str = "w",
        *,
        encoding: str | None = "utf-8",
        newline: str | None = None,
    ) -> Iterator[IO[Any]]:
        """A handle on a temporary file beside ``path`` that becomes ``path`` at :meth:`commit`."""
        path = Path(path)
        binary = "b" in mode
        temp_path = self.reserve(path)
        try:
            with open(
                temp_path,
                mode,
                encoding=None if binary else encoding,
                newline=None if binary else newline,
            ) as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise ExportError(
                f"{path}: cannot write ({_problem(exc)}); the previous file is unchanged"
            ) from exc

    def reserve(self, path: str | Path) -> Path:
        """An empty temporary file beside ``path`` that becomes ``path`` at :meth:`commit`, for a
        writer that opens files by name (another process: ``graph_exports.outputs``)."""
        path = Path(path)
        temp = _temp_beside(path)
        self._staged.append((temp, path))
        return temp

    def scratch(self, path: str | Path) -> Path:
        """An empty temporary file beside ``path`` for a writer's own use (a part of ``path``
        that is joined into its staged file): never renamed, removed with the staged files."""
        temp = _temp_beside(Path(path))
        self._scratch.append(temp)
        return temp

    def adopt(self, source: str | Path, path: str | Path) -> Path:
        """Stage a complete file written elsewhere (``source``, e.g. a build's spooled store) to
        become ``path`` at :meth:`commit`: moved beside ``path`` by a rename when it is on the
        same file system, else copied. ``source`` is gone afterwards either way."""
        source, path = Path(source), Path(path)
        temp_path = self.reserve(path)
        try:
            try:
                os.replace(source, temp_path)
            except OSError:  # another file system: copy, then drop the source
                shutil.copyfile(source, temp_path)
                source.unlink(missing_ok=True)
        except OSError as exc:
            raise ExportError(
                f"{path}: cannot write ({_problem(exc)}); the previous file is unchanged"
            ) from exc
        return path

    def write_text(self, path: str | Path, text: str) -> Path:
        with self.open(path) as handle:
            handle.write(text)
        return Path(path)

    def write_bytes(self, path: str | Path, data: bytes) -> Path:
        with self.open(path, "wb") as handle:
            handle.write(data)
        return Path(path)

    def commit(self) -> list[Path]:
        """Rename every staged file over its target (a rename needs no space, so it cannot run out)."""
        done = []
        try:
            for temp, target in self._staged:
                try:
                    mode = target.stat().st_mode & 0o7777
                except OSError:
                    mode = 0o666 & ~_umask()
                os.chmod(temp, mode)
                os.replace(temp, target)
                done.append(target)
        except OSError as exc:
            raise ExportError(f"{target}: cannot replace ({_problem(exc)})") from exc
        finally:
            self.discard()
        for folder in {t.parent for t in done}:
            _fsync_folder(folder)
        return done

    def discard(self) -> None:
        """Remove the temporary files not yet renamed, and the scratch files."""
        for temp in [temp for temp, _ in self._staged] + self._scratch:
            with contextlib.suppress(OSError):
                temp.unlink()
        self._staged.clear()
        self._scratch.clear()

    def __enter__(self) -> AtomicFiles:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def _temp_beside(path: Path) -> Path:
    """A new empty file in ``path``'s folder (made if missing), named after it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX + path.name + ".")
        os.close(fd)
    except OSError as exc:
        raise ExportError(f"{path}: cannot write ({_problem(exc)})") from exc
    return Path(temp)


def _fsync_folder(folder: Path) -> None:
    """Make the renames durable (best effort: not every file system lets a folder be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_open(
    path: str | Path,
    mode: str = "w",
    *,
    files: AtomicFiles | None = None,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing through ``files``, or on its own when ``files`` is None (then it
    is renamed into place as soon as the ``with`` block ends)."""
    if files is not None:
        with files.open(path, mode, encoding=encoding, newline=newline) as handle:
            yield handle
        return
    with AtomicFiles() as own, own.open(path, mode, encoding=encoding, newline=newline) as handle:
        yield handle


def write_text(path: str | Path, text: str, *, files: AtomicFiles | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    with atomic_open(path, files=files) as handle:
        handle.write(text)
    return Path(path)
