"""In-memory cosine index: quantile thermometer codes + Hamming first stage, exact float32 rescoring."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from hlmem.adapters.vectors import hamming
from hlmem.adapters.vectors.hamming import hamming_into
from hlmem.application.errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator, Sequence

__all__ = ["VectorIndex", "hamming_into"]

#: Rows sampled to estimate the per-dimension quantiles; more changes the thresholds very little.
_CALIBRATION_SAMPLE = 16_384
#: No codes below this size: the exact scan is cheaper there and quantiles would be noisy.
_MIN_CALIBRATION_ROWS = 1_024
#: Rows encoded per step, bounding the temporary boolean planes to a few MB.
_ENCODE_CHUNK = 8_192
_INITIAL_CAPACITY = 1_024


class VectorIndex:
    """Top-k cosine search over float32 vectors, each tagged with a group (e.g. a namespace).

    Vectors are L2-normalised on the way in, so scores are cosines. Every row also carries a
    *thermometer code*: for each dimension, ``bits`` bits saying whether the value exceeds each
    of the dimension's ``bits`` inner quantiles (tertiles for the default ``bits=2``), estimated
    from the data. The Hamming distance between two codes is then the L1 distance between the
    quantised values, which ranks neighbours far better than sign bits on anisotropic
    embeddings such as e5, whose vectors share a large common component (ADR 0005). ``search``
    takes the ``candidates`` rows with the smallest Hamming distance and rescores them exactly
    in float32.

    Quantiles are re-estimated, and every code rebuilt, each time the row count doubles,
    so the amortised cost of ``add`` stays constant while the thresholds track the data.
    A large load in many ``add`` calls goes inside ``with index.bulk(expected):``, which sizes
    the arrays once and estimates quantiles and codes once, at the end.

    Not thread-safe: ``search`` reuses scratch buffers and ``add``/``remove`` move rows. Callers
    that share an index between threads must serialise every call (one lock per index).

    :param dim: vector dimension.
    :param bits: code bits per dimension (1 = sign of the median-centred value; 3 = quartiles,
        more recall per candidate for 1.5x the scan cost).
    :param candidates: default number of rows rescored exactly per search.
    :param exact_below: searches over at most this many rows scan them all exactly.
    :param compiled: the Hamming pass compiled with numba (True), in numpy (False), or compiled
        when numba is installed (None, the default); both choose the same rows (:mod:`hlmem.adapters.vectors.hamming`).
    """

    def __init__(self, dim: int, *, bits: int = 2, candidates: int = 1_000, exact_below: int = 4_096,
                 compiled: bool | None = None) -> None:
        if dim <= 0 or bits <= 0 or candidates <= 0:
            raise ValidationError("dim, bits and candidates must be positive", field="dim")
        self.dim = dim
        self.bits = bits
        self.candidates = candidates
        self.exact_below = exact_below
        self.compiled = compiled
        self._words = -(-dim * bits // 64)
        # One more than the largest possible distance marks rows a group filter excludes.
        self._excluded = self._words * 64 + 1
        self._ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._group_code: dict[str, int] = {}
        self._group_size: list[int] = []
        self._thresholds: np.ndarray | None = None
        self._calibrated_at = 0
        self._bulk = False
        self._allocate(_INITIAL_CAPACITY)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item: object) -> bool:
        return item in self._row_of

    @property
    def nbytes(self) -> int:
        """Bytes held by the numpy arrays (vectors, codes, groups, scratch); ids are extra."""
        arrays = (self._vectors, self._codes, self._groups, self._xor, self._count, self._partial, self._dist)
        return sum(a.nbytes for a in arrays)

    def add(self, ids: Sequence[str], vectors: np.ndarray, *, group: str = "") -> None:
        """Insert or replace vectors; a repeated id keeps its last vector and takes ``group``.

        :param ids: one id per row of ``vectors``.
        :param vectors: float array of shape ``(len(ids), dim)``, any non-zero norm.
        :param group: the group every row joins, matched by ``search(group=...)``.
        :raises ValidationError: (a ``ValueError``) on shape mismatch, NaN/inf or zero-norm rows.
        """
        matrix = self._normalised(vectors, "vectors")
        if matrix.shape[0] != len(ids):
            raise ValidationError(f"{len(ids)} ids but {matrix.shape[0]} vectors", field="ids")
        last = {item: i for i, item in enumerate(ids)}  # a repeated id: the last row wins
        code = self._group_code.setdefault(group, len(self._group_code))
        if code == len(self._group_size):
            self._group_size.append(0)
        rows = np.empty(len(last), dtype=np.intp)
        fresh = [item for item in last if item not in self._row_of]
        self._reserve(len(self._ids) + len(fresh))
        for j, item in enumerate(last):
            row = self._row_of.get(item)
            if row is None:
                row = self._row_of[item] = len(self._ids)
                self._ids.append(item)
            else:
                self._group_size[self._groups[row]] -= 1
            rows[j] = row
        self._group_size[code] += len(rows)
        self._vectors[rows] = matrix[list(last.values())]
        self._groups[rows] = code
        if self._bulk:
            return  # codes are made once, when the bulk load ends
        if len(self._ids) >= max(_MIN_CALIBRATION_ROWS, 2 * self._calibrated_at):
            self.calibrate()
        elif self._thresholds is not None:
            self._codes[:, rows] = self._encode(self._vectors[rows]).T

    @contextmanager
    def bulk(self, expected: int = 0) -> Iterator[VectorIndex]:
        """Add many batches with one allocation and one calibration.

        Inside the block, ``add`` only stores rows (no codes); on leaving it, the quantiles are
        estimated from every row and all codes rebuilt (when there are enough rows for codes).
        Do not ``search`` or ``remove`` inside the block.

        :param expected: how many rows the block will add at most (sizes the arrays once).
        """
        if self._bulk:
            raise ValidationError("bulk loads do not nest", field="bulk")
        self._reserve(len(self._ids) + max(0, expected))
        self._bulk = True
        try:
            yield self
        finally:
            self._bulk = False
            if len(self._ids) >= _MIN_CALIBRATION_ROWS or self._thresholds is not None:
                self.calibrate()

    def remove(self, ids: Collection[str]) -> int:
        """Drop ids, moving the last row into each hole; unknown ids are ignored.

        Capacity is kept, so a later refill does not reallocate.

        :returns: how many ids were present and removed.
        """
        removed = 0
        for item in ids:
            row = self._row_of.pop(item, None)
            if row is None:
                continue
            removed += 1
            self._group_size[self._groups[row]] -= 1
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._ids[row] = moved
                self._row_of[moved] = row
                self._vectors[row] = self._vectors[last]
                self._codes[:, row] = self._codes[:, last]
                self._groups[row] = self._groups[last]
            self._ids.pop()
        return removed

    def calibrate(self) -> None:
        """Re-estimate the quantile thresholds from the current rows and rebuild every code."""
        n = len(self._ids)
        if n == 0:
            self._thresholds, self._calibrated_at = None, 0
            return
        sample = self._vectors[:n]
        if n > _CALIBRATION_SAMPLE:
            # Seeded by n so a rebuild from the same log yields the same codes.
            picks = np.random.default_rng(n).choice(n, _CALIBRATION_SAMPLE, replace=False)
            sample = sample[np.sort(picks)]
        levels = np.arange(1, self.bits + 1) / (self.bits + 1)
        self._thresholds = np.quantile(sample, levels, axis=0).astype(np.float32)
        for start in range(0, n, _ENCODE_CHUNK):
            stop = min(n, start + _ENCODE_CHUNK)
            self._codes[:, start:stop] = self._encode(self._vectors[start:stop]).T
        self._calibrated_at = n

    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        group: str | Collection[str] | None = None,
        allowed: Callable[[str], bool] | None = None,
        candidates: int | None = None,
        exact: bool = False,
    ) -> list[tuple[str, float]]:
        """The ``k`` best ``(id, cosine)`` pairs, best first; ties broken by id.

        :param query: float vector of shape ``(dim,)``, any non-zero norm.
        :param group: one group or several; rows of other groups are never returned.
        :param allowed: optional predicate on ids (e.g. status); called on best rows first,
            and the candidate pool grows until ``k`` ids pass or every row was tried.
        :param candidates: rows rescored exactly (default: the index's ``candidates``).
        :param exact: scan every row in float32 (the reference for evaluation).
        :raises ValidationError: on a wrong shape, NaN/inf or a zero-norm query.
        """
        if np.shape(query) != (self.dim,):
            raise ValidationError(f"query must have shape ({self.dim},), got {np.shape(query)}", field="query")
        q = self._normalised(np.reshape(query, (1, self.dim)), "query")[0]
        n = len(self._ids)
        if k <= 0 or n == 0:
            return []
        mask, size = self._group_mask(group, n)
        if size == 0:
            return []
        pool = max(candidates or self.candidates, k)
        while True:
            if exact or self._thresholds is None or size <= max(self.exact_below, pool):
                rows = np.arange(n) if mask is None else np.flatnonzero(mask)
                scores = _dot_rows(self._vectors[:n], None if mask is None else rows, q)
                return self._best(rows, scores, k, allowed)
            if allowed is None and self.compiled is not False:
                # One compiled call without the GIL: first stage, rescoring and the k best.
                scratch = {"dist": self._dist}
                q_code = self._encode(q.reshape(1, -1))[0]
                scored = hamming.nearest_scored(self._codes, self._vectors, q_code, q, n, pool, k, self._excluded,
                                                mask, scratch)
                if scored is not None:
                    return self._best(*scored, k, None)
            rows = self._nearest_codes(q, mask, pool)
            hits = self._best(rows, _dot_rows(self._vectors, rows, q), k, allowed)
            if len(hits) == k or allowed is None:
                return hits
            pool *= 4  # the predicate rejected too many: widen, ending in an exact scan

    # -- internals -----------------------------------------------------------------------------

    def _allocate(self, capacity: int) -> None:
        self._vectors = np.zeros((capacity, self.dim), dtype=np.float32)
        # Word-major (words, rows): each word's column is contiguous, so the Hamming loop
        # streams through memory instead of summing along a short row axis.
        self._codes = np.zeros((self._words, capacity), dtype=np.uint64)
        self._groups = np.zeros(capacity, dtype=np.int32)
        self._xor = np.empty(capacity, dtype=np.uint64)
        self._count = np.empty(capacity, dtype=np.uint8)
        self._partial = np.empty(capacity, dtype=np.uint8)
        self._dist = np.empty(capacity, dtype=np.uint16 if self._excluded < 2**16 else np.uint32)

    def _reserve(self, needed: int) -> None:
        capacity = self._vectors.shape[0]
        if needed <= capacity:
            return
        # Growing by half keeps appends amortised O(1) with less slack than doubling, and a
        # bulk load gets exactly the room it asks for.
        capacity = max(needed, capacity + capacity // 2)
        n = len(self._ids)
        old_vectors, old_codes, old_groups = self._vectors, self._codes, self._groups
        self._allocate(capacity)
        self._vectors[:n] = old_vectors[:n]
        self._codes[:, :n] = old_codes[:, :n]
        self._groups[:n] = old_groups[:n]

    def _normalised(self, array: np.ndarray, name: str) -> np.ndarray:
        matrix = np.asarray(array, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != self.dim:
            raise ValidationError(f"{name} must have shape (n, {self.dim}), got {matrix.shape}", field=name)
        if not np.isfinite(matrix).all():
            raise ValidationError(f"{name} contains NaN or infinite values", field=name)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if (norms == 0).any():
            raise ValidationError(f"{name} contains a zero-norm vector; cosine is undefined", field=name)
        return matrix / norms

    def _encode(self, matrix: np.ndarray) -> np.ndarray:
        """Rows (m, dim) -> codes (m, words) as uint64; padding bits are zero on both sides."""
        assert self._thresholds is not None
        planes = np.concatenate([matrix > t for t in self._thresholds], axis=1)
        packed = np.packbits(planes, axis=1)
        padded = np.zeros((matrix.shape[0], self._words * 8), dtype=np.uint8)
        padded[:, : packed.shape[1]] = packed
        return padded.view(np.uint64)

    def _group_mask(self, group: str | Collection[str] | None, n: int) -> tuple[np.ndarray | None, int]:
        if group is None:
            return None, n
        names = [group] if isinstance(group, str) else list(group)
        codes = [self._group_code[g] for g in names if g in self._group_code]
        size = sum(self._group_size[c] for c in set(codes))
        if size == n:
            return None, n  # the groups asked for cover every row: nothing to filter
        if len(codes) == 1:
            return self._groups[:n] == codes[0], size
        return np.isin(self._groups[:n], codes), size

    def _nearest_codes(self, q: np.ndarray, mask: np.ndarray | None, pool: int) -> np.ndarray:
        """Rows with the ``pool`` smallest Hamming distances (all rows of a tied last distance)."""
        n = len(self._ids)
        q_code = self._encode(q.reshape(1, -1))[0]
        scratch = {"dist": self._dist, "xor": self._xor, "count": self._count, "partial": self._partial}
        return hamming.nearest(self._codes, q_code, n, pool, self._excluded, mask, scratch, compiled=self.compiled)

    def _best(
        self, rows: np.ndarray, scores: np.ndarray, k: int, allowed: Callable[[str], bool] | None
    ) -> list[tuple[str, float]]:
        want = k
        while True:
            if want >= len(scores):
                top = np.arange(len(scores))
            else:
                part = np.argpartition(-scores, want - 1)[:want]
                # Keep every row tied with the last one, so ties go by id rather than position.
                top = np.flatnonzero(scores >= scores[part].min())
            hits: list[tuple[str, float]] = []
            # Python floats and row numbers in bulk (tolist), not one numpy scalar at a time.
            ids = self._ids
            for neg, item in sorted(zip((-scores[top]).tolist(), [ids[r] for r in rows[top].tolist()])):
                if allowed is None or allowed(item):
                    hits.append((item, -neg))
                    if len(hits) == k:
                        return hits
            if want >= len(scores):
                return hits
            want *= 4


def _dot_rows(vectors: np.ndarray, rows: np.ndarray | None, q: np.ndarray) -> np.ndarray:
    # einsum, not BLAS: on a busy 2-core host a threaded OpenBLAS gemv waits for its worker
    # threads to be scheduled and measured 5-20 ms where single-threaded einsum takes < 1 ms.
    # take, not vectors[rows]: the same rows, gathered row by row at about half the cost of
    # fancy indexing for ~1,000 scattered rows.
    return np.einsum("ij,j->i", vectors if rows is None else vectors.take(rows, axis=0), q)
