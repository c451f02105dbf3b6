"""Exact BM25 top-k from the heads of posting lists, without scoring every match (ADR 0051).

The stores rank full text with one BM25 (k1 1.2, b 0.75, each query term matched as a phrase of
its tokens, idf over the namespace, ties to the item indexed last). Scoring every item that holds
a query term costs time in proportion to the store; this module finds the same top ``limit``,
with the same floats, reading as little as it can.

A single-token term's postings are read in *impact order* (term frequency descending, item length
ascending, key descending), a chunk at a time: along that order a contribution never grows, and
within one (tf, length) *plateau* the keys fall as ties are broken. Each token's statistics give
its document frequency and bounds on its frequency and item length, so a term not read yet still
has a bound. A phrase term (several tokens) has a list of its own when the store keeps one (the
PostgreSQL store lists every occurrence of a word's search-mode expansion, ADR 0051); any other
phrase is materialised whole from its rarest token's postings and the items' tokens, because its
document frequency must be exact.

Every item seen gets a *lower* score (the terms known) and a *potential* (each unknown term at the
most it could be for an item of that length, which is itself a score some item could have, so ties
compare exactly; an item's 64-bit signature of what it is listed under rules out most terms it
lacks); an item that could still reach the k-th best is *resolved*: looked up in each
list still open (an index probe per item, far cheaper than its tokens). The search stops when no unresolved item and no unseen item can reach the k-th best, and every result
is then scored from its complete term frequencies in term order, the exhaustive scorer's
arithmetic, so the results are equal, not close. The threshold algorithm (Fagin et al.) with
MaxScore's ordering of lists; the bookkeeping is vectorised with numpy.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

from hlmem.application.ports import Candidate

#: ``(item key, term frequency, item length in tokens)``.
Posting = tuple[int, int, int]
#: ``(item id, kind, tokens)`` of an item.
Document = tuple[str, str, Sequence[str]]

#: Postings read from a list on its first visit; each later visit reads eight times as many.
FIRST_CHUNK = 256
MAX_CHUNK = 65_536
#: Items resolved in the first round of resolving; each later round four times as many.
RESOLVE_BATCH = 512
#: What looking an item up in one list costs, in postings read.
PROBE_COST = 1


class PostingSource(Protocol):
    """What the search reads: a store's posting lists and items, in one consistent snapshot."""

    def statistics(self, tokens: Sequence[str]) -> Mapping[str, tuple[int, int, int]]:
        """Per token held by some item: (items holding it, a bound on its frequency in an item, a
        bound below on the length of an item holding it). Absent: no item holds it."""
        ...

    def postings(self, token: str, after: Posting | None, limit: int) -> tuple[np.ndarray, ...]:
        """The first ``limit`` of ``token``'s postings in impact order strictly after ``after``, as
        arrays of keys, frequencies, item lengths and item :func:`signature` s (in any order)."""
        ...

    def holding(self, token: str, keys: Sequence[int], lengths: Sequence[int], tf_max: int) -> Mapping[int, int]:
        """Which of the items ``keys`` (of these lengths) ``token``'s list holds, with their
        frequencies (at most ``tf_max``); an item it does not hold is left out."""
        ...

    def phrase_frequencies(self, keys: Sequence[int], parts: Sequence[str]) -> Mapping[int, int]:
        """How often each of the items ``keys`` holds ``parts`` as consecutive tokens (overlapping
        occurrences too); an item that does not is left out."""
        ...

    def documents(self, keys: Sequence[int]) -> Mapping[int, Document]:
        """The items with these keys."""
        ...


def signature_bit(key: str) -> int:
    """The bit of an item's signature that says it may be listed under ``key``."""
    return zlib.crc32(key.encode("utf-8")) % 64


def signature(keys: Iterable[str]) -> int:
    """An item's signature (a 64-bit Bloom filter of what it is listed under, as a signed
    integer): a term whose bit is clear is certainly not in the item."""
    bits = 0
    for key in keys:
        bits |= 1 << signature_bit(key)
    return bits - (1 << 64) if bits >= 1 << 63 else bits


def idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def contribution(term_idf: float, tf: int, length: int, avg: float) -> float:
    """One term's share of an item's score (the expression every store evaluates)."""
    return term_idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))


