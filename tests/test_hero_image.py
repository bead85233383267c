"""The README's hero image (docs/report.png) shows today's verdicts.

It is made by ``python -m verify report --quick --seed 0 --screenshot docs/report.png``, which saves
beside it docs/report.png.json: the statuses and counts read from the page it photographed, and the
SHA-256 of verify/data/verdicts.json at that time.  These tests fail when the verdicts change
(``verify all --quick
--write``) and the image is not made again, or when the image and its record do not belong together.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import struct
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parent.parent
PNG = ROOT / "docs" / "report.png"
RECORD = ROOT / "docs" / "report.png.json"


def problems(record: dict, png: bytes, verdicts_raw: bytes) -> list[str]:
    """Why the image does not show the current verdicts (empty when it does)."""
    out = []
    verdicts = json.loads(verdicts_raw)
    if record.get("verdicts_sha256") != hashlib.sha256(verdicts_raw).hexdigest():
        out.append("docs/report.png is older than verify/data/verdicts.json: make it again with "
                   "`python -m verify report --quick --seed 0 --screenshot docs/report.png`")
    if record.get("png_sha256") != hashlib.sha256(png).hexdigest():
        out.append("docs/report.png is not the image its record describes")
    if record.get("statuses") != verdicts.get("verdicts"):
        out.append("the statuses the image shows are not those of verdicts.json")
    if (record.get("mode"), record.get("seed")) != (verdicts.get("mode"), verdicts.get("seed")):
        out.append("the image shows another mode or seed than verdicts.json")
    shown = Counter(record.get("statuses", {}).values())
    counts = [f"{n} {s}" for s, n in shown.items()]
    if sorted(record.get("counts", [])) != sorted(counts):
        out.append(f"the counts in the image {record.get('counts')} are not its statuses' {counts}")
    return out


def _png_size(raw: bytes) -> tuple[int, int]:
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


def test_the_hero_image_shows_the_current_verdicts():
    record = json.loads(RECORD.read_text())
    png = PNG.read_bytes()
    verdicts_raw = (ROOT / "verify" / "data" / "verdicts.json").read_bytes()
    assert problems(record, png, verdicts_raw) == []
    assert list(_png_size(png)) == record["size"] == [1280, 1150]
    # the packaged digest function reads the same file
    from verify.presenting.report import verdicts_digest

    assert verdicts_digest() == record["verdicts_sha256"]


def test_the_readme_shows_it():
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"!\[[^\]]*\]\(docs/report\.png\)", readme)
    assert "--screenshot docs/report.png" in readme  # and says how it is made


def test_a_stale_image_is_caught():
    """The check can fail: newer verdicts, another image, or statuses that differ are each
    reported.
    """
    record = json.loads(RECORD.read_text())
    png = PNG.read_bytes()
    verdicts = json.loads((ROOT / "verify" / "data" / "verdicts.json").read_text())
    changed = dict(verdicts, verdicts={**verdicts["verdicts"], "lemma1": "violated"})
    raw = json.dumps(changed).encode()
    found = problems(record, png, raw)
    assert any("older than" in p for p in found) and any("statuses" in p for p in found)
    assert any("not the image" in p for p in problems(record, png + b"x",
                                                      (ROOT / "verify" / "data" /
                                                                         "verdicts.json").read_bytes()))
