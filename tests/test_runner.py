"""The claim runner: parallel on the sweep engine, cached by content, bit-identical."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from verify.running import runner

IDS = ["lemma4", "sgfs_exact_noise"]


def _checks(rep):
    return json.dumps([c.as_json() for c in rep.checks], sort_keys=True)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MCSA_CACHE", str(tmp_path))
    return tmp_path


def test_cached_results_equal_computed_ones_and_are_read_back(cache, monkeypatch):
    first = runner.run_claims(IDS, workers=1)
    assert len(list(cache.glob("*.json"))) == len(IDS)
    calls = []
    monkeypatch.setattr(runner, "_run_tasks", lambda tasks: calls.append(tasks) or [])
    again = runner.run_claims(IDS, workers=1)  # nothing changed: read, not recomputed
    assert calls == []
    for cid in IDS:
        assert (_checks(again[cid]) == _checks(first[cid]) and again[cid].verdict
                == first[cid].verdict)


def test_a_changed_code_digest_recomputes(cache, monkeypatch):
    runner.run_claims(IDS[:1], workers=1)
    monkeypatch.setattr(runner, "code_digest", lambda claim: "0" * 64)  # the code changed
    ran = []
    real = runner._run_tasks
    monkeypatch.setattr(runner, "_run_tasks", lambda tasks: ran.append(tasks) or real(tasks))
    runner.run_claims(IDS[:1], workers=1)
    assert ran == [[(IDS[0], "quick", 0)]]


def test_no_cache_neither_reads_nor_writes(cache):
    runner.run_claims(IDS[:1], workers=1, cache=False)
    assert list(cache.glob("*.json")) == []


def test_corrupt_entry_is_recomputed(cache):
    a = runner.run_claims(IDS[:1], workers=1)[IDS[0]]
    (entry,) = cache.glob("*.json")
    entry.write_text(entry.read_text()[:-40])
    b = runner.run_claims(IDS[:1], workers=1)[IDS[0]]
    assert _checks(a) == _checks(b)


def test_results_do_not_depend_on_the_number_of_workers():
    one = runner.run_claims(IDS, workers=1, cache=False)
    two = runner.run_claims(IDS, workers=2, cache=False)
    for cid in IDS:
        assert _checks(one[cid]) == _checks(two[cid])


def test_the_digest_covers_the_claims_own_package_and_the_machinery():
    d = runner.code_digest("lemma4")
    assert d == runner.code_digest("lemma5")  # same package, same code
    assert d != runner.code_digest("sgfs_exact_noise")  # another document's package
    assert len(d) == 64


def test_non_finite_floats_survive_the_claim_cache(tmp_path, monkeypatch):
    """A cached report keeps NaN and infinities in its rows, params and extra (strict JSON wrote
    them as null:
    figure1's figure then failed in `verify report` on a warm cache)."""
    import math

    from verify.running import runner

    x = {"a": float("nan"), "b": [1.0, float("inf"), np.float64("-inf")],
         "c": np.array([0.5, np.nan])}
    back = runner._untag(json.loads(json.dumps(runner._tag(x), allow_nan=False)))
    assert math.isnan(back["a"]) and back["b"][1] == math.inf and back["b"][2] == -math.inf
    assert back["c"][0] == 0.5 and math.isnan(back["c"][1])


def test_figure_claim_draws_from_a_cached_report(tmp_path, monkeypatch):
    from verify.presenting.plot import figure
    from verify.running import runner

    monkeypatch.setenv("MCSA_CACHE", str(tmp_path))
    first = runner.run_claims(["figure1"], "quick", 0, workers=1)["figure1"]
    again = runner.run_claims(["figure1"], "quick", 0, workers=1)["figure1"]
    nan_rows = [r for r in first.checks.rows if isinstance(r.get("c_cov"),
                                                           float) and math.isnan(r["c_cov"])]
    assert nan_rows  # the run has NaN cells (c_cov of MSC), which the cache must keep
    assert [str(r) for r in again.checks.rows] == [str(r) for r in first.checks.rows]
    figure(again, str(tmp_path / "f1.png"))
    assert (tmp_path / "f1.png").stat().st_size > 10_000


def test_a_huge_seed_keeps_the_cache_file_name_short():
    from verify.running import runner

    k = runner.cache_key("theorem1", "quick", 10 ** 400)
    assert len(k) < 120 and k != runner.cache_key("theorem1", "quick", 10 ** 400 + 1)


def test_a_cached_result_says_so_with_when_and_how_long(cache, capsys):
    """A result read from the cache says it is cached, when it was computed and how long that took:
    the
    single-claim command no longer prints the first run's '... checks in 19.7 s' as this run's
    time."""
    from verify.command.cli import main

    first = runner.run_claims(IDS[:1], workers=1)[IDS[0]]
    assert first.cached is False and first.computed_at.endswith(" UTC")
    assert runner.checks_text(first) == f"{len(first.checks)} checks in {first.elapsed_s:.1f} s"
    again = runner.run_claims(IDS[:1], workers=1)[IDS[0]]
    assert (again.cached is True and again.computed_at == first.computed_at and again.elapsed_s
            == first.elapsed_s)
    text = runner.checks_text(again)
    assert text.startswith(
        f"{len(again.checks)} checks, read from the cache (computed {first.computed_at} in "
                           f"{first.elapsed_s:.1f} s")
    assert main([IDS[0], "--wide"]) in (0, 1, 4)
    out = capsys.readouterr().out
    assert f"read from the cache (computed {first.computed_at} in {first.elapsed_s:.1f} s" in out
    assert main([IDS[0], "--json"]) in (0, 1, 4)
    got = json.loads(capsys.readouterr().out)
    assert got["cached"] is True and got["computed_at"] == first.computed_at
    # --no-cache computes again: no cache note
    assert main([IDS[0], "--wide", "--no-cache"]) in (0, 1, 4)
    out = capsys.readouterr().out
    assert "read from the cache" not in out and f"{len(first.checks)} checks in " in out


def test_the_report_gives_the_run_time_the_terminal_gives(cache, tmp_path, capsys):
    """`verify report`'s provenance states the run time the terminal printed, and how many claims
    came from
    the cache; a cached claim's section says it is cached."""
    import re

    from verify.presenting.report import cmd_report, run_time_text

    reps = runner.run_claims(IDS, workers=1)
    reps = runner.run_claims(IDS, workers=1)  # read back: cached
    assert all(r.cached for r in reps.values())
    from verify.presenting import report as R

    real_ids = R.claim_ids
    try:
        R.claim_ids = lambda: list(IDS)
        assert cmd_report(["--out", str(tmp_path), "--dpi", "40"], reports=reps) == 0
    finally:
        R.claim_ids = real_ids
    out = capsys.readouterr().out
    m = re.search(
        r"2 claims \(quick, seed 0\) in ([0-9.]+ s \(2 of 2 claims read from the cache\))", out)
    assert m, out
    html = (tmp_path / "report.html").read_text()
    assert f"<dt>run time</dt><dd>{m.group(1)}</dd>" in html
    assert html.count("read from the cache (computed ") == 2
    assert run_time_text(1.23, [{"cached": False}]) == "1.2 s"