def score_of(tfs: Sequence[int], idfs: Sequence[float], length: int, avg: float) -> tuple[float, int]:
    """An item's score and how many terms it matched, summed in term order."""
    score, matched = 0.0, 0
    for tf, term_idf in zip(tfs, idfs):
        if tf:
            matched += 1
            score += contribution(term_idf, tf, length, avg)
    return score, matched


def _scores(tfs: np.ndarray, idfs: Sequence[float], lengths: np.ndarray, avg: float) -> np.ndarray:
    """:func:`score_of` for many items at once: the same operations in the same order (a term an
    item lacks adds 0.0, which leaves a float as it is), so the floats are equal."""
    out = np.zeros(len(lengths))
    for j, term_idf in enumerate(idfs):
        tf = tfs[:, j]
        if not tf.any():
            continue
        share = term_idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lengths / avg))
        out = out + np.where(tf > 0, share, 0.0)
    return out


def count_phrase(doc: Sequence[str], parts: Sequence[str]) -> int:
    """Occurrences of ``parts`` as consecutive tokens of ``doc`` (overlapping ones too)."""
    if not parts:
        return 0
    n = len(parts)
    first = parts[0]
    parts = list(parts)
    return sum(1 for i in range(len(doc) - n + 1) if doc[i] == first and list(doc[i:i + n]) == parts)


