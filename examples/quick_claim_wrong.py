"""The same API on a wrong bound: "i-SIR mixes at rate 1 - (N - 1)/(N - 1 + w*)".

It reads as if each of the N - 1 proposals were an independent Metropolis-Hastings step; the
right rate (examples/quick_claim.py, Andrieu, Lee & Vihola 2018, Theorem 1) has 2 w* + N - 2
in the denominator.  Run: python examples/quick_claim_wrong.py; it says "violated", prints a
counterexample and exits with status 1, as `python -m verify CLAIM` does for a violated claim.
"""
import sys

from quick_claim import claim as right, tv  # the quantity and domain of the right claim

from verify import QuickClaim

claim = QuickClaim("isir_rate_wrong", bound="(1 - (N - 1)/(N - 1 + w_star))**t", quantity=tv,
                   domain=right.domain, x="w_star",
                   title="i-SIR mixes at rate 1 - (N - 1)/(N - 1 + w*)",
                   source="a deliberately wrong rate (the right one: Andrieu, Lee & Vihola 2018)")

if __name__ == "__main__":
    sys.exit(claim.main())
