"""A 50-minute lecture on MCGD and MCSA in one command: ``python -m verify draw lecture --out DIR``
writes the slides' figures (:data:`SLIDES`) and ``outline.md`` (:func:`write_lecture`).
"""

from __future__ import annotations

from .constants import COUNTEREXAMPLE
from .kinds import draw
from .steps import _audit_json, claim_status

# ----------------------------------------------------------------------------- the lecture
# A 50-minute lecture on MCGD and MCSA in one command: ``python -m verify draw lecture --out DIR``.
#
# Writes the lecture's figures and ``outline.md``: for each slide its minutes, its figure, the one
# sentence the figure says (Drawing.message, computed from the numbers drawn, never typed in),
# what to say, and the checks it rests on (claims of Kim et al. 2022 with their verdicts, steps of
# the proof audit, claims of the teaching document ``verify/documents/teaching``).  Four figures
# are drawn only here (LECTURE_FIGURES): ``imh`` (one IMH chain from z*: it accepts with
# probability 1/w* but moves with probability (1 - pi(z*))/w*, so Eq. (7)'s r^k is tight up to
# 1 - pi(z*), §3.2), ``map`` (the paper's (rho, G^2) across w*, Theorems 1-4), ``crossings`` (the
# w* where pMCSA's E||g_t||^2 from z* reaches JSA's, against t: about 2.2 t) and ``corrected``
# (Theorem 4's corrected bound, informative only where L^2 (1 + r)/N + (||mu|| + 2Lr)^2 < L^2).

#: the slides: (file stem, kind, options, minutes, what to say, what it rests on)
SLIDES = (
    ("01_map", "map", {"N": 16}, 4,
     "Table 1 needs two numbers per scheme: a mixing rate ρ and a second-moment bound G². "
     "Read the map: right is faster mixing, down is less variance.",
     ("verdict:table1", "verdict:theorem1", "verdict:theorem2", "verdict:theorem3",
      "verdict:theorem4")),
    ("02_imh", "imh", {"w_star": 10.0}, 4,
     "Everything starts from one IMH chain. From the worst state z* it accepts a proposal with "
     "probability 1/w*, but a proposal of z* itself changes nothing: it moves with probability "
     "(1 − π(z*))/w*. Eq. (7) is tight up to 1 − π(z*) on a finite space (exactly tight for a "
     "continuous target).",
     ("checked:teach_imh_escape", "audit:eq7")),
    ("03_mixing", "mixing", {"N": [4, 16], "w_star": [10.0]}, 5,
     "Per iteration: MSC/MSC-RB make one CIS step, JSA N IMH steps of one chain, pMCSA one IMH "
     "step of each of N chains. pMCSA's ρ = r is the worst of the four for N ≥ 4 and "
     "w* > (N − 2)/(N − 3); for N ≤ 3 MSC's is. JSA's joint law never reaches π^N.",
     ("checked:teach_mixing_rate_order", "verdict:theorem3", "audit:theorem3.mix.statement")),
    ("04_jsa_step", "step", {"step_id": "theorem3.mix.statement"}, 3,
     "The audit says why: Theorem 3 bounds the kernel as its proof defines it (independent "
     "marginals); JSA's N states are one Markov path.",
     ("audit:theorem3.mix.statement", "verdict:theorem3")),
    ("05_variance", "variance", {"N": [2, 4, 8, 16, 32, 64], "w_star": [10.0, 1000.0],
                                 "t": 100}, 4,
     "At w* = 10 the chains have mixed by t = 100 and pMCSA gains the full factor N; at "
     "w* = 1000 they have not, and averaging N chains stuck at z* removes no bias. MSC's bound "
     "is L², the trivial bound: vacuous at every N.",
     ("verdict:theorem1", "verdict:theorem4", "checked:teach_pmcsa_one_over_n")),
    ("06_stationary", "stationary", {"N": list(range(2, 17)), "w_star": 10.0}, 3,
     "At stationarity, on the lecture's instance, pMCSA has the smallest second moment: "
     "E_π s²/N, N independent draws from π. It is never above MSC's or JSA's.",
     ("checked:teach_stationary_order",)),
    ("07_counterexample", "stationary",
     {"N": list(range(2, 17)),
      "instance": {k: list(v) for k, v in COUNTEREXAMPLE.items()}}, 4,
     "But not always the smallest: with a q that puts its mass where the score varies, "
     "self-normalised importance sampling (MSC-RB) beats N independent draws from π. JSA ties "
     "with pMCSA here (K s = 0).",
     ("checked:teach_stationary_counterexample",)),
    ("08_wstar", "wstar", {"N": 16, "t": 100, "w_range": (2.0, 1e4),
                           "schemes": ("MSC", "MSC-RB", "JSA", "pMCSA")}, 5,
     "MCGD does not start at stationarity. From z* each pMCSA chain is stuck for about w* "
     "iterations; averaging N stuck chains removes no bias.",
     ("checked:teach_transient_crossing", "verdict:theorem4")),
    ("09_crossings", "crossings", {"N": 16}, 3,
     "The transient's length: the crossing w* grows linearly in t, w* ≈ 2.2 t at N = 16.",
     ("checked:teach_transient_crossing",)),
    ("10_conditional_bias", "step", {"step_id": "theorem4.var.2"}, 4,
     "Conditionally on F_{t−1} the bias is one transition's and does not decay like r^t: the "
     "proof of Theorem 4 uses Lemma 7 for the wrong quantity.",
     ("audit:theorem4.var.2", "verdict:theorem4")),
    ("11_corrected", "corrected", {"N": 4}, 4,
     "The correction L²(1 + r)/N + (‖μ‖ + 2Lr)² holds, but it is below the trivial bound L² only "
     "for small w*: a correction must say where it is informative.",
     ("checked:teach_corrected_theorem4",)),
    ("12_rates", "rates", {"N": 16, "w_range": (1.5, 1e4)}, 6,
     "Which rate? Under mirror descent pMCSA/JSA = 2N(1 + r)/(N + 3) > 1: JSA. Under SGD–Nesterov "
     "it is 2(1 + r)/(N + 3) < 1: pMCSA, but only with the stationary G², i.e. after the "
     "transient (w* below about 2.2 t).",
     ("checked:teach_rate_ratios", "checked:teach_transient_crossing", "verdict:table1")),
)
#: the minute left for questions
WRAP_UP = 1




