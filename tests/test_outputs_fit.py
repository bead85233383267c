"""Outputs that fit: tables and text within the terminal's width (100 columns when unknown),
--wide for everything, numbers in at most 6 significant digits, ASCII terminals, LaTeX in
the documents' notation."""

import decimal
import io
import os
import re
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

import bounds
import mcsa_cli as K
from bounds import symbols as S
from bounds.cli import main as bounds_main
from simulate.cli import main as simulate_main

LONG = ("mixing[stated/explicit], "
        "second_moment[stated/explicit/moment/corrected/sharper/unconditional], "
        "variance[stated/explicit/moment/corrected]")
ROWS = [["theorem3", "Kim et al. (NeurIPS 2022), §4.3 Theorem 3; proof App. D", "A2, A3", LONG],
        ["lemma1", "Kim et al. (NeurIPS 2022), App. D Lemma 1", "-", "product_tv[stated]"]]
HEADER = ["claim", "source", "assumptions", "quantities [forms]"]


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


def words(text):
    return re.findall(r"[A-Za-z0-9_]+", text)


def chars(text):
    """The characters of a table without its layout (spaces, the dashed rule)."""
    return sorted(re.sub(r"\s", "", "\n".join(line for line in text.splitlines() if set(line)
                                              - {"-", " "})))


@pytest.fixture
def columns(monkeypatch):
    """Set the terminal width the command lines see (COLUMNS comes first in
    shutil.get_terminal_size)."""
    def set_(n):
        monkeypatch.setenv("COLUMNS", str(n))
    return set_


# ----------------------------------------------------------------------------- the table kit
@pytest.mark.parametrize("width", [60, 80, 100])
def test_table_fits_the_width_and_keeps_every_word(width):
    from test_tables import assert_no_word_split

    # at 60 columns the 139-character list of forms takes 7 lines of at most 26 characters
    # once no word is split: 8 lines allowed
    out = K.table(ROWS, HEADER, width=width, max_lines=8)
    assert widest(out) <= width
    assert K.marker() not in out  # wrapped, nothing cut
    assert_no_word_split(out, K.table(ROWS, HEADER, wide=True))  # no word split, every column kept
    assert out.splitlines()[0].split() == K.table(ROWS, HEADER, wide=True).splitlines()[0].split()
    # every character of every cell is shown
    assert chars(out) == chars(" ".join(sum(ROWS, HEADER)))
    # the key column is not wrapped
    assert any(line.startswith("theorem3 ") for line in out.splitlines())
    assert widest(K.table(ROWS, HEADER, wide=True)) > 200


def test_table_wide_is_one_line_per_row():
    out = K.table(ROWS, HEADER, width=40, wide=True)
    lines = out.splitlines()
    assert len(lines) == 2 + len(ROWS) and LONG in lines[2]


def test_a_cut_cell_ends_in_the_marker_and_the_table_says_so():
    rows = [["x", "word " * 100]]
    out = K.table(rows, ["id", "text"], width=30, max_lines=3)
    body = out.splitlines()
    assert widest(out) <= 30
    assert body[4].endswith("…") and body[5].startswith("(… marks a cell cut")
    assert "--wide shows every cell whole" in " ".join(x.strip() for x in body[5:])
    assert (len(body) > 5 and K.table(rows, ["id", "text"], width=30,
                                      max_lines=30).count("word") == 100)


def test_first_column_and_numbers_are_narrowed_last():
    rows = [["sgfs_convergence_criterion", "0.333333", "x " * 80]]
    out = K.table(rows, ["claim", "value", "text"], width=70)
    assert widest(out) <= 70
    assert "sgfs_convergence_criterion" in out and "0.333333" in out


def test_terminal_width_unknown_is_100(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)

    def no_terminal(*a):
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert K.terminal_width() == 100
    monkeypatch.setenv("COLUMNS", "73")
    assert K.terminal_width() == 73


