"""The data contract of a document package (issue 35 §6; docs/own-claim.md, "The data contract").

Each data file (``coverage.json``, ``coverage_sections.json``, ``severity.json``,
``references.json``) has a JSON Schema (draft 2020-12) shipped in ``bounds/schemas/``; every
reader validates with ``jsonschema`` (:mod:`bounds.contract`).  Every built-in file and the
example package's validate; a planted error in a user's package gives exit 2 and one line naming
the file, the entry and the field, through the real command line in a subprocess, for the
commands that read the file (``verify report`` too, but only after it has run every claim: minutes,
so not here); never a traceback, never the internal error (70) it was.
"""

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from bounds import contract

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mcgd-claims" / "mcgd_claims"
BUILTIN = sorted(p for p in (ROOT / "verify" / "documents").iterdir() if p.is_dir()
                 and (p / "__init__.py").is_file())


def _files():
    for d in [*BUILTIN, EXAMPLE]:
        for name in contract.SCHEMAS:
            if (d / name).is_file():
                yield d, name


# ----------------------------------------------------------------------------- the schemas
@pytest.mark.parametrize("name", sorted(contract.SCHEMAS))
def test_each_schema_is_a_draft_2020_12_schema_shipped_with_the_package(name):
    s = contract.schema(name)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(s)
    assert (ROOT / "bounds" / "schemas" / contract.SCHEMAS[name]).is_file()


def test_the_schemas_say_what_the_code_says():
    """The enums and key lists of the schemas are the constants the readers use."""
    from verify.judging import coverage, severity

    cov = contract.schema("coverage.json")["$defs"]["entry"]
    assert tuple(cov["required"]) == coverage.KEYS == tuple(cov["properties"])
    assert tuple(cov["properties"]["kind"]["enum"]) == coverage.KINDS
    assert tuple(cov["properties"]["status"]["enum"]) == coverage.STATUSES
    sev = contract.schema("severity.json")["$defs"]
    assert tuple(sev["severity"]["enum"]) == severity.SEVERITIES
    for kind in ("steps", "claims"):
        assert tuple(sev[kind[:-1]]["properties"]) == severity.ENTRY_KEYS[kind]
    assert tuple(sev["claim"]["properties"]["status_should_be"]["enum"][:-1]) == tuple(
        str(s) for s in severity.FINAL_STATUSES)


# ----------------------------------------------------------------------------- the real files
def test_there_are_files_to_check():
    found = list(_files())
    assert len(BUILTIN) >= 4 and len(found) >= 4 * 3 + 4
    assert {n for _, n in found} == set(contract.SCHEMAS)


@pytest.mark.parametrize("where, name", list(_files()),
                         ids=lambda x: x.name if isinstance(x, Path) else x)
def test_every_builtin_and_example_file_validates(where, name):
    assert contract.read(where / name, package=where.name) is not None


def test_the_readers_accept_every_registered_document():
    """The readers as the commands call them: the coverage rules beyond the schema included."""
    from bounds import references
    from verify.judging import coverage, severity

    entries = coverage.load()
    assert len(entries) >= 500 and set(coverage.sections()) >= {"001", "002", "003", "teaching"}
    assert severity.load()
    references.plugin_references.cache_clear()
    assert "teaching" in references.plugin_references()


# ----------------------------------------------------------------------------- the messages
def _example(name):
    return json.loads((EXAMPLE / name).read_text(encoding="utf-8"))


def _error(name, data) -> str:
    with pytest.raises(contract.DataError) as e:
        contract.validate(data, name, f"mcgd_claims/{name}")
    text = str(e.value)
    assert "\n" not in text and text.startswith(f"mcgd_claims/{name}: ")
    return text


def _not_checked_without_how(d):
    d[2].update(status="not checked", reason="no check yet")


