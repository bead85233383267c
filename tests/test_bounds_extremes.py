"""Issue 24 §1: every form of every claim is right over the whole domain the parser accepts.

The parser reads w* from 1 to 1e100000 (any real parameter: decimal exponents within
+-100000, at most 2000 significant digits), N up to 1e12, k and t up to 1e9.  Each value is
compared with an independent mpmath evaluation of the same formula, written here from the
documents' equations (Kim et al. (NeurIPS 2022) Theorems 1-4, Lemmas 1-7, Proposition 1-2,
Tables 1-2, §6.2; the CIS-as-IMH draft's acceptance bounds; El hanchi (2018) Eqs. (10)-(17)
and its appendix) -- never by calling the package's expressions -- at 100 significant
digits (plus the digits an input carries), in forms that do not cancel: r^m =
exp(m log1p(-1/w*)), 1 - r^m = -expm1(m log1p(-1/w*)), and the sums of Lemma 6 as their
binomial series in 1 - r where (1 - r) N < 1/2.  Each value is also checked against its
range: a TV bound is never negative (in [0, 1] once taken min with 1), a rate in [0, 1],
a variance or second moment >= 0, a probability in [0, 1].
"""

from __future__ import annotations

import decimal
import json
import subprocess
import sys
from decimal import Decimal

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import bounds
from bounds.core import ParamError
from bounds.numerics import PrecisionError

REL = 1e-10  # the float path is trusted to REL_TOL = 1e-11 (bounds.numerics); mpmath to 20 digits
DPS = 100


# ----------------------------------------------------------------------------- regressions
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "bounds", *args], capture_output=True, text=True)


def test_regression_w_star_1e20000_gives_the_limit_not_a_negative_tv_bound():
    r = _cli("theorem3", "--N", "10", "--w-star", "1e20000", "--L", "1", "--k", "5", "--json")
    assert r.returncode == 0, r.stderr
    b = json.loads(r.stdout)["bounds"]
    # w* -> oo: r -> 1, sum_n r^((k-1)N+n) -> N = 10; (1/N^2) sum_n [n r^(n-1) + r^n] -> 1/2 +
    # 3/(2N)
    assert b["mixing"] == {"stated": 10.0, "explicit": 10.0}
    assert b["variance"]["explicit"] == pytest.approx(0.65, rel=1e-15)
    # corrected: min(L^2/N + (2 L/N sum_n r^n)^2, L^2) -> min(0.1 + 4, 1) = 1
    assert b["second_moment"]["corrected"] == 1.0 and b["second_moment"]["sharper"] == 1.0
    for w in ("1e1000", "1e5000", "1e100000"):
        got = bounds.get("theorem3").evaluate(N=10, w_star=w, L=1, k=5)
        assert ({q: {f: (None if v is None else float(v)) for f, v in fs.items()}
                 for q, fs in got.items()} == b), w


def test_regression_underflow_is_not_zero_in_python():
    v = bounds.evaluate("theorem3", N=10, w_star=1.000000000001, L=1, k=5)[("mixing", "stated")]
    assert v != 0
    with mpmath.workdps(DPS):
        assert _rel(v, _jsa_mix(mpmath.mpf(1.000000000001), 10, 5)) < REL
    # the decimal string is read exactly, as the command line reads it: 9.9999999996e-493
    v = bounds.evaluate("theorem3", "mixing", "stated", N=10, w_star="1.000000000001", L=1, k=5)
    r = _cli("theorem3", "--N", "10", "--w-star", "1.000000000001", "--L", "1", "--k", "5",
             "--json")
    shown = json.loads(r.stdout)["bounds"]["mixing"]["stated"]
    assert mpmath.mpf(shown) == v
    with mpmath.workdps(DPS):
        assert _rel(v, _jsa_mix(mpmath.mpf("1.000000000001"), 10, 5)) < REL


def test_regression_python_api_takes_what_the_cli_takes_and_names_its_arguments():
    v = bounds.evaluate("theorem3", "mixing", "stated", N=10, w_star="1e400", L=1, k=5)
    assert v == 10.0
    allv = bounds.evaluate("theorem3", N=10, w_star="1e400", L="1", k="5")
    assert allv[("variance", "explicit")] == pytest.approx(0.65, rel=1e-15)
    for bad, word in ((dict(w_star="abc"), "must be a number"), (dict(w_star=0.5), "1 ≤ w*"),
                      (dict(w_star="1e200000"), "decimal exponents"),
                      (dict(k=10 ** 13), "at most")):
        with pytest.raises(ParamError) as e:
            bounds.evaluate("theorem3", **{**dict(N=10, w_star=2, L=1, k=5), **bad})
        assert str(e.value).startswith(next(iter(bad))) and word in str(e.value)
        assert "--" not in str(e.value)
    with pytest.raises(ParamError, match=r"needs t, D"):
        bounds.evaluate("theorem3", "second_moment", "explicit", N=10, w_star=2, L=1)


