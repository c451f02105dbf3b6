"""PostgreSQL full text, the write side: posting lists, document frequencies and totals (ADR 0051).

An indexed item gives one ``postings`` row per distinct token (its frequency in the item, the
item's length negated, the item's key, and its signature: a 64-bit Bloom filter of everything it
is listed under, which rules out most terms an item lacks without a look-up), so a token's rows read in primary-key order backwards are
its postings in impact order (:mod:`hlmem.adapters.text.bm25_topk`). It gives one more per word
expansion it holds (``居住 住地 居住地``, keyed by the tokens joined with spaces, which no token
contains): a query term that is a Chinese word is that phrase, and its list is then read like a
token's instead of being counted item by item. ``term_df`` counts the items
holding each token (with a bound on its frequency in an item and on the length of an item holding
it, which the search prunes with) and ``text_totals`` the items and tokens of each namespace: the
statistics BM25 needs, kept exact so the three stores score alike.

Postings are written with the items, before the append takes the log's lock (concurrent writers
build them side by side); the counts change after it, so the hot rows of common tokens are only
ever updated by the one transaction holding that lock, in one order, without deadlocks. A count
that falls to zero is deleted, so no token of a forgotten item outlives it in ``term_df``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from hlmem.adapters.postgres import search
from hlmem.adapters.text.bm25_topk import signature

if TYPE_CHECKING:
    import psycopg


@attrs.define
class TextCounts:
    """What an append changes in ``term_df`` and ``text_totals``."""

    df: Counter = attrs.field(factory=Counter)  # (namespace, token) -> +/- items
    docs: Counter = attrs.field(factory=Counter)  # namespace -> +/- items
    tokens: Counter = attrs.field(factory=Counter)  # namespace -> +/- tokens
    #: (namespace, token) -> (highest frequency, shortest item) among the items added.
    bounds: dict = attrs.field(factory=dict)

    def count(self, namespace: str, tokens: Sequence[str], sign: int) -> None:
        for token, tf in _listed(tokens).items():
            self.df[(namespace, token)] += sign
            if sign > 0:
                tf_max, shortest = self.bounds.get((namespace, token), (0, len(tokens)))
                self.bounds[(namespace, token)] = (max(tf_max, tf), min(shortest, len(tokens)))
        self.docs[namespace] += sign
        self.tokens[namespace] += sign * len(tokens)


def _listed(tokens: Sequence[str]) -> Counter:
    """What an item is listed under, with frequencies: its tokens and its word expansions."""
    return Counter(tokens) + search.phrase_keys(tokens)


def _rows(entries: Iterable[tuple[int, str, Sequence[str]]]) -> list[tuple[str, str, int, int, int, int]]:
    out = []
    for key, namespace, tokens in entries:
        listed = _listed(tokens)
        sig = signature(listed)
        out += [(namespace, token, tf, -len(tokens), key, sig) for token, tf in sorted(listed.items())]
    return out


def add(con: psycopg.Connection, entries: Sequence[tuple[int, str, Sequence[str]]], counts: TextCounts) -> None:
    """Postings of new items ``(key, namespace, tokens)``."""
    rows = _rows(entries)
    if rows:
        with con.cursor() as cur, cur.copy("COPY postings (namespace, token, tf, nntok, item_key, sig) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    for _key, namespace, tokens in entries:
        counts.count(namespace, tokens, +1)


def remove(con: psycopg.Connection, entries: Sequence[tuple[int, str, Sequence[str]]], counts: TextCounts) -> None:
    """Postings of deleted items ``(key, namespace, tokens)``, found by their whole primary key."""
    rows = _rows(entries)
    if rows:
        columns = list(zip(*rows))[:5]
        con.execute("DELETE FROM postings p USING unnest(%s::text[], %s::text[], %s::integer[], %s::integer[], "
                    "%s::bigint[]) AS d(namespace, token, tf, nntok, item_key) WHERE p.namespace = d.namespace "
                    "AND p.token = d.token AND p.tf = d.tf AND p.nntok = d.nntok AND p.item_key = d.item_key",
                    [list(c) for c in columns])
    for _key, namespace, tokens in entries:
        counts.count(namespace, tokens, -1)


def apply(con: psycopg.Connection, counts: TextCounts) -> None:
    """Change the counts (under the log's lock): sorted, so every writer takes the rows in one order."""
    df = sorted((k, v) for k, v in counts.df.items() if v or k in counts.bounds)
    if df:
        namespaces, tokens, deltas = [n for (n, _t), _v in df], [t for (_n, t), _v in df], [v for _k, v in df]
        # A bound only ever widens (a deleted item leaves it as it was: still a bound).
        tf_max = [counts.bounds.get(k, (0, 2**31 - 1))[0] for k, _v in df]
        shortest = [counts.bounds.get(k, (0, 2**31 - 1))[1] for k, _v in df]
        con.execute("INSERT INTO term_df (namespace, token, df, tf_max, min_length) SELECT * FROM unnest("
                    "%s::text[], %s::text[], %s::bigint[], %s::integer[], %s::integer[]) "
                    "ON CONFLICT (namespace, token) DO UPDATE SET df = term_df.df + excluded.df, "
                    "tf_max = greatest(term_df.tf_max, excluded.tf_max), "
                    "min_length = least(term_df.min_length, excluded.min_length)",
                    (namespaces, tokens, deltas, tf_max, shortest))
        gone = [(n, t) for (n, t), v in df if v < 0]
        if gone:
            con.execute("DELETE FROM term_df t USING unnest(%s::text[], %s::text[]) AS d(namespace, token) "
                        "WHERE t.namespace = d.namespace AND t.token = d.token AND t.df <= 0",
                        ([n for n, _t in gone], [t for _n, t in gone]))
    names = sorted(n for n in set(counts.docs) | set(counts.tokens) if counts.docs[n] or counts.tokens[n])
    if names:
        con.execute("INSERT INTO text_totals (namespace, docs, tokens) SELECT * FROM unnest(%s::text[], "
                    "%s::bigint[], %s::bigint[]) ON CONFLICT (namespace) DO UPDATE SET "
                    "docs = text_totals.docs + excluded.docs, tokens = text_totals.tokens + excluded.tokens",
                    (names, [counts.docs[n] for n in names], [counts.tokens[n] for n in names]))
        con.execute("DELETE FROM text_totals WHERE namespace = ANY(%s) AND docs <= 0", (names,))


def rebuild(con: psycopg.Connection, batch: int = 5_000) -> None:
    """Make ``postings``, ``term_df`` and ``text_totals`` from the items' stored tokens (a store of
    an older layout), in the caller's transaction."""
    counts = TextCounts()
    last = 0
    while True:
        rows = con.execute("SELECT item_key, namespace, tokens FROM items WHERE item_key > %s ORDER BY item_key "
                           "LIMIT %s", (last, batch)).fetchall()
        if not rows:
            break
        add(con, [(key, ns, toks.split(" ") if toks else []) for key, ns, toks in rows], counts)
        last = rows[-1][0]
    apply(con, counts)


def add_stems(con: psycopg.Connection, batch: int = 5_000) -> None:
    """Layout 2 -> 3 (ADR 0058): each item's stored tokens followed by the stems of its English
    words, then the lists made again (:func:`rebuild`), in the caller's transaction. The stems
    follow from the stored tokens alone (``stems_of`` stems unicode61 parts, as indexing new text
    does), so an upgraded store holds what one indexed anew holds."""
    from hlmem.adapters.text.segment import stems_of

    last = 0
    while True:
        rows = con.execute("SELECT item_key, tokens FROM items WHERE item_key > %s ORDER BY item_key LIMIT %s",
                           (last, batch)).fetchall()
        if not rows:
            break
        changed = []
        for key, tokens in rows:
            toks = tokens.split(" ") if tokens else []
            stems = stems_of(toks)
            if stems:
                changed.append((key, " ".join(toks + stems), len(toks) + len(stems)))
        if changed:
            con.execute("UPDATE items SET tokens = d.tokens, ntok = d.ntok FROM unnest(%s::bigint[], %s::text[], "
                        "%s::integer[]) AS d(item_key, tokens, ntok) WHERE items.item_key = d.item_key",
                        ([k for k, _t, _n in changed], [t for _k, t, _n in changed], [n for _k, _t, n in changed]))
        last = rows[-1][0]
    rebuild(con, batch)
