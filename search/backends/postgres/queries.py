"""A SearchRequest as one SQL statement over the index tables (PostgreSQL full-text search).

Why one statement: PostgreSQL gives each statement one snapshot, so the live generation, the
matches, the counts per kind, the page's hits, their snippets and the documents each collapsed
hit stands for are all read from the same state of the index, even while a rebuild swaps a new
generation in or an update replaces documents.

The query tree is the Whoosh backend's, in SQL: each group is an OR of its items; an item is a
phrase query (`phraseto_tsquery`, one word being a phrase of one) in each language's
configuration, a prefix over unstemmed words, or a rule number matched exactly. A document
matches a group when one of its languages does (or its number); scores are `ts_rank` with the
title, body and extra weights, summed over groups and languages, times the share of groups
matched when `min_match` asks for fewer than all (coordination), times the kind's weight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from search import analysis, conf
from search.backend import SearchRequest
from search.registry import kinds as registered_kinds
from search.syntax import Item, Phrase

#: Titles weigh most, examples and type lines least (the Whoosh backend's boosts).
TITLE_BOOST, BODY_BOOST, EXTRA_BOOST = 4.0, 1.0, 0.3
TITLE_PREFIX_BOOST, BODY_PREFIX_BOOST = 2.0, 0.5
#: A rule number typed is the strongest evidence there is (ts_rank's scores stay under 1).
NUMBER_SCORE = 8.0
#: ts_rank's normalisation: 1 divides by 1 + the log of the document's length.
NORMALISATION = 1
#: Snippet markers and stand-ins for < and > (private-use characters, replaced after
#: escaping): ts_headline drops what its parser reads as tags, and the text must stay whole.
START, STOP, LT, GT = "\ue000", "\ue001", "\ue002", "\ue003"
HEADLINE = (
    f"StartSel={START}, StopSel={STOP}, MaxWords=40, MinWords=15, ShortWord=2, "
    'MaxFragments=2, FragmentDelimiter=" … "'
)
#: A document's row in search_indexedmatch (migration search.0003): the lexemes of its language
#: rows, each tagged with its row's language and column (en:creatur from the stemmed vector,
#: en~creature from the unstemmed words), without positions or weights. Tagged, a query of
#: single words asks it exactly what it asks the rows; narrow, it is cheap to read.
MATCH_VECTOR = """coalesce((
  SELECT array_to_tsvector(array_agg(DISTINCT u.lexeme))
  FROM search_indexedtext t, LATERAL (
    SELECT t.lang || ':' || l FROM unnest(tsvector_to_array(t.vector)) AS l
    UNION ALL SELECT t.lang || '~' || l FROM unnest(tsvector_to_array(t.words)) AS l
  ) AS u(lexeme)
  WHERE t.document_id = d.id), ''::tsvector)"""
#: A tsquery's lexemes tagged so (its text form quotes every lexeme: 'creatur' -> 'en:creatur').
NOTHING = "''::tsquery"
_LEXEME_RE = r"'((?:[^']|'')*)'"
_NUMBER_RE = re.compile(r"^[0-9][0-9a-z.]*$")


def config(code: str) -> str:
    """The text search configuration of a language code (migration 0002 creates them)."""
    analyzer = dict(conf.configured()).get(code, "")
    return f"kb_{analyzer}" if analyzer in ("english", "french") else "kb_simple"


def number_of(item: Item) -> str | None:
    if isinstance(item, Phrase) or not item.text[:1].isdigit():
        return None
    number = item.text.lower().rstrip(".")
    return number if _NUMBER_RE.match(number) else None


def prefix_query(text: str) -> str | None:
    """A tsquery for words starting so, in the unstemmed configuration: its words are folded
    word characters only, so they need no quoting."""
    words = re.findall(r"\w+", analysis.fold(text))
    if not words:
        return None
    return " <-> ".join([*words[:-1], f"{words[-1]}:*"])


def _is_prefix(item: Item) -> bool:
    return not isinstance(item, Phrase) and item.prefix


@dataclass
class Params:
    """Named parameters (%(p0)s) so that one value can appear in several places."""

    values: dict[str, object] = field(default_factory=dict)

    def __call__(self, value: object) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f"%({name})s"


@dataclass
class Clause:
    """SQL of one group (or of the exclusions) for a language row: tsqueries or None."""

    vector: str | None  # a tsquery on t.vector
    words: str | None  # a tsquery on t.words
    numbers: list[str]  # parameter placeholders of rule numbers

    def matches(self, alias: str = "t") -> str:
        parts = []
        if self.vector:
            parts.append(f"{alias}.vector @@ {self.vector}")
        if self.words:
            parts.append(f"{alias}.words @@ {self.words}")
        return "(" + " OR ".join(parts) + ")" if parts else "false"


def _phrase(text: str, code: str, p: Params, cache: dict) -> str:
    """`text` as a tsquery of `code`'s configuration: one parameter per text and language,
    shared by the clauses matching it and the headline marking it."""
    key = (text, code)
    if key not in cache:
        cache[key] = f"phraseto_tsquery('{config(code)}', {p(text)})"
    return cache[key]


def clause(items, code: str, p: Params, cache: dict) -> Clause:
    vector, words, numbers = [], [], []
    for item in items:
        if _is_prefix(item):
            query = prefix_query(item.text)
            if query:
                words.append(f"to_tsquery('kb_simple', {p(query)})")
        else:
            vector.append(_phrase(item.text, code, p, cache))
        number = number_of(item)
        if number:
            numbers.append(p(number))
    return Clause(
        "(" + " || ".join(vector) + ")" if vector else None,
        "(" + " || ".join(words) + ")" if words else None,
        numbers,
    )


def _operands(query: str) -> str:
    """How many operands a tsquery holds (its nodes are binary operators and operands)."""
    return f"((numnode({query}) + 1) / 2)"


def weights(title_weight: float) -> tuple[list[float], float, list[float], float]:
    """ts_rank weight arrays ({D, C, B, A}: extras C, bodies B, titles A) scaled to at most 1,
    with the factors that scale the ranks back."""
    title = TITLE_BOOST * title_weight
    top = max(title, BODY_BOOST, EXTRA_BOOST)
    text = [0.0, EXTRA_BOOST / top, BODY_BOOST / top, title / top]
    ptitle = TITLE_PREFIX_BOOST * title_weight
    ptop = max(ptitle, BODY_PREFIX_BOOST)
    prefix = [0.0, 0.0, BODY_PREFIX_BOOST / ptop, ptitle / ptop]
    return text, top, prefix, ptop


def languages(request: SearchRequest) -> list[str]:
    return [c for c in conf.codes() if request.lang in (None, c)]


def valid_on(alias: str, p: Params, date) -> str:
    if date is None:
        return "true"
    day = p(date)
    return (
        f"({alias}.valid_from IS NULL OR {alias}.valid_from <= {day}) "
        f"AND ({alias}.valid_to IS NULL OR {alias}.valid_to > {day})"
    )


def kind_order_sql(alias: str = "d") -> str:
    known = registered_kinds()
    if not known:
        return "0"
    cases = " ".join(f"WHEN '{k}' THEN {i}" for i, k in enumerate(known) if k.isidentifier())
    return f"(CASE {alias}.kind {cases} ELSE {len(known)} END)"


def search_sql(
    request: SearchRequest, name: str, offset: int, limit: int
) -> tuple[str, dict] | None:
    """The statement answering `request` on the live generation of index `name`. Each row is a
    hit of the page, and every row (or the one row of an empty page, its hit columns null)
    carries the counts per kind."""
    groups = [g.items for g in request.groups if g.items]
    if not groups:
        return None
    p = Params()
    cache: dict = {}
    codes = languages(request)
    text_w, text_scale, prefix_w, prefix_scale = weights(request.title_weight)
    tw, ts, pw, ps = p(text_w), p(text_scale), p(prefix_w), p(prefix_scale)

    # One pass over the language rows (a pass per language read every row again): each
    # row's tsqueries are its language's, picked by a CASE on t.lang.
    per_code = {code: [clause(items, code, p, cache) for items in groups] for code in codes}
    first = per_code[codes[0]]
    numbers_per_group = [c.numbers for c in first]
    lang = {code: p(code) for code in codes}

    def by_lang(queries: dict[str, str | None]) -> str | None:
        if not any(queries.values()):
            return None
        if len(queries) == 1:
            return f"({next(iter(queries.values()))})"
        empty = "''::tsquery"
        cases = " ".join(f"WHEN {lang[c]} THEN {q or empty}" for c, q in queries.items())
        return f"(CASE t.lang {cases} END)"

    n = len(groups)
    columns = []
    for i in range(n):
        vector = by_lang({code: per_code[code][i].vector for code in codes})
        words = first[i].words
        parts = [f"t.vector @@ {vector}"] * bool(vector) + [f"t.words @@ {words}"] * bool(words)
        columns.append(f"({' OR '.join(parts) or 'false'}) AS m{i}")
    # One rank per vector for the whole query (ts_rank of an OR of every item: the sum over
    # items divided by their number, which `operands` multiplies back): a rank per group
    # cost a pass over the vector each.
    vector = by_lang(
        {code: " || ".join(c.vector for c in per_code[code] if c.vector) or None for code in codes}
    )
    words = " || ".join(c.words for c in first if c.words) or None
    score = []
    if vector:
        rank = f"ts_rank({tw}::float4[], t.vector, {vector}, {NORMALISATION})"
        score.append(f"{rank} * {ts} * {_operands(vector)}")
    if words:
        rank = f"ts_rank({pw}::float4[], t.words, ({words}), {NORMALISATION})"
        score.append(f"{rank} * {ps} * {_operands(f'({words})')}")
    where = " OR ".join(
        [f"t.vector @@ {vector}"] * bool(vector) + [f"t.words @@ ({words})"] * bool(words)
    )
    need = n if not 0 < request.min_match < n else request.min_match
    # The fewest groups a document's texts must match: a group a rule number can match may
    # be matched by the number instead.
    least = need - sum(1 for numbers in numbers_per_group if numbers)
    # One language: a document has one row there, so a row matching fewer groups cannot
    # make its document match (with several, its languages' rows add up).
    row_least = max(least, 1) if len(codes) == 1 else 1
    all_numbers = [n for ns in numbers_per_group for n in ns]
    any_group = [_loose(items, codes, p) for items in groups]
    # Words of one lexeme each: the match table answers which groups a document matches
    # exactly (its lexemes are tagged by language row), so the text rows are read only to
    # rank what can be on the page. A phrase needs the rows' positions.
    exact = all(_one_lexeme(item) for items in groups for item in items)

    # `cand`: the documents that can match, from the narrow match table (its GIN index, the
    # release's validity) before any text row is read: their rows alone are then read.
    flags = ", ".join(f"(k.vector @@ {q or NOTHING}) AS m{i}" for i, q in enumerate(any_group))
    cand = (
        f"SELECT k.document_id AS id, k.kind, k.number, k.collapse"
        f"{', ' + flags if exact else ''} FROM search_indexedmatch k "
        f"WHERE k.generation_id = (SELECT id FROM live) AND {valid_on('k', p, request.release)} "
        f"AND ({_at_least(least, any_group)}"
    )
    if all_numbers:
        cand += f" OR k.number IN ({', '.join(all_numbers)})"
    cand += ")"

    # A group matches by its texts or by the document's number.
    group_match = []
    group_score = []
    for i, numbers in enumerate(numbers_per_group):
        if numbers:
            hit = f"k.number IN ({', '.join(numbers)})"
            group_match.append(f"(c.m{i} OR {hit})")
            group_score.append(f"CASE WHEN {hit} THEN {NUMBER_SCORE} ELSE 0 END")
        else:
            group_match.append(f"c.m{i}")
    matched = " + ".join(f"({m})::int" for m in group_match)
    coordination = f"({matched})::float8 / {n}" if need < n else "1.0"
    kind_weight = "1.0"
    if request.kind_weights:
        cases = " ".join(
            f"WHEN {p(kind)} THEN {float(factor)!r}" for kind, factor in request.kind_weights
        )
        kind_weight = f"(CASE k.kind {cases} ELSE 1.0 END)"
    excluded = _excluded(request, codes, p, cache)
    kinds_filter = "true"
    if request.kinds:
        kinds_filter = f"s.kind IN ({', '.join(p(k) for k in request.kinds)})"

    # A document's language rows, each group's match and their rank, read through the index on
    # document_id for each document of `cand` (a LATERAL join: joined as whole CTEs, the
    # planner, estimating one row where there were a thousand, nested-looped over both).
    matched_here = " + ".join(f"(t.m{i})::int" for i in range(n))
    rank = f"({' + '.join(score) or '0'})::float8"
    # The document's rows are found by document_id alone, the tsqueries asked of them behind
    # an OFFSET 0 fence: given the choice, the planner (unsure of a new index's statistics)
    # ANDed the GIN index's bitmap of every row holding a common word into each lookup.
    own_rows = (
        f"SELECT t.lang::text AS lang, t.vector, t.words FROM search_indexedtext t "
        f"WHERE t.document_id = {{doc}} AND t.lang IN ({', '.join(lang.values())}) OFFSET 0"
    )
    text_rows = (
        f"SELECT t.lang, {', '.join(f't.m{i}' for i in range(n))}, {rank} AS s "
        f"FROM (SELECT t.lang, t.vector, t.words, {', '.join(columns)} "
        f"FROM ({own_rows}) t OFFSET 0) t WHERE {matched_here} >= {row_least}"
    )
    counted = "SELECT kind, count(*) AS n FROM top GROUP BY kind"
    if exact:
        # The rows' ranks alone: which groups they match is known.
        ranks = f"SELECT t.lang, {rank} AS s FROM ({own_rows}) t WHERE ({where or 'false'})"
        # The matches and counts from `cand` alone; ranks for the documents a page of the
        # kinds asked for can show, and for the collapse groups mixing kinds (the best
        # decides which kind counts them): a probe for one kind ranks that kind's alone, and
        # the other kinds' groups are counted without being ranked or sorted.
        ranked = "true"
        mixed = ""
        if request.kinds:
            kinds = ", ".join(p(k) for k in request.kinds)
            ranked = f"(m.kind IN ({kinds}) OR m.collapse IN (SELECT collapse FROM mixed))"
            mixed = (
                "mixed AS MATERIALIZED (SELECT collapse FROM m WHERE collapse <> '' "
                "GROUP BY collapse HAVING min(kind) <> max(kind)),\n"
            )
            counted = (
                f"SELECT kind, sum(n) AS n FROM ({counted} UNION ALL "
                "SELECT kind, count(*) FILTER (WHERE collapse = '') "
                "+ count(DISTINCT collapse) FILTER (WHERE collapse <> '') "
                f"FROM m WHERE NOT {ranked} GROUP BY kind) AS u GROUP BY kind"
            )
        flags = ", ".join(f"k.m{i}" for i in range(n))
        sql_s = f"""m AS MATERIALIZED (
  SELECT k.id, k.kind, k.collapse,
         {coordination} * {kind_weight} AS factor,
         ({" + ".join(["0", *group_score])}) AS bonus
  FROM cand k, LATERAL (SELECT {flags}) AS c
  WHERE ({matched}) >= {need} {excluded}
),
{mixed}s AS (
  SELECT m.id, m.kind, x.langs,
         CASE WHEN m.collapse = '' THEN 'id:' || m.id ELSE m.collapse END AS ckey,
         (coalesce(x.s, 0) + m.bonus) * m.factor AS score
  FROM m, LATERAL (
    SELECT sum(t.s) AS s, array_agg(DISTINCT t.lang) AS langs
    FROM ({ranks.format(doc="m.id")}) t
  ) AS x
  WHERE {ranked}
)"""
    else:
        aggregated = ", ".join(
            [f"coalesce(bool_or(t.m{i}), false) AS m{i}" for i in range(n)]
            + ["coalesce(sum(t.s), 0) AS s", "array_agg(DISTINCT t.lang) AS langs"]
        )
        sql_s = f"""s AS MATERIALIZED (
  SELECT k.id, k.kind, c.langs,
         CASE WHEN k.collapse = '' THEN 'id:' || k.id ELSE k.collapse END AS ckey,
         ({" + ".join(["c.s", *group_score])}) * {coordination} * {kind_weight} AS score
  FROM cand k, LATERAL (SELECT {aggregated} FROM ({text_rows.format(doc="k.id")}) t) AS c
  WHERE ({matched}) >= {need} {excluded}
)"""

    snippet_columns = []
    for code in codes:
        query = _headline_query(request, code, p, cache)
        for part in ("bodies", "extras"):
            if request.snippets and query:
                text = f"translate(d.{part} ->> {p(code)}, '<>', '{LT}{GT}')"
                snippet_columns.append(
                    f"CASE WHEN d.{part} ? {p(code)} THEN "
                    f"ts_headline('{config(code)}', {text}, {query}, {p(HEADLINE)}) END"
                )
            else:
                snippet_columns.append("NULL")

    sql = f"""
