"""Every Cypher statement kg sends to Neo4j, in one place.

Values always travel as parameters (``$rows``, ``$ids``, ``$paper``). Labels and relationship types
cannot be parameters in Cypher, so the builders below take them only from the schema's allow-lists
(:data:`kg.schema.NODE_LABELS`, :data:`kg.schema.RELATION_TYPES`) and raise ``ValueError`` for anything
else: no text from an abstract ever reaches a query string.
"""

from __future__ import annotations

from kg.schema import ENTITY, ENTITY_NODE_LABELS, NODE_LABELS, RELATION_TYPES, RESULT_LABEL

__all__ = [
    "ENTITY_LABEL",
    "ENTITY_LABELS",
    "PAPER_RELATION_TYPES",
    "FULLTEXT_INDEX",
    "schema_statements",
    "merge_paper_nodes",
    "merge_entity_nodes",
    "merge_relationships",
    "merge_entity_relationships",
    "PRUNE_PAPER_EDGES",
    "RECOMPUTE_ENTITY_SUPPORT",
    "DELETE_ORPHAN_ENTITIES",
    "REMOVE_PAPER",
    "FIND_PAPERS",
    "MERGE_RESULT_NODES",
    "DELETE_ORPHAN_RESULTS",
    "REMOVE_PAPER_RESULTS",
    "COUNT_NODES",
    "COUNT_RELATIONSHIPS",
]

#: Extra label every entity node carries, so one index and one query cover all four kinds.
ENTITY_LABEL = ENTITY
ENTITY_LABELS: tuple[str, ...] = ENTITY_NODE_LABELS
#: Paper -> entity relationship types: they decide an entity's support.
PAPER_RELATION_TYPES: tuple[str, ...] = ("PROPOSES", "USES", "EVALUATES_ON", "ADDRESSES", "REPORTS")
#: Name of the full-text index over entity names and aliases.
FULLTEXT_INDEX = "entity_names"


def _label(label: str) -> str:
    if label not in NODE_LABELS and label not in (ENTITY_LABEL, RESULT_LABEL):
        raise ValueError(f"node label {label!r} is not in the schema ({', '.join(NODE_LABELS)})")
    return label


def _rel_type(rel_type: str) -> str:
    if rel_type not in RELATION_TYPES:
        raise ValueError(
            f"relationship type {rel_type!r} is not in the schema ({', '.join(RELATION_TYPES)})"
        )
    return rel_type


def schema_statements() -> list[str]:
    """Constraints (one unique ``id`` per label, which also gives each label its index) and the
    full-text index over entity ``name`` and ``aliases``; every statement is ``IF NOT EXISTS``."""
    statements = [
        f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{_label(label)}) REQUIRE n.id IS UNIQUE"
        for label in (*NODE_LABELS, ENTITY_LABEL, RESULT_LABEL)
    ]
    statements.append(
        f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:{ENTITY_LABEL}) ON EACH [n.name, n.aliases]"
    )
    return statements


def merge_paper_nodes() -> str:
    """Papers: the pushed graph is the truth about its papers, so their properties are replaced."""
    return "UNWIND $rows AS row\nMERGE (n:Paper {id: row.id})\nSET n = row.props"


def merge_entity_nodes(label: str) -> str:
    """Entities of one label: properties are set, aliases are the sorted union of old and new (so a
    second corpus adds its surface forms, in whichever order they came); ``name``, ``support`` and
    ``mention_count`` are recomputed afterwards (:data:`RECOMPUTE_ENTITY_SUPPORT`)."""
    return (
        "UNWIND $rows AS row\n"
        f"MERGE (n:{_label(label)} {{id: row.id}})\n"
        f"SET n:{ENTITY_LABEL}, n += row.props\n"
        "WITH n, row\n"
        "CALL (n, row) {\n"
        "    UNWIND row.aliases + coalesce(n.aliases, []) AS alias\n"
        "    WITH DISTINCT alias ORDER BY alias\n"
        "    RETURN collect(alias) AS aliases\n"
        "}\n"
        "SET n.aliases = aliases"
    )


def merge_relationships(rel_type: str, start_label: str, end_label: str) -> str:
    """Paper -> entity and paper -> paper relationships: replaced, since one paper's graph holds all
    of their evidence."""
    return (
        "UNWIND $rows AS row\n"
        f"MATCH (a:{_label(start_label)} {{id: row.start}})\n"
        f"MATCH (b:{_label(end_label)} {{id: row.end}})\n"
        f"MERGE (a)-[r:{_rel_type(rel_type)}]->(b)\n"
        "SET r = row.props"
    )


