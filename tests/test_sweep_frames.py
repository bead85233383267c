"""Sweep results as pandas / xarray, and the cache keyed by the simulators' code digest."""

from __future__ import annotations

import pytest

from simulate import sweep

GRID = {"scheme": ["msc", "pmcsa"], "optimizer": "sgd", "lr": [0.01, 0.1], "N": 4, "dim": 3,
        "iters": 10,
        "replicates": 2}


@pytest.fixture(scope="module")
def result():
    return sweep.run_sweep(GRID, seed=0, diagnostics=False)


def test_to_dataframe_is_the_tidy_table(result):
    df = result.to_dataframe()
    assert list(df.columns) == list(sweep.COLUMNS) and len(df) == len(result.rows)
    assert df["kl"].tolist() == [r["kl"] for r in result.rows]


def test_to_xarray_has_the_grid_as_dimensions(result):
    ds = result.to_xarray()
    assert ds.sizes["scheme"] == 2 and ds.sizes["lr"] == 2 and ds.sizes["replicate"] == 2
    assert ds.sizes["iteration"] == len({r["iteration"] for r in result.rows})
    row = next(r for r in result.rows if r["scheme"] == "pmcsa" and r["lr"] == 0.1
               and r["replicate"] == 1)
    got = ds["kl"].sel(scheme="pmcsa", lr=0.1, replicate=1,
                       iteration=row["iteration"]).values.item()
    assert got == row["kl"]


def test_cache_keys_follow_the_simulator_code(monkeypatch):
    cell = sweep.make_cells(GRID)[0]
    before = cell.key(sweep._version())
    sweep.code_digest.cache_clear()
    monkeypatch.setattr(sweep, "code_digest", lambda: "f" * 64)  # the simulators' code changed
    assert cell.key(sweep._version()) != before
    assert sweep._version() == "f" * 16
