"""docs/glossary.md: one entry, one meaning, for every word the commands print (issue 36, item 6).

The words a command prints are collected from where the commands take them: the statuses of checks,
readings and claims (:mod:`verify.model`), the statuses of audit steps (:mod:`verify.audit.outcome`)
and *affected*, the severities, the methods, and the forms — of every claim's formulas in
:mod:`bounds` (``python -m bounds``), of every verification's declared forms (``python -m verify
list --wide``) and of every check of the suite's quick run of every claim (``python -m verify
CLAIM``).  Each must be a term of the glossary, qualified by its kind ("a status", "a step status",
"a severity", "a form", "a method"), and no term may be defined twice.  Planted words and a planted
duplicate show that the test fails.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary.md"
TERM = re.compile(r"^(?![:#\s|<])(\S.*)$")


def terms(text: str) -> list[str]:
    """The defined terms: a line followed by a definition line starting with ': '."""
    lines = text.splitlines()
    return [lines[i].strip() for i in range(len(lines) - 1)
            if TERM.match(lines[i]) and lines[i + 1].startswith(": ")]


def words(text: str) -> dict[str, set[str]]:
    """{backticked word: the qualifiers of the terms it appears in} ('' when unqualified)."""
    out: dict[str, set[str]] = {}
    for term in terms(text):
        qual = re.search(r"\(([^)]*)\)\s*$", term)
        for w in re.findall(r"`([^`]+)`", term):
            out.setdefault(w, set()).add(qual.group(1) if qual else "")
    return out


def printed_words() -> dict[str, set[str]]:
    """{kind: the words of that kind the commands print}."""
    from shared_runs import cached_runs

    import bounds
    from verify.audit.outcome import StepStatus
    from verify.model import DEGENERATE, STATUSES, Method, Severity
    from verify.registry import verifications

    forms = {f.name for c in bounds.all_claims() for q in c.quantities for f in q.forms}
    forms |= {f.strip() for v in verifications().values() for f in re.split(r"[,+]", v.forms)
              if f.strip()}
    runs = cached_runs("quick", 0)
    forms |= {c.form for rep in runs.values() for c in rep.checks}
    statuses = set(STATUSES) | {DEGENERATE} | {v for rep in runs.values()
                                              for v in (rep.readings or {}).values()}
    return {"status": statuses, "step status": {str(s) for s in StepStatus},
            "severity": {str(s) for s in Severity}, "form": forms,
            "method": {str(m) for m in Method} | {c.method for rep in runs.values()
                                                  for c in rep.checks}}


def missing(text: str, printed: dict[str, set[str]]) -> list[str]:
    """The printed words that have no glossary term of their kind."""
    have = words(text)
    out = []
    for kind, ws in printed.items():
        for w in sorted(ws):
            if not any(kind in q for q in have.get(w, ())):
                out.append(f"{w} ({kind})")
    if "affected" not in have:
        out.append("affected")
    return out


@pytest.fixture(scope="module")
def printed():
    return printed_words()


def test_every_printed_status_severity_form_and_method_is_in_the_glossary(printed):
    text = GLOSSARY.read_text(encoding="utf-8")
    assert missing(text, printed) == []
    # the forms are many more than the six the old glossary named
    assert {"strict", "as-defined", "shape", "unconditional", "moment"} <= printed["form"]


def test_a_planted_word_is_caught(printed):
    text = GLOSSARY.read_text(encoding="utf-8")
    planted = {k: set(v) for k, v in printed.items()}
    planted["form"].add("planted-form")
    planted["severity"].add("planted-severity")
    assert sorted(missing(text, planted)) == ["planted-form (form)", "planted-severity (severity)"]
    # a word defined under another kind does not count: `loose` as a form is not a form
    assert "loose (form)" in missing(text, {"form": {"loose"}})


def test_one_meaning_per_term():
    text = GLOSSARY.read_text(encoding="utf-8")
    ts = terms(text)
    assert len(ts) == len(set(ts)) and len(ts) >= 60
    # severity has one meaning: the referee's judgement, not an order of the step statuses
    entry = text.split("\nseverity\n: ", 1)[1].split("\n\n", 1)[0]
    assert "judgement" in entry and "order" not in entry
    planted = text + "\nclaim\n: <!-- no claim: definition --> another meaning.\n"
    assert len(terms(planted)) != len(set(terms(planted)))


def test_the_required_terms_are_defined():
    """The terms issue 36 found missing."""
    text = GLOSSARY.read_text(encoding="utf-8")
    ts = " | ".join(terms(text))
    for term in ("total variation", "score $s$", r"$\Pi = \pi^N$", "path law", "conditional bias",
                 "Rao–Blackwellisation", "self-normalised importance sampling", r"$\gamma$",
                 "Table 1 rates", "budget $N$", "$q_{def}$", "`moment` (a form)",
                 "`unconditional` (a form)", "certificate", "mixing time"):
        assert term in ts, term


def test_the_glossary_states_the_imh_and_r_k_facts_right():
    """r^k is attained from z* only for a continuous target (on a finite space r^k (1 - pi(z*)));
    IMH accepts with probability 1/w* but moves with probability (1 - pi(z*))/w*."""
    text = " ".join(GLOSSARY.read_text(encoding="utf-8").split())
    assert "r^k\\,(1-\\pi(z^*))" in text and "continuous target" in text
    assert "**accepts** a proposal with probability $1/w^*$" in text
    assert "**moves** with probability $(1-\\pi(z^*))/w^*$" in text
    assert "leaves with probability about" not in text
    assert "pMCSA has the smallest second moment at stationarity" not in text