@pytest.mark.parametrize("name, plant, expected", [
    ("coverage.json", _not_checked_without_how,
     "entry 3 (\"Derivation, line (3)\"): reason: a 'not checked' entry needs 'how:'"),
    ("coverage.json", lambda d: d[1].pop("quote"),
     'entry 2 ("Derivation, line (2)"): quote: missing'),
    ("coverage.json", lambda d: d[0].update(claim=7),
     'entry 1 ("Derivation, line (1)"): claim: must be an id or null'),
    ("coverage.json", lambda d: d[3].update(kind="lemma"), 'entry 4 ("Derivation, line (3), the '
                                                           'bound"): kind: "lemma" is not one of'),
    ("coverage.json", lambda d: d[1].update(step=None),
     "entry 2 (\"Derivation, line (2)\"): claim, step: a 'checked' entry names the claim"),
    ("coverage.json", lambda d: d[1].update(status="out of scope", reason=None),
     "entry 2 (\"Derivation, line (2)\"): reason: an entry that is not 'checked' needs a reason"),
    ("coverage.json", lambda d: d[0].update(location="two\nlines"),
     'entry 1 ("two lines"): location: must be a non-empty single line'),
    ("coverage_sections.json", lambda d: d["sections"][0].pop("title"),
     'section 1 ("Derivation"): title: missing'),
    ("coverage_sections.json", lambda d: d.update(document=3), "document: must be a non-empty"),
    ("severity.json", lambda d: d["steps"]["mcgd.sum.shortcut"].pop("quote"),
     'step "mcgd.sum.shortcut": quote: missing'),
    ("severity.json", lambda d: d["steps"]["mcgd.sum.shortcut"].update(severity=2),
     'step "mcgd.sum.shortcut": severity: 2 is not one of "false", "gap"'),
    ("severity.json", lambda d: d["claims"].update(c={"severity": "false", "reason": "r" * 12,
                                                      "quote": "q" * 12,
                                                      "status_should_be": "holds"}),
     'claim "c": why_status: missing (required with status_should_be)'),
    ("severity.json", lambda d: d.update(findings={}), "findings: unknown field"),
    ("references.json", lambda d: d["mcgd-claims README"].update(short=None),
     'reference "mcgd-claims README": short: must be a non-empty single line'),
    ("references.json", lambda d: d["mcgd-claims README"].pop("full"),
     'reference "mcgd-claims README": full: missing'),
])
def test_a_planted_error_is_named_by_file_entry_and_field(name, plant, expected):
    data = copy.deepcopy(_example(name))
    contract.validate(data, name)  # valid as shipped
    plant(data)
    assert expected in _error(name, data)


def test_the_first_error_in_the_files_order_is_said():
    data = _example("coverage.json")
    data[3]["kind"] = "lemma"
    data[1]["status"] = "nonsense"
    assert "entry 2 " in _error("coverage.json", data)


def test_a_file_that_is_not_json_is_named(tmp_path):
    f = tmp_path / "coverage.json"
    f.write_text("[{")
    with pytest.raises(contract.DataError, match=r"^pkg/coverage.json: not readable as JSON"):
        contract.read(f, package="pkg")


def _coverage(tmp_path, entries, sections=None):
    """The coverage rules beyond the schema (verify.judging.coverage._contract) on ``entries``."""
    from verify.judging import coverage

    walked = {"mcgd-claims README": [{"section": "Derivation", "title": "t"}]}
    with pytest.raises(contract.DataError) as e:
        coverage._contract(entries, sections or walked, "mcgd_claims", set())
    return str(e.value)


def test_key_order_is_a_rule(tmp_path):
    entries = _example("coverage.json")
    entries[1] = {"location": entries[1].pop("location"), **entries[1]}
    contract.validate(entries, "coverage.json")  # the schema cannot say it
    assert _coverage(tmp_path, entries) == (
        'mcgd_claims/coverage.json: entry 2 ("Derivation, line (2)"): location: out of order: '
        "the keys go document, location, quote, kind, status, claim, step, reason")