class _List:
    """One term's postings as far as they have been read."""

    def __init__(self, term_idf: float, token: str | None, tf_max: int, min_length: int, chunk: int,
                 df: int = 0) -> None:
        self.idf = term_idf
        self.token = token
        self.df = df
        self.tf_max = tf_max
        self.min_length = min_length
        self.keys = np.zeros(0, dtype=np.int64)
        self.tfs = np.zeros(0, dtype=np.int64)
        self.lengths = np.zeros(0, dtype=np.int64)
        self.signatures = np.zeros(0, dtype=np.int64)
        self.bit = signature_bit(token) if token is not None else 0
        #: Items looked up in this list: their frequency here (0: not held).
        self.probed: dict[int, int] = {}
        self.cursor: Posting | None = None
        self.done = token is None
        self.chunk = chunk

    def bound_at(self, length: int, avg: float) -> float:
        """At least the most an item of ``length`` tokens not read from this list can get from it,
        and never rising with ``length`` between two :meth:`breakpoints`.

        An item of ``length`` holds the token at most ``length`` times, so with a frequency bound
        ``tf`` its share is at most ``contribution(min(tf, length), length)`` — which *rises* with
        the length up to ``tf`` and falls after it. The bound given is that share's largest value
        over every length from ``length`` up, ``contribution(tf, max(length, tf))``: as tight from
        ``tf`` on, the peak below it, so it only falls (a search that takes a length's bound for
        every longer length until the next breakpoint stays exact)."""
        if self.done or length < self.min_length:
            return 0.0
        if self.cursor is None:
            return contribution(self.idf, self.tf_max, max(length, self.tf_max), avg)
        _key, tf, length_c = self.cursor
        if length >= length_c:
            return contribution(self.idf, tf, max(length, tf), avg)
        if tf == 1:
            return 0.0  # every tf-1 posting of a shorter item was read before the cursor
        return contribution(self.idf, tf - 1, max(length, tf - 1), avg)

    def breakpoints(self) -> list[int]:
        """Lengths where :meth:`bound_at` may rise; between them it only falls."""
        if self.done:
            return []
        return [max(self.min_length, 1)] + ([self.cursor[2]] if self.cursor is not None else [])

    def hypothetical(self, keys: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """For items whose posting here is unknown: the highest frequency each could still have
        (0 where the order read so far rules a posting out)."""
        if self.done:
            return np.zeros(len(keys), dtype=np.int64)
        if self.cursor is None:
            hyp = np.full(len(keys), self.tf_max, dtype=np.int64)
        else:
            key_c, tf_c, length_c = self.cursor
            hyp = np.full(len(keys), min(tf_c, self.tf_max), dtype=np.int64)
            if tf_c == 1:
                # Past the cursor every posting has tf 1 and is at least as long, and in its plateau
                # has a lower key: a shorter item, or one as long with a higher key, is not listed.
                hyp[(lengths < length_c) | ((lengths == length_c) & (keys >= key_c))] = 0
        hyp = np.minimum(hyp, lengths)  # an item holds a token at most once per position
        hyp[lengths < self.min_length] = 0  # shorter than any item holding it
        return hyp


def top_k(terms: Sequence[Sequence[str]], n_docs: int, total: int, limit: int, source: PostingSource, *,
          keys: Sequence[str | None] | None = None, exact: bool = True, first_chunk: int = FIRST_CHUNK,
          resolve_batch: int = RESOLVE_BATCH) -> list[Candidate]:
    """The best ``limit`` items for ``terms`` (each a phrase of tokens; an empty one matches
    nothing but still counts for ``exact``), with ``n_docs`` items of ``total`` tokens in the
    namespace: the exhaustive BM25's results, from the heads of the lists.

    ``keys`` names each term's posting list when the store keeps one: a token's own, or a phrase's
    when the store lists every item holding that phrase; ``None``: a phrase the store does not
    list, found through its rarest token."""
    if not terms or limit <= 0 or n_docs <= 0:
        return []
    if keys is None:
        keys = [t[0] if len(t) == 1 else None for t in terms]
    avg = total / n_docs or 1.0
    stats = source.statistics(sorted({p for t in terms for p in t} | {k for k in keys if k is not None}))
    docs: dict[int, Document] = {}
    lists: list[_List] = []
    for term, key in zip(terms, keys):
        if not term or any(p not in stats for p in term) or (key is not None and key not in stats):
            lists.append(_List(0.0, None, 0, 0, first_chunk))
        elif key is not None:
            df, tf_max, min_length = stats[key]
            lists.append(_List(idf(n_docs, df), key, tf_max, min_length, first_chunk, df))
        else:
            lists.append(_phrase_list(term, stats, n_docs, source, first_chunk))
    idfs = [lst.idf for lst in lists]
    batch = resolve_batch
    just_resolved = False
    table: _Table | None = None
    while True:
        if table is None:  # made again only when postings were read; look-ups update it in place
            table = _Table(lists)
        lower = _scores(table.known, idfs, table.lengths, avg)
        threshold = _threshold(table.keys, lower, limit)
        candidates = table.candidates(lists, idfs, avg, lower, threshold)
        excluded = _unseen_excluded(lists, avg, threshold)
        open_lists = [j for j, lst in enumerate(lists) if not lst.done]
        # A list whose head still has tf > 1 lets every unknown item have that tf; its head is
        # usually short, and once read the rest have tf 1: read a chunk or two before looking up.
        heads = [j for j in open_lists if lists[j].tf_max > 1 and (lists[j].cursor is None or lists[j].cursor[1] > 1)
                 and lists[j].chunk <= first_chunk * 8]
        if len(candidates) > batch and heads:
            _advance(lists[heads[0]], source)
            table, just_resolved = None, False
            continue
        if len(candidates) and (excluded or not just_resolved):
            # Reading the rest of a short list settles every item's frequency there; resolving
            # looks the candidates up in each open list, at about PROBE_COST postings each.
            shortest = min(open_lists, key=lambda j: (lists[j].df - len(lists[j].keys), j), default=None)
            if shortest is not None and (lists[shortest].df - len(lists[shortest].keys)
                                         <= PROBE_COST * len(open_lists) * min(len(candidates), batch)):
                lst = lists[shortest]
                lst.chunk = max(lst.chunk, lst.df - len(lst.keys) + 1)
                _advance(lst, source)
                table, just_resolved = None, False
                continue
            _resolve(lists, table, candidates[:batch], source)
            batch *= 4
            just_resolved = True
            continue
        if excluded:
            break
        # The unseen item that could score most has some length; of the lists that allow it a
        # share, read the shortest (its whole bound goes once it is read), the highest bound first.
        length = _widest_length(lists, avg)
        useful = [j for j in open_lists if lists[j].bound_at(length, avg) > 0] or open_lists
        _advance(lists[min(useful, key=lambda j: (lists[j].df - len(lists[j].keys), -lists[j].bound_at(length, avg),
                                                   j))], source)
        table, just_resolved = None, False

    complete = table.complete
    scores = lower[complete]
    keys = table.keys[complete]
    matched = (table.known[complete] > 0).sum(axis=1)
    order = np.lexsort((-keys, -scores))
    best = [(float(scores[i]), int(keys[i]), exact and int(matched[i]) == len(terms))
            for i in order[:limit] if scores[i] > 0]
    missing = [key for _s, key, _h in best if key not in docs]
    if missing:
        docs.update(source.documents(missing))
    return [Candidate(docs[key][0], docs[key][1], rank, score, hit)
            for rank, (score, key, hit) in enumerate(best, start=1)]


class _Table:
    """Every item seen so far: keys (ascending), lengths, the term frequencies known (0 where
    unknown), and which frequencies are unknown."""

    def __init__(self, lists: Sequence[_List]) -> None:
        self.keys, inverse = np.unique(np.concatenate([lst.keys for lst in lists]), return_inverse=True)
        n, m = len(self.keys), len(lists)
        self.lengths = np.zeros(n, dtype=np.int64)
        self.signatures = np.zeros(n, dtype=np.int64)
        self.known = np.zeros((n, m), dtype=np.int64)
        self.unknown = np.zeros((n, m), dtype=bool)
        start = 0
        for j, lst in enumerate(lists):
            rows = inverse[start:start + len(lst.keys)]
            start += len(lst.keys)
            self.known[rows, j] = lst.tfs
            self.lengths[rows] = lst.lengths
            self.signatures[rows] = lst.signatures
            if not lst.done:
                self.unknown[:, j] = True
                self.unknown[rows, j] = False
            if lst.probed:
                probed = np.searchsorted(self.keys, np.fromiter(lst.probed, dtype=np.int64, count=len(lst.probed)))
                self.known[probed, j] = np.fromiter(lst.probed.values(), dtype=np.int64, count=len(lst.probed))
                self.unknown[probed, j] = False
        self.complete = ~self.unknown.any(axis=1)

    def candidates(self, lists: Sequence[_List], idfs: Sequence[float], avg: float, lower: np.ndarray,
                   threshold: tuple[float, int] | None) -> np.ndarray:
        """Rows not known in full that could still reach ``threshold``, best potential first."""
        open_rows = np.flatnonzero(~self.complete)
        if not len(open_rows):
            return open_rows
        keys, lengths, signatures = self.keys[open_rows], self.lengths[open_rows], self.signatures[open_rows]
        hyp = self.known[open_rows].copy()
        for j, lst in enumerate(lists):
            unknown = self.unknown[open_rows, j]
            if unknown.any():
                maybe = lst.hypothetical(keys[unknown], lengths[unknown])
                held = ((signatures[unknown] >> lst.bit) & 1).astype(bool)  # a clear bit: not there
                hyp[unknown, j] = np.where(held, maybe, 0)
        potential = _scores(hyp, idfs, lengths, avg)
        if threshold is None:
            keep = potential > 0
        else:
            theta, theta_key = threshold
            keep = (potential > theta) | ((potential == theta) & (keys >= theta_key))
        rows, potential = open_rows[keep], potential[keep]
        return rows[np.lexsort((-self.keys[rows], -potential))]  # ties: the key that wins them first


def _threshold(keys: np.ndarray, lower: np.ndarray, limit: int) -> tuple[float, int] | None:
    """The ``limit``-th best (lower score, key): at least ``limit`` items score at least this."""
    positive = np.flatnonzero(lower > 0)
    if len(positive) < limit:
        return None
    scores = lower[positive]
    kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]  # the limit-th highest score
    above = int((scores > kth).sum())
    tied = np.sort(keys[positive[scores == kth]])[::-1]  # among equal scores the higher key ranks first
    return float(kth), int(tied[limit - above - 1])


