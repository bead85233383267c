"""Shared parameters and symbols, named after the paper's symbols (001 notation).

Claims take these and narrow domains with :meth:`Param.with_domain` where the seed
requires it (e.g. N >= 2 for the CIS kernel, which needs at least one proposal).
"""

from __future__ import annotations

import sympy as sp

from .core import Param

P: dict[str, Param] = {}


def _p(name, flag, label, description, **kw) -> Param:
    p = Param(name=name, flag=flag, label=label, description=description, **kw)
    P[name] = p
    return p


# --- 001: the paper's symbols --------------------------------------------------------
N = _p("N", "--N", "N", "computational budget: particles of CIS, chains of pMCSA, steps of JSA",
       lower=1, integer=True, sample_max=1000, log_scale=True)
k = _p("k", "--k", "k", "number of applications of the MCGD kernel P (mixing after k steps)",
       lower=1, integer=True, sample_max=200)
t = _p("t", "--t", "t", "MCGD iteration index", lower=1, integer=True, sample_max=200)
w_star = _p("w_star", "--w-star", "w*", "sup_z pi(z)/q_def(z): maximum importance weight",
            lower=1, sample_max=1e8, log_scale=True)
L = _p("L", "--L", "L", "bound on the score norm, ||s|| <= L (Assumption 3)",
       lower=0, lower_strict=True, sample_max=100, log_scale=True)
mu_norm = _p("mu_norm", "--mu-norm", "||mu||", "||E_pi s(lambda; z)||_2 (0 at the optimum)",
             lower=0, default=0.0, sample_max=100)
chi2 = _p("chi2", "--chi2", "chi2", "chi-square divergence chi2(pi || q)",
          lower=0, sample_max=1e6, log_scale=True)
c_cov = _p("c_cov", "--c-cov", "C_cov",
           "JSA covariance term (2/N^2) sum_{n>m} tr Cov(s_n, s_m | F_{t-1})", default=0.0,
           sample_max=10)
D = _p("D", "--D", "D", "dimension of the score / gradient vector (Lemma 7)",
       lower=1, integer=True, sample_max=1e4, log_scale=True)
eq_s2 = _p("eq_s2", "--eq-s2", "E_q||s||^2", "E_{z~q_def} ||s(lambda; z)||^2 (moment forms)",
           lower=0, sample_max=1e4)
s_prev2 = _p("s_prev2", "--s-prev2", "||s(z_{t-1})||^2",
             "squared score norm at the previous state (pMCSA: mean over the N chains)",
             lower=0, sample_max=1e4)

# --- lemmas ---------------------------------------------------------------------------
n = _p("n", "--n", "n", "number of IMH steps", lower=1, integer=True, sample_max=200)
w = _p("w", "--w", "w", "importance weight of a state, w(z) = pi(z)/q(z)",
       lower=0, lower_strict=True, sample_max=1e6, log_scale=True)
eq_f = _p("eq_f", "--eq-f", "E_q f", "expectation of the test function under the proposal",
          lower=0, sample_max=1e4)
f_z = _p("f_z", "--f-z", "f(z)", "test function at the starting state", lower=0, sample_max=1e4)
epi_f = _p("epi_f", "--epi-f", "E_pi f",
           "expectation of the test function under the target (corrected Lemma 6)",
           lower=0, sample_max=1e4)
C = _p("C", "--C", "C", "constant of geometric ergodicity (Assumption 1)",
       lower=0, lower_strict=True, sample_max=1e3, log_scale=True)
rho = _p("rho", "--rho", "rho", "geometric mixing rate", lower=0, upper=1, upper_strict=True,
         sample_max=1)
variance = _p("variance", "--variance", "V g", "variance E||g - E g||^2", lower=0, sample_max=1e4)
bias = _p("bias", "--bias", "Bias[g]", "bias ||E g - mu||", lower=0, sample_max=1e4)
mse = _p("mse", "--mse", "MSE[g]", "mean-squared error E||g - mu||^2", lower=0, sample_max=1e4)
tv = _p("tv", "--tv", "delta", "total-variation distance of each factor", lower=0, upper=1,
        sample_max=1)
