"""Shared base for kg's rule components: their behaviour lives in code, so a saved pipeline
stores nothing for them and loading needs only the registered factory."""

from __future__ import annotations

__all__ = ["Stateless"]


class Stateless:
    """No-op serialisation, so ``nlp.to_disk``/``spacy.load`` round-trip pipelines with kg rules."""

    def to_disk(self, path, *, exclude=tuple()):  # noqa: D102
        pass

    def from_disk(self, path, *, exclude=tuple()):  # noqa: D102
        return self

    def to_bytes(self, *, exclude=tuple()) -> bytes:  # noqa: D102
        return b""

    def from_bytes(self, data: bytes, *, exclude=tuple()):  # noqa: D102
        return self
