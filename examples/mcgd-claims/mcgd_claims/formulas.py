"""The formulas of the claim (entry-point group ``mcsa_verify.bounds``): ``BUILDERS``.

Claim ``mcgd_average_bias``: the bias of the time average of a bounded function along a
finite Markov chain started at a fixed state, the quantity that Markov chain gradient
descent analyses must control when the gradient at step t is taken at the chain's state
X_t instead of an independent draw from pi (Duchi, Agarwal, Johansson & Jordan, "Ergodic
mirror descent", SIAM J. Optim. 22(4), 2012; Sun, Sun & Yin, "On Markov chain gradient
descent", NeurIPS 2018).

Statement (checked by :mod:`mcgd_claims.checks`).  Let P be a transition matrix on a
finite set with stationary distribution pi and Dobrushin coefficient
``delta = max_{x,y} ||P(x,.) - P(y,.)||_TV < 1``.  For every start x, every n >= 1 and
every f with ``max |f| <= ||f||``::

    | E_x[(1/n) sum_{t=0}^{n-1} f(X_t)] - pi(f) |
        <=  osc(f) (1 - delta^n) / (n (1 - delta))   (explicit)
        <=  2 ||f|| / (n (1 - delta))                (stated)

with ``osc(f) = max f - min f <= 2 ||f||``; and ``d(t) = max_x ||P^t(x,.) - pi||_TV <=
delta^t`` (quantity ``tv``).

Source: D. A. Levin and Y. Peres (with E. L. Wilmer), *Markov Chains and Mixing Times*,
2nd ed., American Mathematical Society, 2017, §4.4 "Standardizing distance from
stationarity": ``d(t) <= dbar(t)`` (Lemma 4.10) and ``dbar`` submultiplicative (Lemma
4.11), where ``dbar(t) = max_{x,y} ||P^t(x,.) - P^t(y,.)||_TV`` and ``dbar(1) = delta``;
hence ``d(t) <= delta^t``.  With ``|mu(f) - nu(f)| <= osc(f) ||mu - nu||_TV`` (their
Proposition 4.5 applied to ``f`` minus its mid-range) the bias is at most
``(osc(f)/n) sum_{t<n} delta^t``, the explicit form; ``osc(f) <= 2||f||`` and
``1 - delta^n <= 1`` give the stated one.  The sum over t is this package's step, not
printed in the book; the checks hold the result against exact computations.
"""

from __future__ import annotations

CLAIM = "mcgd_average_bias"

#: assumptions of this claim, by key (bounds.core.ASSUMPTIONS reads them from this module)
ASSUMPTIONS = {
    "FINITE-CHAIN": "a Markov chain on a finite state space with transition matrix P and a "
                    "stationary distribution pi",
    "DOBRUSHIN": "Dobrushin's coefficient delta(P) = max_{x,y} ||P(x,.) - P(y,.)||_TV < 1 "
                 "(Levin & Peres 2017, §4.4: delta = dbar(1))",
}


def mcgd_average_bias():
    """Build the claim (sympy and the bounds data model are imported only here)."""
    import sympy as sp

    from bounds.core import Claim, Constraint, Form, Param, Quantity, Source

    n = Param("n", "--n", "n", "number of terms of the time average", lower=1, integer=True,
              sample_max=1e7,
              log_scale=True)
    delta = Param("delta", "--delta", "delta",
                  "Dobrushin's coefficient max_{x,y} ||P(x,.) - P(y,.)||_TV",
                  lower=0, upper=1, upper_strict=True)
    f_sup = Param("f_sup", "--f-sup", "||f||", "sup norm of the test function, max |f|", lower=0)
    f_osc = Param("f_osc", "--f-osc", "osc(f)", "oscillation of the test function, max f - min f",
                  lower=0)
    t = Param("t", "--t", "t", "number of steps", lower=0, integer=True, sample_max=1e4)
    N, D, FS, FO, T = (p.symbol for p in (n, delta, f_sup, f_osc, t))
    return Claim(
        id=CLAIM,
        title="Bias of the time average on a finite chain: <= 2||f|| / (n (1 - delta))",
        source=Source("Levin & Peres (2017)",
                      "§4.4, Lemmas 4.10-4.11 and Proposition 4.5, summed over t"),
        assumptions=("FINITE-CHAIN", "DOBRUSHIN", "BOUNDED-F"),
        params=(n, delta, f_sup, f_osc, t),
        quantities=(
            Quantity("bias", "largest |E_x[(1/n) sum_t f(X_t)] - pi(f)| over the starts x", "<=", (
                Form("stated", 2 * FS / (N * (1 - D)),
                     "2||f|| / (n (1 - delta)): the textbook-style form"),
                Form("explicit", FO * (1 - D ** N) / (N * (1 - D)),
                     "osc(f) sum_{t<n} delta^t / n, the geometric sum kept"),
            )),
            Quantity("tv", "d(t) = max_x ||P^t(x,.) - pi||_TV", "<=", (
                Form("stated", D ** T, "d(t) <= dbar(t) <= dbar(1)^t (Lemmas 4.10-4.11)"),
            )),
        ),
        constraints=(Constraint(sp.Le(FO, 2 * FS),
                                "osc(f) <= 2 ||f|| (max f - min f <= 2 max |f|)"),),
        notes=("The stated form is what MCGD analyses use; the explicit form is sharper by "
               "osc(f)/(2||f||) and by 1 - delta^n.",
               "Averaging the states t = 1..n instead of 0..n-1 gives a bias at most delta times "
               "the explicit form: both readings are checked."),
        example={"n": 100, "delta": 0.5, "f_sup": 1.0, "f_osc": 2.0, "t": 10},
    )


BUILDERS = {CLAIM: mcgd_average_bias}