def test_cli_names_flags_and_refuses_the_uncomputable_in_one_line():
    r = _cli("theorem3", "--N", "10", "--w-star", "1e200000", "--L", "1", "--k", "5")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "--w-star" in r.stderr
    r = _cli("theorem3", "--N", "10", "--w-star", "2", "--L", "1", "--k", "2000000000000")
    assert r.returncode == 2 and "--k" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    # exp(m^2/(2 s^2 - 1)) at m = 1e400 has a decimal exponent of about 4e799: not computed
    r = _cli("lemma3", "--m", "1e400", "--s", "1")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- reference
def _rel(got, want) -> float:
    got, want = mpmath.mpf(got), mpmath.mpf(want)
    if want == 0:
        return float(abs(got))
    return float(abs(got - want) / abs(want))


def _mp(x):
    if isinstance(x, Decimal):
        return mpmath.mpf(str(x))
    if isinstance(x, (int, np.integer)):
        return mpmath.mpf(int(x))
    return mpmath.mpf(float(x))


class R:
    """r = 1 - u, from u (u = 1/w*) or from r itself, each exact: powers and their
    complements without cancellation."""

    def __init__(self, u=None, r=None):
        self.u = 1 - r if u is None else u
        self.r = 1 - u if r is None else r
        if self.r == 0:
            self.log = None
        else:
            self.log = mpmath.log(self.r) if self.r < 0.5 else mpmath.log1p(-self.u)

    def pw(self, m):
        if m == 0:
            return mpmath.mpf(1)
        return mpmath.mpf(0) if self.log is None else mpmath.exp(m * self.log)

    def om(self, m):  # 1 - r^m
        if m == 0:
            return mpmath.mpf(0)
        return mpmath.mpf(1) if self.log is None else -mpmath.expm1(m * self.log)

    def s_r(self, N):  # sum_{n=1}^N r^n
        if self.u == 0:
            return mpmath.mpf(N)
        return self.r * self.om(N) / self.u

    def s_nr(self, N):  # sum_{n=1}^N n r^(n-1) = sum_j (-u)^j (j+1) C(N+1, j+2)
        u = self.u
        if u * N < 0.5:
            return _series(lambda j, c: (j + 1) * c, N + 1, 2, u)
        return (self.om(N) - N * u * self.pw(N)) / u ** 2

    def s_c(self, N):  # sum_{n=1}^N (1 - r^n - n u r^(n-1)) = sum_{j>=2} (-u)^j (j-1) C(N+1, j+1)
        u = self.u
        if u * N < 0.5:
            return _series(lambda j, c: (j - 1) * c if j >= 2 else 0, N + 1, 1, u)
        return N - self.s_r(N) - u * self.s_nr(N)


def _series(coef, top, shift, u):
    """sum_j (-u)^j coef(j, C(top, j + shift)), summed until the terms are below 1e-(DPS+10)."""
    total, j = mpmath.mpf(0), 0
    c = mpmath.binomial(top, shift)
    p = mpmath.mpf(1)
    while True:
        term = coef(j, c) * p
        total += term
        if j > 3 and (c == 0 or abs(term) < abs(total) * mpmath.mpf(10) ** -(DPS + 10)):
            return total
        c = c * (top - j - shift) / (j + shift + 1)
        p = p * (-u)
        j += 1


def _jsa_mix(w, N, k):  # Theorem 3: sum_{n=1}^N r^((k-1)N + n), r = 1 - 1/w*
    R_ = R(1 / w)
    return R_.pw((k - 1) * N) * R_.s_r(N)


def _sgfs_sums(n, k):
    """s1 = sum_{d=1}^{n-1} (n-d) rho^d and s2 = sum_{d=1}^{n-1} (n-d) rho^(d-1), rho = 1 - k/2."""
    x = k / 2
    rho = 1 - x
    if x * n < 0.5:  # sum_j (-x)^j [C(n+1, j+2) - n [j = 0]]
        s1 = _series(lambda j, c: c, n + 1, 2, x) - n
    else:
        s1 = (n * (1 - rho) - rho * (1 - rho ** n)) / (1 - rho) ** 2 - n
    s2 = (n - 1) if rho == 0 else s1 / rho
    return s1, s2


def _traj(k, m):  # 1 - (1 - k/2)^m
    a = 1 - k / 2
    if m == 0:
        return mpmath.mpf(0)
    if a == 0:
        return mpmath.mpf(1)
    la = mpmath.log1p(-k / 2) if a > 0 else mpmath.log1p(k / 2 - 2)
    if a < 0 and m % 2:
        return 1 + mpmath.exp(m * la)
    return -mpmath.expm1(m * la)