def merge_entity_relationships(rel_type: str, start_label: str, end_label: str) -> str:
    """Entity -> entity relationships, which several corpora may support. Each paper's share is kept
    apart: ``papers`` with ``paper_counts`` and ``paper_weights`` (parallel lists), and the evidence
    (``evidence``, ``evidence_papers``, ``sentences``). A push replaces its papers' shares and keeps
    the others; every list is sorted by paper, ``count`` is the sum of the counts, ``weight`` the
    largest weight and ``support`` the number of papers, so the result depends on what was pushed,
    never on the order."""
    return (
        "UNWIND $rows AS row\n"
        f"MATCH (a:{_label(start_label)} {{id: row.start}})\n"
        f"MATCH (b:{_label(end_label)} {{id: row.end}})\n"
        f"MERGE (a)-[r:{_rel_type(rel_type)}]->(b)\n"
        "WITH r, row, coalesce(r.papers, []) AS old_papers, coalesce(r.paper_counts, []) AS old_counts,\n"
        "     coalesce(r.paper_weights, []) AS old_weights, coalesce(r.evidence, []) AS old_evidence,\n"
        "     coalesce(r.evidence_papers, []) AS old_evidence_papers, coalesce(r.sentences, []) AS old_sentences\n"
        "CALL (r, row, old_papers, old_counts, old_weights) {\n"
        "    UNWIND [i IN range(0, size(old_papers) - 1) WHERE NOT old_papers[i] IN row.papers |\n"
        "            [old_papers[i], coalesce(old_counts[i], 0), toFloat(coalesce(old_weights[i], r.weight, 0.0))]]\n"
        "         + [i IN range(0, size(row.papers) - 1) | [row.papers[i], row.paper_counts[i], row.paper_weights[i]]]\n"
        "         AS share\n"
        "    WITH share ORDER BY share[0]\n"
        "    RETURN collect(share[0]) AS papers, collect(share[1]) AS counts, collect(share[2]) AS weights\n"
        "}\n"
        "CALL (row, old_evidence, old_evidence_papers, old_sentences) {\n"
        "    UNWIND [i IN range(0, size(old_evidence) - 1) WHERE NOT old_evidence_papers[i] IN row.papers |\n"
        "            [old_evidence_papers[i], old_evidence[i], old_sentences[i]]]\n"
        "         + [i IN range(0, size(row.evidence) - 1) | [row.evidence_papers[i], row.evidence[i], row.sentences[i]]]\n"
        "         AS item\n"
        "    WITH item ORDER BY item[0], item[1]\n"
        "    RETURN collect(item[0]) AS evidence_papers, collect(item[1]) AS evidence, collect(item[2]) AS sentences\n"
        "}\n"
        "SET r += row.props,\n"
        "    r.papers = papers, r.paper_counts = counts, r.paper_weights = weights,\n"
        "    r.count = reduce(total = 0, c IN counts | total + c),\n"
        "    r.weight = reduce(top = 0.0, w IN weights | CASE WHEN w > top THEN w ELSE top END),\n"
        "    r.support = size(papers),\n"
        "    r.evidence = evidence, r.evidence_papers = evidence_papers, r.sentences = sentences,\n"
        "    r.evidence_count = size(evidence)"
    )


#: Results: the pushed graph is the truth about its papers' results, so their properties are
#: replaced and their links to entities dropped (the relationship phase adds the current ones).
MERGE_RESULT_NODES = f"""\
UNWIND $rows AS row
MERGE (n:{RESULT_LABEL} {{id: row.id}})
SET n = row.props
WITH n
OPTIONAL MATCH (n)-[old]->()
DELETE old"""

#: Results among ``$ids`` that no paper reports any more (a re-pushed paper with fewer results).
DELETE_ORPHAN_RESULTS = f"""\
UNWIND $ids AS id
MATCH (r:{RESULT_LABEL} {{id: id}})
WHERE NOT EXISTS {{ MATCH (:Paper)-[:REPORTS_RESULT]->(r) }}
DETACH DELETE r"""

#: ``kg push --remove-paper``: the paper's results go with it.
REMOVE_PAPER_RESULTS = f"""\
MATCH (:Paper {{id: $paper}})-[:REPORTS_RESULT]->(r:{RESULT_LABEL})
DETACH DELETE r"""

#: After a push, a re-pushed paper loses the outgoing relationships its new graph no longer has
#: (``row.keep`` holds ``"TYPE|target id"``); returns the targets, whose support may have changed.
PRUNE_PAPER_EDGES = """\
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[r]->(x)
WHERE NOT (type(r) + '|' + x.id) IN row.keep
WITH r, x.id AS target
DELETE r
RETURN collect(DISTINCT target) AS targets"""