def _unseen_bound(lists: Sequence[_List], length: int, avg: float) -> float:
    """The most an unseen item of ``length`` tokens can score (summed in term order, as a score is)."""
    bound = 0.0
    for lst in lists:
        if not lst.done:
            bound += lst.bound_at(length, avg)
    return bound


def _widest_length(lists: Sequence[_List], avg: float) -> int:
    """The length at which an unseen item could score most: an unseen item has one length, and
    each open list's bound only falls between its breakpoints, so one of those is the widest."""
    lengths = sorted({n for lst in lists for n in lst.breakpoints()}) or [1]
    return max(lengths, key=lambda n: (_unseen_bound(lists, n, avg), -n))


def _unseen_excluded(lists: Sequence[_List], avg: float, threshold: tuple[float, int] | None) -> bool:
    """Whether no item outside every list read so far can reach ``threshold`` (score, key)."""
    open_lists = [lst for lst in lists if not lst.done]
    if not open_lists:
        return True
    if threshold is None:
        return False
    theta, theta_key = threshold
    if _unseen_bound(lists, _widest_length(lists, avg), avg) < theta:
        return True
    if len(open_lists) == 1 and open_lists[0].cursor is not None and open_lists[0].cursor[1] == 1:
        # One list left, in its tf-1 part: an unseen item holds only this term (it would be in the
        # others' lists), so it scores the plateau's contribution with a key below the cursor's,
        # or less (a longer item).
        lst = open_lists[0]
        key_c, _tf, length_c = lst.cursor
        plateau = contribution(lst.idf, 1, length_c, avg)
        longer = contribution(lst.idf, 1, length_c + 1, avg)
        return longer < theta and (plateau < theta or (plateau == theta and key_c <= theta_key))
    return False


