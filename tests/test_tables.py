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
    from verify.cli import main

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
                from verify import coverage

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
        from verify.coverage import load

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
    """The widths are chosen on counted lines (K._count_lines); for words that fit the
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
        assert K._count_lines([len(x) for x in words], w) == n, (words, w)
