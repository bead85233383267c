"""The four MCSA schemes of Kim et al. (2022) and their per-iteration mixing rates.

MSC (Theorem 1, §4.2): rho = 1 - (N - 1)/(2 w* + N - 2); MSC-RB (Theorem 2, §4.2): rho = 2 w*/(2 w*
+ N - 2); JSA (Theorem 3, §4.3): rho = r^N; pMCSA (Theorem 4, §5.1): rho = r, with r = 1 - 1/w*.
  Used by
:func:`bounds.compare` and ``python -m bounds compare``.
"""

from __future__ import annotations

#: (scheme, the claim that bounds it)
SCHEMES = (("MSC", "theorem1"), ("MSC-RB", "theorem2"), ("JSA", "theorem3"), ("pMCSA", "theorem4"))


def mixing_rates(N, w) -> dict:
    """Per-iteration rates rho of the four schemes (Theorems 1-4), in mpmath from the exact
    input.
    """
    import mpmath

    from .numerics import mp_arg

    with mpmath.workdps(50):
        N, w = mp_arg(N), mp_arg(w)
        r = 1 - 1 / w
        # MSC: 1 - (N-1)/(2w*+N-2) written without the cancellation
        rho = {"MSC": (2 * w - 1) / (2 * w + N - 2), "MSC-RB": 2 * w / (2 * w + N - 2),
               "JSA": r ** N, "pMCSA": r}
    return {k: _plain(v) for k, v in rho.items()}


def _plain(v):
    """A float when it is one, else the mpf itself (outside the double range)."""
    from .numerics import representable

    return float(v) if representable(v) else +v
