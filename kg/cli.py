"""The ``kg`` command line: thin wrappers over library functions.

A user's mistake ends in one line naming the file, line and problem and a non-zero exit; add
``--debug`` (before the command) for the traceback.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from .errors import BadRecord, KgError, RecordWarning

app = typer.Typer(
    name="kg",
    help="Build a knowledge graph of methods, datasets, tasks and metrics from paper abstracts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _quiet_help_types() -> None:
    """typer 0.2x writes a type beside every parameter in ``--help``: ``<bool>`` beside flags,
    ``<list[str]>`` beside repeatable ones. kg's help texts say what each takes, so flags show
    none, and a parameter with a metavar shows that (arguments already show it as their name)."""
    from typer import core

    for cls in (getattr(core, "TyperOption", None), getattr(core, "TyperArgument", None)):
        original = getattr(cls, "display_type_rich", None)
        if cls is None or original is None:  # another typer: it does not add them
            continue

        def display(self: Any, ctx: Any, _original: Any = original) -> str | None:
            if getattr(self, "is_flag", False):
                return None
            if self.metavar is not None:
                return None if isinstance(self, core.TyperArgument) else self.metavar
            return _original(self, ctx)

        cls.display_type_rich = display


_quiet_help_types()
console = Console()
err_console = Console(stderr=True)
_state = {"debug": False}


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks instead of one-line errors.")
    ] = False,
) -> None:
    _state["debug"] = debug


def main() -> None:
    """Entry point of the ``kg`` script: KgError and I/O errors become one line and exit code 1."""
    try:
        app()
    except KgError as exc:
        if _state["debug"] or "--debug" in sys.argv:
            raise
        err_console.print(
            f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True
        )
        sys.exit(1)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    finally:
        # a built graph is a reference cycle (networkx caches views that point back at it), so it
        # is freed only by the collection Python runs at exit: 3.4 s at 20,000 papers, for memory
        # the system takes back anyway. Frozen objects are left out of that collection.
        gc.freeze()


def _count(n: int, word: str) -> str:
    """``1 paper``, ``2 papers``, ``1,234 papers``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _load_nlp(model: Path | None, no_model: bool):
    from extractors import load_pipeline

    return load_pipeline(model, statistical=not no_model)


def _count_lines_hint(inputs: list[str]) -> int | None:
    """Cheap total for the progress bar: JSON lines and CSV rows of plain files (None for stdin/txt)."""
    from .corpus import expand_inputs

    total = 0
    try:
        for path in expand_inputs(inputs):
            if path == "-" or not path.endswith((".jsonl", ".ndjson", ".csv", ".tsv")):
                return None
            with open(path, "rb") as handle:
                total += sum(1 for line in handle if line.strip())
    except (OSError, KgError):  # the build itself reports what cannot be read
        return None
    return total


