"""Coverage inventory (truth-finding, part 1): the inventory is valid, its references exist,
docs/COVERAGE.md is fresh, the outputs are strict and fit, and every quote is the
documents' own words.

The quote test needs the source documents, which the package does not carry: it runs
when ``MCSA_SEEDS`` names the folder holding them (one text file per document, named
``<document key>_*.txt``) and is skipped otherwise.
"""

import copy
import json

import pytest
from documents_kit import ROOT, seed_texts

import bounds
from mcsa_cli import UsageError, loads_strict, run
from verify.judging import coverage


@pytest.fixture(scope="module")
def entries():
    return coverage.load()


@pytest.fixture(scope="module")
def walked():
    return coverage.sections()


def _norm(s: str) -> str:
    return " ".join(s.split())


def _cli(argv, capsys):
    code = run("python -m verify", "", ["coverage", *argv], {"coverage": coverage.cmd_coverage})
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_document_package_has_an_inventory(entries, walked):
    from verify.registry import plugins

    # every registered document plugin of this distribution carries an inventory (found through its
    # entry point)
    ours = [p.module for p in plugins() if p.module.startswith("verify.documents.")]
    assert len(ours) >= 3 and set(ours) <= set(coverage.packages())
    docs = [coverage._read(p, coverage.SECTIONS)["document"] for p in coverage.packages()]
    assert len(set(docs)) == len(coverage.packages())
    for d in docs:
        assert sum(e["document"] == d for e in entries) >= 50, d  # a walked document, not a stub
        assert walked[d], d


def test_inventory_validates(entries, walked):
    assert coverage.problems(entries, walked) == []
    assert {e["status"] for e in entries} == set(coverage.STATUSES)
    assert all(tuple(e) == coverage.KEYS for e in entries)


@pytest.mark.parametrize("mutate, expected", [
    (lambda e: e.update(status="verified"), "status"),
    (lambda e: e.update(kind="lemma"), "kind"),
    (lambda e: e.update(status="not checked", reason=None), "needs a reason"),
    (lambda e: e.update(status="not checked", reason="no check yet"), "how:"),
    (lambda e: e.update(status="checked", claim=None, step=None), "names the claim or the step"),
    (lambda e: e.update(location="§99, nowhere"), "walked section"),
    (lambda e: e.update(document="004"), "unknown document"),
    (lambda e: e.update(quote=" "), "quote"),
    (lambda e: e.pop("reason"), "keys"),
])
def test_validation_reports_each_broken_rule(entries, walked, mutate, expected):
    bad = copy.deepcopy(entries)
    mutate(bad[0])
    found = coverage.problems(bad, walked)
    assert found and any(expected in p for p in found), found


def test_duplicates_are_reported(entries, walked):
    assert any("duplicate" in p for p in coverage.problems(entries + entries[:1], walked))


def test_referenced_claims_and_steps_exist(entries):
    steps, claims = coverage.status_documents()
    ids = set(bounds.ids())
    assert steps and claims
    for e in entries:
        if e["claim"]:
            assert e["claim"] in ids, e
            assert e["claim"] in claims, e  # it has a recorded final status to show
        if e["step"]:
            assert e["step"] in steps, e


def test_verdicts_are_looked_up_not_stored(entries):
    steps, claims = coverage.status_documents()
    e = next(x for x in entries if x["claim"] and x["step"] and x["status"] == "checked")
    assert coverage.verdict(e, steps, claims) == f"{claims[e['claim']]}; step {steps[e['step']]}"
    assert (coverage.verdict(e, {e["step"]: "wrong"},
                             {e["claim"]: "violated"}) == "violated; step wrong")
    assert coverage.verdict({"claim": None, "step": None}, steps, claims) is None


def test_coverage_markdown_is_what_the_inventory_produces_now(entries):
    committed = (ROOT / "docs" / "COVERAGE.md").read_text(encoding="utf-8")
    assert (committed
            == coverage.markdown(entries)), "regenerate with: python -m verify coverage --write"


def test_markdown_lists_sections_counts_and_the_todo(entries, walked):
    md = coverage.markdown(entries, walked)
    for d, secs in walked.items():
        assert f"## {coverage.cite(d)}" in md
        assert f"**Sections walked ({len(secs)}):**" in md
    todo = md.split("## To do: the statements not checked yet", 1)[1]
    assert todo.count("\n- **") == sum(e["status"] == "not checked" for e in entries)
    heads = ("| document", "| location", "| all")
    table_rows = [ln for ln in md.splitlines()
                  if ln.startswith("| ") and " | " in ln and not ln.startswith(heads)
                  and "|---" not in ln]
    # one row per entry + one count row per document
    assert len(table_rows) == len(entries) + len(walked)
    assert "001_" not in md and "../shared" not in md  # cited bibliographically only


def test_markdown_code_spans_survive_pipes_and_backticks():
    assert coverage._code(r"\left| x \right|") == r"`\left\| x \right\|`"
    assert coverage._code("``reject''") == "``` ``reject'' ```"


def test_json_is_strict_and_complete(entries, capsys):
    code, out, err = _cli(["--json"], capsys)
    assert code == 0 and not err
    rows = loads_strict(out)
    assert len(rows) == len(entries)
    for r, e in zip(rows, entries):
        assert tuple(r) == coverage.JSON_KEYS
        assert r["document"] == coverage.cite(e["document"])
        assert r["quote"] == e["quote"] and r["status"] == e["status"]
        assert (r["verdict"] is not None) == bool(e["claim"] or e["step"])


def test_filters_select_and_bad_input_is_refused(entries, capsys):
    code, out, _ = _cli(["--json", "--status", "not-checked", "--document", "cis_imh"], capsys)
    rows = json.loads(out)
    assert code == 0 and rows
    assert (len(rows)
            == sum(e["status"] == "not checked" and e["document"] == "003" for e in entries))
    assert {r["status"] for r in rows} == {"not checked"}
    for argv in (["--status", "bogus"], ["--document", "nowhere"],
                 ["--write", "--status", "checked"],
                 ["--json", "--write"], ["--frobnicate"]):
        code, out, err = _cli(argv, capsys)
        assert code == 2 and not out and len(err.strip().splitlines()) == 1, argv
    with pytest.raises(UsageError):
        coverage.cmd_coverage(["--status", "bogus"])


def test_terminal_table_fits_100_columns(entries, capsys):
    text = coverage.table_text(entries, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    for d in {e["document"] for e in entries}:
        assert coverage.cite(d) in text
    code, out, _ = _cli(["--status", "checked", "--document", "002"], capsys)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert "El hanchi (2018)" in out
    assert not any(line.startswith(("not checked", "not checkable",
                                    "out of scope")) for line in out.splitlines())


def test_every_quote_is_verbatim_in_its_document(entries):
    texts = {d: _norm(t) for d, t in seed_texts(coverage.counts(coverage.load())).items()}
    missing = [(e["document"], e["location"], e["quote"][:60]) for e in entries
               if _norm(e["quote"]) not in texts[e["document"]]]
    assert missing == []
    # the check can fail: a quote altered by one character is not found
    e = next(x for x in entries if len(x["quote"]) > 20)
    assert _norm(e["quote"][:-1] + "§") not in texts[e["document"]]
