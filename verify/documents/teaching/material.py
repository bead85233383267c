"""The teaching material read sentence by sentence: what each paragraph states and what checks it.

    python -m verify.documents.teaching.material            # the paragraphs without a citation
    python -m verify.documents.teaching.material --write    # regenerate coverage.json

The material is the notebooks, the exercises and their solutions, and the glossary (a source
checkout: they are not part of the installed package).  A paragraph of their Markdown that states
a mathematical fact must say what checks it (issue 36), in one of three ways:

``(checked: `teach_imh_escape`)``
    a claim of this teaching document, verified like the documents' claims;
``(verdict: `theorem4`, depends on reading)``
    a claim of a document and the final status it rests on (``verify/data/verdicts.json``);
``(audit: `theorem4.var.2`, wrong)``
    a step of the proof audit and its status (``verify/data/audit.json``).

A paragraph that states no fact — a definition, the setup of a computation, a question, an
instruction — says so in an HTML comment the reader does not see, with its reason:
``<!-- no claim: definition -->`` (:data:`REASONS`).  Which paragraphs state a fact is decided
conservatively (:func:`needs_citation`): every paragraph with mathematics ($...$) or a number left
once references (§3.2, Theorem 4, Eq. (7), notebook 03, years) and code spans are set aside.

A displayed formula, a table or a paragraph starting in lowercase continues the sentence before it
and shares its citation; list items are checked one by one (an item may carry its own exemption),
and an exemption before a paragraph covers all of it.  :func:`inventory` turns the cited paragraphs
into this document's coverage inventory (``coverage.json``): one entry per paragraph, with the
claim or step it cites first.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = Path(__file__).resolve().parent
#: (section label, file), in the order the material is read
FILES = tuple(
    [(f"notebook {p.stem[:2]}", p) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    + [(f"exercises {p.stem[:2]}", p) for p in sorted((ROOT / "notebooks" / "exercises")
                                                     .glob("*.ipynb"))]
    + [(f"solutions {p.stem[:2]}", p) for p in sorted((ROOT / "notebooks" / "solutions")
                                                     .glob("*.ipynb"))]
    + [("glossary", ROOT / "docs" / "glossary.md")])
#: why a paragraph states no fact
REASONS = ("definition", "notation", "setup", "outline", "describes the code",
           "describes the figure", "instructions", "motivation", "pointer", "question")
#: the statuses a citation may quote
STATUS_WORDS = ("holds", "violated", "inconclusive", "depends on reading", "exact", "valid",
                "loose", "wrong", "unchecked")
CHECKED = re.compile(r"checked:\s+`(\w+)`")
PAIR = re.compile(r"`([\w.\-]+)`,\s+(" + "|".join(w.replace(" ", r"\s+") for w in STATUS_WORDS)
                  + r")\b")
EXEMPT = re.compile(r"<!-- no claim: ([^>]*?) -->")
#: the lines of a notebook's header and of an exercise's heading block: not statements
META = ("#", "**Source:**", "**Learning objectives.**", "**Prerequisites.**", "**Run time.**",
        "**Objective:**", "**Expected time:**", "**Level:**")
#: references and settings that are not facts: stripped before a paragraph is judged
REFERENCE = re.compile(
    r"`[^`]*`|<!--.*?-->|\[([^\]]*)\]\([^)]*\)|§[\d.]+|App\. [A-Z](\.\d)?|"
    r"\b(Theorem|Lemma|Table|Figure|Algorithm|Exercise|Proposition|Assumption|Solution|Section)s?"
    r" \d+([–-]\d+)?(( and|,) \d+)*|Eqs?\. \(\d+\)([–-]\(\d+\))?|"
    r"[Nn]otebooks? \d+(( and|,) \d+)*|\(?(19|20)\d\d[ab]?\)?|^\s*\d+\. ", re.M)


def markdown_cells(path: Path) -> list[str]:
    """The Markdown of a notebook's cells, or of a Markdown file (one 'cell')."""
    if path.suffix == ".md":
        return [path.read_text(encoding="utf-8")]
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if c["cell_type"] == "markdown"]


