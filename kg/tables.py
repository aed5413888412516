"""Rich tables of kg's results, for the command line only (library functions return plain dicts).

Only :mod:`kg.cli` imports this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.table import Table

__all__ = ["prf_table", "render_table", "render_relations_table", "render_resolution_table"]


def prf_table(
    title: str, name_columns: Sequence[str], rows: Iterable[tuple[Sequence[str], dict[str, Any]]]
) -> Any:
    """A rich ``Table``: the ``name_columns``, then P, R and F1 in percent and tp, fp and fn, one row
    per ``(names, PRF dict)``; a row named "micro" is bold."""
    table = Table(title=title)
    for column in name_columns:
        table.add_column(column)
    for column in ("P", "R", "F1", "tp", "fp", "fn"):
        table.add_column(column, justify="right")
    for names, s in rows:
        table.add_row(
            *names,
            f"{100 * s['p']:.1f}",
            f"{100 * s['r']:.1f}",
            f"{100 * s['f']:.1f}",
            str(s["tp"]),
            str(s["fp"]),
            str(s["fn"]),
            style="bold" if names[0] == "micro" else None,
        )
    return table


def render_table(result: dict[str, Any]) -> Any:
    """A rich ``Table`` of per-label and micro P/R/F1 (in percent) for an :func:`evaluate` result."""
    rows = list(result["ents_per_type"].items())
    micro = {
        "p": result["ents_p"],
        "r": result["ents_r"],
        "f": result["ents_f"],
        **{count: sum(s[count] for _, s in rows) for count in ("tp", "fp", "fn")},
    }
    return prf_table(
        f"{result['gold']} ({result['format']}, {result['docs']} docs, {result['tokens']} tokens)",
        ["label"],
        [((label,), s) for label, s in [*rows, ("micro", micro)]],
    )


def render_relations_table(result: dict[str, Any]) -> Any:
    """A rich ``Table`` of per-label and micro relation P/R/F1 (both spans exact and label), or None."""
    rel = result.get("relations")
    if not rel:
        return None
    kept = result.get("relations_kept")
    rows = [((label,), s) for label, s in [*rel["per_type"].items(), ("micro", rel)]]
    if kept:
        rows.append((("kept in the graph",), kept))
    return prf_table("relations (both spans exact and label)", ["relation"], rows)


def render_resolution_table(result: dict[str, Any]) -> Any:
    """A rich table of :func:`evaluate_resolution`'s result (pairwise P, R, F1)."""
    predicted = f"predicted ({result['predicted_mentions']['matched_mentions']} matched)"
    return prf_table(
        f"Within-document resolution vs coreference clusters, pairwise: {result['docs']} docs, "
        f"{result['named_mentions']} named mentions, {result['gold_pairs']} coreferent pairs",
        ["mentions", "resolver"],
        [
            (("gold", "kg"), result["gold_mentions"]),
            (("gold", "exact string"), result["exact_string"]),
            ((predicted, "kg"), result["predicted_mentions"]),
        ],
    )