@app.command("build")
def build_cli(
    inputs: Annotated[
        list[str],
        typer.Argument(
            metavar="INPUT",
            help="Files, directories or globs of abstracts (.txt paragraphs, .jsonl, .csv); - for stdin.",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            show_default="out, or the --update folder",
            help="Output folder for graph.json, graph.graphml, graph.html and summary.json.",
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help="Input format: auto (by suffix), txt, jsonl or csv."),
    ] = "auto",
    field: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            metavar="FIELD=NAME",
            help="Map a field to your column, e.g. --field abstract=summary (repeatable).",
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first bad record instead of skipping it.")
    ] = False,
    max_chars: Annotated[
        int, typer.Option("--max-chars", help="Abstracts longer than this are bad records.")
    ] = 100_000,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            "-m",
            help="A spaCy pipeline directory or package to use instead of the shipped one.",
        ),
    ] = None,
    no_model: Annotated[
        bool,
        typer.Option("--rules-only", help="Skip the trained model; rules and gazetteers only."),
    ] = False,
    batch_size: Annotated[
        int, typer.Option("--batch-size", help="Abstracts per nlp.pipe batch.")
    ] = 64,
    related_k: Annotated[
        int,
        typer.Option(
            "--related-k", help="RELATED_TO edges kept per paper (its strongest neighbours)."
        ),
    ] = 10,
    html: Annotated[
        bool, typer.Option("--html/--no-html", help="Write the interactive graph.html page.")
    ] = True,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no summary table.")
    ] = False,
    json_summary: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object.")
    ] = False,
    neo4j_uri: Annotated[
        str | None,
        typer.Option(
            "--neo4j",
            help="Also push the graph to this Neo4j URI (as kg push; NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE apply).",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            show_default="the usable cores",
            help="Extraction processes (local engine) or Dask workers of a LocalCluster; the graph is the same with any number.",
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="local (worker processes on this machine) or dask (a Dask cluster; pip install 'kg[dask]').",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="--engine dask: address of a running scheduler, e.g. tcp://10.0.0.5:8786 (default: start a LocalCluster).",
        ),
    ] = None,
    update: Annotated[
        Path | None,
        typer.Option(
            "--update",
            help="A folder kg build wrote: add INPUTS to its papers, extracting only those it has not seen; written to --out (default: that folder).",
        ),
    ] = None,
) -> None:
    """Build the graph of INPUTS into OUT: graph.json (node-link), graph.graphml, graph.html, summary.json."""
    from extractors.parallel import usable_cores
    from graph_exports.outputs import write_build_outputs

    from .build import build
    from .corpus import parse_field_map

    if engine not in ("local", "dask"):
        raise KgError(f"--engine {engine!r} is not one of local, dask")
    if scheduler is not None and engine != "dask":
        raise KgError("--scheduler is for --engine dask")
    out = out if out is not None else update if update is not None else Path("out")
    fields = parse_field_map(field or [])
    nlp = _load_nlp(model, no_model)
    n_workers = workers if workers is not None else usable_cores()
    spool_dir = out if out.is_dir() else None  # the store is spooled beside its target: a rename

    def report(err: BadRecord) -> None:
        what = "note" if isinstance(err, RecordWarning) else "skipped"
        err_console.print(f"[yellow]{what}[/] {escape(str(err))}", highlight=False, soft_wrap=True)

    total = None if quiet else _count_lines_hint(inputs)
    if total is not None and update is not None:  # the earlier build's papers tick the bar too
        try:
            with (update / "extractions.jsonl").open("rb") as handle:
                total += max(0, sum(1 for _ in handle) - 1)
        except OSError:
            pass  # the build itself says what is wrong with the store
    progress = Progress(
        SpinnerColumn(),
        TextColumn("extracting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} abstracts/s"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=quiet,
    )
    with progress:
        task = progress.add_task("extract", total=total, rate="-")

        def tick(_paper, _mentions) -> None:
            progress.advance(task)
            elapsed = progress.tasks[0].elapsed or 0
            if elapsed:
                progress.update(task, rate=f"{progress.tasks[0].completed / elapsed:.0f}")

        if engine == "dask":
            from .dask_engine import PipelineSpec, dask_extractor

            spec = PipelineSpec(str(model) if model is not None else None, statistical=not no_model)
            with dask_extractor(
                nlp, spec=spec, scheduler=scheduler, workers=n_workers, batch_size=batch_size
            ) as extractor:
                result = build(
                    inputs,
                    nlp,
                    fmt=fmt,
                    fields=fields,
                    strict=strict,
                    max_chars=max_chars,
                    batch_size=batch_size,
                    related_k=related_k,
                    on_error=report,
                    on_paper=tick,
                    workers=n_workers,
                    update=update,
                    extractor=extractor,
                    spool_dir=spool_dir,
                )
        else:
            result = build(
                inputs,
                nlp,
                fmt=fmt,
                fields=fields,
                strict=strict,
                max_chars=max_chars,
                batch_size=batch_size,
                related_k=related_k,
                on_error=report,
                on_paper=tick,
                workers=n_workers,
                update=update,
                spool_dir=spool_dir,
            )
    # what the build made lives until the process ends: frozen, it is left out of the full
    # collection that the first allocations after a build would start (a scan of every object:
    # 2 s at 20,000 papers, with full collections held off during the build, kg.build)
    gc.freeze()
    graph, summary = result.graph, result.summary
    if summary.papers == 0:
        if not quiet and not json_summary:
            _print_summary(summary, out, html, wrote=False)
        raise KgError(
            f"no abstracts were read from the inputs; nothing written (the files in {out} are unchanged)"
        )
    write_build_outputs(
        graph,
        result.merges,
        summary.to_dict(),
        out,
        html=html,
        store=result.store,
        processes=n_workers,
    )
    if json_summary:
        typer.echo(json.dumps(summary.to_dict()))
    elif not quiet:
        _print_summary(summary, out, html)
    if neo4j_uri:
        stats = _push_graph(graph, neo4j_uri)
        if not quiet and not json_summary:
            err_console.print(
                f"pushed {stats.node_count:,} nodes and {stats.relationship_count:,} relationships "
                f"to {neo4j_uri} in {stats.seconds:.1f} s",
                highlight=False,
            )


def _print_summary(summary, out: Path, html: bool, *, wrote: bool = True) -> None:
    table = Table(title="kg build", show_header=False, box=None)
    table.add_row("papers", f"{summary.papers:,}")
    table.add_row("duplicates merged", f"{summary.duplicates:,}")
    table.add_row("records skipped", f"{summary.skipped:,}")
    if summary.warnings:
        table.add_row("notes", f"{summary.warnings:,} (records a rule changed, see above)")
    if summary.characters_removed:
        table.add_row(
            "characters removed",
            f"{summary.characters_removed:,} (control characters, lone surrogates)",
        )
    if summary.mentions_dropped:
        table.add_row(
            "mentions dropped", f"{summary.mentions_dropped:,} (longer than a name can be)"
        )
    mentions = ", ".join(f"{k} {v:,}" for k, v in summary.mentions_by_label.items())
    table.add_row("mentions", f"{summary.mentions:,} ({mentions})")
    generic = int((summary.resolution or {}).get("dropped_generic", 0))
    if generic:
        table.add_row(
            "mentions in the graph",
            f"{summary.mentions - generic:,} ({_count(generic, 'generic phrase')} "
            "got no entity; kg stats counts these)",
        )
    entities = ", ".join(f"{k} {v:,}" for k, v in summary.entities.items())
    table.add_row("entities", f"{sum(summary.entities.values()):,} ({entities})")
    table.add_row("edges", ", ".join(f"{k} {v:,}" for k, v in summary.edges.items()))
    if summary.results:
        table.add_row("results", f"{summary.results:,} numeric results stated (kg results GRAPH)")
    table.add_row("seconds", f"{summary.seconds:.2f} (extraction {summary.extract_seconds:.2f})")
    table.add_row("abstracts/s", f"{summary.abstracts_per_second:,.1f} ({summary.workers} workers)")
    if summary.reused:
        table.add_row("reused", f"{summary.reused:,} papers' mentions from the earlier build")
    files = ["graph.json", "graph.graphml", "merges.jsonl", "summary.json", "extractions.jsonl"] + (
        ["graph.html"] if html else []
    )
    if wrote:
        table.add_row("wrote", ", ".join(str(out / f) for f in files))
    console.print(table)


@app.command("stats")
def stats_cli(
    graph: Annotated[
        Path, typer.Argument(metavar="GRAPH", help="A graph.json written by kg build.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    top: Annotated[
        int, typer.Option("--top", help="Also list the N best-supported entities per label.")
    ] = 0,
) -> None:
    """Print the counts of a graph: papers, mentions, entities per label, edges per type."""
    from .graph import KnowledgeGraph

    g = KnowledgeGraph.load(graph)
    stats = g.stats()
    if top:
        stats["top"] = {
            label: [[g.nx.nodes[n]["name"], s] for n, s in g.top(label, n=top)]
            for label in ("Method", "Dataset", "Task", "Metric")
        }
    if as_json:
        typer.echo(json.dumps(stats))
        return
    table = Table(title=str(graph), show_header=False, box=None, title_justify="left")
    table.add_row("papers", f"{stats['papers']:,}")
    table.add_row("mentions in the graph", f"{stats['mentions']:,} (those linked to an entity)")
    table.add_section()
    table.add_row("[bold]entities by label[/]", f"{sum(stats['entities'].values()):,}")
    for label, count in stats["entities"].items():
        table.add_row(f"  {label}", f"{count:,}")
    table.add_section()
    table.add_row("[bold]edges by type[/]", f"{sum(stats['edges'].values()):,}")
    for rel, count in stats["edges"].items():
        table.add_row(f"  {rel}", f"{count:,}")
    console.print(table)
    for label, rows in stats.get("top", {}).items():
        console.print(
            f"[bold]{label}[/]: " + "; ".join(f"{escape(name)} ({s})" for name, s in rows),
            highlight=False,
        )


@app.command("results")
def results_cli(
    graph: Annotated[Path, typer.Argument(help="A graph.json written by kg build.")],
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Only results on this data set (name or alias).")
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option("--metric", help="Only results measured by this metric (name or alias)."),
    ] = None,
    task: Annotated[str | None, typer.Option("--task", help="Only results on this task.")] = None,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="score (comparable across papers), improvement, reduction, speedup, or all.",
        ),
    ] = "score",
    limit: Annotated[int, typer.Option("--limit", "-n", help="Rows to print (0: all).")] = 20,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one result each.")
    ] = False,
) -> None:
    """A leaderboard from the results papers state: ranked by value, with paper, method and the sentence."""
    from .graph import KnowledgeGraph
    from .results import display_value, leaderboard
    from .schema import RESULT_KINDS

    if kind != "all" and kind not in RESULT_KINDS:
        raise KgError(f"--kind {kind!r} is not one of {', '.join(RESULT_KINDS)}, all")
    g = KnowledgeGraph.load(graph)
    rows = leaderboard(
        g.nx, dataset=dataset, metric=metric, task=task, kind=None if kind == "all" else kind
    )
    shown = rows[:limit] if limit > 0 else rows
    if as_json:
        for row in shown:
            typer.echo(json.dumps(row.to_dict(), ensure_ascii=False))
        return
    if not rows:
        total = g.stats().get("results", 0)
        err_console.print(
            f"no {'' if kind == 'all' else kind + ' '}results match (the graph has {total:,} results in all)",
            highlight=False,
        )
        return
    title = " ".join(
        part
        for part in (
            "results",
            f"on {dataset}" if dataset else "",
            f"by {metric}" if metric else "",
            f"for {task}" if task else "",
        )
        if part
    )
    table = Table(title=f"{title} ({len(rows):,}, best first)", show_lines=False)
    for column in ("#", "value", "metric", "dataset", "method", "paper", "evidence"):
        table.add_column(column, overflow="fold")
    for i, row in enumerate(shown, start=1):
        value = display_value(row.value, row.unit)
        if row.kind != "score":
            value = f"{row.kind} {value}" + (f" over {row.baseline}" if row.baseline else "")
        if row.qualifier:
            value = f"{row.qualifier} {value}"
        table.add_row(
            str(i),
            escape(value),
            escape(row.metric),
            escape(row.dataset or "-"),
            escape(row.method or "-"),
            escape(row.paper_name[:60]),
            escape(row.sentence),
        )
    console.print(table)


