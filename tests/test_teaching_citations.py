"""The toolkit checks what it teaches (issue 36, item 7).

Every paragraph of the notebooks, the exercises, the solutions and the glossary that states a
mathematical fact either cites a claim of the teaching document, which the machinery verifies
here (it must hold), or cites the verdict of a document's claim or the status of an audit step,
which must be the packaged one (``verify/data/verdicts.json``, ``verify/data/audit.json``); a
paragraph that states no fact says why, with a reason from a closed list
(:mod:`verify.documents.teaching.material`).  The teaching document's coverage inventory is the
list of those paragraphs and must be current.  Each rule is shown to fail on a plant: a paragraph
that states a fact and cites nothing, a quoted verdict that is not the packaged one, a teaching
claim that does not exist, a reason outside the list.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from verify.documents.teaching import material as M

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "verify" / "data"


@pytest.fixture(scope="module")
def cited():
    """{(kind, id, status)} over the whole material, with where each is cited."""
    out: dict = {}
    for label, path in M.FILES:
        for where, text, reason in M.units(label, path):
            if reason is None:
                for c in M.citations(text):
                    out.setdefault(c, []).append(where)
    return out


@pytest.fixture(scope="module")
def teaching_verdicts(cited):
    """The quick-run verdict of every teaching claim the material cites."""
    import verify

    ids = sorted({i for k, i, _ in cited if k == "checked"})
    return {i: verify.run(i, "quick", seed=0).verdict for i in ids}


def resolve(citation, verdicts, audit, teaching) -> str | None:
    """Why a citation is wrong (None when it is right)."""
    kind, cid, status = citation
    if kind == "checked":
        if cid not in teaching:
            return f"{cid}: not a claim of the teaching document"
        return None if teaching[cid] == "holds" else f"{cid}: {teaching[cid]}, not holds"
    if cid in verdicts:
        return None if verdicts[cid] == status else f"{cid}: quoted {status}, is {verdicts[cid]}"
    if cid in audit:
        return None if audit[cid] == status else f"{cid}: quoted {status}, is {audit[cid]}"
    if cid in M.LOCAL:
        return None if M.LOCAL[cid] == status else f"{cid}: quoted {status}"
    return f"{cid}: neither a claim nor an audit step"


def packaged():
    verdicts = json.loads((DATA / "verdicts.json").read_text())["verdicts"]
    audit = {k: v["status"] for k, v in
             json.loads((DATA / "audit.json").read_text())["steps"].items()}
    return verdicts, audit


def test_every_paragraph_stating_a_fact_cites_what_checks_it():
    assert M.problems() == []


def test_every_citation_resolves(cited, teaching_verdicts):
    verdicts, audit = packaged()
    wrong = [(c, resolve(c, verdicts, audit, teaching_verdicts), where[:2])
             for c, where in cited.items()]
    assert [w for w in wrong if w[1]] == []
    # every teaching claim is cited somewhere, and the material cites many checks
    import verify

    teach = {c for c in verify.claims() if c.startswith("teach_")}
    assert teach == {i for k, i, _ in cited if k == "checked"} and len(teach) >= 12
    assert len(cited) >= 40 and sum(len(w) for w in cited.values()) >= 150


def test_the_checks_of_the_citations_can_fail(teaching_verdicts):
    """Plants: a wrong status, an unknown teaching claim, a teaching claim that fails, an unknown
    id are each reported."""
    verdicts, audit = packaged()
    assert resolve(("status", "theorem4", "holds"), verdicts, audit, teaching_verdicts)
    assert resolve(("status", "theorem4.var.2", "valid"), verdicts, audit, teaching_verdicts)
    assert resolve(("checked", "teach_no_such_fact", ""), verdicts, audit, teaching_verdicts)
    assert resolve(("checked", "teach_imh_escape", ""), verdicts, audit,
                   {**teaching_verdicts, "teach_imh_escape": "violated"})
    assert resolve(("status", "no_such_claim", "holds"), verdicts, audit, teaching_verdicts)
    assert resolve(("status", "theorem4", "depends on reading"), verdicts, audit,
                   teaching_verdicts) is None


def test_an_uncited_fact_and_an_unknown_reason_are_caught(monkeypatch, tmp_path):
    planted = tmp_path / "glossary.md"
    planted.write_text(
        "# Planted\n\nAt stationarity pMCSA always has the smallest second moment, $N$ times "
        "below MSC's.\n\n<!-- no claim: because I say so -->\nThe rate is $r^k$.\n\n"
        "<!-- no claim: definition -->\nA definition with $x = 1$.\n\n"
        "A fact with its check: $w^* \\ge 1$ (checked: `teach_divergences`).\n", encoding="utf-8")
    monkeypatch.setattr(M, "FILES", (("planted", planted),))
    found = M.problems()
    assert len(found) == 2
    assert "cites nothing" in found[0] and "always has the smallest" in found[0]
    assert "unknown reason 'because I say so'" in found[1]


def test_the_inventory_is_current():
    stored = json.loads((M.PACKAGE / "coverage.json").read_text(encoding="utf-8"))
    assert stored == M.inventory(), ("stale: python -m verify.documents.teaching.material "
                                     "--write")
    sections = json.loads((M.PACKAGE / "coverage_sections.json").read_text(encoding="utf-8"))
    assert sections == M.sections()
    assert len(stored) >= 50 and all(e["document"] == "teaching" for e in stored)


def test_the_false_statements_are_gone():
    """Notebook 08 and the glossary no longer say that pMCSA always has the smallest second
    moment at stationarity, and nothing calls the vacuous corrected Theorem 4 bound informative;
    the three inaccuracies of notebook 01 are gone."""
    text = "\n".join(" ".join(c.split()) for _, path in M.FILES
                     for c in M.markdown_cells(path))
    for wrong in ("At stationarity pMCSA always wins", "always has the smallest",
                  "pMCSA always wins", "differ **only in the kernel**",
                  "rates do not depend on $\\rho$ at all",
                  "is the *worst* of the four) for", "leaves $z^*$ with probability about",
                  "stays put with probability $r$"):
        assert wrong not in text, wrong
    assert "not always the smallest" in text or "not always best" in text