def _ref_theorem3(p):
    N, L, mu, cc = p["N"], p["L"], p.get("mu_norm", 0), p.get("c_cov", 0)
    R_ = R(1 / p["w_star"])
    sr, snr = R_.s_r(N), R_.s_nr(N)
    stated = L ** 2 * (mpmath.mpf(1) / 2 + mpmath.mpf(3) / (2 * N)) + cc
    out = {("mixing", "stated"): R_.pw((p["k"] - 1) * N) * sr if "k" in p else None}
    out[("mixing", "explicit")] = out[("mixing", "stated")]
    out[("variance", "stated")] = stated
    out[("variance", "explicit")] = L ** 2 * (snr + sr) / N ** 2 + cc
    out[("variance", "corrected")] = min(L ** 2 / N + cc, L ** 2)
    out[("second_moment", "stated")] = stated + mu ** 2
    one = mu + 2 * L / N * sr
    out[("second_moment", "corrected")] = min(L ** 2 / N + cc + one ** 2, L ** 2)
    out[("second_moment",
         "sharper")] = min(L ** 2 / N + cc + (1 - mpmath.mpf(1) / N) * min(L, one) ** 2, L ** 2)
    if "t" in p:
        out[("second_moment",
             "unconditional")] = (stated + (mu + 2 * L / N * R_.pw(N * (p["t"] - 1)) * sr) ** 2)
        B = 2 * mpmath.sqrt(p["D"]) * L * R_.pw((p["t"] - 1) * N) * sr  # Lemma 7, C(r,N) r^(tN)
        out[("second_moment",
             "explicit")] = (out[("variance", "explicit")] + B ** 2 + 2 * L * B + mu ** 2)
        vm = (snr * p["eq_s2"] + sr * p["s_prev2"]) / N ** 2 + cc
        out[("variance", "moment")] = vm
        out[("second_moment", "moment")] = vm + B ** 2 + 2 * L * B + mu ** 2
    return out


def _ref_theorem4(p):
    N, L, mu, D = p["N"], p["L"], p.get("mu_norm", 0), p["D"]
    R_ = R(1 / p["w_star"])
    r = R_.r
    sv = L ** 2 * (1 / N + r / N)
    ve = L ** 2 * (1 + r) / N
    vm = (p["eq_s2"] + r * p["s_prev2"]) / N
    B = 2 * mpmath.sqrt(D) * L * N * R_.pw(p["t"])
    return {("mixing", "stated"): N * R_.pw(p["k"]), ("mixing", "explicit"): N * R_.pw(p["k"]),
            ("variance", "stated"): sv, ("variance", "explicit"): ve, ("variance", "moment"): vm,
            ("second_moment", "stated"): sv + mu ** 2,
            ("second_moment", "explicit"): ve + B ** 2 + 2 * L * B + mu ** 2,
            ("second_moment", "moment"): vm + B ** 2 + 2 * L * B + mu ** 2,
            ("second_moment", "corrected"): min(ve + (mu + 2 * L * r) ** 2, L ** 2),
            ("second_moment",
             "sharper"): L ** 2 / N + (1 - mpmath.mpf(1) / N) * min(L, mu + 2 * L * r) ** 2,
            ("second_moment", "unconditional"): sv + (mu + 2 * L * R_.pw(p["t"])) ** 2}


def _ref_theorem2(p):
    N, w, L, mu, chi2 = p["N"], p["w_star"], p["L"], p["mu_norm"], p["chi2"]
    gamma_log = mpmath.log1p(-(N - 2) / (2 * w + N - 2))  # gamma = 2w*/(2w*+N-2)
    mix = mpmath.exp(p["k"] * gamma_log)
    eps2 = 1 / mpmath.sqrt(N - 1)  # Cardoso et al.: epsilon^2 = (N-1)^(-1/2)
    mse = 4 * L ** 2 * ((1 + eps2) / (N - 1) * chi2 + (1 + 1 / eps2) / N ** 2 * (1 + w) ** 2)
    bias = 4 * L / (N - 1) * (chi2 + 1 + w) * mpmath.exp((p["t"] - 1) * gamma_log)
    return {("mixing", "stated"): mix, ("mixing", "explicit"): mix,
            ("second_moment", "stated"): 4 * L ** 2 * chi2 / (N - 1) + mu ** 2,
            ("second_moment", "explicit"): mse + 2 * L * bias + mu ** 2}


