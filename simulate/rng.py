"""Reproducible random streams that do not depend on batch size or worker count.

Every *unit* (a replicate run, or a fixed-size chunk of independent transitions) owns
one ``numpy.random.Generator`` per kind of draw, seeded by
``SeedSequence(seed, spawn_key=(unit, kind_key))``.  Unit ``u``'s numbers therefore
depend only on ``(seed, u, kind)``: not on how many units there are, how many are
processed at once, or on which worker.

Draws are buffered in blocks of ``block`` iterations: one generator call per unit and
kind every ``block`` iterations, so the per-iteration hot path never loops over units
in Python.  NumPy generators give the same sequence whether numbers are drawn one
iteration at a time or a block at a time (checked in ``tests/test_reproducibility.py``),
so results do not depend on ``block`` either.

Units are numbered ``first_unit, first_unit + 1, ...`` by default; ``unit_ids`` names
them explicitly instead (an int or a tuple of ints each, e.g. a sweep cell's
replication index, or ``(cell key, replication)``), so a row's numbers are the same
whatever other rows share the batch and wherever it sits in it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np


def _kind_key(kind: str) -> int:
    return zlib.crc32(kind.encode())


def _unit_key(unit) -> tuple:
    """Read a unit id (a non-negative int or a tuple of them) as a spawn-key prefix."""
    if isinstance(unit, (int, np.integer)) and unit >= 0:
        return (int(unit),)
    key = (tuple(int(v) for v in unit) if isinstance(unit, (tuple, list,
                                                            np.ndarray)) else (int(unit),))
    if not key or min(key) < 0:
        raise ValueError(
            f"a unit id is a non-negative integer or a non-empty tuple of them, got {unit!r}")
    return key


def unit_generator(seed: int, unit, kind: str) -> np.random.Generator:
    """Return the generator of (seed, unit, kind).

    It draws from ``SeedSequence(seed, spawn_key=(*unit, crc32(kind)))``; ``unit`` is an int
    (the usual case) or a tuple of ints.
    """
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(*_unit_key(unit), _kind_key(kind)))
    return np.random.Generator(np.random.PCG64(ss))


# ----------------------------------------------------------------------------- many units at once
# numpy.random.SeedSequence's hash (M. E. O'Neill's seed_seq alternative, as numpy implements it
# in numpy/random/bit_generator.pyx), evaluated for many spawn keys at once with array
# arithmetic.  ``numpy.random.PCG64(SeedSequence(seed, spawn_key=key))`` costs about 0.1 ms,
# nearly all of it in the per-key hashing; a batch of 20,000 units (a notebook's replicates)
# spent seconds there.  The states are the ones SeedSequence gives, word for word
# (tests/test_reproducibility.py compares them on thousands of keys), so the streams are too.
_M32 = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(16)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
_POOL = 4  # SeedSequence's default pool size (32-bit words)


def _words(n: int) -> list[int]:
    """Split a non-negative integer into 32-bit words, least significant first (SeedSequence)."""
    if int(n) < 0:
        raise ValueError(f"a seed or spawn key is a non-negative integer, got {n}")
    out = [int(n) & 0xFFFFFFFF]
    n = int(n) >> 32
    while n:
        out.append(n & 0xFFFFFFFF)
        n >>= 32
    return out


def _entropy(seed: int, spawn_key: tuple) -> list[int]:
    """Assemble the entropy of ``SeedSequence(seed, spawn_key=spawn_key)``.

    The seed's words, padded to the pool size when there is a spawn key, then the spawn key's.
    """
    run = _words(seed)
    spawn = [w for k in spawn_key for w in _words(k)]
    if spawn and len(run) < _POOL:
        run += [0] * (_POOL - len(run))
    return run + spawn


def _pcg64_seeds(entropy: np.ndarray) -> np.ndarray:
    """Compute ``SeedSequence(...).generate_state(4, numpy.uint64)`` for each row of ``entropy``.

    ``entropy`` is an (n, L) array of 32-bit words held in uint64; the result, (n, 4) uint64, is
    what numpy's PCG64 seeds itself with.
    """
    n, length = entropy.shape
    mult = _INIT_A

    def hashmix(v):
        nonlocal mult
        v = v ^ np.uint64(mult)
        mult = (mult * _MULT_A) & 0xFFFFFFFF
        v = (v * np.uint64(mult)) & _M32
        return v ^ (v >> _SHIFT)

    def mix(x, y):
        r = (_MIX_L * x - _MIX_R * y) & _M32
        return r ^ (r >> _SHIFT)

    zero = np.zeros(n, dtype=np.uint64)
    pool = [hashmix(entropy[:, i] if i < length else zero) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, length):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[:, src]))
    words = np.empty((n, 8), dtype=np.uint64)
    mult = _INIT_B
    for i in range(8):
        v = pool[i % _POOL] ^ np.uint64(mult)
        mult = (mult * _MULT_B) & 0xFFFFFFFF
        v = (v * np.uint64(mult)) & _M32
        words[:, i] = v ^ (v >> _SHIFT)
    return words[:, 0::2] | (words[:, 1::2] << np.uint64(32))


class _Seeded:
    """The seed of one PCG64, already derived (:func:`_pcg64_seeds`).

    numpy's bit generators accept any ``ISeedSequence`` and ask it for
    ``generate_state(4, uint64)``.
    """

    __slots__ = ("words",)

    def __init__(self, words: np.ndarray):
        self.words = words

    def generate_state(self, n_words, dtype=np.uint32):
        if n_words != 4 or np.dtype(dtype) != np.uint64:
            raise ValueError("a derived seed gives PCG64's four 64-bit words only")
        return self.words.copy()


np.random.bit_generator.ISeedSequence.register(_Seeded)


def unit_generators(seed: int, units, kind: str) -> list[np.random.Generator]:
    """``[unit_generator(seed, u, kind) for u in units]``, the same streams, derived at once."""
    keys = [(*_unit_key(u), _kind_key(kind)) for u in units]
    out: list = [None] * len(keys)
    by_length: dict[int, list[int]] = {}
    rows = [_entropy(int(seed), k) for k in keys]
    for i, row in enumerate(rows):
        by_length.setdefault(len(row), []).append(i)
    for idx in by_length.values():
        seeds = _pcg64_seeds(np.array([rows[i] for i in idx], dtype=np.uint64))
        for i, words in zip(idx, seeds):
            out[i] = np.random.Generator(np.random.PCG64(_Seeded(words)))  # type: ignore[arg-type]
    return out


@dataclass
class _Buffer:
    data: np.ndarray  # (rows, block, *shape)
    pos: int
    spare: np.ndarray | None = None  # the previous block's array, refilled next time


@dataclass
class Streams:
    """Per-unit random streams with block buffering.

    ``take(kind, shape)`` returns the next iteration's draws, shaped
    ``(units * unit_size, *shape)``; rows ``[u*unit_size, (u+1)*unit_size)`` come from
    unit ``u``'s stream.  The returned array is a view into a block buffer: it stays valid
    for at least ``block`` further calls of the same kind (copy it to keep it longer).
    Unit ``u`` is ``unit_ids[u]`` when given (then ``units == len(unit_ids)``), else
    ``first_unit + u``.  ``kind`` is ``"normal"``, ``"uniform"``, ``"gamma:<a>"``
    (standard gamma with shape a) optionally followed by ``"/<tag>"`` to open an
    independent stream of the same distribution.
    """

    seed: int
    units: int
    unit_size: int = 1
    block: int = 32
    first_unit: int = 0
    unit_ids: tuple | None = None
    _gens: dict = field(default_factory=dict, repr=False)
    _bufs: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        """Normalise the unit ids to ints or tuples of ints."""
        if self.unit_ids is not None:
            ids = tuple(_unit_key(u) for u in self.unit_ids)
            self.unit_ids = tuple(k[0] if len(k) == 1 else k for k in ids)
            if len(self.unit_ids) != self.units:
                raise ValueError(f"{len(self.unit_ids)} unit ids for {self.units} units")
            if len(set(ids)) != len(ids):
                raise ValueError("unit ids must be distinct (two rows would draw the same numbers)")

    @classmethod
    def for_units(cls, seed: int, unit_ids, unit_size: int = 1, block: int = 32) -> "Streams":
        """Streams whose row u comes from unit ``unit_ids[u]``."""
        ids = tuple(unit_ids)
        return cls(seed, len(ids), unit_size, block, unit_ids=ids)

    @property
    def rows(self) -> int:
        """Number of rows: units times rows per unit."""
        return self.units * self.unit_size

    def unit(self, u: int):
        """Return the id of the u-th unit."""
        return self.first_unit + u if self.unit_ids is None else self.unit_ids[u]

    def _generators(self, kind):
        if kind not in self._gens:
            self._gens[kind] = unit_generators(self.seed, map(self.unit, range(self.units)),
                                               kind)
        return self._gens[kind]

    @staticmethod
    def _draw(gen, kind, out):
        """Fill ``out`` (C-contiguous float64) with the next draws of ``gen``."""
        dist = kind.split("/")[0]
        if dist == "normal":
            gen.standard_normal(out=out)
        elif dist == "uniform":
            gen.random(out=out)
        elif dist.startswith("gamma:"):
            gen.standard_gamma(float(dist.split(":")[1]), out=out)
        else:
            raise ValueError(f"unknown stream kind {kind!r}")

    def take(self, kind: str, shape: tuple[int, ...] = ()) -> np.ndarray:
        """Return the next draw of ``kind`` for every row, shape ``(rows, *shape)``."""
        key = (kind, tuple(shape))
        buf = self._bufs.get(key)
        if buf is None or buf.pos == buf.data.shape[1]:
            gens = self._generators(kind + "|" + "x".join(map(str, shape)))
            # layout (rows, block, *shape): one contiguous slab per unit, filled in place.
            # Two arrays alternate (double buffering): a view handed out stays valid for at
            # least ``block`` further iterations, and no fresh 10-100 MB array is page-faulted
            # in at every refill.
            data = (buf.spare if buf is not None and buf.spare is not None
                    else np.empty((self.rows, self.block, *shape)))
            us = self.unit_size
            for u, g in enumerate(gens):  # once per block, not per sample
                if us == 1:
                    self._draw(g, kind, data[u])
                else:  # keep iteration-major order within the unit
                    tmp = np.empty((self.block, us, *shape))
                    self._draw(g, kind, tmp)
                    data[u * us:(u + 1) * us] = np.swapaxes(tmp, 0, 1)
            buf = _Buffer(data, 0, None if buf is None else buf.data)
            self._bufs[key] = buf
        out = buf.data[:, buf.pos]
        buf.pos += 1
        return out

    def state(self) -> dict:
        """Picklable state (generators and buffers) for checkpoints."""
        return {
            "seed": self.seed, "units": self.units, "unit_size": self.unit_size,
            "block": self.block,
            "first_unit": self.first_unit, "unit_ids": self.unit_ids,
            "gens": {k: [g.bit_generator.state for g in v] for k, v in self._gens.items()},
            "bufs": {k: (b.data.copy(), b.pos) for k, b in self._bufs.items()},
        }

    @classmethod
    def from_state(cls, st: dict) -> "Streams":
        """Rebuild streams from :meth:`state` (generators and buffers)."""
        s = cls(st["seed"], st["units"], st["unit_size"], st["block"], st["first_unit"],
                st.get("unit_ids"))
        for k, states in st["gens"].items():
            gens = []
            for state in states:
                bg = np.random.PCG64()
                bg.state = state
                gens.append(np.random.Generator(bg))
            s._gens[k] = gens
        s._bufs = {k: _Buffer(d.copy(), p) for k, (d, p) in st["bufs"].items()}
        return s

    def copy(self) -> "Streams":
        """Return an independent copy that continues with the same numbers."""
        return Streams.from_state(self.state())