def test_add_wide_and_wrap():
    ap = K.add_wide(K.Parser(prog="p"))
    assert ap.parse_args(["--wide"]).wide and not ap.parse_args([]).wide
    line = "  - " + "a long note that goes on " * 10
    fitted = K.wrap(line, width=50, indent="  ")
    assert widest(fitted) <= 50 and words(fitted) == words(line)
    assert all(x.startswith("    ") for x in fitted.splitlines()[1:])  # hanging indent
    assert K.wrap(line, width=50, wide=True) == line


# ----------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("x, shown", [
    (1 / 3, "0.333333"), (2.0, "2"), (250000.0, "250000"), (1234567.0, "1.23457e+06"),
    (123456789, "1.23457e+08"),
    (mpmath.mpf("2.5e-400"), "2.5e-400"), (decimal.Decimal("1e400"), "1e+400"),
    (10 ** 400, "1e+400"),
    (mpmath.mpf("0.5") ** mpmath.mpf("1e400"), "10^(-3.0103e+399)"), (float("nan"), "nan"),
    (None, "—"),
    (float("inf"), "∞"),
    (decimal.Decimal("-7.35758882342885e-12000000000001"), "-7.35759e-12000000000001"),
    (decimal.Decimal("1e-9999999999999999"), "10^(-1e+16)"),
])
def test_short_numbers_have_at_most_six_significant_digits(x, shown):
    assert K.short(x) == shown


def test_huge_typed_parameters_are_abbreviated_with_the_marker():
    seed = int("123456789" * 45)  # a 405-digit seed
    assert K.show_param(seed) == "1.23456…e404"
    assert K.show_param(10 ** 400) == "1e400"  # short as typed: kept
    assert K.show_param(2 ** 63) == "9.223372036854775808e18"  # every digit of a 64-bit seed
    assert K.show_param(decimal.Decimal("1.000000000001")) == "1.000000000001"  # the user's digits
    # 30 typed digits were rounded to 28 by Decimal.normalize before: now all kept or marked
    assert (K.show_exact(decimal.Decimal("1.00000000000000000000000000001"))
            == "1.00000000000000000000000000001")
    assert K.show_param(decimal.Decimal("1.00000000000000000000000000001")) == "1.00000…"