def _phrase_list(term: Sequence[str], stats: Mapping[str, tuple[int, int, int]], n_docs: int,
                 source: PostingSource, chunk: int) -> _List:
    """A phrase's complete list: its rarest token's items that may hold it, counted by the store."""
    rarest = min(term, key=lambda p: (stats[p][0], p))
    keys, _tfs, lengths, signatures = (np.asarray(a, dtype=np.int64) for a in source.postings(rarest, None, stats[rarest][0]))
    mask = 0
    for part in term:
        mask |= 1 << signature_bit(part)
    mask = mask - (1 << 64) if mask >= 1 << 63 else mask
    maybe = (signatures & mask) == mask  # items whose signature lacks a part's bit cannot hold the phrase
    keys, lengths, signatures = keys[maybe], lengths[maybe], signatures[maybe]
    found = source.phrase_frequencies(keys.tolist(), term)
    tfs = np.asarray([found.get(key, 0) for key in keys.tolist()], dtype=np.int64)
    held = tfs > 0
    lst = _List(0.0, None, 0, 0, chunk)
    lst.keys, lst.tfs = np.asarray(keys, dtype=np.int64)[held], tfs[held]
    lst.lengths, lst.signatures = np.asarray(lengths, dtype=np.int64)[held], np.asarray(signatures, dtype=np.int64)[held]
    lst.idf = idf(n_docs, len(lst.keys)) if len(lst.keys) else 0.0
    return lst


def _advance(lst: _List, source: PostingSource) -> None:
    keys, tfs, lengths, signatures = (np.asarray(a, dtype=np.int64)
                                      for a in source.postings(lst.token, lst.cursor, lst.chunk))
    if len(keys):
        last = np.lexsort((keys, -lengths, tfs))[0]  # the last in impact order
        lst.cursor = (int(keys[last]), int(tfs[last]), int(lengths[last]))
        lst.keys = np.concatenate([lst.keys, keys])
        lst.tfs = np.concatenate([lst.tfs, tfs])
        lst.lengths = np.concatenate([lst.lengths, lengths])
        lst.signatures = np.concatenate([lst.signatures, signatures])
    if len(keys) < lst.chunk:
        lst.done = True
    lst.chunk = min(lst.chunk * 8, MAX_CHUNK)


def _resolve(lists: Sequence[_List], table: _Table, rows: np.ndarray, source: PostingSource) -> None:
    """Look the items of ``rows`` up in every list where their frequency is unknown (recorded in
    the list, for the next table, and in ``table`` at once)."""
    for j, lst in enumerate(lists):
        asked_rows = rows[table.unknown[rows, j]]
        if not len(asked_rows):
            continue
        asked = table.keys[asked_rows].tolist()
        found = source.holding(lst.token, asked, table.lengths[asked_rows].tolist(), lst.tf_max)
        tfs = [found.get(key, 0) for key in asked]
        lst.probed.update(zip(asked, tfs))
        table.known[asked_rows, j] = tfs
        table.unknown[asked_rows, j] = False
    table.complete[rows] = ~table.unknown[rows].any(axis=1)
