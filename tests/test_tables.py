"""Terminal tables (issue 24 §3 and issue 25 §3): at 60, 80, 100 and 120 columns every line of
every table command fits, no word of a cell is split across lines, claim and step ids are
whole, and columns that do not fit are left out and named rather than broken.

The word check: every whitespace-separated word of the fitted output is a word of the same
output printed unfitted (a terminal 100,000 columns wide: one line per row), or a run of
consecutive pieces of one, cut only after ``/``, ``,``, ``+`` or ``[`` -- so ``decidin`` /
``g`` or ``proposi`` / ``tion1`` fail it, while ``second_moment[stated/`` / ``explicit]``
passes.  The pieces are found here with a regular expression of the test's own."""

from __future__ import annotations

import io
import re
import sys

import pytest

import mcsa_cli as K
import mcsa_cli.tables as KT

WIDTHS = [60, 80, 100, 120]
HUGE = 100_000  # a terminal this wide: every table at its natural width, one line per row

#: the notes :func:`mcsa_cli.table` prints under a fitted table (not in the unfitted output)
NOTES = re.compile(r"\(\d+\s+of\s+\d+\s+columns\s+left\s+out\s+to\s+fit\s.*?\)"
                   r"|\([…~]\s+marks\s+a\s+cell\s+cut\s.*?\)", re.S)
#: a run time, which differs between two runs of the same command
TIMES = re.compile(r"\bin \d+(?:\.\d+)? s\b")


def _segments(word: str) -> set[str]:
    """Every run of consecutive pieces of ``word`` cut after / , + [ (the word itself included)."""
    cuts = [0] + [m.end() for m in re.finditer(r"[/,+\[](?=[^/,+\[])", word)] + [len(word)]
    return {word[a:b] for i, a in enumerate(cuts) for b in cuts[i + 1:]}


def assert_no_word_split(fitted: str, unfitted: str, marker: str = "…") -> None:
    whole = set(unfitted.split())
    pieces = set().union(*(_segments(w) for w in whole)) if whole else set()
    for w in NOTES.sub(" ", fitted).split():
        if w.endswith(marker) and w != marker:  # a cell cut short: the marker after a whole word
            w = w[:-len(marker)]
        # (the dashed rule under a header: as long as its column)
        if w == marker or set(w) == {"-"}:
            continue
        assert w in whole or w in pieces, (f"{w!r} is not a word of the unfitted output, nor a "
                                           f"piece of one")


def assert_fits(out: str, width: int) -> None:
    long = [line for line in out.splitlines() if len(line) > width]
    assert not long, f"{len(long)} lines wider than {width}: {long[0]!r}"


def test_the_word_check_can_fail():
    unfitted = "claim  how\nproposition1  monte-carlo+exact  second_moment[stated/explicit],"
    assert_no_word_split("proposition1 monte-carlo+ exact second_moment[ stated/ explicit],",
                         unfitted)
    for split in ("proposi tion1", "monte-carl o+exact", "second_moment[sta ted/explicit],",
                  "stated/explicit]"):
        with pytest.raises(AssertionError):  # cut inside a piece, or a piece that is not a run
            assert_no_word_split(split, unfitted + " x")
    with pytest.raises(AssertionError):
        assert_no_word_split("monte-carlo…", "monte-carlo+exact")  # a cut cell keeps whole words


# ----------------------------------------------------------------------------- the commands
def _verify(argv):
    from verify.command.cli import main

    return main(argv)


def _bounds(argv):
    from bounds.cli import main

    return main(argv)


#: the table commands; `verify all --quick` is checked in test_verify_widths.py, which shares the
#: process's one quick run of every claim (shared_runs.cached_runs) with the other tests there
COMMANDS = {
    "verify list": (_verify, ["list"]),
    "verify audit": (_verify, ["audit"]),
    "verify coverage": (_verify, ["coverage"]),
    "bounds list": (_bounds, ["list"]),
}
_UNFITTED: dict[str, str] = {}


def run_at(main, argv, width, monkeypatch, capsys) -> str:
    """The output of ``main(argv)`` on a terminal ``width`` columns wide (run times masked)."""
    monkeypatch.setenv("COLUMNS", str(width))
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc in (0, 1, 4) and out.strip(), (argv, rc)  # all: the summary status of the claims
    assert "\x1b" not in out  # no colour or cursor codes
    return TIMES.sub("in T s", out)