@app.command("trends")
def trends_cli(
    graph: Annotated[
        Path, typer.Argument(help="A graph.json written by kg build from a corpus with years.")
    ],
    label: Annotated[
        str | None,
        typer.Option("--label", "-l", help="Only this label: Method, Dataset, Task or Metric."),
    ] = None,
    since: Annotated[int | None, typer.Option("--since", help="First year of the window.")] = None,
    until: Annotated[int | None, typer.Option("--until", help="Last year of the window.")] = None,
    top: Annotated[
        int, typer.Option("--top", "-n", help="Rising and fading entities listed per label.")
    ] = 10,
    min_papers: Annotated[
        int, typer.Option("--min-papers", help="Leave out entities in fewer papers of the window.")
    ] = 5,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object: every entity's course and the year totals."
        ),
    ] = False,
) -> None:
    """Which entities rise and fade: papers per year normalised by the year's paper count, first year, rise."""
    from .graph import KnowledgeGraph
    from .trends import ENTITY_KINDS, trends, year_totals

    if label is not None:
        matches = [k for k in ENTITY_KINDS if k.lower() == label.lower()]
        if not matches:
            raise KgError(f"--label {label!r} is not one of {', '.join(ENTITY_KINDS)}")
        label = matches[0]
    g = KnowledgeGraph.load(graph)
    try:
        found = trends(g.nx, label=label, since=since, until=until, min_papers=min_papers)
    except ValueError as exc:
        raise KgError(f"{graph}: {exc}") from None
    totals = {
        y: c
        for y, c in year_totals(g.nx).items()
        if (since is None or y >= since) and (until is None or y <= until)
    }
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "papers_by_year": {str(y): c for y, c in totals.items()},
                    "entities": [t.to_dict() for t in found],
                },
                ensure_ascii=False,
            )
        )
        return
    console.print(
        "papers per year: " + ", ".join(f"{y} {c:,}" for y, c in totals.items()), highlight=False
    )
    for kind in [label] if label else ENTITY_KINDS:
        rows = [t for t in found if t.label == kind]
        if not rows:
            continue
        for title, chosen in (
            ("rising", rows[:top]),
            ("fading", [t for t in reversed(rows) if t.rise < 0][:top]),
        ):
            if not chosen:
                continue
            table = Table(title=f"{kind}: {title} (share of the year's papers, %)", box=None)
            for column in ("name", "first", "papers", "rise/yr", "share by year"):
                table.add_column(column)
            for t in chosen:
                shares = " ".join(f"{str(y)[-2:]}:{s:.1f}" for y, s in t.shares.items())
                table.add_row(
                    escape(t.name), str(t.first_year), str(t.papers), f"{t.rise:+.2f}", shares
                )
            console.print(table)