#: ``support`` = distinct papers linked to the entity, ``mention_count`` = their mentions of it,
#: ``name`` = the name most of those papers' graphs gave it (``entity_name`` on each paper's
#: relationship), ties broken by string order: a rule of the database's papers, not of push order.
#: ``first_year``, ``papers_by_year`` (the JSON ``{"2019": 3, ...}`` kg.trends writes) and
#: ``mean_year`` are counted the same way, over the database's dated papers, so two corpora pushed
#: one after the other give what one build of both would (none when no paper is dated).
RECOMPUTE_ENTITY_SUPPORT = f"""\
UNWIND $ids AS id
MATCH (e:{ENTITY_LABEL} {{id: id}})
OPTIONAL MATCH (p:Paper)-[r:{"|".join(PAPER_RELATION_TYPES)}]->(e)
WITH e, count(DISTINCT p) AS support, sum(coalesce(r.count, 1)) AS mentions
CALL (e) {{
    MATCH (p:Paper)-[r:{"|".join(PAPER_RELATION_TYPES)}]->(e)
    WHERE r.entity_name IS NOT NULL
    WITH r.entity_name AS name, count(DISTINCT p) AS papers
    ORDER BY papers DESC, name
    LIMIT 1
    RETURN collect(name) AS best
}}
CALL (e) {{
    MATCH (p:Paper)-[:{"|".join(PAPER_RELATION_TYPES)}]->(e)
    WHERE p.year IS NOT NULL
    WITH DISTINCT p, toInteger(p.year) AS year
    WHERE year IS NOT NULL
    WITH year, count(p) AS papers
    ORDER BY year
    RETURN collect({{year: year, papers: papers}}) AS years
}}
WITH e, support, mentions, best, years,
     reduce(n = 0, y IN years | n + y.papers) AS dated,
     reduce(t = 0, y IN years | t + y.year * y.papers) AS year_sum
SET e.support = support, e.mention_count = mentions, e.name = coalesce(head(best), e.name),
    e.first_year = CASE WHEN dated = 0 THEN null ELSE years[0].year END,
    e.papers_by_year = CASE WHEN dated = 0 THEN null ELSE '{{' + reduce(
        text = '', i IN range(0, size(years) - 1) |
        text + CASE WHEN i = 0 THEN '' ELSE ', ' END
        + '"' + toString(years[i].year) + '": ' + toString(years[i].papers)) + '}}' END,
    e.mean_year = CASE WHEN dated = 0 THEN null ELSE round(toFloat(year_sum) / dated, 2) END"""

#: Entities among ``$ids`` that no paper supports any more are deleted with their relationships.
DELETE_ORPHAN_ENTITIES = f"""\
UNWIND $ids AS id
MATCH (e:{ENTITY_LABEL} {{id: id}})
WHERE NOT EXISTS {{ MATCH (:Paper)-[:{"|".join(PAPER_RELATION_TYPES)}]->(e) }}
DETACH DELETE e
RETURN count(*) AS deleted"""

#: ``kg push --remove-paper``: the paper, its relationships, its share of entity -> entity
#: relationships (evidence and ``papers``), and those relationships left with no paper.
#: ``$paper`` is the node id, ``$paper_keys`` every form the paper's id takes in ``papers`` lists.
REMOVE_PAPER = [
    # 1. the entities the paper links to (returned to recompute their support afterwards)
    f"""\
MATCH (p:Paper {{id: $paper}})-[:{"|".join(PAPER_RELATION_TYPES)}]->(e:{ENTITY_LABEL})
RETURN collect(DISTINCT e.id) AS ids""",
    # 2. entity -> entity relationships the paper supported: drop its evidence, or the whole edge
    f"""\
UNWIND $ids AS id
MATCH (:{ENTITY_LABEL} {{id: id}})-[r]->(:{ENTITY_LABEL})
WHERE any(k IN $paper_keys WHERE k IN r.papers)
WITH DISTINCT r
WITH r, [i IN range(0, size(coalesce(r.evidence, [])) - 1) WHERE NOT r.evidence_papers[i] IN $paper_keys] AS keep,
     [i IN range(0, size(r.papers) - 1) WHERE NOT r.papers[i] IN $paper_keys] AS stay
WITH r, keep, stay, [i IN stay | coalesce(r.paper_counts[i], 0)] AS counts,
     [i IN stay | toFloat(coalesce(r.paper_weights[i], r.weight, 0.0))] AS weights
SET r.evidence = [i IN keep | r.evidence[i]], r.sentences = [i IN keep | r.sentences[i]],
    r.evidence_papers = [i IN keep | r.evidence_papers[i]], r.papers = [i IN stay | r.papers[i]],
    r.paper_counts = counts, r.paper_weights = weights,
    r.count = reduce(total = 0, c IN counts | total + c),
    r.weight = reduce(top = 0.0, w IN weights | CASE WHEN w > top THEN w ELSE top END),
    r.support = size(stay), r.evidence_count = size(keep)
WITH r WHERE size(r.papers) = 0
DELETE r
RETURN count(*) AS deleted""",
    # 3. the paper itself, with its relationships
    """\
MATCH (p:Paper {id: $paper})
DETACH DELETE p
RETURN count(*) AS deleted""",
]

#: Which of the node ids ``$ids`` are papers in the database.
FIND_PAPERS = "MATCH (p:Paper) WHERE p.id IN $ids RETURN collect(p.id) AS ids"

#: Counts for reports and tests.
COUNT_NODES = "MATCH (n) RETURN count(n) AS n"
COUNT_RELATIONSHIPS = "MATCH ()-[r]->() RETURN count(r) AS n"