def first_words(out: str) -> set[str]:
    return {line.split()[0] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_table_command_fits_without_splitting_a_word(name, width, monkeypatch, capsys):
    main, argv = COMMANDS[name]
    if name not in _UNFITTED:
        with monkeypatch.context() as m:
            if name == "verify coverage":  # the coverage table keeps to 100 columns at most
                from verify.judging import coverage

                m.setattr(coverage, "WIDTH", HUGE)
            _UNFITTED[name] = run_at(main, argv, HUGE, m, capsys)
    out = run_at(main, argv, width, monkeypatch, capsys)
    assert_fits(out, min(width, 100) if name == "verify coverage" else width)
    assert_no_word_split(out, _UNFITTED[name])
    if name in ("verify list", "bounds list"):  # every claim id whole, starting its row
        import bounds

        ids = set(bounds.ids())
        assert ids <= first_words(out), sorted(ids - first_words(out))
    elif name == "verify audit":  # every step id whole, starting its record
        from verify.audit import rows

        ids = {r["id"] for r in rows()}
        assert ids <= first_words(out), sorted(ids - first_words(out))[:5]
    else:  # coverage: every claim / step id cited whole
        from verify.judging.coverage import load

        words = set(out.split())
        ids = {e[k] for e in load() for k in ("claim", "step") if e.get(k)}
        assert ids <= words, sorted(ids - words)[:5]


def test_a_narrow_terminal_leaves_columns_out_and_wide_shows_them(monkeypatch, capsys):
    """verify list at 60 columns keeps the claim, its final status and severity, and names the
    columns it left out; --wide prints every column, one line per claim."""
    monkeypatch.setenv("COLUMNS", "60")
    assert _verify(["list"]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0].split()
    assert head[0] == "claim" and "final" in head and "severity" in head and "proof" not in head
    assert re.search(
        r"\(3 of 6 columns left out to fit 60 columns: document, how,\s+proof audit; --wide shows "
        r"them\)",
        out)
    assert _verify(["list", "--wide"]) == 0
    wide = capsys.readouterr().out.splitlines()
    assert {"audit", "measures", "how", "source"} <= set(wide[0].split())
    import bounds

    assert [line.split()[0] for line in wide[2:2 + len(bounds.ids())]] == list(bounds.ids())


# ----------------------------------------------------------------------------- mcsa_cli.table
def test_columns_left_out_in_the_callers_order_then_from_the_right():
    rows = [["proposition1", "Kim et al. (NeurIPS 2022)", "exact+monte-carlo", "holds", "-",
             "x " * 30]]
    header = ["claim", "document", "how", "status", "severity", "audit"]
    out = K.table(rows, header, width=40, optional=["how", "document"])
    assert out.splitlines()[0].split() == ["claim", "status", "severity", "audit"]
    assert ("(2 of 6 columns left out to fit 40 columns: document, how; --wide shows "
            "them)") in " ".join(
        line.strip() for line in out.splitlines())
    out = K.table(rows, header, width=30, see="--json")  # default: from the right, never the first
    first = out.splitlines()[0].split()
    assert first[0] == "claim" and "audit" not in first and "--json shows" in out
    assert "left out" not in K.table(rows, header, width=30, wide=True)
    assert len(K.table(rows, header, width=30, wide=True).splitlines()) == 3


def test_the_key_column_is_never_wrapped_even_when_nothing_else_fits():
    out = K.table([["sgfs_convergence_criterion", "a b c"]], ["claim", "text"], width=20)
    assert out.splitlines()[2] == "sgfs_convergence_criterion"
    assert ("1 of 2 columns left out to fit 20 columns: text; --wide shows "
            "it") in out.replace("\n ", " ")
    wrapped = K.table([["not checkable", "x"]], ["status", "v"], width=12, key=False)
    assert wrapped.splitlines()[2:4] == ["not        x", "checkable"]


def test_a_word_longer_than_its_column_breaks_only_after_a_separator():
    long = "second_moment[stated/explicit/moment/corrected/sharper/unconditional],"
    out = K.table([["theorem3", long + " variance[stated]"]], ["claim", "forms"], width=40)
    assert_fits(out, 40)
    lines = [line[10:] for line in out.splitlines()[2:]]
    # the space the only other break
    assert len(lines) > 2 and "".join(lines) == long + "variance[stated]"
    assert_no_word_split(out, f"claim forms theorem3 {long} variance[stated]")


def test_a_cut_cell_keeps_whole_words():
    out = K.table([["x", "alpha beta gamma delta epsilon zeta eta theta"]], ["id", "text"],
                  width=14, max_lines=2)
    assert out.splitlines()[2:4] == ["x   alpha beta", "    gamma…"]
    assert_no_word_split(out, "id text x alpha beta gamma delta epsilon zeta eta theta")


def test_no_colour_codes_even_when_colour_is_forced(monkeypatch):
    for var, val in (("FORCE_COLOR", "1"), ("TERM", "xterm-256color"), ("COLORTERM", "truecolor")):
        monkeypatch.setenv(var, val)
    out = K.table([["a", "b [bold]c[/bold] :smile:"]], ["k", "v"], width=40)
    assert "\x1b" not in out and "[bold]c[/bold] :smile:" in out  # no markup, no emoji codes


def test_ascii_stdout_gets_no_box_characters(monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    rows = [["theorem3", "≤ ∞ " * 12, None]]
    out = K.table(rows, ["claim", "symbols", "w"], width=30, max_lines=2)
    assert out.isascii() and "~" in out and "(~ marks a cell cut" in out


def test_the_line_count_behind_the_widths_is_rich_s():
    """The widths are chosen on counted lines (KT._count_lines); for words that fit the
    column the count is the number of lines rich's wrap gives."""
    import random

    from rich.console import Console
    from rich.text import Text

    rnd = random.Random(3)
    console = Console(file=io.StringIO(), width=200)
    for _ in range(2000):
        w = rnd.randint(4, 30)
        words = ["x" * rnd.randint(1, w) for _ in range(rnd.randint(1, 12))]
        n = len(Text(" ".join(words)).wrap(console, w))
        assert KT._count_lines([len(x) for x in words], w) == n, (words, w)


# ----------------------------------------------------------------------------- column widths
#: the line under a table saying which columns were left out
LEFT_OUT = re.compile(r"\(\d+ of \d+ columns left out to fit \d+ columns: (.*?); \S+ shows",
                      re.S)


def tables_in(out: str) -> list[dict]:
    """Every kit table printed in ``out``: its column widths (from the dashed rule under the
    header), its body lines and the names of the columns it left out."""
    lines = out.splitlines()
    found = []
    for i, line in enumerate(lines):
        if not line or set(line) != {"-", " "} or len(line.split()) < 2:
            continue
        widths = [len(d) for d in line.split()]
        body = []
        for nxt in lines[i + 1:]:
            if not nxt.strip() or nxt.startswith(("(", " (")):
                break
            body.append(nxt)
        note = " ".join(x.strip() for x in lines[i + 1 + len(body):i + 4 + len(body)])
        m = LEFT_OUT.search(note)
        found.append({"widths": widths, "body": body,
                      "left_out": [s.strip() for s in m.group(1).split(",")] if m else []})
    return found


def longest_pieces(table_out: dict, header: list[str]) -> dict[str, int]:
    """The longest unbreakable piece of each column of an unfitted table (one line per row): a
    word, or where a word is a list written without spaces, the longest run between its breaks
    after / , + [ (the test's own regular expression)."""
    starts, pos = [], 0
    for w in table_out["widths"]:
        starts.append(pos)
        pos += w + 2
    out = {}
    for name, a, w in zip(header, starts, table_out["widths"]):
        cells = [line[a:a + w] for line in table_out["body"]] + [name]
        out[name] = max(len(p) for c in cells for x in c.split()
                        for p in re.findall(r"[^/,+\[]*[/,+\[]+|[^/,+\[]+", x))
    return out


#: the table commands and their tables' headers (as the unfitted output prints them)
HEADERS = {"verify list": ["claim", "document", "how", "final status (quick)", "severity",
                           "proof audit"],
           "bounds list": ["claim", "source", "assumptions", "quantities [forms]"]}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(HEADERS))
def test_no_column_is_squeezed_while_another_has_room(name, width, monkeypatch, capsys):
    """Issue 37: `verify list` at 120 columns gave 'final status' 11 characters (five lines)
    while 'proof audit' had 29.  Now every kept column is at least as wide as its longest
    unbreakable piece, and no character moved from one column to another (the kit's own widths,
    recorded as it lays the table out) would shorten the table."""
    main, argv = COMMANDS[name]
    with monkeypatch.context() as m:
        unfitted = tables_in(run_at(main, argv, HUGE, m, capsys))[0]
    calls = []
    allocate = KT._allocate

    def recorded(cols, lo, hi, room, max_lines):
        ws = allocate(cols, lo, hi, room, max_lines)
        calls.append((cols, lo, hi, ws, max_lines))
        return ws

    monkeypatch.setattr(KT, "_allocate", recorded)
    fitted = tables_in(run_at(main, argv, width, monkeypatch, capsys))[0]
    header = HEADERS[name]
    longest = longest_pieces(unfitted, header)
    kept = [h for h in header if h not in fitted["left_out"]]
    assert len(kept) == len(fitted["widths"]), (kept, fitted["widths"])
    short = {h: (w, longest[h]) for h, w in zip(kept, fitted["widths"]) if w < longest[h]}
    assert not short, short
    assert len(calls) == 1 and calls[0][3] == fitted["widths"]
    assert _shortest_by_moves(*calls[0][:4], calls[0][4])


def test_verify_list_reads_no_worse_at_120_columns(monkeypatch, capsys):
    """With every column kept, a wider terminal never gives the final status fewer characters,
    and the table takes fewer lines."""
    main, argv = COMMANDS["verify list"]
    got = {}
    for width in (120, 140, 160):
        t = tables_in(run_at(main, argv, width, monkeypatch, capsys))[0]
        assert not t["left_out"], (width, t["left_out"])
        got[width] = (t["widths"][3], len(t["body"]))
    assert got[120][0] <= got[140][0] <= got[160][0], got
    assert got[120][1] > got[140][1] > got[160][1], got


def _heights(cols, widths, max_lines):
    """(lines cut off, table lines, cell lines) of word lengths ``cols`` laid out at
    ``widths``."""
    hs = [[KT._count_lines(c, w) for c in col] for col, w in zip(cols, widths)]
    return (sum(max(x - max_lines, 0) for h in hs for x in h),
            sum(max(min(h[r], max_lines) for h in hs) for r in range(len(cols[0]))),
            sum(map(sum, hs)))


def _shortest_by_moves(cols, lo, hi, widths, max_lines) -> bool:
    """No character moved from one column to another (each staying within its lo..hi) shortens
    the table laid out at ``widths``."""
    now = _heights(cols, widths, max_lines)
    for i in range(len(widths)):
        for j in range(len(widths)):
            if i != j and widths[i] < hi[i] and widths[j] > lo[j]:
                ws = list(widths)
                ws[i], ws[j] = ws[i] + 1, ws[j] - 1
                if _heights(cols, ws, max_lines) < now:
                    return False
    return True


def _random_tables(seed, n=60):
    import random

    rnd = random.Random(seed)
    for _ in range(n):
        ncol, nrow = rnd.randint(2, 5), rnd.randint(1, 12)
        cols = [[[rnd.choice([1, 2, 3, 4, 5, 7, 9, 12]) for _ in range(rnd.randint(1, 14))]
                 for _ in range(nrow)] for _ in range(ncol)]
        lo = [max(x for c in col for x in c) for col in cols]
        hi = [max(sum(c) + len(c) - 1 for c in col) for col in cols]
        room = rnd.randint(sum(lo), max(sum(lo), sum(hi) - 1))
        yield cols, lo, hi, room, rnd.randint(2, 6)


def test_the_room_goes_where_it_shortens_the_table():
    """KT._allocate: every column at least its longest word, the widths within the room, and no
    character moved from one column to another shortens the table (random tables)."""
    for cols, lo, hi, room, max_lines in _random_tables(5):
        ws = KT._allocate(cols, lo, hi, room, max_lines)
        assert all(a <= w <= b for a, w, b in zip(lo, ws, hi)) and sum(ws) <= room
        # the room is used unless no column can use what is left
        left = room - sum(ws)
        assert not left or all(
            KT._count_lines(c, min(w + left, b)) == KT._count_lines(c, w)
            for col, w, b in zip(cols, ws, hi) for c in col), (ws, left)
        assert _shortest_by_moves(cols, lo, hi, ws, max_lines), (cols, lo, hi, room, ws)


def test_the_room_check_sees_a_proportional_share():
    """The check above fails for the layout the kit had before issue 37: the spare room shared in
    proportion to what each column could use (CSS's automatic layout), whatever it buys."""
    def proportional(lo, hi, room):
        spare, want = room - sum(lo), [b - a for a, b in zip(lo, hi)]
        return [a + spare * x // max(sum(want), 1) for a, x in zip(lo, want)]

    failures = sum(not _shortest_by_moves(cols, lo, hi, proportional(lo, hi, room), m)
                   for cols, lo, hi, room, m in _random_tables(5))
    assert failures > 5


def test_the_line_count_of_a_folded_word_is_the_tables():
    """A word longer than its column is folded after / , + [ (KT._fold): the line count the widths
    are chosen on is the number of lines the table prints."""
    import random

    rnd = random.Random(7)
    parts = ["a/", "bb,", "ccc+", "dddd[", "e", "ffffff/", "x"]
    for _ in range(400):
        w = rnd.randint(6, 24)
        words = ["".join(rnd.choice(parts) for _ in range(rnd.randint(1, 6)))
                 for _ in range(rnd.randint(1, 6))]
        cell = " ".join(words)
        out = K.table([["k", cell]], ["id", "text"], width=w + 4, max_lines=100)
        shown = len(out.splitlines()) - 2
        lens = [len(x) if len(KT._pieces(x)) < 2 else tuple(len(p) for p in KT._pieces(x))
                for x in words]
        if len(cell) > w and max(len(p) for x in words for p in KT._pieces(x)) <= w:
            assert KT._count_lines(lens, w) == shown, (words, w, out)
