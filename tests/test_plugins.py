"""Documents are plugins, the built-in ones exactly like a user's (issue 25 §1).

* one discovery function (bounds.plugins.discover) over the entry-point groups; the built-in
  documents are found only through their entry points, and no string in the machinery names
  one of them;
* a ``register(registry)`` hook; plain-module entry points still load (deprecated);
* a user's package (examples/mcgd-claims, installed as pip leaves it: a ``*.dist-info``
  directory with its ``entry_points.txt`` on the path) brings its own coverage inventory and
  errata, and ``python -m verify coverage`` and ``python -m verify audit`` show them.
"""

import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from documents_kit import code_strings

from bounds import plugins

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mcgd-claims"
CLAIM = "mcgd_average_bias"


def _dist_info(where: Path, name: str, entry_points: str) -> None:
    """A distribution as pip leaves it, as far as importlib.metadata discovery goes."""
    info = where / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def _run(args, cwd, *paths, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *map(str, paths)]),
               OPENBLAS_NUM_THREADS="1",
               PYTHONWARNINGS="default::DeprecationWarning")
    if paths:  # the tests' own plugins on the path must be seen; without, only the built-ins
        env.pop("MCSA_VERIFY_DOCUMENTS", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """examples/mcgd-claims installed (its pyproject.toml's entry points, read from the file)."""
    import tomllib

    where = tmp_path_factory.mktemp("site")
    eps = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]["entry-points"]
    text = "\n".join(f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in t.items())
                     for g, t in eps.items())
    assert "mcgd_claims:register" in text  # the package names its hook, not a module to import
    _dist_info(where, "mcgd-claims", text)
    return where


# ----------------------------------------------------------------------------- discovery
def test_the_builtin_documents_are_found_through_their_entry_points():
    claims = plugins.discover(plugins.CLAIMS_GROUP)
    builtin = [p for p in claims if p.module.startswith("verify.documents.")]
    assert len(builtin) >= 3 and all(p.dist == "mcsa-verify" for p in builtin)
    # each carries its coverage inventory and severity data, found without importing it
    for p in builtin:
        assert p.data_file("coverage.json") and p.data_file(
            "coverage_sections.json") and p.data_file("severity.json")
        assert p.data_file("no_such_file.json") is None
    assert {p.module for p in plugins.discover(plugins.BOUNDS_GROUP)} >= {"bounds.paper"}


def test_an_uninstalled_source_tree_is_read_from_its_pyproject(monkeypatch):
    """Without installed metadata, the entry points come from pyproject.toml's table (no hand
    list).
    """
    import tomllib

    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    real = metadata.distribution

    def not_installed(name):
        if name == "mcsa-verify":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", not_installed)
    monkeypatch.setattr(metadata, "entry_points", lambda group=None, **kw: ())
    plugins._source_tree.cache_clear()
    try:
        for group in plugins.GROUPS:
            assert [(p.name, p.value)
                    for p in plugins.discover(group)] == list(table[group].items())
    finally:
        monkeypatch.undo()
        plugins._source_tree.cache_clear()
    assert plugins._source_tree() is None  # installed here: the metadata is read