@app.command("explain")
def explain_cli(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="An entity name, alias or node id, e.g. LLMs.")
    ],
    graph: Annotated[
        Path,
        typer.Option(
            "--graph", "-g", help="graph.json written by kg build; merges.jsonl is read beside it."
        ),
    ] = Path("out/graph.json"),
    label: Annotated[
        str | None,
        typer.Option(
            "--label", "-l", help="Only entities of this label (Method, Dataset, Task, Metric)."
        ),
    ] = None,
) -> None:
    """Show which surface forms became an entity and why (acronym definitions, votes, gazetteer, variants)."""
    from .graph import KnowledgeGraph

    g = KnowledgeGraph.load(graph)
    node = g.find(name, label=label)
    data = g.nx.nodes[node]
    console.print(
        f"[bold]{escape(data['name'])}[/] ({data['label']}, {escape(node)}), {_count(data.get('support', 0), 'paper')}",
        highlight=False,
    )
    merges_path = graph.parent / "merges.jsonl"
    rows = {}
    if merges_path.exists():
        with merges_path.open(encoding="utf-8") as handle:
            rows = {row["entity"]: row for row in map(json.loads, handle)}
    row = rows.get(node)
    if row is None:
        aliases = ", ".join(data.get("aliases", [])) or data["name"]
        console.print(
            f"  one surface form ({escape(aliases)}); nothing was merged", highlight=False
        )
        return
    for form in row["forms"]:
        console.print(
            f"  [cyan]{escape(form['form'])}[/]: " + escape(" | ".join(form["reasons"])),
            highlight=False,
        )


@app.command("export")
def export_cli(
    graph: Annotated[
        Path, typer.Argument(metavar="GRAPH", help="A graph.json written by kg build.")
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="graphml, json, gexf (Gephi, with years for its timeline), vosviewer (VOSviewer map and network JSON), or neo4j-csv (a folder of neo4j-admin import files).",
        ),
    ] = "graphml",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            show_default=False,
            help="Output file (or folder for folder formats); required, so nothing lands in the current folder unasked.",
        ),
    ] = None,
) -> None:
    """Write a graph in another format."""
    from graph_exports.files import write_graphml, write_json
    from graph_exports.gexf import write_gexf
    from graph_exports.vosviewer import write_vosviewer

    from .graph import KnowledgeGraph

    if out is None:
        raise KgError(
            "kg export needs --out PATH (-o): the file, or for neo4j-csv the folder, to write"
        )
    g = KnowledgeGraph.load(graph)
    writers: dict[str, Callable[[KnowledgeGraph, Path], Path]] = {
        "graphml": write_graphml,
        "json": write_json,
        "gexf": write_gexf,
        "vosviewer": write_vosviewer,
        "neo4j-csv": _write_neo4j_csv,
    }
    if fmt not in writers:
        raise KgError(f"--format {fmt!r} is not supported; use one of {', '.join(writers)}")
    path = writers[fmt](g, out)
    typer.echo(str(path))