kl = _p("kl", "--kl", "KL(pi||q)", "inclusive KL divergence d_KL(pi || q)", lower=0,
        sample_max=50)
kl_rev = _p("kl_rev", "--kl-rev", "KL(q||pi)", "exclusive KL divergence d_KL(q || pi)", lower=0,
            sample_max=50)
m = _p("m", "--m", "m", "mean of q = N(m, s^2) against pi = N(0, 1)", sample_max=10)
s = _p("s", "--s", "s", "standard deviation of q = N(m, s^2) against pi = N(0, 1)",
       lower=0, lower_strict=True, sample_max=20, log_scale=True)

# --- Table 1 --------------------------------------------------------------------------
G = _p("G", "--G", "G", "gradient bound of the MCGD analysis", lower=0, lower_strict=True,
       sample_max=1e3, log_scale=True)
T = _p("T", "--T", "T", "number of MCGD iterations", lower=2, integer=True, sample_max=1e7,
       log_scale=True)
c_rate = _p("c_rate", "--c-rate", "c", "constant hidden by the O(.) of the rate", default=1.0,
            lower=0, lower_strict=True, sample_max=100)

# --- 003 ------------------------------------------------------------------------------
sigma2 = _p("sigma2", "--sigma2", "sigma_f^2", "variance of the test function under pi",
            lower=0, sample_max=1e4)

# --- 002 (its N is the number of data points; its k is a step-size fraction) --------
k_frac = _p("k_frac", "--k", "k", "preconditioner scale: D = (k/2) H^-1 (El hanchi 2018 Eq. 10)",
            lower=0, lower_strict=True, sample_max=8)
eps = _p("eps", "--eps", "epsilon", "discretisation step", lower=0, lower_strict=True,
         default=1.0, sample_max=4)
t_iter = _p("t_iter", "--t", "t", "iteration of the VAR(1) process started at theta_MAP",
            lower=0, integer=True, sample_max=200)
n_data = _p("n_data", "--n-data", "N", "number of data points (El hanchi 2018 calls it N)", lower=1,
            integer=True, sample_max=1e7, log_scale=True)
batch = _p("batch", "--batch", "|S|", "minibatch size", lower=1, integer=True, sample_max=1e4,
           log_scale=True)
eig_ratio = _p("eig_ratio", "--eig-ratio", "r",
               "lambda_min(H^-1) / lambda_max(H^-1 N C H^-1) (El hanchi 2018 Eq. 15)", lower=0,
               lower_strict=True, sample_max=1e3, log_scale=True)
c_max = _p("c_max", "--c-max", "c", "cap on k in El hanchi 2018 Eq. 16", lower=0, lower_strict=True,
           upper=1, upper_strict=True, default=0.1, sample_max=1)
fisher = _p("fisher", "--fisher", "C", "per-datum gradient variance C (scalar case)", lower=0,
            lower_strict=True, sample_max=1e3, log_scale=True)
prior = _p("prior", "--prior", "G", "prior precision G (scalar case)", lower=0, default=0.0,
           sample_max=1e3)
n_avg = _p("n_avg", "--n-avg", "n", "number of successive stochastic gradients averaged",
           lower=1, integer=True, sample_max=1e4, log_scale=True)
b = _p("b", "--b", "b", "criterion scale b in (0, 2] (El hanchi 2018 Eq. 17)", lower=0,
       lower_strict=True,
       upper=2, default=1.0, sample_max=2)

# --- derived symbols, defined per claim ----------------------------------------------
r = sp.Symbol("r", positive=True)
gamma = sp.Symbol("gamma", positive=True)
B = sp.Symbol("B", nonnegative=True)  # a bias bound (Lemma 7)
R_W = 1 - 1 / w_star.symbol  # r = 1 - 1/w*

# the documents' notation for LaTeX output lives in bounds.core (a leaf below this module)
from .core import LATEX_NAMES, latex  # noqa: E402,F401