def _ref_theorem1(p):
    N, w = p["N"], p["w_star"]
    mix = mpmath.exp(p["k"] * mpmath.log1p(-(N - 1) / (2 * w + N - 2)))
    return {("mixing", "stated"): mix, ("mixing", "explicit"): mix,
            ("second_moment", "stated"): p["L"] ** 2, ("second_moment", "explicit"): p["L"] ** 2}


def _ref_lemma5(p):
    n, w = p["n"], p["w"]
    R_ = R(1 / p["w_star"])
    # T_n(w) <= int_w^w* n/v^2 r^(n-1) dv + int_w*^oo n/v^2 (1 - 1/v)^(n-1) dv = ... + 1 - r^n
    corr = n * R_.pw(n - 1) * (1 / w - R_.u) + R_.om(n)
    return {("T_n", "stated"): n / w * R_.pw(n - 1), ("T_n", "corrected"): min(n / w, corr)}


def _ref_lemma6(p):
    n = p["n"]
    R_ = R(1 / p["w_star"])
    stated = n * R_.pw(n - 1) * p["eq_f"] + R_.pw(n) * p["f_z"]
    # c_n = 1 - r^n - n (1-r) r^(n-1) = sum_{j>=2} (-u)^j (j-1) C(n, j)
    u = R_.u
    c_n = (_series(lambda j, c: (j - 1) * c if j >= 2 else 0, n, 0, u) if u * n < 0.5
           else R_.om(n) - n * u * R_.pw(n - 1))
    return {("expectation", "stated"): stated,
            ("expectation", "corrected"): stated + c_n * p["epi_f"]}


def _ref_figure1(p):
    N = p["N"]
    R_ = R(r=p["r_w"])
    r = p["r_w"]
    sr, snr, sc = R_.s_r(N), R_.s_nr(N), R_.s_c(N)
    cis = p["s_prev2"] + (N - 1) * p["eq_s2"]
    d = p["delta"]
    out = {("pmcsa_variance", "moment"): (p["eq_s2"] + r * p["s_prev2"]) / N,
           ("jsa_variance", "moment"): (snr * p["eq_s2"] + sr * p["s_prev2"]) / N ** 2 + p["c_cov"],
           ("jsa_variance",
            "corrected"): (snr * p["eq_s2"] + sc * p["epi_s2"] + sr * p["s_prev2"]) / N ** 2
           + p["c_cov"],
           ("msc_variance", "moment"): cis, ("mscrb_variance", "moment"): cis,
           ("pmcsa_lowest_variance", "stated"): mpmath.mpf(1)}
    for q in ("pmcsa_benefit", "msc_benefit", "mscrb_benefit_chi2_large",
              "mscrb_benefit_chi2_small",
              "jsa_benefit_while_w_star_large"):
        out[(q, "stated")] = d
    return out


def _ref_sgfs_convergence(p):
    n, N, S, C, G, b, k = (p[x] for x in ("n_avg", "n_data", "batch", "fisher", "prior", "b",
                                          "k_frac"))
    h = N * C + G
    sx2 = N ** 2 * C / S  # minibatch noise variance N^2 C/|S| (El hanchi 2018 Eq. 4)
    s1, s2 = _sgfs_sums(n, k)
    var = h * (n + 2 * s1) - k * sx2 * s2 + n * sx2
    return {("threshold", "stated"): b * mpmath.sqrt(h / n + N ** 2 / (n * S)),
            ("threshold", "corrected"): b * mpmath.sqrt(var) / n}


class Uncomputable(Exception):
    """The exact value has a decimal exponent beyond about 4e6 (exp of more than 1e7)."""


def _exp(x):
    if abs(x) > 10 ** 7:
        raise Uncomputable
    return mpmath.exp(x)


def _log_inv(rho):  # log(1/rho), without cancellation near rho = 1
    return -mpmath.log(rho) if rho < 0.5 else -mpmath.log1p(rho - 1)


def _kl_gauss(m, s):  # KL(N(0,1) || N(m, s^2))
    return mpmath.log(s) + (1 + m ** 2) / (2 * s ** 2) - mpmath.mpf(1) / 2


TABLE2 = {"ELBO": (0, 0, 1, 1, 1), "MSC": (-1, 0, -1, None, 1), "MSC-RB": (-1, 0, -1, None, 0),
          "JSA": (0, 1, 0, None, 0), "pMCSA": (0, "2N", 0, None, 0)}


def _ref_table2(p):
    N = p["N"]
    # Kim et al. (2022) Table 2: p evals, q evals, q samples, p grads, q grads per iteration
    rows = {"ELBO": (0, 0, N, N, N), "MSC": (N - 1, N, N - 1, 0, 1),
            "MSC-RB": (N - 1, N, N - 1, 0, N),
            "JSA": (N, N + 1, N, 0, N), "pMCSA": (N, 2 * N, N, 0, N)}
    cols = ("p_eval", "q_eval", "q_sample", "p_grad", "q_grad")
    return {(f"{s}.{c}", "stated"): mpmath.mpf(v) for s, row in rows.items()
            for c, v in zip(cols, row)}