def test_compare_at_a_huge_N_prints_short_numbers(capsys, columns):
    """N at the top of the parsed domain (1e12; issue 24): JSA's r^N = 2^-(1e12) is printed to 6
    digits with its
    exact exponent, every line within the terminal."""
    columns(100)
    rc = bounds_main(["compare", "--N", "1e12", "--w-star", "2", "--chi2", "0.5", "--L", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and widest(out) <= 100
    assert "1.04425e-301029995664" in out and not re.search(r"\d{7}e", out)


def test_claim_table_echoes_a_large_N_and_refuses_a_huge_one(capsys, columns):
    columns(100)
    rc = bounds_main(["theorem1", "--N", "4,999999999999", "--w-star", "2", "--k", "3", "--L", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and "999999999999" in out and widest(out) <= 100
    assert (bounds_main(["theorem1", "--N", "4," + "9" * 40, "--w-star", "2", "--k", "3", "--L",
                         "1"]) == 2)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "at most 1e+12" in err and "9" * 40 not in err


# ----------------------------------------------------------------------------- the commands
@pytest.mark.parametrize("argv", [["list"], ["show", "theorem3"], ["show", "theorem3", "--latex"],
                                  ["show", "sgfs_admissible_k"], ["--help"], ["theorem3", "--help"],
                                  ["compare", "--N", "10", "--w-star", "50", "--chi2", "3", "--L",
                                   "1"]])
@pytest.mark.parametrize("width", [100, 80])
def test_bounds_output_fits(capsys, columns, argv, width):
    columns(width)
    rc = bounds_main(argv)
    out = capsys.readouterr().out
    assert rc == 0 and out.strip() and widest(out) <= width


def test_bounds_list_wide_and_fitted_show_the_same_words(capsys, columns):
    columns(100)
    bounds_main(["list"])
    fitted = capsys.readouterr().out
    bounds_main(["list", "--wide"])
    wide = capsys.readouterr().out
    assert widest(fitted) <= 100 < widest(wide)
    assert chars(fitted) == chars(wide)  # wrapped, nothing lost
    for c in bounds.all_claims():  # --wide: one line per claim with its whole citation
        assert any(line.startswith(c.id + " ") and str(c.source) in line
                   for line in wide.splitlines())


def test_subprocess_without_a_terminal_fits_100_columns():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    p = subprocess.run([sys.executable, "-m", "bounds", "list"], capture_output=True, text=True,
                       env=env,
                       stdin=subprocess.DEVNULL, timeout=120)
    assert p.returncode == 0 and 90 <= widest(p.stdout) <= 100, widest(p.stdout)


SMALL_SWEEP = ["sweep", "--scheme", "msc,jsa", "--optimizer", "sgd,momentum,nesterov,adam", "--lr",
               "0.01",
               "--N", "3", "--dim", "2", "--iters", "3"]


@pytest.mark.parametrize("argv", [
    SMALL_SWEEP,
    ["tv", "--kernel", "cis", "--N", "3", "--dim", "3", "--proposal-scale", "1.5", "--steps", "3"],
    ["moment", "--scheme", "jsa", "--dim", "3", "--proposal-scale", "1.5", "--N", "3",
     "--replicates", "50"],
    ["run", "--scheme", "pmcsa", "--dim", "3", "--N", "3", "--iters", "5", "--optimizer", "adam",
     "--lr", "0.01"],
    ["--help"], ["sweep", "--help"],
])
def test_simulate_output_fits(capsys, columns, argv):
    columns(60 if argv == SMALL_SWEEP else 100)
    rc = simulate_main(argv)
    out = capsys.readouterr().out
    assert rc == 0 and out.strip() and widest(out) <= (60 if argv == SMALL_SWEEP else 100), out


def test_sweep_table_is_the_kit_table_and_wide_gives_one_line_per_cell(capsys, columns):
    columns(55)  # two columns narrower than the table (57)
    simulate_main(SMALL_SWEEP)
    narrow = capsys.readouterr().out
    simulate_main(SMALL_SWEEP + ["--wide"])
    wide = capsys.readouterr().out
    head = next(line for line in wide.splitlines() if line.startswith("scheme"))
    assert head.split() == ["scheme", "optimizer", "lr", "N", "dim", "iters", "KL", "diverged"]
    table_lines = wide.splitlines()[wide.splitlines().index(head) + 2:]
    assert len(table_lines) == 8 and widest("\n".join(narrow.splitlines()[3:])) <= 55 < widest(wide)
    assert "378.664" in narrow  # numbers are never split across lines
    # the KL column: at most 6 significant digits
    assert all(len(re.sub(r"[^0-9]", "", row.split()[6]).lstrip("0")) <= 6 for row in table_lines)


# ----------------------------------------------------------------------------- ASCII terminals
def _ascii_run(code, env):
    full = {**os.environ, **env}
    full.pop("COLUMNS", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, env=full, timeout=300)
    err = p.stderr.decode("ascii", "backslashreplace")
    first = err.splitlines()[0].lower() if err else ""
    # the interpreter's stdout is ASCII
    assert "ascii" in first or "646" in first or "x3.4" in first, err
    assert p.returncode == 0, err
    return p.stdout.decode("ascii")  # raises if anything but ASCII was written


def test_ascii_terminal_gets_ascii_spellings_not_exit_70():
    code = ("import sys\nfrom bounds.cli import main as b\nfrom simulate.cli import main as s\n"
            "print(sys.stdout.encoding, file=sys.stderr)\n"
            "r = [b(['list']), b(['show', 'theorem3']), "
            "b(['compare', '--N', '1e12', '--w-star', '2', '--chi2', '0.5', '--L', '1']), "
            "b(['theorem1', '--N', '4', '--w-star', '2', '--k', '3']), "
            "s(['tv', '--kernel', 'imh', '--dim', '3', '--proposal-scale', '1.5', '--steps', "
            "'3'])]\nsys.exit(max(r))")
    out = _ascii_run(code, {"PYTHONIOENCODING": "ascii"})
    assert "Sec. 4.3 Theorem 3" in out and "1 <= N" in out and "1.04425e-301029995664" in out
    assert "\\u" not in out and "?" not in out.replace("? ", "")


def test_c_locale_without_utf8_mode_gets_ascii_spellings():
    """LANG=C where Python does not switch to UTF-8 (no C.UTF-8 locale, or UTF-8 mode off).
    (bounds' catalog is read without its encoding under this locale -- a slow path reported
    to the maintainers -- so this runs the kit alone and simulate.)"""
    code = ("import sys\nimport mcsa_cli as clikit\nfrom simulate.cli import main as s\n"
            "print(sys.stdout.encoding, file=sys.stderr)\n"
            "def show(argv):\n"  # the source in ASCII: the symbols as escapes
            "    print(clikit.table([['chi2', '\\u2264 \\u221e \\u2026', None]], ['name', "
            "'symbols', 'none']))\n    print('\\u03c7\\u00b2 \\u2264 \\u221e, \\u00a74.3')\n    "
            "return 0\nr = [clikit.run('p', 'usage', ['show'], {'show': show}), "
            "s(['tv', '--kernel', 'imh', '--dim', '3', '--proposal-scale', '1.5', '--steps', "
            "'3'])]\nsys.exit(max(r))")
    out = _ascii_run(code, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                            "PYTHONCOERCECLOCALE": "0",
                            "PYTHONIOENCODING": ""})
    assert "chi2  <= inf ...  -" in out and "chi^2 <= inf, Sec. 4.3" in out and "TV to pi" in out


def test_ascii_spellings_keep_tables_aligned(monkeypatch):
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    out = K.table([["a", "≤ ∞", None], ["b", "χ² §2", "x"]], ["k", "sym", "w"], width=40)
    assert out.isascii() and "<= inf" in out and "chi^2 Sec. 2" in out
    lines = out.splitlines()
    # aligned after translation
    assert lines[2].index("-", 3) == lines[3].index("x") == lines[0].index("w")
    assert K.marker() == "~"
    cut = K.table([["a", "word " * 50]], ["k", "text"], width=20, max_lines=2)
    assert cut.isascii() and cut.splitlines()[3].endswith("~") and "(~ marks" in cut


# ----------------------------------------------------------------------------- LaTeX
def test_latex_uses_the_documents_notation_and_symbols_keep_their_names(capsys):
    rc = bounds_main(["show", "theorem3", "--latex"])
    out = capsys.readouterr().out
    assert rc == 0
    for paper in (r"w^{*}", r"C_{\mathrm{cov}}", r"\|\boldsymbol{\mu}\|_{2}^{2}",
                  r"\mathbb{E}_{q_{\mathrm{def}}} \|\mathbf{s}\|_{2}^{2}"):
        assert paper in out, paper
    for code in (r"w_{star}", r"\mu_{norm}", r"c_{cov}", r"eq_{s2}", r"s_{prev2}"):
        assert code not in out, code
    rc = bounds_main(["show", "theorem2", "--latex"])
    assert r"d_{\chi^{2}}(\pi \parallel q)" in capsys.readouterr().out
    # the code keeps its names: the symbols, the plain output and the JSON keys
    assert S.w_star.symbol.name == "w_star" and S.mu_norm.symbol.name == "mu_norm"
    bounds_main(["show", "theorem3"])
    assert "mu_norm**2" in capsys.readouterr().out


def test_no_claim_prints_a_code_name_in_latex():
    from bounds.cli import claim_description

    for c in bounds.all_claims():
        text = str(claim_description(c, latex=True))
        for name in S.LATEX_NAMES:
            code = sp.latex(sp.Symbol(name))
            if code != S.LATEX_NAMES[name] and "_" in name:
                assert code not in text, (c.id, code)


def test_latex_helper_maps_by_name():
    w, mu = S.w_star.symbol, S.mu_norm.symbol
    assert S.latex(1 - 1 / w) == r"1 - \frac{1}{w^{*}}"
    assert S.latex(w ** 2) == r"\left(w^{*}\right)^{2}"
    assert S.latex(mu ** 2 + S.L.symbol) == r"L + \|\boldsymbol{\mu}\|_{2}^{2}"