def _write_neo4j_csv(g, out: Path) -> Path:
    from graph_exports.neo4j_csv import write_neo4j_csv

    files = write_neo4j_csv(g, out)
    err_console.print(
        f"{files.node_count:,} nodes, {files.relationship_count:,} relationships; load with: "
        f"neo4j-admin database import full @{out / 'import.args'} DATABASE",
        highlight=False,
        soft_wrap=True,
    )
    return out


def _push_graph(graph, uri: str):
    """``kg build --neo4j``: push with the environment's credentials and database."""
    import os

    from graph_exports.neo4j import open_driver, push

    with open_driver(
        uri, os.environ.get("NEO4J_USERNAME"), os.environ.get("NEO4J_PASSWORD") or None
    ) as driver:
        return push(graph, driver, database=os.environ.get("NEO4J_DATABASE") or None)


@app.command("push")
def push_cli(
    graph: Annotated[
        Path | None,
        typer.Argument(
            metavar="GRAPH", help="A graph.json written by kg build (optional with --remove-paper)."
        ),
    ] = None,
    uri: Annotated[
        str, typer.Option("--uri", envvar="NEO4J_URI", help="Bolt URI of the server.")
    ] = "bolt://127.0.0.1:7687",
    user: Annotated[
        str, typer.Option("--user", "-u", envvar="NEO4J_USERNAME", help="User name.")
    ] = "neo4j",
    password: Annotated[
        str | None,
        typer.Option(
            "--password",
            "-p",
            envvar="NEO4J_PASSWORD",
            show_default=False,
            help="Password; leave unset for a server without authentication.",
        ),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            "-d",
            envvar="NEO4J_DATABASE",
            help="Database (default: the server's default).",
        ),
    ] = None,
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, help="Rows per transaction.")
    ] = 1000,
    remove_paper: Annotated[
        list[str] | None,
        typer.Option(
            "--remove-paper",
            metavar="ID",
            help="Remove this paper and what only it supported (repeatable).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the push statistics as one JSON object.")
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks instead of one-line errors.")
    ] = False,
) -> None:
    """Load GRAPH into Neo4j (schema, then batched MERGE; safe to repeat), or remove papers from it."""
    from graph_exports.neo4j import open_driver, push
    from graph_exports.neo4j import remove_paper as remove

    from .graph import KnowledgeGraph

    _state["debug"] = _state["debug"] or debug
    if graph is None and not remove_paper:
        raise KgError("give a GRAPH to push, or --remove-paper ID")
    g = KnowledgeGraph.load(graph) if graph is not None else None
    with open_driver(uri, user, password or None) as driver:
        for paper_id in remove_paper or []:
            removed = remove(driver, paper_id, database=database)
            if removed.papers:
                err_console.print(
                    f"removed {escape(paper_id)}: {removed.entities:,} entities and {removed.relationships:,} "
                    "entity relationships only it supported",
                    highlight=False,
                )
            else:
                err_console.print(
                    f"{escape(paper_id)}: no such paper in the database; nothing removed",
                    highlight=False,
                )
        if g is None:
            return
        stats = push(g, driver, database=database, batch_size=batch_size)
    if as_json:
        typer.echo(json.dumps(stats.to_dict()))
        return
    console.print(
        f"pushed {stats.node_count:,} nodes and {stats.relationship_count:,} relationships to {uri}"
        f"{' (' + database + ')' if database else ''} in {stats.seconds:.1f} s "
        f"({stats.relationships_per_second:,.0f} relationships/s; {stats.nodes_created:,} nodes and "
        f"{stats.relationships_created:,} relationships new)",
        highlight=False,
    )


@app.command("html")
def html_cli(
    graph: Annotated[
        Path, typer.Argument(metavar="GRAPH", help="A graph.json written by kg build.")
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The page to write (must end in .html).")
    ] = Path("graph.html"),
    view: Annotated[
        str, typer.Option("--view", help="knowledge (papers and entities) or papers (paper map).")
    ] = "knowledge",
    focus: Annotated[
        str | None,
        typer.Option(
            "--focus", help="Show only the neighbourhood of this node (id, name or alias)."
        ),
    ] = None,
    radius: Annotated[int, typer.Option("--radius", help="Hops around --focus.")] = 1,
    labels: Annotated[
        list[str] | None,
        typer.Option(
            "--labels",
            metavar="LABEL[,LABEL]",
            help="Node labels to keep (repeat, or comma-separate).",
        ),
    ] = None,
    min_support: Annotated[
        int, typer.Option("--min-support", help="Leave out entities found in fewer papers.")
    ] = 1,
    year_from: Annotated[
        int | None, typer.Option("--year-from", help="Leave out papers before this year.")
    ] = None,
    year_to: Annotated[
        int | None, typer.Option("--year-to", help="Leave out papers after this year.")
    ] = None,
    max_nodes: Annotated[
        int | None,
        typer.Option(
            "--max-nodes",
            help="Keep N nodes: papers and entities in their shares, the most supported of each; the page lists what was left out.",
        ),
    ] = None,
    size_by: Annotated[str, typer.Option("--size-by", help="degree or support.")] = "degree",
    paper: Annotated[
        str | None,
        typer.Option(
            "--paper",
            help="The paper map of this paper (id, title or name): it and its most related papers, opened on the map.",
        ),
    ] = None,
    map_size: Annotated[
        int, typer.Option("--map-size", help="Related papers on a paper map (1-50).")
    ] = 30,
    overview: Annotated[
        bool | None,
        typer.Option(
            "--overview/--no-overview",
            help="Open on the communities, named by their distinctive entities (default: above 3,000 nodes).",
        ),
    ] = None,
) -> None:
    """Write the interactive HTML page of a graph: one file that opens offline."""
    from graph_exports.html import PageOptions, write_html

    from .graph import KnowledgeGraph

    g = KnowledgeGraph.load(graph)
    keep = [
        part.strip() for item in labels or [] for part in item.split(",") if part.strip()
    ] or None
    years = (year_from, year_to) if year_from is not None or year_to is not None else None
    options = PageOptions(
        view=view,
        focus=focus,
        radius=radius,
        labels=keep,
        min_support=min_support,
        years=years,
        max_nodes=max_nodes,
        size_by=size_by,
        paper=paper,
        map_size=map_size,
        overview=overview,
    )
    path = write_html(g, out, options)
    typer.echo(str(path))