REF = {
    "proposition1": lambda p: {("objective", "stated"): _kl_gauss(p["m"], p["s"]),
                               ("gradient_m", "stated"): p["m"] / p["s"] ** 2,
                               ("gradient_m", "explicit"): p["m"] / p["s"] ** 2,
                               ("gradient_s",
                                "stated"): (p["s"] ** 2 - 1 - p["m"] ** 2) / p["s"] ** 3,
                               ("gradient_s",
                                "explicit"): (p["s"] ** 2 - 1 - p["m"] ** 2) / p["s"] ** 3},
    "proposition2": lambda p: {("w_star_lower", "stated"): _exp(p["kl"])},
    "lemma1": lambda p: {("product_tv", "stated"): p["N"] * p["tv"]},
    "lemma2": lambda p: {("second_moment_variance", "stated"):
                         p["variance"] + p["bias"] ** 2 + 2 * p["bias"] * p["mu_norm"]
                         + p["mu_norm"] ** 2,
                         ("second_moment_mse",
                          "stated"): p["mse"] + 2 * p["bias"] * p["mu_norm"] + p["mu_norm"] ** 2},
    # chi2(N(0,1) || N(m, s^2)) = int pi^2/q - 1 = s^2/sqrt(2s^2 - 1) exp(m^2/(2s^2 - 1)) - 1
    "lemma3": lambda p: {("weight_variance", "stated"):
                         p["s"] ** 2 / mpmath.sqrt(2 * p["s"] ** 2 - 1)
                         * _exp(p["m"] ** 2 / (2 * p["s"] ** 2 - 1)) - 1},
    "lemma4": lambda p: {("lambda_lower", "stated"): max(1 - 1 / p["w"], 0),
                         ("lambda_upper", "stated"): (p["w_star"] - 1) / p["w_star"]},
    "lemma5": _ref_lemma5,
    "lemma6": _ref_lemma6,
    "lemma7": lambda p: {("bias", "stated"): 2 * mpmath.sqrt(p["D"]) * p["L"] * p["C"]
                         * p["rho"] ** p["n"]},
    "theorem1": _ref_theorem1, "theorem2": _ref_theorem2, "theorem3": _ref_theorem3,
    "theorem4": _ref_theorem4,
    "table1": lambda p: {
        ("mirror_descent", "stated"): p["c_rate"] * p["G"] ** 2 * mpmath.log(p["T"])
        / (_log_inv(p["rho"]) * mpmath.sqrt(p["T"])),
        ("sgd_nesterov",
         "stated"): p["c_rate"] * p["G"] ** 2 * mpmath.log(p["T"]) / mpmath.sqrt(p["T"]),
        ("sgd", "stated"): p["c_rate"] * p["G"] ** 2 * mpmath.log(p["T"]) / p["T"]},
    "table2": _ref_table2,
    "cis_barker_acceptance": lambda p: {("acceptance",
                                         "stated"): p["w_sum"] / (p["w"] + p["w_sum"]),
                                        ("rejection", "stated"): p["w"] / (p["w"] + p["w_sum"])},
    "cis_acceptance_bound": lambda p: {("acceptance_rate", "stated"): p["N"] / (p["w"] + p["N"])},
    "imh_rejection_kl": lambda p: {("rejection_rate_symmetric",
                                    "stated"): mpmath.sqrt((p["kl"] + p["kl_rev"]) / 2),
                                   ("rejection_rate", "stated"): mpmath.sqrt(p["kl"] / 2)},
    "cis_variance_growth": lambda p: {("conditional_variance", "stated"):
                                      (p["N"] / (p["w"] + p["N"])) ** 2 * p["sigma2"] / p["N"],
                                      ("growth_regime_max_N", "stated"): p["w"]},
    # Eq. (32): Lambda = (1 - k eps/2)^2 Lambda + k eps, i.e. k eps / (1 - (1 - k eps/2)^2) = 1/(1 -
    # k eps/4)
    "sgfs_stationary_covariance": lambda p: {
        ("covariance_ratio", "stated"): 1 / (1 - p["k_frac"] * p["eps"] / 4),
        ("covariance_ratio", "explicit"): 1 / (1 - p["k_frac"] * p["eps"] / 4),
        ("covariance_ratio", "series"): 1 / (1 - p["k_frac"] * p["eps"] / 4),
        ("stationarity_k_max", "stated"): mpmath.mpf(1),
        ("stationarity_k_max", "explicit"): 4 / p["eps"]},
    "sgfs_exact_noise": lambda p: {("noise_ratio", "stated"): p["k_frac"] - p["k_frac"] ** 2 / 4,
                                   ("noise_ratio", "explicit"): p["k_frac"] - p["k_frac"] ** 2 / 4},
    "sgfs_admissible_k": lambda p: {
        ("k_max_13", "stated"): 4 * p["batch"] / (p["n_data"] + p["batch"]),
        ("k_max_15", "stated"): 4 * p["eig_ratio"] / (p["eig_ratio"] + p["n_data"] / p["batch"]),
        ("k_16", "stated"): min(p["c_max"], 4 * max(p["batch"] / (p["n_data"] + p["batch"]),
                                                    p["eig_ratio"]
                                                    / (p["eig_ratio"] + p["n_data"]
                                                       / p["batch"])))},
    # Var[theta_t] = (k - k^2/4) sum_{i<t} (1-k/2)^(2i) = 1 - (1-k/2)^(2t); printed: 1 - (1-k/2)^t
    # and the printed sum to i = t, 1 - (1-k/2)^(2t+2)
    "sgfs_variance_trajectory": lambda p: {("variance_ratio",
                                            "stated"): _traj(p["k_frac"], p["t_iter"]),
                                           ("variance_ratio",
                                            "stated_sum"): _traj(p["k_frac"], 2 * p["t_iter"] + 2),
                                           ("variance_ratio",
                                            "corrected"): _traj(p["k_frac"], 2 * p["t_iter"])},
    "sgfs_autocovariance": lambda p: {("lag1_ratio", "stated"): 1 - p["k_frac"] / 2,
                                      ("lag1_ratio", "explicit"): 1 - p["k_frac"] / 2},
    "sgfs_convergence_criterion": _ref_sgfs_convergence,
    "figure1": _ref_figure1,
    "figure2": lambda p: {("final_kl", "stated"): p["kl_min"] + p["tau"],
                          ("pmcsa_breadth", "stated"): mpmath.mpf(1),
                          ("adam_stability", "stated"): mpmath.mpf(1)},
}

