"""A document package supplies the references of its documents (``references.json``, issue 25
"documents are plugins"): :mod:`bounds.references` finds the file through the entry points,
without importing the package, checks it, and cites the package's documents with it in
``verify list``, ``python -m bounds`` and everywhere :func:`bounds.references.cite` is used.
The example package's references are checked in tests/test_example_claim.py."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bounds import plugins, references

ROOT = Path(__file__).resolve().parents[1]

LP = {"short": "Levin & Peres (2017)",
      "full": "David A. Levin and Yuval Peres. Markov Chains and Mixing Times, 2nd ed. AMS, 2017."}

#: a user's package in a few lines: a quick claim whose Source names its document by a key ("lp17")
PACKAGE = textwrap.dedent('''\
    from verify import QuickClaim


    def square(x):
        """x squared, exactly representable on the grid's points up to rounding."""
        return x * x


    claim = QuickClaim("refpkg_square", bound="x", quantity=square, domain={"x": (0.0, 1.0)},
                       title="x^2 <= x on [0, 1]", source="lp17")
    BUILDERS = claim.builders


    def register(registry):
        claim.register(registry)
    ''')


def _package(where: Path, refs: dict | None) -> Path:
    """The package ``refpkg`` under ``where``, installed as pip leaves it (a dist-info with its
    two entry points), with ``refs`` as its references.json (none when None)."""
    pkg = where / "refpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PACKAGE)
    if refs is not None:
        (pkg / "references.json").write_text(json.dumps(refs))
    info = where / "refpkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: refpkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mcsa_verify.bounds]\nrefpkg = refpkg\n\n"
                                           "[mcsa_verify.claims]\nrefpkg = refpkg:register\n")
    return where


def _run(args, cwd, site):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(site)]),
               OPENBLAS_NUM_THREADS="1", COLUMNS="200")
    env.pop("MCSA_VERIFY_DOCUMENTS", None)  # this test's own plugin must be seen
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture
def fresh():
    references.plugin_references.cache_clear()
    yield
    references.plugin_references.cache_clear()


# ----------------------------------------------------------------------------- the file
def _write(tmp_path, data, name="references.json") -> Path:
    f = tmp_path / name
    f.write_text(data if isinstance(data, str) else json.dumps(data))
    return f


def test_a_valid_file_is_read(tmp_path):
    f = _write(tmp_path, {"lp17": LP})
    assert references.read_references(f) == {"lp17": (LP["short"], LP["full"])}


@pytest.mark.parametrize("data, why", [
    ("{not json", "not readable as JSON"),
    ([], "non-empty object"),
    ({}, "non-empty object"),
    ({"lp17": "Levin & Peres"}, "must map to"),
    ({"lp17": {"short": "Levin & Peres (2017)"}}, 'reference "lp17": full: missing'),
    ({"lp17": {**LP, "year": 2017}}, "year: unknown field"),
    ({"lp17": {**LP, "short": ""}}, "short: must be a non-empty single line"),
    ({"lp17": {**LP, "full": "two\nlines"}}, "full: must be a non-empty single line"),
    ({" ": LP}, "non-empty single line"),
    ({"001": LP}, "bibliography's own documents"),
    ({"003 a draft": LP}, "bibliography's own documents"),  # would be read as document 003
])
def test_a_broken_file_is_refused_naming_it(tmp_path, data, why):
    f = _write(tmp_path, data)
    with pytest.raises(ValueError, match="references.json") as e:
        references.read_references(f)
    assert why in str(e.value)


def _plugin(tmp_path, name, refs, monkeypatch) -> plugins.Plugin:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "references.json").write_text(json.dumps(refs))
    monkeypatch.syspath_prepend(str(tmp_path))
    return plugins.Plugin(name, plugins.CLAIMS_GROUP, f"{name}:register")


def test_packages_references_are_found_through_the_entry_points(tmp_path, monkeypatch, fresh):
    a = _plugin(tmp_path, "ref_a", {"lp17": LP}, monkeypatch)
    notes = {"short": "Notes (2024)", "full": "Notes, 2024."}
    b = _plugin(tmp_path, "ref_b", {"lp17": LP, "notes": notes}, monkeypatch)
    monkeypatch.setattr(plugins, "discover", lambda g: (a, b) if g == plugins.CLAIMS_GROUP else ())
    assert references.plugin_references() == {"lp17": (LP["short"], LP["full"]),
                                              "notes": ("Notes (2024)", "Notes, 2024.")}
    assert "ref_a" not in sys.modules and "ref_b" not in sys.modules  # read, not imported
    assert references.reference("lp17") == (LP["short"], LP["full"])
    assert references.reference("001") == references.REFERENCES["001"]  # the bibliography first
    assert references.reference("nowhere") is None and references.citation("nowhere") == "nowhere"

    class Src:
        seed, where = "lp17", "§4.4, Lemma 4.10"

    assert references.cite(Src()) == "Levin & Peres (2017), §4.4, Lemma 4.10"
    assert references.cite(Src(), full=True) == (
        "David A. Levin and Yuval Peres. Markov Chains and Mixing Times, 2nd ed. AMS, 2017, "
        "§4.4, Lemma 4.10")
    assert references.citation("notes", full=True) == "Notes, 2024."
    bib = references.bibliography(["notes", Src(), "nowhere", "002 §3"])
    # the bibliography's documents, then users'
    assert [k for k, _, _ in bib] == [*references.ORDER, "lp17", "notes"]


def test_two_packages_disagreeing_on_a_reference_is_an_error(tmp_path, monkeypatch, fresh):
    a = _plugin(tmp_path, "ref_c", {"lp17": LP}, monkeypatch)
    other = {**LP, "short": "Levin, Peres & Wilmer (2017)"}
    b = _plugin(tmp_path, "ref_d", {"lp17": other}, monkeypatch)
    monkeypatch.setattr(plugins, "discover", lambda g: (a, b) if g == plugins.CLAIMS_GROUP else ())
    with pytest.raises(ValueError, match="another reference"):
        references.plugin_references()


# ----------------------------------------------------------------------------- the command lines
def test_verify_list_and_bounds_cite_a_users_document_by_its_reference(tmp_path):
    """``verify list`` and ``bounds list`` show the package's short citation for its key; the
    same package without references.json shows the bare key (the file does it)."""
    with_refs = _package(tmp_path / "with", {"lp17": LP})
    without = _package(tmp_path / "without", None)
    for site, shown in ((with_refs, "Levin & Peres (2017)"), (without, "lp17")):
        out = _run(["-m", "verify", "list", "--json"], tmp_path, site)
        assert out.returncode == 0, out.stderr
        row = next(r for r in json.loads(out.stdout) if r["claim"] == "refpkg_square")
        assert row["source"] == shown
        text = _run(["-m", "verify", "list", "--wide"], tmp_path, site)  # one line per claim
        line = next(ln for ln in text.stdout.splitlines() if ln.startswith("refpkg_square"))
        assert shown in line
        ev = _run(["-m", "bounds", "list", "--json"], tmp_path, site)
        listed = {r["id"]: r for r in json.loads(ev.stdout)}
        assert listed["refpkg_square"]["source"] == shown
