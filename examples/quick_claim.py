"""A claim in 25 lines: i-SIR (CIS with N particles) mixes at rate 1 - (N - 1)/(2 w* + N - 2).

Andrieu, Lee & Vihola (2018), "Uniform ergodicity of the iterated conditional SMC and geometric
ergodicity of particle Gibbs samplers", Bernoulli 24(2), Theorem 1 with one time step (i-SIR):
K(x, .) >= eps pi(.), eps = (N - 1)/(2 w* + N - 2), so max_x ||K^t(x, .) - pi||_TV <= (1 - eps)^t.
Run: python examples/quick_claim.py [--plot fig.png] [--bound-scale 0.9]; exit 0 when it holds.
"""
import numpy as np

from simulate import finite as F, rigorous as R
from verify import QuickClaim


def tv(heavy, light, w_star, N, t, p, prec=None):
    """Max over starts x of ||K^t(x, .) - pi||_TV, K the CIS kernel (exact finite sums)."""
    pi = np.r_[np.full(heavy, p / heavy), np.full(light, (1 - p) / light)]  # heavy: weight w*
    q = np.r_[np.full(heavy, p / w_star / heavy), np.full(light, (1 - p / w_star) / light)]
    if prec:  # where the float cannot decide (a TV at its rounding noise): exact rationals
        return max(R.tv_rows(R.ExactChain(R.cis_kernel(pair := R.exact_pair(pi, q), N))
                             .power(t), np.array(pair.pi)))
    K, err = F.cis_matrix(pi, q, N, return_error=True)
    return F.tv_curve(K, pi, t)[-1].max(), t * err  # the value and its error bound


claim = QuickClaim("isir_rate", bound="(1 - (N - 1)/(2*w_star + N - 2))**t", quantity=tv,
                   domain={"heavy": (1, 5), "light": (1, 3), "w_star": (1.0, 100.0, "log"),
                           "N": (2, 16), "t": (1, 12), "p": (0.05, 0.95)},
                   title="i-SIR mixes at rate 1 - (N - 1)/(2 w* + N - 2)", x="w_star",
                   source="Andrieu, Lee & Vihola (2018), Bernoulli 24(2), Theorem 1")

if __name__ == "__main__":
    raise SystemExit(claim.main())