WITH live AS (SELECT id FROM search_indexgeneration WHERE name = {p(name)} AND live),
cand AS MATERIALIZED ({cand}),
{sql_s},
r AS (
  SELECT s.*, row_number() OVER (PARTITION BY ckey ORDER BY score DESC NULLS LAST, id) AS rn
  FROM s
),
top AS (SELECT * FROM r WHERE rn = 1),
counts AS (SELECT coalesce(jsonb_object_agg(kind, n), '{{}}'::jsonb) AS counts
           FROM ({counted}) k),
page AS (
  SELECT s.* FROM top s WHERE {kinds_filter}
  ORDER BY score DESC, id LIMIT {int(limit)} OFFSET {int(offset)}
)
SELECT counts.counts, page.score, page.langs,
       d.kind, d.key, d.ref, d.label, d.number, d.chapter, d.date, d.valid_from, d.valid_to,
       d.titles, d.bodies,
       (SELECT jsonb_agg(jsonb_build_array(od.ref, od.label) ORDER BY o.score DESC, o.id)
        FROM r o JOIN search_indexeddocument od ON od.id = o.id
        WHERE o.ckey = page.ckey AND o.rn > 1) AS also,
       {", ".join(snippet_columns) or "NULL"}
FROM counts LEFT JOIN page ON true
LEFT JOIN search_indexeddocument d ON d.id = page.id
ORDER BY page.score DESC, page.id
"""
    return sql, p.values


def _excluded(request: SearchRequest, codes: list[str], p: Params, cache: dict) -> str:
    """The condition leaving out the documents a language row of which has an excluded item."""
    if not request.excluded:
        return ""
    parts = []
    for code in codes:
        c = clause(request.excluded, code, p, cache)
        parts.append(f"(x.lang = {p(code)} AND {c.matches('x')})")
    return (
        "AND NOT EXISTS (SELECT 1 FROM search_indexedtext x WHERE x.document_id = k.id "
        f"AND ({' OR '.join(parts)}))"
    )


def _one_lexeme(item: Item) -> bool:
    """Whether an item is one word of letters or digits: one lexeme in every configuration,
    so that the match table, without positions, answers it as the rows do."""
    text = analysis.fold(item.text) if _is_prefix(item) else item.text
    return bool(re.fullmatch(r"[^\W_]+", text))


def _tag(query: str, tag: str) -> str:
    """A tsquery (SQL) with its lexemes tagged as the match table's are: 'creatur' ->
    'en:creatur'. Operators, phrases and prefix marks stay as they are."""
    pattern = _LEXEME_RE.replace("'", "''")
    return f"regexp_replace(({query})::text, '{pattern}', '''{tag}\\1''', 'g')::tsquery"


def _loose(items, codes: list[str], p: Params) -> str | None:
    """A group as a tsquery on the match table's vector: true wherever one of the group's
    items matches a language row (exactly so for words of one lexeme), and on a few more
    documents otherwise: phrases become conjunctions (a vector without positions matches no
    phrase), prefixes of several words their words and last prefix."""
    parts = []
    for item in items:
        if _is_prefix(item):
            words = re.findall(r"\w+", analysis.fold(item.text))
            if words:
                query = p(" & ".join([*words[:-1], f"{words[-1]}:*"]))
                for code in codes:
                    parts.append(_tag(f"to_tsquery('kb_simple', {query})", f"{code}~"))
        else:
            text = p(item.text)
            for code in codes:
                parts.append(_tag(f"plainto_tsquery('{config(code)}', {text})", f"{code}:"))
    return "(" + " || ".join(parts) + ")" if parts else None


def _at_least(k: int, queries: list[str | None]) -> str:
    """A condition on the match table's vector true for every document matching at least `k`
    of the groups' `queries`, and for few others (its vector holds every language's words).

    The GIN index answers the first part, every run of n - k + 1 groups (in a circle) holding
    a match: its fast scan reads the postings of the rarest words a match needs and skips
    through the others, where an OR of every word read a third of the archive. That lets
    through some documents with fewer groups, which the count of groups matched, on the
    narrow vectors of the few documents left, removes. (The exact condition as one tsquery,
    an OR of every k groups, took the index longer than both.)"""
    queries = [q for q in queries if q]  # a group without words is matched by a number alone
    k = max(k, 1)
    n = len(queries)
    if k > n:
        return "false"
    if k == 1:
        return f"k.vector @@ ({' || '.join(queries)})"
    if k == n:
        return f"k.vector @@ ({' && '.join(queries)})"
    size = n - k + 1
    runs = [[queries[(i + j) % n] for j in range(size)] for i in range(n)]
    runs_sql = " && ".join("(" + " || ".join(run) + ")" for run in runs)
    count = " + ".join(f"(k.vector @@ {q})::int" for q in queries)
    return f"k.vector @@ ({runs_sql}) AND {count} >= {k}"


def _headline_query(request: SearchRequest, code: str, p: Params, cache: dict) -> str | None:
    """The words to mark in `code`'s texts: every item of the query, prefixes as stems."""
    parts = []
    for group in request.groups:
        for item in group.items:
            if _is_prefix(item):
                query = prefix_query(item.text)
                if query:
                    parts.append(f"to_tsquery('{config(code)}', {p(query)})")
            else:
                parts.append(_phrase(item.text, code, p, cache))
    return "(" + " || ".join(parts) + ")" if parts else None
