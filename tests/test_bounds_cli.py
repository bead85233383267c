"""`python -m bounds`: output, JSON schema, and exit code 2 with one line for bad input."""

import json
import math
import subprocess
import sys

import pytest

import bounds
from bounds.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_list_shows_every_claim_with_its_source(capsys):
    rc, out, _ = run(capsys, "list", "--wide")  # one line per claim (the default wraps to fit)
    assert rc == 0
    for c in bounds.all_claims():
        line = next(ln for ln in out.splitlines() if ln.startswith(c.id + " "))
        assert str(c.source) in line  # the bibliographic citation, with its location
        assert ("Kim et al. (NeurIPS 2022)" in line or "CIS-as-IMH draft" in line
                or "El hanchi (2018)" in line or "mcsa-verify teaching material" in line)
    rc, out, _ = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(bounds.ids())
    assert all(r["source"].startswith(("Kim et al. (NeurIPS 2022)", "CIS-as-IMH draft",
                                       "El hanchi (2018)", "mcsa-verify teaching material"))
               for r in rows)
    required = {"proposition1", "proposition2", *(f"lemma{i}" for i in range(1, 8)),
                *(f"theorem{i}" for i in range(1, 5)), "table1", "table2"}
    assert required <= {r["id"] for r in rows}


def test_show_prints_all_forms_and_latex(capsys):
    rc, out, _ = run(capsys, "show", "theorem3")
    assert rc == 0
    for form in ("stated", "explicit", "moment", "corrected"):
        assert f"  {form}" in out
    assert ("A2: bounded importance "
            "weight") in out and "Kim et al. (NeurIPS 2022), §4.3 Theorem 3" in out
    rc, out, _ = run(capsys, "show", "theorem3", "--latex")
    assert "\\frac" in out
    rc, out, _ = run(capsys, "show", "theorem2", "--json")
    d = json.loads(out)
    assert {q["name"] for q in d["quantities"]} == {"mixing", "second_moment"}


def test_issue_example_huge_w_star_is_finite_and_correct(capsys):
    rc, out, _ = run(capsys, "theorem3", "--N", "10", "--w-star", "1e300", "--k", "5", "--L", "1",
                     "--json")
    assert rc == 0
    d = json.loads(out)
    assert set(d) >= {"claim", "source", "params", "bounds"}
    assert d["claim"] == "theorem3" and d["params"]["w_star"] == 1e300
    # C(r, N) r^(kN) -> N as w* -> oo; the variance bound -> 1/2 + 3/(2N)
    assert d["bounds"]["mixing"]["stated"] == pytest.approx(10.0, rel=1e-12)
    assert d["bounds"]["mixing"]["explicit"] == pytest.approx(10.0, rel=1e-12)
    assert d["bounds"]["second_moment"]["stated"] == pytest.approx(0.65, rel=1e-14)
    assert d["bounds"]["variance"]["explicit"] == pytest.approx(0.65, rel=1e-12)


def test_values_outside_double_range_are_decimal_strings(capsys):
    # k is at most 1e9 (issue 24); sum_{n=1}^{10} 0.999^((k-1) 10 + n) = 1.8271751629293857e-4345117
    # (mpmath, 50 digits)
    rc, out, _ = run(capsys, "theorem3", "--N", "10", "--w-star", "1e3", "--k", "1e9", "--L", "1",
                     "--json")
    d = json.loads(out)
    v = d["bounds"]["mixing"]["explicit"]
    assert isinstance(v, str) and v.startswith("1.827175162929") and v.endswith("e-4345117")
    rc, _, err = run(capsys, "theorem3", "--N", "10", "--w-star", "1e3", "--k", "1e13", "--L", "1",
                     "--json")
    assert rc == 2 and "--k" in err and "1e+12" in err


def test_comma_lists_give_a_grid(capsys):
    rc, out, _ = run(capsys, "theorem1", "--N", "2,10", "--w-star", "5,50,500", "--k", "3", "--L",
                     "1", "--json")
    d = json.loads(out)
    assert len(d["params"]["N"]) == 6 and len(d["bounds"]["mixing"]["stated"]) == 6
    rc, out, _ = run(capsys, "theorem1", "--N", "2,10", "--w-star", "5", "--k", "3", "--L", "1")
    assert rc == 0 and "N" in out.splitlines()[4]


