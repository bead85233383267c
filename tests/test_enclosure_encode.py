"""bounds.enclosure.Enclosure.encode/decode: exact ends of any size survive the cache.

Python refuses decimal text of an integer past 4300 digits (``sys.get_int_max_str_digits``);
an exact rational of a long exact computation (Var[theta_200] of 002 at k = 0.05 has terms of
~7000 digits) made ``encode`` raise and ``verify CLAIM --full`` exit 70.  Such integers are
written in hexadecimal, which has no limit; short ones stay decimal (old caches still read).
"""

from fractions import Fraction

from bounds.enclosure import Dyadic, Enclosure


def test_huge_rationals_and_dyadics_round_trip():
    x = 1 - Fraction(1, 3) ** 20_000  # ~9500-digit numerator and denominator
    for e in (Enclosure.point(x), Enclosure(-x, x, "arb-64"),
              Enclosure(Dyadic(-(3 ** 20_000), -5), Dyadic(3 ** 20_000, -4), "arb-1024")):
        assert Enclosure.decode(e.encode()) == e


def test_short_ends_keep_their_decimal_text():
    e = Enclosure(Fraction(-7, 3), Fraction(22, 7), "exact")
    assert e.encode() == ["-7/3", "22/7", "exact"]
    assert Enclosure.decode(["-7/3", "22/7", "exact"]) == e
    d = Enclosure(Dyadic(3, -2000), Dyadic(5, -2000), "arb-64")
    assert d.encode()[0] == "3*2^-2000" and Enclosure.decode(d.encode()) == d