def test_no_list_of_builtin_documents_in_the_machinery():
    """No string of the machinery names a registered document (its entry-point name or module):
    the six privileged lists of issue 25 are gone and stay gone."""
    found = [p for g in plugins.GROUPS for p in plugins.discover(g)]
    names = {p.name for p in found} | {p.module for p in found}
    documents = {p.source_file().resolve() for p in found if p.source_file()}
    dirs = {p.package_dir().resolve() for p in found if p.package_dir()}
    bad = []
    for pkg in ("bounds", "simulate", "verify", "mcsa_cli"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            f = f.resolve()
            if f in documents or any(d in f.parents for d in dirs):
                continue  # a document's own code
            for line, s in code_strings(f):
                hit = [n for n in names if n in s]
                if hit:
                    bad.append(f"{f.relative_to(ROOT)}:{line}: {hit} in {s[:60]!r}")
    assert not bad, "\n".join(bad)


# ----------------------------------------------------------------------------- the hook
def test_a_hook_a_plain_module_and_a_broken_hook(tmp_path):
    (tmp_path / "hooked.py").write_text(textwrap.dedent("""\
        CALLS = []


        def register(registry):
            CALLS.append(type(registry).__name__)
            registry.include("json")  # any module: imported in the hook's order
        """))
    (tmp_path / "legacy.py").write_text("import hooked\nhooked.CALLS.append('imported')\n")
    _dist_info(tmp_path, "two-plugins",
               "[mcsa_verify.claims]\nhooked = hooked:register\nlegacy = legacy\n")
    code = textwrap.dedent("""\
        import warnings
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as w:
            from verify.registry import load
            loaded = load()
        import hooked
        print(loaded["hooked"], loaded["legacy"], hooked.CALLS)
        print([str(x.message) for x in w if issubclass(x.category, DeprecationWarning)])
        """)
    out = _run(["-c", code], tmp_path, tmp_path)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    # called once with a Registry, then the module
    assert first == "hooked legacy ['Registry', 'imported']"
    warned = eval(second)
    assert len(warned) == 1 and "legacy = legacy" in warned[0] and "legacy:register" in warned[0]
    # a hook that is not callable is an error to see
    (tmp_path / "broken.py").write_text("register = 3\n")
    _dist_info(tmp_path / "b", "broken", "[mcsa_verify.claims]\nbroken = broken:register\n")
    out = _run(["-c", "from verify.registry import load; load()"], tmp_path, tmp_path,
               tmp_path / "b")
    assert out.returncode != 0 and "is not callable" in out.stderr


def test_a_plain_module_carries_no_data_files():
    from verify.judging import severity

    p = plugins.Plugin("x", plugins.CLAIMS_GROUP, "json.decoder")  # a plain module
    assert p.package_dir() is None and p.data_file("severity.json") is None
    assert severity._file("json.decoder", "severity.json") is None  # no sentinel path


def test_bounds_add_builder_is_the_public_way_to_add_a_claim():
    import bounds

    with pytest.raises(TypeError):
        bounds.add_builder("x", 3)
    base = bounds.get("theorem3")
    bounds.add_builder("plugin_test_claim", lambda: base)
    try:
        assert bounds.get("plugin_test_claim") is base and "plugin_test_claim" in bounds.ids()
    finally:
        bounds._ADDED.pop("plugin_test_claim")
        bounds.get.cache_clear()
    assert "plugin_test_claim" not in bounds.ids()


# ----------------------------------------------------------------------------- a user's package
def test_a_users_package_brings_its_coverage_inventory(example, tmp_path):
    out = _run(["-m", "verify", "coverage", "--json"], tmp_path, example, EXAMPLE)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    mine = [r for r in rows if r["document"] == "mcgd-claims README"]
    inventory = json.loads((EXAMPLE / "mcgd_claims" / "coverage.json").read_text())
    # beside the built-in documents'
    assert len(mine) == len(inventory) >= 3 and len(rows) > len(mine)
    assert {r["step"] for r in mine} >= {"mcgd.sum", "mcgd.sum.shortcut"}
    # after the bibliography's documents
    assert [r["document"] for r in rows].index("mcgd-claims README") > 0
    one = _run(["-m", "verify", "coverage", "--document", "mcgd_claims"], tmp_path, example,
               EXAMPLE)
    assert one.returncode == 0, one.stderr
    assert ("mcgd-claims README: 4 entries; 4 checked" in one.stdout
            and "mcgd.sum.shortcut" in one.stdout)
    # without the package the document is unknown: it came from the package, not from the toolkit
    bare = _run(["-m", "verify", "coverage", "--document", "mcgd_claims"], tmp_path)
    assert bare.returncode == 2 and "--document" in bare.stderr


def test_a_users_package_brings_its_errata(example, tmp_path):
    severity = json.loads((EXAMPLE / "mcgd_claims" / "severity.json").read_text())
    assert list(severity["steps"]) == ["mcgd.sum.shortcut"]
    out = _run(["-m", "verify", "audit", CLAIM, "--json"], tmp_path, example, EXAMPLE)
    assert out.returncode == 0, out.stderr
    steps = {r["id"]: r for r in json.loads(out.stdout)["steps"]}
    assert steps["mcgd.sum"]["status"] == "exact" and steps["mcgd.sum"]["severity"] is None
    loose = steps["mcgd.sum.shortcut"]
    assert loose["status"] == "loose" and loose["severity"] == "loose"
    assert loose["severity_quote"] == severity["steps"]["mcgd.sum.shortcut"]["quote"]
    text = _run(["-m", "verify", "audit", CLAIM], tmp_path, example, EXAMPLE)
    assert text.returncode == 0 and "severity of the 1 wrong/loose steps: 1 loose." in text.stdout


def test_the_errata_include_the_users_finding(example, tmp_path):
    """docs/ERRATA.md as generated (``verify audit --errata``), over the package's steps only (the
    toolkit's own steps are the subject of tests/test_audit.py): the finding, under its severity and
    its document, with the package's quote."""
    code = textwrap.dedent(f"""\
        from verify.audit import errata_markdown
        from verify.registry import Registry
        with Registry.scoped() as reg:
            for k in [k for k, s in reg.steps.items() if s.claim != {CLAIM!r}]:
                del reg.steps[k]
            print(errata_markdown())
        """)
    out = _run(["-c", code], tmp_path, example, EXAMPLE)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "- mcgd-claims README: 1 loose" in text
    sev = text.index("## Severity `loose`")
    assert (text.index("### mcgd-claims README",
                       sev) < text.index("#### `mcgd.sum.shortcut` — loose, loose", sev))
    assert "only '<=' holds" in text and "deciding sentence" in text