@pytest.mark.parametrize("argv,fragment", [
    (["theorem9"], "unknown claim"),
    (["theorem1", "--N", "10"], "missing parameter"),
    (["theorem1", "--N", "1", "--w-star", "5", "--k", "1", "--L", "1"],
     "--N: must be an integer >= 2, got 1"),
    (["theorem3", "--N", "10", "--w-star", "0.5", "--L", "1"],
     "--w-star: must be a number >= 1, got 0.5"),
    (["theorem3", "--N", "10", "--w-star", "5", "--L", "0"], "--L: must be a number > 0, got 0"),
    (["theorem3", "--N", "ten", "--w-star", "5", "--L", "1"],
     "--N: must be an integer >= 1, got ten"),
    (["theorem3", "--N", "2.5", "--w-star", "5", "--L", "1"], "must be an integer"),
    (["theorem3", "--N", "10", "--w-star", "inf", "--L", "1"], "must be finite"),
    (["theorem3", "--N", "10", "--w-star", "5", "--L", "1", "--mu-norm", "2"], "||mu|| <= L"),
    (["theorem2", "--N", "10", "--w-star", "5", "--L", "1", "--chi2", "9"],
     "chi2(pi||q) <= w* - 1"),
    (["theorem3", "--bogus", "1"], "unrecognized arguments"),
    (["show"], "the following arguments are required"),
    ([], "a command is required"),
    (["compare", "--N", "10", "--w-star", "5", "--chi2", "1"], "required"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert fragment in err


def test_compare_ranks_the_four_schemes(capsys):
    rc, out, _ = run(capsys, "compare", "--N", "10", "--w-star", "1000", "--chi2", "50", "--L", "1",
                     "--json")
    d = json.loads(out)
    assert rc == 0 and d["form"] == "stated"
    mix = [x["scheme"] for x in d["mixing_rate"]]
    mom = [x["scheme"] for x in d["second_moment"]]
    assert sorted(mix) == sorted(mom) == ["JSA", "MSC", "MSC-RB", "pMCSA"]
    # at w* >> N: JSA contracts by r^N per iteration, pMCSA has the smallest stated bound
    assert mix[0] == "JSA" and mom[0] == "pMCSA"
    rc, out, _ = run(capsys, "compare", "--N", "10", "--w-star", "1000", "--chi2", "50", "--L", "1")
    assert "form 'stated'" in out
    rc, out, err = run(capsys, "compare", "--N", "1", "--w-star", "1000", "--chi2", "50", "--L",
                       "1")
    assert rc == 2 and "--N: must be an integer >= 2, got 1" in err


def test_subprocess_exit_codes_and_no_traceback():
    ok = subprocess.run([sys.executable, "-m", "bounds", "theorem1", "--N", "10", "--w-star", "5",
                         "--k", "2",
                         "--L", "1", "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["bounds"]["second_moment"]["stated"] == 1.0
    bad = subprocess.run([sys.executable, "-m", "bounds", "theorem1", "--N", "x"],
                         capture_output=True, text=True)
    assert (bad.returncode == 2 and "Traceback" not in bad.stderr
            and len(bad.stderr.strip().splitlines()) == 1)
    helped = subprocess.run([sys.executable, "-m", "bounds", "theorem3", "--help"],
                            capture_output=True, text=True)
    assert (helped.returncode == 0 and "--w-star" in helped.stdout
            and "Cartesian product" in helped.stdout)


# ----------------------------------------------------------------------------- vacuous bounds
README_EXAMPLE = ("theorem3", "--N", "10", "--w-star", "100", "--L", "1", "--k", "5", "--t", "50",
                  "--D", "3", "--eq-s2", "0.8", "--s-prev2", "1")


def test_readme_example_names_the_vacuous_mixing_bound_beside_its_value(capsys):
    """The README's example: Theorem 3's mixing bound is 6.33 > 1, the trivial bound of a TV
    distance; the table says "vacuous here" in the same cell, and the note says why."""
    rc, out, _ = run(capsys, *README_EXAMPLE, "--wide")
    assert rc == 0
    lines = out.splitlines()
    row = lines[lines.index(next(ln for ln in lines if ln.startswith("mixing:"))) + 3]
    assert row.split() == ["6.3326", "(vacuous", "here)", "6.3326", "(vacuous", "here)"]
    assert "trivial bound 1 (a total variation distance is at most 1)" in out
    # the second moment: stated 0.65 < L^2 is not marked, explicit 1.14587 and corrected 1 are
    sm = lines[lines.index(next(ln for ln in lines if ln.startswith("second_moment:"))) + 3]
    assert sm.startswith("0.65 ") and "1.14587 (vacuous here)" in sm and "1 (vacuous here)" in sm
    assert sm.split()[-1] == "0.650189"  # unconditional, below L^2
    rc, out, _ = run(capsys, *README_EXAMPLE, "--json")
    d = json.loads(out)
    assert d["vacuous"]["mixing"] == {"stated": True, "explicit": True}
    assert d["vacuous"]["second_moment"]["stated"] is False
    assert d["vacuous"]["second_moment"]["corrected"] is True
    assert d["trivial_bound"]["mixing"]["value"] == 1


def test_a_bound_below_the_trivial_bound_is_not_marked(capsys):
    """The marker can be absent: at k = 500 the mixing bound is far below 1 (a plant: the same
    quantity at k = 5 is marked)."""
    argv = list(README_EXAMPLE)
    argv[argv.index("--k") + 1] = "500"
    rc, out, _ = run(capsys, *argv, "--json")
    d = json.loads(out)
    assert d["bounds"]["mixing"]["stated"] < 1 and d["vacuous"]["mixing"]["stated"] is False
    rc, out, _ = run(capsys, *argv)
    block = out.split("mixing:")[1].split("second_moment:")[0]
    assert "vacuous" not in block


def test_the_trivial_bound_rules():
    from bounds.cli import is_vacuous, trivial_bound

    assert trivial_bound("d_TV(P^k(eta,.), Pi)", "<=", {}) == (1, trivial_bound(
        "d_TV(x)", "<=", {})[1])
    assert trivial_bound("E[||g_t,JSA||^2 | F_{t-1}]", "<=", {"L": 3})[0] == 9
    assert trivial_bound("E[||g_t,JSA||^2 | F_{t-1}]", "<=", {}) is None  # no L: no rule
    assert trivial_bound("d_TV(P^k(eta,.), Pi)", ">=", {}) is None  # a lower bound is never void
    assert trivial_bound("||E_{P^n(eta_0,.)} g - E_Pi g||_2", "<=", {"L": 2})[0] == 4
    assert is_vacuous(1.0, 1) and is_vacuous("1e400", 1) and not is_vacuous(0.999, 1)
    assert not is_vacuous(float("nan"), 1) and not is_vacuous(None, 1)


def test_compare_marks_vacuous_second_moment_bounds(capsys):
    rc, out, _ = run(capsys, "compare", "--N", "10", "--w-star", "1e4", "--chi2", "50", "--L", "1",
                     "--json")
    d = json.loads(out)
    void = {r["scheme"]: r["vacuous"] for r in d["second_moment"]}
    assert void == {"pMCSA": False, "JSA": False, "MSC": True, "MSC-RB": True}
    rc, out, _ = run(capsys, "compare", "--N", "10", "--w-star", "1e4", "--chi2", "50", "--L", "1")
    assert "22.2222 (vacuous here)" in out and "0.19999 (vacuous" not in out


def test_a_closed_form_is_evaluated_at_any_finite_parameter(capsys):
    """Issue 34 §2: (1 - 1/w*)^k at w* = 1.000000000001 and k = 1e12 is 10^(-12e12), evaluated
    at once (the old cap of 1e9 is gone; k and t stop at 1e12, INT_LIMIT)."""
    import bounds

    e = bounds.enclose("theorem4", "mixing", "stated", N=4, w_star="1.000000000001", k=10 ** 12)
    # r = 1 - 1/w* = 1e-12 (1 - 1e-12 + ...), so r^k = 10^(-12 k) e^(-1 + ...) at k = 1e12
    assert e.sign() == 1
    assert abs(e.log10() - (math.log10(4) - math.log10(math.e) - 12 * 10 ** 12)) < 1e-2
    rc, out, err = run(capsys, "theorem4", "--N", "4", "--w-star", "1.000000000001", "--k",
                       "1e12", "--L", "1", "--t", "10")
    assert rc == 0 and "e-12000000000000" in out, err


def test_records_name_each_claims_document(monkeypatch):
    """A record names its claim's document key as ``document`` (bounds.core.Source.document); a
    catalog written before the rename, which names it ``seed``, is read the same way."""
    import bounds.cli as cli

    fresh = cli.list_record(bounds.get("theorem3"))
    assert fresh["document"] == bounds.get("theorem3").source.document == "001"
    assert "seed" not in fresh
    old = {k: v for k, v in fresh.items() if k != "document"} | {"seed": "001"}
    monkeypatch.setattr(cli, "_catalog", lambda: {"theorem3": old})
    monkeypatch.setattr(cli, "ids", lambda: ["theorem3"])
    assert cli.records()["theorem3"]["document"] == "001"
