"""The coverage table never leaves a column out (issue 24 §3): the location says which
sentence a row is about, so when the four columns do not fit side by side the table is
stacked (status beside the location, the claim / step and verdict or reason under it) rather
than losing the location, at every width from 60 to 120 columns."""

import pytest

import mcsa_cli as clikit
from verify.judging import coverage

WIDTHS = [60, 80, 90, 100, 120]


@pytest.fixture(scope="module")
def entries():
    return coverage.load()


def _entries_by_document(entries):
    out: dict[str, list[dict]] = {}
    for e in entries:
        out.setdefault(e["document"], []).append(e)
    return out


def test_the_plain_table_would_leave_the_location_out(entries):
    """What the stacked layout is for: with the inventory's words, some document's four
    columns do not fit 80 columns, and the table kit then leaves the location out (the
    detector, _shows_every_column, sees it)."""
    steps, claims = coverage.statuses(entries)
    dropped = []
    for doc, es in _entries_by_document(entries).items():
        rows = coverage.table_rows(es, steps, claims)
        t = clikit.table(rows, coverage.COLUMNS, width=80, max_lines=4, optional=["location"],
                         key=False)
        if not coverage._shows_every_column(t):
            assert "columns left out" in " ".join(t.split()) and "location" not in t.splitlines()[0]
            dropped.append(doc)
    assert dropped


@pytest.mark.parametrize("width", WIDTHS)
def test_every_entry_keeps_its_location_at_every_width(entries, width):
    text = coverage.table_text(entries, width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "columns left out" not in " ".join(text.split())  # the kit's note: no column dropped
    docs = _entries_by_document(entries)
    headers = [line for line in lines if line.startswith("status ")]
    assert len(headers) == len(docs) and all("location" in h for h in headers)
    # one row per entry: in each table's body (under the dashed rule, up to the blank line
    # after it) a line at the left edge starts a row (its status, never wrapped), a line
    # starting with spaces continues one
    starts = []
    for i, line in enumerate(lines):
        if line.startswith("status ") and lines[i + 1].startswith("---"):
            body = lines[i + 2:lines.index("", i)] if "" in lines[i:] else lines[i + 2:]
            starts += [b for b in body if b[:1] not in (" ", "(")]
    assert len(starts) == len(entries)
    stacked = any(h.split(None, 1)[1].startswith("location / claim") for h in headers)
    if stacked:  # each entry's first row: its status, then its location's first words
        for line, e in zip(starts, entries):
            shown = " ".join(line[len(e["status"]):].split())
            assert line.startswith(e["status"]) and shown and e["location"].startswith(shown), line
    if width <= 60:
        assert stacked  # the inventory's words cannot stand in four columns side by side here


def test_the_stacked_rows_put_the_check_and_verdict_under_the_location():
    rows = [("checked", "§2, Eq. (3)", "theorem1 / t1.step", "holds; step exact"),
            ("not checkable", "§2", "-", "a definition")]
    assert coverage._stacked_rows(rows) == [
        ["checked", "§2, Eq. (3)"], ["", "theorem1 / t1.step  holds; step exact"],
        ["not checkable", "§2"], ["", "a definition"]]


def test_a_long_word_stacks_the_table_even_at_100_columns():
    """An id too long for the four columns side by side (a user's step id, say): the table is
    stacked, and the location is still there."""
    long_id = "a_users_package.a_very_long_step_identifier_no_column_can_hold_beside_the_others"
    es = [{"document": "a user's document", "location": "§3, line (4)", "quote": "x",
           "kind": "proof step",
           "status": "not checked", "claim": None, "step": long_id,
           "reason": "no check yet; how: compare both sides at exact rational points"}]
    text = coverage.table_text(es, width=100)
    assert "columns left out" not in " ".join(text.split()) and "location / claim / step" in text
    first = next(line for line in text.splitlines() if line.startswith("not checked"))
    assert "§3, line (4)" in first and long_id in text
