"""Enclosures: intervals that provably contain a value, and relations decided on them.

A verdict on ``lhs <= rhs`` is only as good as the arithmetic behind both sides.  Instead of a
tolerance, each side is carried as an :class:`Enclosure` ``[lo, hi]`` that provably contains
its true value, and the relation is decided on the enclosures (docs/methods.md, "Validated
numerics"):

* ``lhs <= rhs`` **holds** iff ``hi(lhs) <= lo(rhs)`` and is **violated** iff
  ``lo(lhs) > hi(rhs)``; otherwise it is not yet decided (:func:`relation_verdict` returns
  None) and the caller computes both sides again at a higher precision (:data:`PRECISIONS`);
* ``<``, ``>=`` and ``>`` likewise; ``lhs = rhs`` holds only when both sides are the same
  exact number and is violated when the enclosures are disjoint.

Where an enclosure comes from is its ``how``: ``"float64"`` (a double with a proved error
bound: :meth:`Enclosure.f64`), ``"exact"`` (integers and rationals), or ``"arb-<bits>"`` (ball
arithmetic of python-flint's ``arb`` at that working precision, which propagates a rigorous
radius through every operation).  A float64 value is taken as exact up to :data:`ULPS` units
in its last place, *relative to the value*: there is no absolute floor, so a quantity of
1e-200 is compared as carefully as one of 0.5.

:func:`enclose_expr` evaluates a sympy expression (a bound's formula) in ball arithmetic at
a given precision; :func:`log10_ratio` gives ``log10(lhs / rhs)`` from the enclosures at any
magnitude (a ratio of 1e-300 is never shown as 0).
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

#: the working precisions (bits) tried in turn after float64, up to the cap (the last)
PRECISIONS = (64, 256, 1024)
#: a float64 value is taken as exact up to this many units in the last place (relative)
ULPS = 4
FLOAT64 = "float64"
EXACT = "exact"
_INF = math.inf


def arb_how(prec: int) -> str:
    """Name the method of an enclosure computed in ball arithmetic at ``prec`` bits."""
    return f"arb-{int(prec)}"


# ----------------------------------------------------------------------------- endpoints
class Dyadic:
    """An exact binary number ``man * 2**exp`` at any exponent (an end of a ball far outside
    the double range: ``2**-40000000000000`` has no :class:`Fraction` that fits in memory)."""

    __slots__ = ("man", "exp")

    def __init__(self, man: int, exp: int):
        man, exp = int(man), int(exp)
        if man:
            tz = (man & -man).bit_length() - 1  # normalise: odd mantissa
            man >>= tz
            exp += tz
        else:
            exp = 0
        self.man, self.exp = man, exp

    def __eq__(self, other):
        return _cmp(self, other) == 0

    def __hash__(self):
        return hash((self.man, self.exp))

    def __repr__(self):
        return f"Dyadic({self.man}, {self.exp})"

    def log2(self) -> float:
        """log2 of the magnitude (the mantissa may have thousands of bits)."""
        m = abs(self.man)
        shift = max(m.bit_length() - 60, 0)
        return math.log2(m >> shift) + shift + self.exp


def _from_man_exp(man, exp):
    """``man * 2**exp`` as a float or Fraction when moderate, else a :class:`Dyadic`."""
    man, exp = int(man), int(exp)
    if -1100 <= exp + man.bit_length() <= 1100 and exp > -4000:
        return _compact(Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp))
    return Dyadic(man, exp)


def _mag2(x) -> float:
    """An estimate of log2 |x| within 1 (x != 0, finite)."""
    if isinstance(x, Dyadic):
        return x.log2()
    if isinstance(x, float):
        return math.log2(abs(x))
    x = Fraction(x)
    return _bits_log2(abs(x.numerator)) - _bits_log2(x.denominator)


def _bits_log2(n: int) -> float:
    shift = max(n.bit_length() - 60, 0)
    return math.log2(n >> shift) + shift


def _sgn(x) -> int:
    if isinstance(x, Dyadic):
        return (x.man > 0) - (x.man < 0)
    return (x > 0) - (x < 0)


def _as_fraction(x) -> Fraction:
    if isinstance(x, Dyadic):
        return Fraction(x.man * 2 ** x.exp) if x.exp >= 0 else Fraction(x.man, 2 ** -x.exp)
    return Fraction(x)


def _cmp(a, b) -> int:
    """-1, 0 or 1 as ``a < b``, ``a == b``, ``a > b``, exactly, for any stored endpoint."""
    if type(a) is float and type(b) is float:
        return (a > b) - (a < b)
    for x, s in ((a, 1), (b, -1)):
        if isinstance(x, float) and math.isinf(x):
            other = b if s == 1 else a
            if isinstance(other, float) and other == x:
                return 0
            return s * (1 if x > 0 else -1)
    sa, sb = _sgn(a), _sgn(b)
    if sa != sb or sa == 0:
        return (sa > sb) - (sa < sb)
    ma, mb = _mag2(a), _mag2(b)
    if abs(ma - mb) > 4:  # magnitudes far apart: decided by them
        return sa * (1 if ma > mb else -1)
    if isinstance(a, Dyadic) and isinstance(b, Dyadic):
        e = min(a.exp, b.exp)
        x, y = a.man << (a.exp - e), b.man << (b.exp - e)
        return (x > y) - (x < y)
    # close magnitudes, one side a float or Fraction of moderate size: exact rationals
    fa, fb = _as_fraction(a), _as_fraction(b)
    return (fa > fb) - (fa < fb)


def _le(a, b) -> bool:
    """``a <= b`` exactly, for endpoints of any of the stored types."""
    if type(a) is float and type(b) is float:
        return a <= b
    return _cmp(a, b) <= 0


def _lt(a, b) -> bool:
    if type(a) is float and type(b) is float:
        return a < b
    return _cmp(a, b) < 0


def _is_inf(x) -> bool:
    return isinstance(x, float) and math.isinf(x)


def _down(x: float, n: int = 1) -> float:
    for _ in range(n):
        x = math.nextafter(x, -_INF)
    return x


def _up(x: float, n: int = 1) -> float:
    for _ in range(n):
        x = math.nextafter(x, _INF)
    return x


_TINY = 2.2250738585072014e-308
_HUGE = 1.7976931348623157e308


def _float_down(x) -> float:
    """The largest double <= ``x`` (the largest finite one below a huge ``x``)."""
    if isinstance(x, float):
        return x
    if isinstance(x, Dyadic):
        m = x.log2()
        if m > 1024:
            return _HUGE if x.man > 0 else -_INF
        if m < -1080:
            return 0.0 if x.man > 0 else -5e-324
        x = _as_fraction(x)
    f = float(x)
    if Fraction(f) > x:
        f = _down(f)
    return f


def _float_up(x) -> float:
    """The smallest double >= ``x``."""
    if isinstance(x, float):
        return x
    if isinstance(x, Dyadic):
        m = x.log2()
        if m > 1024:
            return _INF if x.man > 0 else -_HUGE
        if m < -1080:
            return 5e-324 if x.man > 0 else -0.0
        x = _as_fraction(x)
    f = float(x)
    if Fraction(f) < x:
        f = _up(f)
    return f


def _arb_ends(a) -> tuple[Any, Any]:
    """Exact ends enclosing a python-flint ``arb`` (its lower and upper bounds, rounded
    outward by arb itself; an infinite ball: floats)."""
    if not a.is_finite():
        return -_INF, _INF
    if a.is_exact():
        e = _end(a)
        return e, e
    # lower() and upper() round at the working precision: use the ball's own (its midpoint's
    # bits), not whatever the context happens to be, so a 1024-bit ball keeps its width
    bits = max(int(a.mid().man_exp()[0]).bit_length(), 53) + 16
    with precision(bits):
        return _end(a.lower()), _end(a.upper())


def _end(x):
    """An exact ``arb`` as a stored endpoint."""
    if x.is_zero():
        return 0.0
    man, exp = x.man_exp()
    return _from_man_exp(int(man), int(exp))


def _coprime(p: int, q: int) -> Fraction:
    """``p/q`` for coprime ``p`` and ``q > 0`` (python-flint's canonical ``fmpq``) without the gcd
    that ``Fraction(p, q)`` computes again: seconds for a million-bit rational.  Uses the
    constructor CPython provides for that (``_from_coprime_ints`` from 3.12, ``_normalize=False``
    before); any other Python normalises."""
    make = getattr(Fraction, "_from_coprime_ints", None)
    if make is not None:
        return make(p, q)
    try:
        return Fraction(p, q, _normalize=False)  # type: ignore[call-overload]
    except TypeError:
        return Fraction(p, q)


def _compact(x: Fraction):
    """``x`` as a float when that is exact, else the Fraction itself."""
    d = x.denominator
    if d & (d - 1) == 0 and abs(x) < 2 ** 1000 and (x == 0 or abs(x) > Fraction(_TINY)):
        f = float(x)
        if Fraction(f) == x:
            return f
    return x


def _to_arb(x):
    """A stored endpoint as an exact ``arb`` (Fractions: a ball at the current precision)."""
    from flint import arb, fmpq, fmpz

    if isinstance(x, Dyadic):
        return arb(fmpz(x.man)) * arb(2) ** fmpz(x.exp)
    if isinstance(x, Fraction):
        if x.denominator.bit_length() > 4096:  # a ball quotient: no gcd of long integers
            return arb(fmpz(x.numerator)) / arb(fmpz(x.denominator))
        return arb(fmpq(x.numerator, x.denominator))
    return arb(x)


def _dec(x, down: bool) -> str:
    """A decimal string of an endpoint outside the double range, rounded outward (17
    significant digits)."""
    if isinstance(x, float):
        return repr(x)
    ctx = decimal.Context(prec=17, rounding=decimal.ROUND_FLOOR if down else decimal.ROUND_CEILING,
                          Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)
    if isinstance(x, Dyadic):
        big = decimal.Context(prec=40, Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)
        v = big.multiply(decimal.Decimal(x.man), big.power(decimal.Decimal(2), x.exp))
        # v carries a relative error below 1e-38: round it outward at 17 digits, one unit more
        r = ctx.plus(v)
        ulp = ctx.scaleb(decimal.Decimal(1), r.adjusted() - 16)
        return str(ctx.subtract(r, ulp) if down else ctx.add(r, ulp))
    if max(x.numerator.bit_length(), x.denominator.bit_length()) <= 4096:
        return str(ctx.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator)))
    # a long rational (an exact sum of matrix powers): its 128-bit ball's outer end, then as a
    # binary fraction (converting the integers to decimal would take seconds)
    from flint import arb

    with precision(128):
        a = _to_arb(x)
        end = _end(arb(a.lower()) if down else arb(a.upper()))
    return _dec(end, down)


# ----------------------------------------------------------------------------- the enclosure
@dataclass(frozen=True, slots=True)
class Enclosure:
    """A closed interval ``[lo, hi]`` that provably contains a real value.

    ``lo`` and ``hi`` are exact numbers (``float``, ``int`` or :class:`fractions.Fraction`;
    ``-inf``/``inf`` for an unbounded side); ``how`` says how the enclosure was obtained
    (``"float64"``, ``"exact"`` or ``"arb-<bits>"``).

    Parameters
    ----------
    lo, hi : float, int, fractions.Fraction or Dyadic
        The lower and upper ends (``-inf``/``inf`` for an unbounded side).
    how : str, default "exact"
        How the enclosure was obtained: ``"float64"``, ``"exact"`` or ``"arb-<bits>"``.
    """

    lo: Any
    hi: Any
    how: str = EXACT

    # ------------------------------------------------------------------ constructors
    @staticmethod
    def point(x, how: str = EXACT) -> "Enclosure":
        """The exact value ``x`` (an int, a Fraction, or a float standing for itself).

        Parameters
        ----------
        x : int, fractions.Fraction or float
            The value; an int or a Fraction is stored in lowest terms, anything else as a float.
        how : str, default "exact"
            The label of the enclosure's method.

        Returns
        -------
        Enclosure
            ``[x, x]``.
        """
        if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
            x = _compact(Fraction(x))
        elif not isinstance(x, (float, Dyadic)):
            x = float(x)
        return Enclosure(x, x, how)

    @staticmethod
    def f64(x: float, err: float = 0.0, ulps: int = ULPS) -> "Enclosure":
        """A double computed with absolute error at most ``err``, plus ``ulps`` roundings.

        The enclosure is ``[x - err, x + err]`` widened by ``ulps`` units in the last place of
        each end (relative to the value: no absolute floor; a 0 with no error stays [0, 0], as
        the relative rounding model says), every operation rounded outward.
        A non-finite ``x`` gives the whole line (a NaN) or the infinite end.

        Parameters
        ----------
        x : float
            The computed double.
        err : float, default 0.0
            A bound on its absolute error.
        ulps : int, default ULPS
            Units in the last place added outward at each end, for the roundings.

        Returns
        -------
        Enclosure
            ``[x - err, x + err]`` widened by ``ulps`` at each end, ``how="float64"``.
        """
        x = float(x)
        err = abs(float(err))
        if math.isnan(x) or math.isnan(err):
            return Enclosure(-_INF, _INF, FLOAT64)
        if math.isinf(x):
            return Enclosure(x, x, FLOAT64)
        if x == 0 and not err:  # units relative to the value: a computed 0 stays 0
            return Enclosure(0.0, 0.0, FLOAT64)
        lo = _down(_down(x - err) if err else x, ulps)
        hi = _up(_up(x + err) if err else x, ulps)
        return Enclosure(lo, hi, FLOAT64)

    @staticmethod
    def from_arb(a, prec: int | None = None) -> "Enclosure":
        """The ball of a python-flint ``arb`` (``how``: ``arb-<prec>``, exact when radius 0).

        Parameters
        ----------
        a : flint.arb
            The ball.
        prec : int, optional
            The precision in bits it was computed at, for the label (default: flint's current
            ``ctx.prec``).

        Returns
        -------
        Enclosure
            ``[mid - rad, mid + rad]`` exactly, labelled ``arb-<prec>`` (``exact`` for radius 0).
        """
        lo, hi = _arb_ends(a)
        if prec is None:
            from flint import ctx

            prec = ctx.prec
        return Enclosure(lo, hi, EXACT if a.is_exact() else arb_how(prec))

    @staticmethod
    def from_mpf(x, prec: int | None = None, ulps: int = ULPS) -> "Enclosure":
        """An mpmath ``mpf`` computed at ``prec`` bits, taken as exact up to ``ulps`` units.

        Parameters
        ----------
        x : mpmath.mpf
            The value.
        prec : int, optional
            The bits it was computed at (default: mpmath's current ``mp.prec``).
        ulps : int, default ULPS
            Units in the last place at ``prec`` bits added outward at each end.

        Returns
        -------
        Enclosure
            ``x`` widened by ``ulps`` units at ``prec`` bits (the whole line for a NaN), labelled
            ``arb-<prec>``.
        """
        import mpmath

        prec = int(prec or mpmath.mp.prec)
        sign, man, exp, bc = x._mpf_
        if not man:
            if x == 0:
                return Enclosure(0.0, 0.0, arb_how(prec))
            return Enclosure(-_INF, _INF, arb_how(prec)) if x != x else Enclosure(
                float(x), float(x), arb_how(prec))
        v = _from_man_exp(-man if sign else man, exp)
        u = Dyadic(ulps, exp + bc - prec)  # ulps units in the last place at prec bits
        return Enclosure(_op(v, u, "-", up=False), _op(v, u, "+", up=True), arb_how(prec))

    @staticmethod
    def from_mpi(v) -> "Enclosure":
        """An ``mpmath.iv`` interval (``mpi``): its ends are exact binary numbers.

        Parameters
        ----------
        v : mpmath.iv.mpf
            The interval.

        Returns
        -------
        Enclosure
            Its ends, exactly, labelled ``arb-<iv.prec>``.
        """
        from mpmath import iv

        ends: list = []
        for t in v._mpi_:
            sign, man, exp, _ = t
            if not man:
                from mpmath.libmp import to_float

                f = to_float(t)  # 0, +-inf or nan
                ends.append(f if math.isinf(f) else (0.0 if f == 0 else (-_INF if not ends
                                                                          else _INF)))
            else:
                ends.append(_from_man_exp(-man if sign else man, exp))
        return Enclosure(ends[0], ends[1], arb_how(iv.prec))

    @staticmethod
    def of(value) -> "Enclosure":
        """The enclosure of a quantity's value, whatever form it comes in.

        * a ``float`` (or a NumPy float): exact up to float64 rounding (:meth:`f64`);
        * ``(value, err)``: a double with absolute error at most ``err``;
        * an ``int``, a :class:`fractions.Fraction` or a python-flint ``fmpq``/``fmpz``: exact;
        * an mpmath ``mpf`` (exact up to its precision) or ``mpi`` (an interval);
        * a python-flint ``arb`` (a ball);
        * an :class:`Enclosure` as it is.

        Parameters
        ----------
        value : float, tuple, int, fractions.Fraction, mpmath.mpf, flint.arb or Enclosure
            The quantity's value, in one of the forms above (also ``fmpq``, ``fmpz``, ``mpi``).

        Returns
        -------
        Enclosure
            An enclosure of the value.

        Raises
        ------
        TypeError
            Anything else (one line naming the type).
        """
        if isinstance(value, Enclosure):
            return value
        if isinstance(value, (bool, str, bytes)):
            raise TypeError(f"a quantity is a number, not a {type(value).__name__}")
        if isinstance(value, (int, Fraction)):
            return Enclosure.point(value)
        if isinstance(value, (tuple, list)):
            if len(value) != 2:
                raise TypeError(f"a quantity given as a tuple is (value, error), got {len(value)} "
                                "items")
            v, err = value
            if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
                e = Enclosure.point(v)
                return e.widen(err) if err else e
            return Enclosure.of(v).widen(err)
        name = type(value).__module__.split(".")[0]
        if name == "flint" and type(value).__name__ == "arb":
            return Enclosure.from_arb(value)
        if name == "flint" and type(value).__name__ in ("fmpq", "fmpz"):
            return Enclosure.point(_coprime(int(value.p), int(value.q)) if hasattr(value, "q")
                                   else int(value))
        if name == "mpmath":
            if hasattr(value, "_mpi_"):
                return Enclosure.from_mpi(value)
            if hasattr(value, "_mpf_"):
                return Enclosure.from_mpf(value)
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"a quantity must be a number, (value, error), a Fraction, an mpmath "
                            f"mpf/mpi or a flint arb; got {type(value).__name__}") from None
        return Enclosure.f64(f)

    # ------------------------------------------------------------------ views
    @property
    def is_point(self) -> bool:
        """Whether the enclosure is one exact number."""
        return _cmp(self.lo, self.hi) == 0 if type(self.lo) is not float else self.lo == self.hi

    @property
    def finite(self) -> bool:
        """Whether both ends are finite."""
        return not (_is_inf(self.lo) or _is_inf(self.hi))

    @property
    def mid(self) -> float:
        """The midpoint as a double (0 or +-inf outside the double range; see :meth:`log10`)."""
        if not self.finite:
            return float(self.lo) if self.lo == self.hi else math.nan
        if type(self.lo) is float and type(self.hi) is float:
            return self.lo + (self.hi - self.lo) / 2
        m = _ball_mid(self)
        return _float_down(_end(m)) if m.is_exact() else float(m.mid().str(20, radius=False))

    @property
    def width(self) -> float:
        """``hi - lo`` as a double (rounded up)."""
        if not self.finite:
            return _INF
        return _float_up(_op(self.hi, self.lo, "-", up=True))

    def rel_width(self) -> float:
        """The width relative to the smallest magnitude in the enclosure (inf when it holds 0).

        Returns
        -------
        float
            ``(hi - lo) / min(|lo|, |hi|)`` rounded up; 0 for [0, 0], inf when the enclosure holds 0
            or is unbounded.
        """
        if not self.finite:
            return _INF
        if self.sign() is None or self.sign() == 0:
            return 0.0 if self.sign() == 0 else _INF
        if type(self.lo) is float and type(self.hi) is float:
            return _up((self.hi - self.lo) / min(abs(self.lo), abs(self.hi)))
        w = _op(self.hi, self.lo, "-", up=True)
        m = self.lo if (self.sign() or 0) > 0 else _op(0.0, self.hi, "-", up=False)
        return _float_up(_op(w, m, "/", up=True))

    def log10(self) -> float | None:
        """``log10 |midpoint|`` at any magnitude (None for 0 or an unbounded enclosure).

        Returns
        -------
        float or None
            ``log10 |mid|``.
        """
        if not self.finite:
            return None
        if type(self.lo) is float and type(self.hi) is float:
            m = abs(self.lo / 2 + self.hi / 2)
            if m > 1e-300:
                return math.log10(m)
        mid = _ball_mid(self)
        if mid.is_zero():
            return None
        man, exp = mid.abs_upper().man_exp()
        return _bits_log2(abs(int(man))) * math.log10(2) + int(exp) * math.log10(2)

    def sign(self) -> int | None:
        """+1 when every point is > 0, -1 when every point is < 0, 0 for [0, 0], else None.

        Returns
        -------
        int or None
            The sign every point of the enclosure shares, or None when it holds points of both signs
            (or 0 and another point).
        """
        if _sgn(self.lo) == 0 and _sgn(self.hi) == 0:
            return 0
        if _sgn(self.lo) > 0:
            return 1
        if _sgn(self.hi) < 0:
            return -1
        return None

    # ------------------------------------------------------------------ operations
    def widen(self, err) -> "Enclosure":
        """Widen by an absolute error bound ``err`` (a float, Fraction or int >= 0)."""
        if not err:
            return self
        if isinstance(err, (float, int)) and math.isinf(err):
            return Enclosure(-_INF, _INF, self.how)
        if isinstance(err, float) and type(self.lo) is float and type(self.hi) is float:
            return Enclosure(_down(self.lo - err), _up(self.hi + err), self.how)
        e = Fraction(abs(err)) if not isinstance(err, Dyadic) else err
        lo = self.lo if _is_inf(self.lo) else _op(self.lo, e, "-", up=False)
        hi = self.hi if _is_inf(self.hi) else _op(self.hi, e, "+", up=True)
        return Enclosure(lo, hi, self.how)

    def scaled(self, c, divide: bool = False) -> "Enclosure":
        """``c * self`` (or ``self / c``) for an exact ``c > 0``, rounded outward."""
        if c == 1:
            return self
        op = "/" if divide else "*"
        lo = self.lo if _is_inf(self.lo) else _op(self.lo, c, op, up=False)
        hi = self.hi if _is_inf(self.hi) else _op(self.hi, c, op, up=True)
        return Enclosure(lo, hi, self.how)

    def hull(self, other: "Enclosure") -> "Enclosure":
        """The smallest enclosure containing both."""
        lo = self.lo if _le(self.lo, other.lo) else other.lo
        hi = other.hi if _le(self.hi, other.hi) else self.hi
        return Enclosure(lo, hi, self.how)

    def contains(self, x) -> bool:
        """Whether the exact number ``x`` lies in the enclosure."""
        return _le(self.lo, x) and _le(x, self.hi)

    def floats(self) -> tuple[float, float]:
        """``(lo, hi)`` as doubles rounded outward (0 or +-inf outside the double range)."""
        return _float_down(self.lo), _float_up(self.hi)

    def with_how(self, how: str) -> "Enclosure":
        """The same interval, labelled with another method."""
        return Enclosure(self.lo, self.hi, how)

    # ------------------------------------------------------------------ text and JSON
    def as_json(self) -> list:
        """``[lo, hi]`` as strict JSON: doubles rounded outward, or decimal strings (rounded
        outward) for ends outside the double range, ``"-inf"``/``"inf"`` for unbounded ends.

        Returns
        -------
        list
            ``[lo, hi]``: two floats, decimal strings or ``"-inf"``/``"inf"``.
        """
        out: list = []
        for e, down in ((self.lo, True), (self.hi, False)):
            if isinstance(e, float):
                out.append(e if math.isfinite(e) else ("inf" if e > 0 else "-inf"))
                continue
            m = _mag2(e) if _sgn(e) else 0.0
            if _sgn(e) and (m < -1020 or m > 1020):
                out.append(_dec(e, down))
            else:
                out.append(_float_down(e) if down else _float_up(e))
        return out

    def encode(self) -> list:
        """``[lo, hi, how]`` exactly (Fractions as ``"p/q"``, dyadics as ``"m*2^e"``; an integer
        past Python's 4300-digit limit on decimal text in hexadecimal, ``0x...``), for caches."""
        def one(e):
            if isinstance(e, float):
                return e if math.isfinite(e) else ("inf" if e > 0 else "-inf")
            if isinstance(e, Dyadic):
                return f"{_int_text(e.man)}*2^{e.exp}"
            return f"{_int_text(e.numerator)}/{_int_text(e.denominator)}"

        return [one(self.lo), one(self.hi), self.how]

    @staticmethod
    def decode(data) -> "Enclosure":
        """The enclosure :meth:`encode` wrote."""
        def one(e):
            if isinstance(e, str):
                if e in ("inf", "-inf"):
                    return float(e)
                if "*2^" in e:
                    m, x = e.split("*2^")
                    return Dyadic(int(m, 0), int(x))
                if "x" in e:
                    p, q = e.split("/")
                    return _compact(Fraction(int(p, 0), int(q, 0)))
                return _compact(Fraction(e))
            return float(e)

        return Enclosure(one(data[0]), one(data[1]), data[2])

    def __str__(self) -> str:
        """``[lo, hi]`` with 6 significant digits at any magnitude."""
        return f"[{_short(self.lo, True)}, {_short(self.hi, False)}]"

    def __repr__(self) -> str:
        """The dataclass form, with an end too long for decimal text (Python refuses more than
        4300 digits) shown by its 17-digit outward rounding and its size."""
        def end(x, down):
            if isinstance(x, Fraction) and max(x.numerator.bit_length(),
                                                x.denominator.bit_length()) >= 13_000:
                return (f"<Fraction ~{_dec(x, down)}, {x.numerator.bit_length()}/"
                        f"{x.denominator.bit_length()} bits>")
            return repr(x)

        return f"Enclosure(lo={end(self.lo, True)}, hi={end(self.hi, False)}, how={self.how!r})"


def _int_text(n: int) -> str:
    """An int as decimal text, or as hexadecimal (``0x...``) when it has more than 4000 digits:
    Python refuses decimal text past 4300 digits (``sys.get_int_max_str_digits``), hexadecimal
    has no limit.  ``int(text, 0)`` reads both."""
    return str(n) if n.bit_length() < 13_000 else hex(n)


def arb_upper(a):
    """The exact upper end of a ball."""
    from flint import arb

    return arb(a.upper()) if not a.is_exact() else a


def _ball_mid(e: Enclosure):
    """``(lo + hi) / 2`` as a ball (exact for dyadic ends)."""
    lo, hi = _to_arb(e.lo), _to_arb(e.hi)
    bits = 64
    for x in (e.lo, e.hi):
        if isinstance(x, Dyadic):
            bits = max(bits, abs(x.man).bit_length() + 8)
    with precision(bits + 64):
        return (lo + hi) / 2


def _op(a, b, op: str, up: bool):
    """``a OP b`` on exact endpoints, rounded up (``up``) or down; floats stay floats."""
    if type(a) is float and type(b) is float and op in "+-":
        v = a + b if op == "+" else a - b
        return _up(v) if up else _down(v)
    if not isinstance(a, Dyadic) and not isinstance(b, Dyadic):
        fa, fb = Fraction(a), Fraction(b)
        q = {"+": fa + fb, "-": fa - fb, "*": fa * fb, "/": fa / fb}[op]
        if q.denominator.bit_length() < 4000 and q.numerator.bit_length() < 4000:
            return _compact(q)
    bits = 128
    for x in (a, b):
        if isinstance(x, Dyadic):
            bits = max(bits, abs(x.man).bit_length() + 64)
        elif isinstance(x, Fraction):
            bits = max(bits, x.numerator.bit_length() + x.denominator.bit_length() + 64)
    with precision(bits):
        xa, xb = _to_arb(a), _to_arb(b)
        r = {"+": xa + xb, "-": xa - xb, "*": xa * xb, "/": xa / xb}[op]
        from flint import arb

        end = arb(r.upper()) if up else arb(r.lower())
        return _end(end)


def _short(e, down: bool) -> str:
    if isinstance(e, float):
        return f"{e:.6g}"
    d = decimal.Decimal(_dec(e, down))
    return f"{d:.5e}"


# ----------------------------------------------------------------------------- relations
def relation_verdict(lhs: Enclosure, rhs: Enclosure, relation: str) -> str | None:
    """Decide ``lhs RELATION rhs`` on enclosures: ``"holds"``, ``"violated"`` or None.

    None means the enclosures overlap so that the relation can be neither proved nor refuted
    at their precision.  ``"="`` holds only when both sides are the same exact number.

    Parameters
    ----------
    lhs, rhs : Enclosure
        Enclosures of the two sides.
    relation : {"<=", "<", ">=", ">", "="}
        The relation claimed between them.

    Returns
    -------
    str or None
        ``"holds"`` when every point pair satisfies it, ``"violated"`` when none does, else None.

    Raises
    ------
    ValueError
        An unknown relation.
    """
    if relation == "<=":
        if _le(lhs.hi, rhs.lo):
            return "holds"
        return "violated" if _lt(rhs.hi, lhs.lo) else None
    if relation == "<":
        if _lt(lhs.hi, rhs.lo):
            return "holds"
        return "violated" if _le(rhs.hi, lhs.lo) else None
    if relation == ">=":
        return relation_verdict(rhs, lhs, "<=")
    if relation == ">":
        return relation_verdict(rhs, lhs, "<")
    if relation == "=":
        if lhs.is_point and rhs.is_point and lhs.finite and _le(lhs.lo, rhs.lo) and _le(
                rhs.lo, lhs.lo):
            return "holds"
        return "violated" if (_lt(lhs.hi, rhs.lo) or _lt(rhs.hi, lhs.lo)) else None
    raise ValueError(f"unknown relation {relation!r}")


def log10_ratio(lhs: Enclosure, rhs: Enclosure) -> float | None:
    """``log10(lhs / rhs)`` at the midpoints, at any magnitude.

    None when a side's midpoint is 0, the sides have opposite signs, or a side is unbounded.

    Parameters
    ----------
    lhs, rhs : Enclosure
        The numerator and the denominator.

    Returns
    -------
    float or None
        ``log10 |mid(lhs)| - log10 |mid(rhs)|``.
    """
    a, b = lhs.log10(), rhs.log10()
    if a is None or b is None:
        return None
    if _mid_sign(lhs) != _mid_sign(rhs):
        return None
    return a - b


def _mid_sign(e: Enclosure) -> int:
    if type(e.lo) is float and type(e.hi) is float:
        m = e.lo / 2 + e.hi / 2
        return (m > 0) - (m < 0)
    m = _ball_mid(e)
    return 1 if m > 0 else -1 if m < 0 else 0


def ratio_float(lhs: Enclosure, rhs: Enclosure) -> float:
    """``lhs / rhs`` at the midpoints as a double (may under- or overflow; NaN when undefined).

    Use :func:`log10_ratio` to show ratios outside the double range.
    """
    lr = log10_ratio(lhs, rhs)
    if lr is not None:
        return _mid_sign(lhs) * _mid_sign(rhs) * (10.0 ** lr if lr < 308.2 else _INF)
    if lhs.finite and rhs.finite and rhs.sign() == 0:
        return 0.0 if lhs.sign() == 0 else math.inf
    if lhs.finite and lhs.sign() == 0 and rhs.finite:
        return 0.0
    return math.nan


# ----------------------------------------------------------------------------- ball arithmetic
class precision:
    """Context manager: python-flint's working precision set to ``bits`` inside."""

    def __init__(self, bits: int):
        self.bits = int(bits)

    def __enter__(self):
        from flint import ctx

        self._old = ctx.prec
        ctx.prec = self.bits
        return self

    def __exit__(self, *exc):
        from flint import ctx

        ctx.prec = self._old
        return False


def to_arb(x):
    """A parameter value as a python-flint ``arb`` (exact for doubles, ints and Fractions; a
    ball for a decimal string or :class:`decimal.Decimal` and for an ``mpf``)."""
    from flint import arb, fmpq, fmpz

    if isinstance(x, bool):
        return arb(int(x))
    if hasattr(x, "item") and not isinstance(x, (int, float)):  # NumPy scalars
        x = x.item()
    if isinstance(x, int):
        return arb(fmpz(x))
    if isinstance(x, float):
        return arb(x) if math.isfinite(x) else (arb.pos_inf() if x > 0 else arb.neg_inf()
                                                if x < 0 else arb.nan())
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, (decimal.Decimal, str)):
        return arb(str(x))
    if type(x).__module__.split(".")[0] == "flint":
        return arb(x)
    if hasattr(x, "_mpf_"):
        sign, man, exp, _ = x._mpf_
        if not man:
            return arb(float(x))
        return _to_arb(_from_man_exp(-man if sign else man, exp))
    return arb(float(x))


def _pow(b, e):
    """``b ** e`` on balls: integer exponents by repeated products (any sign of ``b``)."""
    from flint import arb, fmpz

    if isinstance(e, int):
        if e >= 0:
            return b ** fmpz(e)
        return 1 / (b ** fmpz(-e))
    if isinstance(e, arb) and e.is_exact() and e.is_integer():
        u = e.unique_fmpz()
        assert u is not None  # an exact integer ball has its unique integer
        n = int(u)
        return _pow(b, n)
    if isinstance(e, arb) and b.is_exact() and b.is_zero() and e > 0:
        return arb(0)
    return b ** e


def _arb_min(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out.min(x)
    return out


def _arb_max(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out.max(x)
    return out


def _piecewise(*pairs):
    """Piecewise on balls: the first branch whose condition certainly holds; where a condition
    is undecided on the ball, the union of the branches it leaves open."""
    from flint import arb

    out = None
    for value, cond in pairs:
        c = cond() if callable(cond) else cond
        if c is True:
            v = value()
            return v if out is None else out.union(v)
        if c is None:
            v = value()
            out = v if out is None else out.union(v)
    return out if out is not None else arb.nan()


def _rel(op):
    """A relational on balls: True / False when certain, None when the balls overlap."""
    def f(a, b):
        t = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if t:
            return True
        n = {"<": a >= b, "<=": a > b, ">": a <= b, ">=": a < b}[op]
        return False if n else None

    return f


_FUNCS: dict[str, Callable] = {
    "exp": lambda x: x.exp(), "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(),
    "Abs": abs, "sin": lambda x: x.sin(), "cos": lambda x: x.cos(), "tan": lambda x: x.tan(),
    "atan": lambda x: x.atan(), "asin": lambda x: x.asin(), "acos": lambda x: x.acos(),
    "sinh": lambda x: x.sinh(), "cosh": lambda x: x.cosh(), "tanh": lambda x: x.tanh(),
    "erf": lambda x: x.erf(), "erfc": lambda x: x.erfc(), "gamma": lambda x: x.gamma(),
    "loggamma": lambda x: x.lgamma(), "floor": lambda x: x.floor(),
    "ceiling": lambda x: x.ceil(), "Min": _arb_min, "Max": _arb_max,
    "factorial": lambda x: (x + 1).gamma(), "sign": lambda x: x.sgn(),
    "LambertW": lambda x: x.lambertw(), "log1p": lambda x: x.log1p(),
    "expm1": lambda x: x.expm1(),
}


class UnsupportedExpression(ValueError):
    """A formula uses a function that has no rigorous ball evaluation here (one line)."""


def _code(e, names: dict) -> str:
    """Python source evaluating the sympy expression ``e`` on balls."""
    import sympy as sp

    if e.is_Symbol:
        if e.name not in names:
            raise UnsupportedExpression(f"the symbol {e.name} has no value")
        return names[e.name]
    if e.is_Integer:
        return f"_Z({int(e)})"
    if e.is_Rational:
        return f"_Q({int(e.p)}, {int(e.q)})"
    if e.is_Float:
        return f"_D({str(sp.Float(e, 30))!r})"
    if e is sp.pi:
        return "_A.pi()"
    if e is sp.E:
        return "_A.const_e()"
    if e is sp.S.Infinity:
        return "_A.pos_inf()"
    if e is sp.S.NegativeInfinity:
        return "_A.neg_inf()"
    if e.is_Add:
        return "(" + " + ".join(_code(a, names) for a in e.args) + ")"
    if e.is_Mul:
        return "(" + " * ".join(_code(a, names) for a in e.args) + ")"
    if e.is_Pow:
        b, x = e.args
        if x.is_Integer:
            return f"_P({_code(b, names)}, {int(x)})"
        if x == sp.Rational(1, 2):
            return f"_F['sqrt']({_code(b, names)})"
        return f"_P({_code(b, names)}, {_code(x, names)})"
    if isinstance(e, sp.Piecewise):
        parts = []
        for val, cond in e.args:
            parts.append(f"(lambda: {_code(val, names)}, "
                         f"{'True' if cond is sp.true else _cond(cond, names)})")
        return f"_PW({', '.join(parts)})"
    name = type(e).__name__
    if name in _FUNCS:
        return f"_F[{name!r}](" + ", ".join(_code(a, names) for a in e.args) + ")"
    if name == "binomial":
        n, k = e.args
        return f"(({_code(n, names)} + 1).gamma() / (({_code(k, names)} + 1).gamma() * " \
               f"({_code(n, names)} - {_code(k, names)} + 1).gamma()))"
    raise UnsupportedExpression(f"{name} has no rigorous evaluation (functions: "
                                f"{', '.join(sorted(_FUNCS))})")


def _cond(c, names) -> str:
    import sympy as sp

    if c is sp.true:
        return "True"
    if c is sp.false:
        return "False"
    ops = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">",
           sp.GreaterThan: ">="}
    for cls, op in ops.items():
        if isinstance(c, cls):
            return f"_C[{op!r}]({_code(c.lhs, names)}, {_code(c.rhs, names)})"
    raise UnsupportedExpression(f"the condition {c} has no rigorous evaluation")


@lru_cache(maxsize=4096)
def _compiled(expr, args: tuple[str, ...]):
    """Compile ``expr`` once into a function of balls (arguments in the order of ``args``)."""
    from flint import arb, fmpq, fmpz

    names = {a: f"_x{i}" for i, a in enumerate(args)}
    src = f"lambda {', '.join(names.values())}: {_code(expr, names)}"
    env = {"_Z": lambda n: arb(fmpz(n)), "_Q": lambda p, q: arb(fmpq(p, q)),
           "_D": lambda s: arb(s), "_A": arb, "_P": _pow, "_F": _FUNCS, "_PW": _piecewise,
           "_C": {op: _rel(op) for op in ("<", "<=", ">", ">=")}}
    return eval(src, env)  # noqa: S307 -- source generated above from a sympy tree


class _NotRational(Exception):
    """The formula, at these values, is not a rational computation of modest size."""


#: the largest numerator or denominator (bits) an exact rational evaluation may reach: a power
#: is evaluated exactly when its result stays below it (``|e|`` times the base's size; 2^21
#: bits take about 0.15 s), beyond it in balls.  A bound attained with equality, such as
#: delta^n at n = 10^5 against an exact d(n), is decided only exactly.
EXACT_BITS_MAX = 2 ** 21


def _qpow(b, e):
    if isinstance(e, Fraction):
        if e.denominator != 1:
            raise _NotRational
        e = e.numerator
    if b == 0 and e < 0:
        raise _NotRational
    b = Fraction(b)
    size = max(b.numerator.bit_length(), b.denominator.bit_length(), 1)
    if b not in (0, 1, -1) and abs(e) * size > EXACT_BITS_MAX:
        raise _NotRational
    out = b ** e
    if max(out.numerator.bit_length(), out.denominator.bit_length()) > EXACT_BITS_MAX:
        raise _NotRational
    return out


def _qfun(name):
    if name == "Min":
        return min
    if name == "Max":
        return max
    if name == "Abs":
        return abs

    def f(*a):
        raise _NotRational

    return f


class _QFuncs(dict):
    def __missing__(self, name):
        return _qfun(name)


def _qpiecewise(*pairs):
    for value, cond in pairs:
        if cond is True:
            return value()
    raise _NotRational


def _qrel(op):
    return {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b}[op]


def _no_constant(*a):
    raise _NotRational


@lru_cache(maxsize=4096)
def _compiled_exact(expr, args: tuple[str, ...]):
    """Compile ``expr`` once into a function of Fractions (None when it names a function other
    than Min, Max and Abs, or a constant such as pi: not rational)."""
    names = {a: f"_x{i}" for i, a in enumerate(args)}
    try:
        body = _code(expr, names)
    except UnsupportedExpression:
        return None
    if "_A." in body:  # pi, e, infinities
        return None
    src = f"lambda {', '.join(names.values())}: {body}"
    env = {"_Z": Fraction, "_Q": Fraction, "_D": lambda s: Fraction(decimal.Decimal(s)),
           "_A": None, "_P": _qpow, "_F": _QFuncs(), "_PW": _qpiecewise,
           "_C": {op: _qrel(op) for op in ("<", "<=", ">", ">=")}}
    return eval(src, env)  # noqa: S307 -- source generated above from a sympy tree


def _as_fraction_value(x) -> Fraction:
    """A parameter value as an exact Fraction (doubles, ints, Fractions, decimal text)."""
    if isinstance(x, bool):
        return Fraction(int(x))
    if hasattr(x, "item") and not isinstance(x, (int, float)):  # NumPy scalars
        x = x.item()
    if isinstance(x, float):
        if not math.isfinite(x):
            raise _NotRational
        return Fraction(x)
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, (decimal.Decimal, str)):
        d = decimal.Decimal(x)
        if not d.is_finite() or abs(d.adjusted()) > 2000:
            raise _NotRational
        return Fraction(d)
    raise _NotRational


def enclose_exact(expr, values: dict) -> Enclosure | None:
    """Evaluate a rational formula exactly at exact values, or return None.

    A formula built from ``+``, ``-``, ``*``, ``/`` and integer powers, Min, Max, Abs and
    Piecewise is evaluated in :class:`fractions.Fraction` at the parameters' exact values (a
    double is an exact binary fraction; decimal text is read exactly), so an identity against
    it can be decided.  None for any other formula or value, or a result larger than
    :data:`EXACT_BITS_MAX` bits.

    Parameters
    ----------
    expr : sympy.Expr or str
        The formula; its free symbols are looked up in ``values`` by name.
    values : dict
        ``{name: value}`` for every free symbol: ints, Fractions, doubles or decimal text.

    Returns
    -------
    Enclosure or None
        The exact value as a point enclosure (``how="exact"``), or None.
    """
    import sympy as sp

    expr = sp.sympify(expr)
    args = tuple(sorted(s.name for s in expr.free_symbols))
    f = _compiled_exact(expr, args)
    if f is None:
        return None
    try:
        v = f(*[_as_fraction_value(values[a]) for a in args])
    except (_NotRational, ZeroDivisionError, OverflowError, TypeError, AttributeError):
        return None
    if not isinstance(v, Fraction):
        v = Fraction(v)
    return Enclosure.point(v)


def enclose_expr(expr, values: dict, prec: int) -> Enclosure:
    """Enclose the value of a sympy expression at ``values``.

    A rational formula at exact values is evaluated exactly (:func:`enclose_exact`: the
    enclosure is one point, ``how="exact"``); any other in ball arithmetic at ``prec`` bits.

    Parameters
    ----------
    expr : sympy.Expr
        The formula; its free symbols are looked up in ``values`` by name.
    values : dict
        ``{name: value}``: doubles, ints, Fractions (exact), decimal strings or Decimals (a
        ball at ``prec`` bits), mpf.
    prec : int
        Working precision in bits.

    Returns
    -------
    Enclosure
        ``how`` is ``"exact"`` or ``"arb-<prec>"`` (``"exact"`` too when the ball has radius 0).

    Raises
    ------
    UnsupportedExpression
        The formula uses a function without a rigorous evaluation here.
    """
    import sympy as sp

    expr = sp.sympify(expr)
    exact = enclose_exact(expr, values)
    if exact is not None:
        return exact
    args = tuple(sorted(s.name for s in expr.free_symbols))
    f = _compiled(expr, args)
    with precision(prec):
        ball = f(*[to_arb(values[a]) for a in args])
        return Enclosure.from_arb(ball, prec)