#: quantities with a range: probabilities and rates in [0, 1]; TV bounds, variances, second moments
#: >= 0
UNIT = {("lemma4", "lambda_lower"), ("lemma4", "lambda_upper"), ("theorem1", "mixing"),
        ("theorem2", "mixing"),
        ("cis_barker_acceptance", "acceptance"), ("cis_barker_acceptance", "rejection"),
        ("cis_acceptance_bound", "acceptance_rate"), ("sgfs_variance_trajectory", "variance_ratio")}
SIGNED = {("proposition1", "gradient_m"), ("proposition1", "gradient_s"),
          ("sgfs_autocovariance", "lag1_ratio")}



def _ref_teaching():
    """The teaching document's formulas (verify/documents/teaching/formulas.py), written again:
    the facts the notebooks, exercises and glossary state."""
    one = mpmath.mpf(1)

    def r(p):
        return 1 - 1 / p["w_star"]

    return {
        "teach_imh_escape": lambda p: {
            ("acceptance", "stated"): 1 / p["w_star"],
            ("move", "stated"): (1 - p["pi0"]) / p["w_star"],
            ("tv_worst", "stated"): r(p) ** p["k"] * (1 - p["pi0"])},
        "teach_cis_q_equals_pi": lambda p: {
            ("stay", "stated"): 1 / p["N"] + (1 - 1 / p["N"]) * p["pi_x"],
            ("tv", "stated"): mpmath.power(p["N"], -p["k"]) * (1 - p["pi_x"])},
        "teach_mixing_rate_order": lambda p: {
            ("threshold", "stated"): (p["N4"] - 2) / (p["N4"] - 3),
            ("ratio_slower", "stated"): one, ("ratio_not_slower", "stated"): one,
            ("jsa_over_pmcsa", "stated"): one},
        "teach_trivial_bounds": lambda p: {("second_moment", "stated"): p["L"] ** 2,
                                           ("tv", "stated"): one},
        "teach_divergences": lambda p: {("one_plus_chi2", "stated"): p["w_star"]},
        "teach_stationary_order": lambda p: {
            ("pmcsa", "stated"): p["e_pi_s2"] / p["N"] + (1 - 1 / p["N"]) * p["mu"] ** 2,
            ("pmcsa_vs_msc", "stated"): p["msc_second"],
            ("pmcsa_vs_jsa", "stated"): p["jsa_second"], ("imh_psd", "stated"): 0 * one},
        "teach_stationary_counterexample": lambda p: {
            ("msc_rb", "stated"): 1 / (2 * p["N"]), ("jsa", "stated"): 1 / (2 * p["N"]),
            ("msc", "stated"): one / 2},
        "teach_conditional_variances": lambda p: {
            ("pmcsa_n_var", "stated"): p["v_one"], ("jsa_growth", "stated"): p["v_one"],
            ("msc_growth", "stated"): p["v_prev"], ("msc_rb_small", "stated"): p["v_other"]},
        "teach_corrected_theorem4": lambda p: {
            ("second_moment", "stated"): p["L"] ** 2 * (1 + r(p)) / p["N"]
            + (p["mu_norm"] + 2 * p["L"] * r(p)) ** 2,
            ("one_step_bias", "stated"): 2 * p["L"] * r(p),
            ("informative", "stated"): p["L"] ** 2, ("vacuous", "stated"): p["L"] ** 2},
        "teach_msc_rb_stated_vacuous": lambda p: {("vacuous", "stated"): one,
                                                  ("informative", "stated"): one},
        "teach_rate_ratios": lambda p: {
            ("mirror_descent", "stated"): 2 * p["N"] * (1 + r(p)) / (p["N"] + 3),
            ("sgd_nesterov", "stated"): 2 * (1 + r(p)) / (p["N"] + 3),
            ("md_prefers_jsa", "stated"): one, ("nesterov_prefers_pmcsa", "stated"): one},
        "teach_transient_crossing": lambda p: {("below", "stated"): one,
                                               ("above", "stated"): one},
    }


