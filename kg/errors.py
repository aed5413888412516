"""Every error kg raises on purpose. The CLI prints ``str(err)`` as one line and exits non-zero.

Messages name the file and line (or paper id) and the problem, and say what to do where it helps.
"""

from __future__ import annotations

__all__ = [
    "KgError",
    "CorpusError",
    "BadRecord",
    "RecordWarning",
    "ModelError",
    "GraphError",
    "NodeNotFound",
    "ExportError",
    "Neo4jError",
]


class KgError(Exception):
    """Root of kg's errors."""


class CorpusError(KgError):
    """An input file cannot be read at all (missing, unreadable, wrong format)."""


class BadRecord(CorpusError):
    """One record of an input file is bad; the rest of the file is still read unless ``strict``."""

    def __init__(self, source: str, line: int | None, problem: str):
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {problem}")


class RecordWarning(BadRecord):
    """A record was read, but a documented rule changed or merged it (a blank id, a duplicate);
    reported like a bad record, never fatal."""


class ModelError(KgError):
    """The spaCy pipeline cannot be found or loaded."""


class GraphError(KgError):
    """A graph file is missing, malformed, or not a kg graph."""


class NodeNotFound(GraphError, KeyError):
    """A node id or name asked for is not in the graph."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it one plain line
        return str(self.args[0]) if self.args else ""


class ExportError(KgError):
    """Writing an export (file, HTML) failed."""


class Neo4jError(KgError):
    """Talking to Neo4j failed; the message says which failure and what to do."""