def slides(fmt: str = "png"):
    """``[(file name, kind, options, minutes, notes, rests_on)]`` of the lecture."""
    return [(f"{stem}.{fmt}", kind, opts, minutes, notes, rests)
            for stem, kind, opts, minutes, notes, rests in SLIDES]


def _cite(ref: str) -> str:
    kind, _, what = ref.partition(":")
    if kind == "verdict":
        st = claim_status(what)["status"]
        return f"`python -m verify {what}`: {st}"
    if kind == "audit":
        status = _audit_json()["steps"][what]["status"]
        return f"`python -m verify audit {what.split('.')[0]}`, step `{what}`: {status}"
    return f"`python -m verify {what}` (a fact of the lecture, checked exactly)"


def outline(drawn: list[dict]) -> str:
    """The lecture's outline in Markdown: per slide its minutes, figure, message, notes, checks."""
    total = sum(s["minutes"] for s in drawn) + WRAP_UP
    out = ["# Markov chain score ascent: mixing rate against gradient variance",
           "",
           f"A {total}-minute lecture on Kim, Oh, Gardner, Dieng & Kim, “Markov Chain Score "
           "Ascent: A Unifying Framework of Variational Inference with Markovian Gradients”, "
           "NeurIPS 2022 (§2.2 Table 1, §3–§5, App. D). Every figure was drawn by "
           "`python -m verify draw lecture`; every number in it is exact (finite-state matrix "
           "powers and sums). Each slide's message is the sentence its figure supports, computed "
           "from the numbers drawn.",
           "",
           "| # | minutes | figure | message |", "|---|---|---|---|"]
    for i, s in enumerate(drawn, 1):
        out.append(f"| {i} | {s['minutes']} | `{s['file']}` | {s['message']} |")
    out += [f"| | {WRAP_UP} | | questions |", ""]
    clock = 0
    for i, s in enumerate(drawn, 1):
        out += [f"## {i}. {s['title']} ({clock}–{clock + s['minutes']} min)", "",
                f"![{s['message']}]({s['file']})", "",
                f"**Message.** {s['message']}", "",
                f"**Say.** {s['notes']}", "",
                "**Checked by.** " + "; ".join(_cite(r) for r in s["rests_on"]) + ".", ""]
        clock += s["minutes"]
    out += [f"## Questions ({clock}–{clock + WRAP_UP} min)", "",
            "Exercises in three levels, with solutions the test suite runs: "
            "`notebooks/exercises/` and `notebooks/solutions/`; the symbols and the toolkit's "
            "words: `docs/glossary.md`.", ""]
    return "\n".join(out)


def write_lecture(out_dir: str, fmt: str = "png", dpi: int = 110) -> dict:
    """Draw every slide into ``out_dir`` and write ``outline.md``; returns ``{"figures": [...],
    "outline": path}`` with each slide's file, kind, message and minutes."""
    import os

    drawn = []
    for name, kind, opts, minutes, notes, rests in slides(fmt):
        d = draw(kind, os.path.join(out_dir, name), dpi=dpi, **dict(opts))
        drawn.append({"file": name, "kind": kind, "message": d.message, "minutes": minutes,
                      "notes": notes, "rests_on": rests,
                      "title": d.fig.get_suptitle().replace("\n", " ")})
        d.fig.clear()
    path = os.path.join(out_dir, "outline.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(outline(drawn))
    return {"figures": drawn, "outline": "outline.md"}