REF.update(_ref_teaching())

def _in_range(cid, q, v) -> bool:
    if (cid, q) in SIGNED:
        return True
    if (cid, q) in UNIT:
        # stated 1 - (1-k/2)^t may exceed 1 for odd t and k > 2 (a printed form); the others are in
        # [0, 1]
        return 0 <= v <= (2 if cid == "sgfs_variance_trajectory" else 1)
    return v >= 0


# ----------------------------------------------------------------------------- domain draws
def _real(p, cid):
    lo, hi = p.lower, p.upper
    ext = []
    if hi is None:
        ext += ["1e100000", "3.7e99999", "1e400", "1e300"]
    if lo is not None and not p.lower_strict:
        ext.append(repr(lo))
    if lo == 1:
        ext += ["1.000000000001", "1.0000000000000000000000000000000000000001"]
    if lo == 0:
        ext += ["1e-100000", "1e-400", "1e-12"]
    if lo is None:
        ext += ["-1e100000", "-1e-100000"]
    if hi is not None:
        top = Decimal(repr(hi))
        ext += [str(top - Decimal("1e-12")), str(top / 2)]
        if not p.upper_strict:
            ext.append(repr(hi))
    base = lo if lo is not None and lo > 0 else 1e-3
    top = hi if hi is not None else p.sample_max
    interior = (st.floats(np.log10(base),
                          np.log10(top)).map(lambda e: Decimal(repr(float(10 ** e))))
                if p.log_scale and (lo or 0) >= 0 else
                st.floats(lo if lo is not None else -top, top, exclude_min=p.lower_strict,
                          exclude_max=p.upper_strict).map(lambda x: Decimal(repr(x))))
    return st.one_of(st.sampled_from(ext).map(Decimal), interior, interior.map(float))


def _int(p):
    lo = int(p.lower) + (1 if p.lower_strict else 0) if p.lower is not None else 0
    top = p.limit if p.limit is not None else 10 ** 12
    return st.one_of(st.sampled_from([lo, lo + 1, top, top - 1, 10 ** 6]), st.integers(lo, 1000),
                     st.integers(0, 12).map(lambda e: max(lo, min(top, 10 ** e))))


def _frac():
    return st.sampled_from(["0", "1", "0.5", "1e-12", "0.999999999999", "1e-100000"]).map(Decimal)


