"""Reproducible random streams that do not depend on batch size or worker count.

Every *unit* (a replicate run, or a fixed-size chunk of independent transitions) owns
one ``numpy.random.Generator`` per kind of draw, seeded by
``SeedSequence(seed, spawn_key=(unit, kind_key))``.  Unit ``u``'s numbers therefore
depend only on ``(seed, u, kind)``: not on how many units there are, how many are
processed at once, or on which worker.

Draws are buffered in blocks of ``block`` iterations: one generator call per unit and
kind every ``block`` iterations, so the per-iteration hot path never loops over units
in Python.  NumPy generators give the same sequence whether numbers are drawn one
iteration at a time or a block at a time (checked in ``tests/test_simulate_rng.py``),
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
            self._gens[kind] = [unit_generator(self.seed, self.unit(u),
                                               kind) for u in range(self.units)]
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
