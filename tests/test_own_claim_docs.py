"""Every ```python snippet of docs/own-claim.md runs as written, in order, in one process.

The page's snippets are run from a directory laid out as the repository's root (``examples``
is there), as the page says.  A snippet may be skipped only when it needs an installed
package: a MyST comment line ``% skip: needs DIST installed (...)`` right before it; it is
then run too when DIST is installed.  No snippet is abridged with ``...``.
"""

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "own-claim.md"
SKIP = re.compile(r"^% skip: needs (\S+) installed \(.+\).*$")


def blocks(text: str) -> list[tuple[int, str, str | None]]:
    """``(line, code, skip reason or None)`` of every ```python block, in order."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            skip = lines[k] if k >= 0 and lines[k].startswith("% skip") else None
            out.append((i + 1, "\n".join(lines[i + 1 : j]), skip))
            i = j
        i += 1
    return out


def _installed(dist: str) -> bool:
    try:
        metadata.distribution(dist)
        return True
    except metadata.PackageNotFoundError:
        return False


def test_the_page_opens_with_the_quick_claim():
    text = PAGE.read_text()
    first_code = re.search(r"^```\{?(\w+)\}?(.*)$", text, re.M)
    assert (
        first_code.group(1) == "literalinclude"
        and first_code.group(2).strip() == "../examples/quick_claim.py"
    )
    assert text.index("## A claim in 20 lines") < text.index("## A claim package")


def test_no_snippet_is_abridged_and_every_skip_says_why():
    found = blocks(PAGE.read_text())
    assert len(found) >= 6
    for line, code, skip in found:
        assert "..." not in code, f"docs/own-claim.md:{line}: an abridged snippet"
        if skip is not None:
            assert SKIP.match(skip), (
                f"docs/own-claim.md:{line}: a skip must name the package it needs: {skip!r}"
            )
    assert sum(skip is None for _, _, skip in found) >= 5


def test_every_snippet_runs_as_written(tmp_path):
    parts = []
    for line, code, skip in blocks(PAGE.read_text()):
        if skip is not None and not _installed(SKIP.match(skip).group(1)):
            continue
        parts.append(f"# --- docs/own-claim.md:{line}\n{code}\n")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    script = tmp_path / "snippets.py"
    script.write_text("\n".join(parts))
    env = dict(
        os.environ,
        OPENBLAS_NUM_THREADS="1",
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    env.pop("MCSA_VERIFY_DOCUMENTS", None)  # the snippets run as a user runs them
    out = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    printed = out.stdout.splitlines()
    # the outputs the page's comments state
    assert printed[0] == "holds 88"
    assert printed[1].startswith("False ")
    assert printed[2] == "violated"
    assert "'N': 3" in printed[3] and "'t': 12" in printed[3]
    assert (printed[4].startswith("isir_rate: conforms (88 checks")
            and "second process" in printed[4])
    assert printed[4].endswith("verdict holds)")
    assert printed[5] == "True holds"
    assert (tmp_path / "isir_rate.png").read_bytes()[:4] == b"\x89PNG"
