"""The one strict-JSON encoder (mcsa_cli.jsonable, dumps) and the one content-addressed store
of every cache (mcsa_cli.store): strict output, exact round trips, corrupt entries read as
missing."""

import hashlib
import json
import math
import os

import numpy as np
import pytest

from mcsa_cli import dumps, jsonable, loads_strict, untag
from mcsa_cli.store import Store, digest, files_digest


# ----------------------------------------------------------------------------- JSON
def test_dumps_of_plain_finite_data_is_json_dumps_byte_for_byte():
    result = {"x": [0.1, 1e-300, -2.5, 3], "s": "≤ χ²", "t": True, "n": None,
              "nested": [[1, 2], {"a": 0.30000000000000004}]}
    data = {"key": "ab12", "format": 1, "result": result}
    assert dumps(data) == json.dumps(data, allow_nan=False)
    assert dumps(data, indent=1, sort_keys=True) == json.dumps(data, indent=1, sort_keys=True)


def test_nonfinite_null_tag_and_refuse():
    x = [math.nan, math.inf, -math.inf, np.float64("nan"), np.array([1.0, np.inf])]
    assert dumps(x) == '[null, "inf", "-inf", null, [1.0, "inf"]]'
    tagged = dumps(x, nonfinite="tag")
    assert "NaN" not in tagged and "Infinity" not in tagged
    back = untag(loads_strict(tagged))
    assert math.isnan(back[0]) and math.isnan(back[3])
    assert back[1] == math.inf and back[2] == -math.inf
    assert back[4] == [1.0, math.inf]
    for bad in (math.nan, {"a": [1.0, -math.inf]}, np.array([np.nan])):
        with pytest.raises(ValueError, match="non-finite"):
            dumps(bad, nonfinite="refuse")
    with pytest.raises(ValueError, match="nonfinite"):
        jsonable(1.0, nonfinite="zero")


def test_untag_leaves_other_data_alone():
    d = {"__float__": "nan", "other": 1}  # not a tag: more than one key
    assert untag(d) == d
    assert untag({"a": [{"__float__": "-inf"}, "inf"]}) == {"a": [-math.inf, "inf"]}


def test_loads_strict_refuses_nan():
    with pytest.raises(ValueError):
        loads_strict("[NaN]")


# ----------------------------------------------------------------------------- store
def test_entry_layout_is_the_sweep_cache_layout(tmp_path):
    """The bytes on disk: a SHA-256 line, then json.dumps of {key, format, result} (the layout
    the sweep's cache always had, so stored cells stay readable)."""
    payload = {"cell": {"lr": 0.1, "N": 4}, "values": [[0.5, None, "inf"]]}
    path = Store(tmp_path, 7).put("k1", payload)
    body = json.dumps({"key": "k1", "format": 7, "result": payload}, allow_nan=False).encode()
    with open(path, "rb") as f:
        assert f.read() == hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    assert Store(tmp_path, 7).get("k1") == payload


def test_a_corrupt_or_mismatched_entry_reads_as_missing(tmp_path):
    s = Store(tmp_path / "c", 1)
    assert s.get("absent") is None
    path = s.put("k", {"a": 1.5})
    blob = open(path, "rb").read()
    with open(path, "wb") as f:  # one byte of the body changed: the checksum no longer matches
        f.write(blob.replace(b"1.5", b"2.5"))
    assert s.get("k") is None
    with open(path, "wb") as f:  # cut short, as by a crash (atomic writes never leave this)
        f.write(blob[:-5])
    assert s.get("k") is None
    s.put("k", {"a": 1.5})
    os.replace(s.path("k"), s.path("other"))  # an entry under another key's name
    assert s.get("other") is None
    s.put("k", {"a": 1.5})
    assert Store(tmp_path / "c", 2).get("k") is None  # another format
    assert s.get("k") == {"a": 1.5}


def test_a_nonfinite_payload_is_refused_and_nothing_is_written(tmp_path):
    s = Store(tmp_path, 1)
    with pytest.raises(ValueError):
        s.put("k", {"x": math.nan})
    assert not os.path.exists(s.path("k"))
    s.put("k", jsonable({"x": math.nan}, nonfinite="tag"))
    assert math.isnan(untag(s.get("k"))["x"])
    assert sorted(os.listdir(tmp_path)) == ["k.json"]  # no temporary file left behind


def test_files_digest_follows_every_byte_and_the_extra_text(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    d = files_digest([a, b], extra="numpy 2")
    assert d == files_digest([b, a], extra="numpy 2")  # the order given does not matter
    assert d != files_digest([a, b], extra="numpy 3")
    b.write_text("y = 3\n")
    assert d != files_digest([a, b], extra="numpy 2")
    assert digest("abc") == hashlib.sha256(b"abc").hexdigest() == digest(b"abc")


def test_sweep_cache_goes_through_the_store(tmp_path):
    from simulate.sweep import CACHE_FORMAT, cache_read, cache_store

    cache_store(str(tmp_path), "kk", {"r": [1.0, None]})
    assert Store(tmp_path, CACHE_FORMAT).get("kk") == {"r": [1.0, None]}
    assert cache_read(str(tmp_path), "kk") == {"r": [1.0, None]}