def paragraphs(cell: str) -> list[str]:
    """The paragraphs of a cell, a continuation (a display, a table, a lowercase start) joined to
    the paragraph before it."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", cell.strip()):
        if not para.strip():
            continue
        head = para.lstrip()
        if out and (head.startswith(("$$", "|")) or head[:1].islower()):
            out[-1] += "\n\n" + para
        else:
            out.append(para)
    return out


def items(para: str) -> list[str]:
    """A paragraph's lead and its list items, each judged on its own."""
    return [x for x in re.split(r"\n(?=\s*(?:[*-]|\d+\.) )", para) if x.strip()]


def needs_citation(text: str) -> bool:
    """Whether a text states something to check: mathematics or a number beyond references."""
    rest = REFERENCE.sub(" ", text)
    rest = re.sub(r"\((checked|verdicts?|audit):[^()]*(\([^()]*\)[^()]*)*\)", " ", rest)
    return "$" in rest or bool(re.search(r"\d", rest))


def citations(text: str) -> list[tuple[str, str, str]]:
    """``(kind, id, status)``: ``("checked", teach_id, "")`` and ``("status", id, status)`` for a
    claim's verdict or a step's status."""
    out = [("checked", m.group(1), "") for m in CHECKED.finditer(text)]
    out += [("status", m.group(1), " ".join(m.group(2).split())) for m in PAIR.finditer(text)]
    return out


def units(label: str, path: Path):
    """``(location, text, exemption reason or None)`` of every judged unit of one file."""
    n = 0
    for cell in markdown_cells(path):
        for para in paragraphs(cell):
            n += 1
            lead_exempt = EXEMPT.search(items(para)[0])
            for i, item in enumerate(items(para)):
                if item.lstrip().startswith(META):
                    continue
                reason = EXEMPT.search(item) or lead_exempt
                yield (f"{label}, paragraph {n}" + (f", item {i}" if i else ""), item,
                       reason.group(1) if reason else None)


def problems() -> list[str]:
    """The units that state something without saying what checks it, and unknown reasons."""
    out = []
    for label, path in FILES:
        for where, text, reason in units(label, path):
            if reason is not None:
                if reason not in REASONS:
                    out.append(f"{where}: unknown reason {reason!r} (one of {', '.join(REASONS)})")
                continue
            if needs_citation(text) and not citations(text):
                out.append(f"{where}: states something and cites nothing: {one_line(text)[:90]}")
    return out


def one_line(text: str) -> str:
    return " ".join(EXEMPT.sub("", text).split())


def inventory() -> list[dict]:
    """The coverage inventory: one entry per cited unit (``verify.judging.coverage`` keys)."""
    out = []
    for label, path in FILES:
        for where, text, reason in units(label, path):
            cites = citations(text)
            if reason is not None or not cites:
                continue
            teach = next((i for k, i, _ in cites if k == "checked"), None)
            listed = "; ".join(i + (f" ({s})" if s else "") for _, i, s in cites)
            local = [i for _, i, _ in cites if i in LOCAL]
            if teach is not None:
                status, reason = "checked", "cites " + listed
            elif local:
                status = "out of scope"
                reason = (f"checked inside the notebook by the claim it registers ({local[0]}; "
                          "tests/test_notebooks.py)")
            else:  # the documents' verdicts: their findings are theirs, not this document's
                status = "out of scope"
                reason = ("reports the documents' verdicts: " + listed
                          + " (quoted as packaged: tests/test_teaching_citations.py)")
            out.append({"document": "teaching", "location": where,
                        "quote": one_line(text)[:300], "kind": "result", "status": status,
                        "claim": teach, "step": None, "reason": reason})
    return out


#: claims a notebook registers and runs itself (not built in), with the status it shows; the
#: notebook tests check those statuses on the executed notebook
LOCAL = {"my_time_average_bias": "holds", "my_time_average_bias_halved": "violated"}


def sections() -> dict:
    return {"document": "teaching",
            "sections": [{"section": label, "title": str(path.relative_to(ROOT))}
                         for label, path in FILES]}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--write"]:
        (PACKAGE / "coverage.json").write_text(
            json.dumps(inventory(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (PACKAGE / "coverage_sections.json").write_text(
            json.dumps(sections(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {PACKAGE / 'coverage.json'} ({len(inventory())} entries)")
        return 0
    found = problems()
    for p in found:
        print(p)
    print(f"{len(found)} paragraph(s) state something and cite nothing")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