def _sniff_gold_format(path: Path) -> str:
    """scierc, conll or annotations, from the file's first non-blank line."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
    except (OSError, UnicodeDecodeError) as exc:
        raise KgError(f"{path}: cannot read gold file ({exc})") from None
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return "conll"
    if isinstance(record, dict) and "entities" in record and "text" in record:
        return "annotations"
    return "scierc"


@app.command("eval")
def eval_command(
    gold: Annotated[
        list[Path],
        typer.Argument(
            metavar="GOLD",
            help="Gold files: kg annotations (JSON lines with text and entities), SciERC JSON lines or CoNLL (token ... BIO-tag).",
            exists=True,
            dir_okay=True,
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help="auto (from the file), annotations, scierc or conll."),
    ] = "auto",
    save_predictions: Annotated[
        Path | None,
        typer.Option(
            "--save-predictions",
            "-s",
            help="Write the predictions as JSON lines (annotations: each paper's false positives and misses).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
    model: Annotated[
        Path | None,
        typer.Option("--model", "-m", help="A spaCy pipeline instead of the shipped one."),
    ] = None,
    graph: Annotated[
        Path | None,
        typer.Option(
            "--graph",
            "-g",
            help="Annotations only: score this built graph.json (papers by id) instead of building one.",
        ),
    ] = None,
    no_model: Annotated[
        bool,
        typer.Option(
            "--rules-only", help="Annotations only: build with rules and gazetteers alone."
        ),
    ] = False,
    resolution: Annotated[
        bool,
        typer.Option(
            "--resolution",
            help="Score within-document resolution against the gold coreference clusters instead (SciERC).",
        ),
    ] = False,
) -> None:
    """Score the extractor on gold files.

    Annotations (data/annotations/*.jsonl): the graph built from the gold abstracts with the whole
    pipeline is scored paper by paper, per label, with PROPOSES precision and recall, and mention by
    mention. SciERC and CoNLL: the statistical model alone on the gold tokens, exact span and label.
    """
    from .gold import FORMATS

    if fmt == "auto":
        fmt = "annotations" if gold[0].is_dir() else _sniff_gold_format(gold[0])
    if fmt == "annotations":
        _eval_annotations(gold, model, no_model, graph, save_predictions, as_json)
        return
    if fmt not in FORMATS:
        raise KgError(
            f"--format {fmt!r} is not supported; use auto, annotations or one of {', '.join(FORMATS)}"
        )
    if len(gold) != 1 or gold[0].is_dir():
        raise KgError(f"--format {fmt} scores one gold file; got {', '.join(map(str, gold))}")
    if resolution:
        if fmt != "scierc":
            raise KgError(
                "--resolution needs coreference clusters: use a SciERC file with --format scierc"
            )
        from extractors.pipeline import load_pipeline

        from .resolution_eval import evaluate_resolution
        from .tables import render_resolution_table

        result = evaluate_resolution(str(gold[0]), load_pipeline(str(model) if model else None))
        if as_json:
            typer.echo(json.dumps(result))
        else:
            console.print(render_resolution_table(result))
        return
    from .evaluation import evaluate_model
    from .tables import render_relations_table, render_table

    result = evaluate_model(
        gold[0], fmt, save_predictions=save_predictions, model=str(model) if model else None
    )
    if as_json:
        typer.echo(json.dumps(result))
        return
    console.print(render_table(result))
    if result.get("relations"):
        console.print(render_relations_table(result))


def _eval_annotations(
    gold: list[Path],
    model: Path | None,
    no_model: bool,
    graph: Path | None,
    save_predictions: Path | None,
    as_json: bool,
) -> None:
    from .annotations import AnnotationError, load
    from .paper_eval import evaluate_annotations, score_graph
    from .tables import prf_table

    try:
        if graph is not None:
            from .graph import KnowledgeGraph

            result: dict[str, Any] = {
                "gold": [str(p) for p in gold],
                "format": "annotations",
                "graph": str(graph),
                "paper": score_graph(
                    KnowledgeGraph.load(graph), load(gold), keep_errors=save_predictions is not None
                ),
            }
            result["docs"] = result["paper"]["papers"]
        else:
            result = evaluate_annotations(
                gold, _load_nlp(model, no_model), keep_errors=save_predictions is not None
            )
    except AnnotationError as exc:
        raise KgError(str(exc)) from None
    errors = result["paper"].pop("errors", None)
    if save_predictions is not None and errors is not None:
        from .atomic import write_text

        write_text(
            save_predictions, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in errors)
        )
    if as_json:
        typer.echo(json.dumps(result))
        return
    paper = result["paper"]
    title = (
        f"{', '.join(result['gold'])}: {_count(result['docs'], 'paper')}, (paper, label, entity)"
    )
    console.print(
        prf_table(
            title,
            ["label"],
            [*(((k,), v) for k, v in paper["per_type"].items()), (("micro",), paper)],
        )
    )
    roles = paper["proposes"]
    console.print(
        f"PROPOSES on matched methods and data sets: precision {100 * roles['precision']:.1f}, "
        f"recall {100 * roles['recall']:.1f} (tp {roles['tp']}, fp {roles['fp']}, fn {roles['fn']}); "
        f"{roles['predicted']} marked proposed in all, {100 * roles['precision_all']:.1f}% of them right"
    )
    if "spans" in result:
        spans = result["spans"]
        console.print(
            prf_table(
                "mentions (exact span and label)",
                ["label"],
                [*(((k,), v) for k, v in spans["per_type"].items()), (("micro",), spans)],
            )
        )


train_app = typer.Typer(
    help="Rebuild the trained models that ship in extractors/models: with no subcommand, the NER "
    "(tok2vec + ner) with its role model and relation cut-offs; `kg train relations` and "
    "`kg train roles` retrain the other two alone.",
    invoke_without_command=True,
    no_args_is_help=False,
)
app.add_typer(train_app, name="train")


def _need_scikit_learn(command: str) -> None:
    """The role and relation models are fitted with scikit-learn (the train extra)."""
    import importlib.util

    if importlib.util.find_spec("sklearn") is None:
        raise KgError(f'{command} needs scikit-learn: pip install -e ".[train]"')


def _show_training_progress() -> None:
    """Training reports its steps through logging (extractors.*); show them on stderr."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    for name in ("extractors", "kg"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        if not logger.handlers:
            logger.addHandler(handler)


@train_app.callback()
def train_command(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the pipeline (default: the shipped extractors/models/sci_ner).",
        ),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="The shared data folder (default: $KG_SHARED_DATA or shared/data beside the repository).",
        ),
    ] = None,
    work_dir: Annotated[
        Path | None,
        typer.Option(
            "--work-dir",
            help="Keep corpora, vectors, pretrained weights and checkpoints here (default: a temporary folder).",
        ),
    ] = None,
    vectors: Annotated[
        Path | None,
        typer.Option(
            "--vectors",
            help="A vectors pipeline from an earlier run (WORK/vectors/pipeline): skip training vectors.",
        ),
    ] = None,
    pretrain: Annotated[
        bool,
        typer.Option(
            "--pretrain",
            help="Pretrain the tok2vec on 20,000 in-domain abstracts first (spacy pretrain, one epoch, about 18 minutes); not in the shipped recipe.",
        ),
    ] = False,
    pretrained: Annotated[
        Path | None,
        typer.Option(
            "--pretrained",
            help="Start from pretrained tok2vec weights of an earlier run (WORK/pretrain/model-last.bin).",
        ),
    ] = None,
    crossval: Annotated[
        int,
        typer.Option(
            "--crossval",
            metavar="K",
            help="Instead of training the shipped model, k-fold the SciERC recipe on TDMSci train and print its TDMSci figure.",
        ),
    ] = 0,
    folds: Annotated[
        str | None,
        typer.Option("--folds", help="With --crossval: only these folds, e.g. 0 or 0,2."),
    ] = None,
    annotations: Annotated[
        list[Path] | None,
        typer.Option(
            "--annotations",
            "-a",
            metavar="FILE",
            help="Your own annotated abstracts (kg's JSON-lines format, see data/annotations/README.md), added to the shipped training split (repeatable).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    dev: Annotated[
        list[Path] | None,
        typer.Option(
            "--dev",
            metavar="FILE",
            help="Annotated files to choose checkpoints and thresholds on instead of data/annotations/dev.jsonl (repeatable).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    scierc_recipe: Annotated[
        bool,
        typer.Option(
            "--scierc-recipe",
            help="The older recipe without annotations: SciERC's six labels plus DATASET.",
        ),
    ] = False,
    first_round: Annotated[
        bool,
        typer.Option(
            "--first-round",
            help="The first round's SciERC recipe (SciERC once, its data-set names as DATASET).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="system.seed of every training step.")] = 0,
    steps: Annotated[
        int | None,
        typer.Option(
            "--steps", help="Training steps of the final model (default: the recipe's).", min=100
        ),
    ] = None,
) -> None:
    """Rebuild the trained extractor from the annotations in data/annotations and the shared data,
    with the committed config and fixed seeds; then its role model and relation cut-offs."""
    if ctx.invoked_subcommand is not None:
        return
    from extractors.train import MODEL_DIR, train_recipe

    try:
        only = [int(k) for k in folds.split(",")] if folds else None
    except ValueError:
        raise KgError(
            f"--folds {folds!r}: give fold numbers separated by commas, e.g. 0,2"
        ) from None
    _show_training_progress()
    result = train_recipe(
        output or MODEL_DIR,
        data,
        work_dir,
        vectors=vectors,
        pretrain=pretrained or pretrain,
        crossval=crossval,
        folds=only,
        first_round=first_round,
        scierc_recipe=scierc_recipe,
        annotations=annotations,
        dev=dev,
        seed=seed,
        steps=steps,
    )
    typer.echo(json.dumps(result, indent=2, default=str))


@train_app.command("relations")
def train_relations_command(
    ner: Annotated[
        Path | None,
        typer.Option(
            "--ner",
            help="The NER pipeline whose spans the classifier is tuned for and scored with end to end; its kg.json gets the cut-offs (default: the shipped one).",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where the classifier goes (default: the shipped extractors/models/relations).",
        ),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="The shared data folder (default: $KG_SHARED_DATA or shared/data beside the repository).",
        ),
    ] = None,
    train_spans: Annotated[
        str,
        typer.Option(
            "--train-spans",
            help="Spans of SciERC train that make the candidate pairs: gold, ner or both.",
        ),
    ] = "gold",
    tune_on: Annotated[
        str,
        typer.Option(
            "--tune-on",
            help="Tune the decision rule on cv-ner, cv-gold (out of fold on train), dev-ner or dev-gold.",
        ),
    ] = "cv-ner",
    folds: Annotated[
        int, typer.Option("--folds", min=2, help="Folds of the cross-validation on train.")
    ] = 5,
    label_bias: Annotated[
        bool,
        typer.Option(
            "--label-bias",
            help="Tune one bias per relation label besides the NONE margin (it overfits the CV proxy).",
        ),
    ] = False,
    c: Annotated[
        float, typer.Option("--c", help="Inverse L2 strength of the logistic regression.")
    ] = 1.0,
    min_count: Annotated[
        int, typer.Option("--min-count", help="Features seen fewer times are dropped.")
    ] = 2,
    min_precision: Annotated[
        float,
        typer.Option(
            "--min-precision",
            help="Choose the graph's relation cut-offs for this precision on SciERC dev, end to end.",
        ),
    ] = 0.7,
    cutoffs_only: Annotated[
        bool,
        typer.Option(
            "--cutoffs-only",
            help="No training: only choose the cut-offs of the classifier in --output for --ner.",
        ),
    ] = False,
) -> None:
    """Retrain the relation classifier on SciERC (needs scikit-learn) and choose its cut-offs."""
    choices = {
        "--train-spans": (train_spans, ("gold", "ner", "both")),
        "--tune-on": (tune_on, ("cv-ner", "cv-gold", "dev-ner", "dev-gold")),
    }
    for option, (value, allowed) in choices.items():
        if value not in allowed:
            raise KgError(f"{option} {value!r} is not supported; use one of {', '.join(allowed)}")
    from extractors.relations import MODEL_DIR
    from extractors.relations_train import retrain_relations

    if not cutoffs_only:
        _need_scikit_learn("kg train relations")
    _show_training_progress()
    result = retrain_relations(
        ner,
        output or MODEL_DIR,
        data,
        train_spans=train_spans,
        tune_on=tune_on,
        folds=folds,
        label_bias=label_bias,
        c=c,
        min_count=min_count,
        min_precision=min_precision,
        cutoffs_only=cutoffs_only,
    )
    typer.echo(json.dumps(result, default=str))


@train_app.command("roles")
def train_roles_command(
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            "-m",
            help="The pipeline whose role model is refitted (roles.json and kg.json in it; default: the shipped one).",
        ),
    ] = None,
    annotations: Annotated[
        list[Path] | None,
        typer.Option(
            "--annotations",
            "-a",
            metavar="FILE",
            help="Annotated abstracts added to data/annotations/train.jsonl (repeatable).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    dev: Annotated[
        list[Path] | None,
        typer.Option(
            "--dev",
            metavar="FILE",
            help="Annotated files to choose the threshold on instead of data/annotations/dev.jsonl (repeatable).",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    min_precision: Annotated[
        float,
        typer.Option(
            "--min-precision",
            help="PROPOSES precision the threshold is chosen for on the dev files.",
        ),
    ] = 0.9,
) -> None:
    """Refit the role model (which methods and data sets a paper proposes) of a trained pipeline."""
    from extractors.pipeline import shipped_model_path
    from extractors.train import ANNOTATIONS, finish_roles

    from .annotations import load

    target = model or shipped_model_path()
    if target is None:
        raise KgError("no trained pipeline is shipped in extractors/models/sci_ner; pass --model")
    train_files = [ANNOTATIONS / "train.jsonl", *(annotations or [])]
    dev_files = list(dev or [ANNOTATIONS / "dev.jsonl"])
    load(train_files + dev_files)  # a bad line is reported before the pipeline reads anything
    _need_scikit_learn("kg train roles")
    _show_training_progress()
    result = finish_roles(Path(target), train_files, dev_files, min_precision=min_precision)
    typer.echo(json.dumps(result, default=str))


if __name__ == "__main__":  # pragma: no cover
    main()