def test_a_location_starts_with_a_walked_section_label(tmp_path):
    entries = _example("coverage.json")
    entries[2]["location"] = "Appendix, line (3)"
    assert _coverage(tmp_path, entries).startswith(
        'mcgd_claims/coverage.json: entry 3 ("Appendix, line (3)"): location: must start with a '
        "section label")
    entries = _example("coverage.json")
    entries[0]["document"] = "another"
    assert "entry 1 (\"Derivation, line (1)\"): document: 'another' is not walked" in _coverage(
        tmp_path, entries)
    assert "entry 5 " in _coverage(tmp_path, _example("coverage.json") + _example(
        "coverage.json")[:1])  # a duplicate


def test_a_reference_may_not_take_a_key_of_the_bibliography(tmp_path):
    from bounds import references

    f = tmp_path / "references.json"
    f.write_text(json.dumps({"001": {"short": "s", "full": "f"}}))
    with pytest.raises(contract.DataError, match=r'^pkg/references.json: reference "001": a key '
                                                 "of the bibliography's own documents"):
        references.read_references(f, package="pkg")


# ----------------------------------------------------------------------------- the command lines
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A copy of the example package, installed as pip leaves it (a dist-info with its two entry
    points), in a directory put on PYTHONPATH."""
    where = tmp_path_factory.mktemp("site")
    shutil.copytree(EXAMPLE, where / "mcgd_claims")
    info = where / "mcgd_claims-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcgd-claims\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        "[mcsa_verify.bounds]\nmcgd_claims = mcgd_claims.formulas\n\n"
        "[mcsa_verify.claims]\nmcgd_claims = mcgd_claims:register\n")
    return where


def _plant(site, name, plant):
    f = site / "mcgd_claims" / name
    data = json.loads((EXAMPLE / name).read_text(encoding="utf-8"))
    plant(data)
    f.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _run(site, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(site)]),
               OPENBLAS_NUM_THREADS="1", COLUMNS="200")
    env.pop("MCSA_VERIFY_DOCUMENTS", None)  # the example package must be seen
    return subprocess.run([sys.executable, *args], cwd=site, env=env, capture_output=True,
                          text=True, timeout=600)


def _one_line(r, prog, expected):
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"{prog}: error: {expected}"), r.stderr


CASES = {
    "coverage.json": (_not_checked_without_how,
                      "mcgd_claims/coverage.json: entry 3 (\"Derivation, line (3)\"): reason: "
                      "a 'not checked' entry needs 'how:'",
                      [("verify", "coverage")]),
    "coverage_sections.json": (lambda d: d["sections"][0].update(title=""),
                               'mcgd_claims/coverage_sections.json: section 1 ("Derivation"): '
                               "title: must be a non-empty single line",
                               [("verify", "coverage")]),
    "severity.json": (lambda d: d["steps"]["mcgd.sum.shortcut"].update(severity="minor"),
                      'mcgd_claims/severity.json: step "mcgd.sum.shortcut": severity: "minor" is '
                      "not one of",
                      [("verify", "coverage"), ("verify", "list"),
                       ("verify", "audit", "mcgd_average_bias"),
                       ("verify", "certificate", "--all"),
                       # the commands that run claims refuse it before any claim runs
                       ("verify", "mcgd_average_bias", "--no-cache"),
                       ("verify", "report", "--out", "rep")]),
    "references.json": (lambda d: d["mcgd-claims README"].pop("full"),
                        'mcgd_claims/references.json: reference "mcgd-claims README": full: '
                        "missing",
                        [("verify", "coverage"), ("verify", "list"), ("bounds", "list")]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_data_error_exits_2_with_one_line_in_every_command_that_reads_it(site, name):
    plant, expected, commands = CASES[name]
    _plant(site, name, plant)
    try:
        for cmd in commands:
            _one_line(_run(site, "-m", *cmd), f"python -m {cmd[0]}", expected)
    finally:
        shutil.copy(EXAMPLE / name, site / "mcgd_claims" / name)


def test_the_intact_example_is_read_by_the_commands(site):
    """The planted errors above are the only reason for exit 2: the package as shipped lists."""
    r = _run(site, "-m", "verify", "coverage", "--document", "mcgd_claims", "--json")
    assert r.returncode == 0, r.stderr
    assert [e["location"] for e in json.loads(r.stdout)][:1] == ["Derivation, line (1)"]
