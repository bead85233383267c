"""The claim runner: parallel on the sweep engine, cached by content, bit-identical."""

from __future__ import annotations

import json

import pytest

from verify import runner

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
        assert _checks(again[cid]) == _checks(first[cid]) and again[cid].verdict == first[cid].verdict


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
