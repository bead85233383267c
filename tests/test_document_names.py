"""Users read document names, not the toolkit's internal numbers (issue 24 §3, "internal jargon").

The code keys documents by number (001, 002, 003); whatever a user reads names them as the terminal
does: "Kim et al. (NeurIPS 2022)", "the CIS-as-IMH draft", "El hanchi (2018)".  Checked here: every
reading's name and meaning, every string a claim's package shows (check notes, audit details,
corrections, coverage reasons: the string literals of verify/documents, docstrings and comments
excepted, and its data files, the steps' tables included), the packaged verdicts.json and
audit.json, docs/ERRATA.md and docs/COVERAGE.md, and the terminal's `bounds show`.  The report's
HTML is checked by tests/test_report.py with the same pattern.
"""

from __future__ import annotations

import json
import pathlib
import re
import tomllib

import pytest
from documents_kit import code_strings

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: a document number used as a name ("003's definition", "as 003 defines it", "001 §4.2"): 000-004
#: standing alone, not part of a decimal (0.001), a grouped number (10 000, 10,000) or an identifier
DOC_NUMBER = re.compile(r"(?<![\w.,])(?<!\d )00[0-4](?:'s)?(?!\w)(?!\.\d)")
#: keys and fields that hold a document's number as data (the key itself), not as text a user reads
DATA_KEYS = {"seed", "document", "doc"}


def jargon(text: str) -> list[str]:
    """The document numbers used as names in ``text``, each with a little context."""
    return [text[max(0, m.start() - 30): m.end() + 30] for m in DOC_NUMBER.finditer(text)]


def test_the_pattern_sees_jargon_and_not_numbers():
    for bad in ("'accept' (003's definition)", "as 003 defines it", "001 §4.2: shape",
                "no sentence of 002"):
        assert jargon(bad), bad
    for ok in ("alpha 0.001", "|S| = 10 000", "10,000 points", "seed 1001", "x003",
               "the CIS-as-IMH draft"):
        assert not jargon(ok), ok


def _strings(x, key=None):
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in DATA_KEYS:
                yield from _strings(k)
                yield from _strings(v, k)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v, key)
    elif isinstance(x, str) and key not in DATA_KEYS:
        yield x


def test_reading_names_and_meanings():
    from verify.registry import verifications

    bad = [(cid, r.name, r.meaning) for cid, v in verifications().items() for r in v.readings
           if jargon(r.name) or jargon(getattr(r, "meaning", "") or "")]
    assert bad == []


def _literals(path: pathlib.Path):
    """The string literals of a module that are not docstrings (f-string parts included)."""
    for line, text in code_strings(path):
        if not re.fullmatch(r"00[0-4]", text):  # a document's key, not text
            yield line, text


def test_strings_the_claims_show():
    """Check notes, audit details, corrections, reasons: every string literal of the claims'
    packages.
    """
    bad = []
    for p in sorted((ROOT / "verify" / "documents").rglob("*.py")):
        for line, s in _literals(p):
            if jargon(s):
                bad.append(f"{p.relative_to(ROOT)}:{line}: {jargon(s)[0]!r}")
    for p in sorted((ROOT / "verify" / "documents").rglob("*.json")):
        bad += [f"{p.relative_to(ROOT)}: {j!r}" for s in _strings(json.loads(p.read_text()))
                for j in jargon(s)]
    tables = sorted((ROOT / "verify" / "documents").rglob("*.toml"))  # the steps' printed text
    assert tables
    for p in tables:
        bad += [f"{p.relative_to(ROOT)}: {j!r}"
                for s in _strings(tomllib.loads(p.read_text(encoding="utf-8"))) for j in jargon(s)]
    assert bad == []


@pytest.mark.parametrize("name", ["verdicts.json", "audit.json"])
def test_packaged_results(name):
    doc = json.loads((ROOT / "verify" / "data" / name).read_text())
    bad = [j for s in _strings(doc) for j in jargon(s)]
    assert bad == []


@pytest.mark.parametrize("name", ["ERRATA.md", "COVERAGE.md"])
def test_generated_docs(name):
    text = (ROOT / "docs" / name).read_text()
    assert jargon(text) == []


def test_the_terminal_cites_derivations(capsys):
    """`bounds show` prints each form's derivation with the document named (it was '(001 §6.2
    ...)').
    """
    from bounds.cli import main

    assert main(["show", "figure1", "--wide"]) == 0
    out = capsys.readouterr().out
    assert "Kim et al. (NeurIPS 2022) §6.2 'Gradient Variance'" in out and jargon(out) == []