@st.composite
def _point(draw, claim):
    pt = {}
    for p in claim.params:
        if claim.id == "lemma3" and p.name == "s":  # chi2 finite only for 2 s^2 > 1
            pt["s"] = draw(st.one_of(st.sampled_from(["0.70710678118655", "1", "1e100000",
                                                      "7"]).map(Decimal),
                                     st.floats(0.71, 20).map(lambda x: Decimal(repr(x)))))
            continue
        pt[p.name] = draw(_int(p) if p.integer else _real(p, claim.id))
    def D(x):
        return x if isinstance(x, Decimal) else Decimal(repr(x) if isinstance(x, float) else x)
    ctx = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    if "mu_norm" in pt and "L" in pt:
        pt["mu_norm"] = ctx.multiply(D(pt["L"]), draw(_frac()))
    if "chi2" in pt:
        pt["chi2"] = ctx.multiply(ctx.subtract(D(pt["w_star"]), 1), draw(_frac()))
    if "w" in pt and "w_star" in pt:
        f = draw(_frac().filter(lambda x: x > 0))
        pt["w"] = ctx.multiply(D(pt["w_star"]), f)
    if claim.id == "lemma3":
        pt["m"] = draw(st.one_of(st.sampled_from(["0", "1e-100000", "-3", "20"]).map(Decimal),
                                 st.floats(-20, 20).map(lambda x: Decimal(repr(x)))))
    if "batch" in pt:
        pt["batch"] = min(pt["batch"], pt["n_data"])
    if claim.id == "sgfs_stationary_covariance":  # k eps < 4
        pt["k_frac"] = ctx.divide(ctx.multiply(4, draw(_frac().filter(lambda x: 0 < x < 1))),
                                  D(pt["eps"]))
    if claim.id in ("sgfs_exact_noise",):
        pt["k_frac"] = ctx.multiply(4, draw(_frac().filter(lambda x: 0 < x < 1)))
    if claim.id == "sgfs_convergence_criterion":  # k (h + N^2 C/|S|) <= 4 h
        h = ctx.add(ctx.multiply(pt["n_data"], D(pt["fisher"])), D(pt["prior"]))
        sx2 = ctx.divide(ctx.multiply(pt["n_data"] ** 2, D(pt["fisher"])), pt["batch"])
        kmax = min(ctx.divide(ctx.multiply(4, h), ctx.add(h, sx2)), Decimal("3.999999999999"))
        pt["k_frac"] = ctx.multiply(kmax, draw(_frac().filter(lambda x: 0 < x)))
    try:
        claim.validate(dict(pt))
    except ParamError:
        assume(False)
    return pt


def _mixed_magnitudes(pt) -> bool:
    """Two inputs beyond 1e+-300 whose decimal exponents differ by more than 300."""
    exps = [abs(Decimal(repr(v) if isinstance(v, float) else v).adjusted()) for v in pt.values()
            if not isinstance(v, int) and v != 0]
    big = [e for e in exps if e > 300]
    return len(big) >= 2 and max(big) - min(big) > 300


CLAIMS = [i for i in bounds.ids() if i in REF]


def test_every_claim_has_a_reference():
    assert set(bounds.ids()) <= set(REF)
    for cid in bounds.ids():
        c = bounds.get(cid)
        forms = {(q.name, f.name) for q in c.quantities for f in q.forms}
        defaults = {p.name: (p.default if p.default is not None else 1) for p in c.params}
        pt = {k: _mp(v) for k, v in {**defaults, **c.example}.items()}
        if cid == "lemma3":
            pt["s"] = mpmath.mpf(2)
        with mpmath.workdps(DPS):
            assert set(REF[cid](pt)) >= forms, cid


@pytest.mark.parametrize("cid", CLAIMS)
def test_values_match_an_independent_reference_over_the_whole_domain(cid):
    claim = bounds.get(cid)

    @settings(max_examples=6, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(_point(claim))
    def check(pt):
        span = max(len(v.as_tuple().digits) for v in pt.values() if isinstance(v, Decimal))  \
            if any(isinstance(v, Decimal) for v in pt.values()) else 17
        with mpmath.workdps(DPS + 2 * min(span, 300)):
            try:
                ref = REF[cid]({k: _mp(v) for k, v in pt.items()})
            # then the evaluation says so (one line), it never returns a number
            except Uncomputable:
                for q in claim.quantities:
                    for f in q.forms:
                        with pytest.raises(PrecisionError):
                            claim.evaluate_form(q.name, f.name, exact=True, **pt)
                return
        for q in claim.quantities:
            for f in q.forms:
                try:
                    got = claim.evaluate_form(q.name, f.name, exact=True, **pt)
                except PrecisionError:
                    # KNOWN GAP (issue 24 §1, open): extreme inputs of very different magnitudes
                    # (e.g. 1e400 next to 1e100000) at a point that also needs a limit or has a
                    # cancellation are refused (one line, exit 2) rather than computed.  Refused,
                    # never a wrong number; anywhere else a refusal fails this test.
                    if _mixed_magnitudes(pt):
                        continue
                    raise
                got = got.item() if isinstance(got, np.ndarray) else got
                want = ref[(q.name, f.name)]
                where = f"{cid}.{q.name}.{f.name} at {pt}"
                assert mpmath.isfinite(mpmath.mpf(got)), where
                with mpmath.workdps(30):
                    assert _rel(got, want) < REL, f"{where}: {got} != {mpmath.nstr(want, 20)}"
                    # C_cov (the covariance term of Theorem 3) may be negative; a variance bound is
                    # held to >= 0 where it is not
                    if pt.get("c_cov", 0) >= 0:
                        assert _in_range(cid, q.name,
                                         mpmath.mpf(got)), f"{where}: {got} out of range"

    check()
