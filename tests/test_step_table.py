"""The steps' printed text as data (verify.audit.engine.step_table).

A document module declares its checks (``step("eq3", check=_eq3)``) and keeps the text it quotes
in the TOML table beside it.  Checked here: every table the documents carry is read and every
entry in it is declared; a bad table is refused; and a step's ``why`` and ``correction`` reach a
wrong outcome, and only a wrong one.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from verify.audit import engine
from verify.audit.outcome import VALID, WRONG

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_table_is_read_and_every_entry_declared():
    from verify.registry import verifications

    verifications()
    tables = {str(p.resolve()) for p in (ROOT / "verify" / "documents").rglob("*.toml")}
    read = {str(pathlib.Path(p).resolve()): ids for p, ids in engine.UNUSED_TEXT.items()}
    assert tables and tables <= set(read), sorted(tables - set(read))
    unused = {p: sorted(read[p]) for p in tables if read[p]}
    assert unused == {}


@pytest.fixture
def plant(tmp_path, monkeypatch):
    """Write ``name.py`` and ``name.toml`` into a folder on the path and include the module in a
    scoped registry (verify.registry.Registry.scoped): the steps it declares, and the record of
    its table, are in that registry only."""
    from verify.registry import Registry

    monkeypatch.syspath_prepend(str(tmp_path))
    with Registry.scoped() as reg:
        def make(name, code, table):
            (tmp_path / f"{name}.py").write_text(textwrap.dedent(code))
            (tmp_path / f"{name}.toml").write_text(textwrap.dedent(table))
            before = set(reg.steps)
            reg.include(name)
            return [reg.steps[s] for s in sorted(set(reg.steps) - before)]

        yield make
    assert not [p for p in engine.UNUSED_TEXT if pathlib.Path(p).parent == tmp_path]


CODE = """\
    from verify.audit.engine import step_table
    from verify.audit.instances import instance_check

    step = step_table(__name__, seed="001")
    step("planted.{name}", check=lambda: instance_check([({{"x": 1}}, {lhs}, 1.0)], "<=", 0.0))
    """
TABLE = """\
    ["planted.{name}"]
    claim = "planted"
    location = "nowhere"
    relation = "<="
    lhs = "x"
    rhs = "1"
    justification = "-"
    why = "a deliberately wrong bound: "
    correction = "x <= 2"
    expect = "{expect}"
    """


def test_a_wrong_step_gets_its_why_and_correction(plant):
    (s,) = plant("planted_wrong", CODE.format(name="wrong", lhs=2.0),
                 TABLE.format(name="wrong", expect="wrong"))
    assert (s.claim, s.seed, s.relation, s.expect) == ("planted", "001", "<=", WRONG)
    o = s.compute()
    assert o.status == WRONG
    assert o.detail.startswith("a deliberately wrong bound: ") and o.correction == "x <= 2"


def test_a_holding_step_keeps_its_own_detail(plant):
    (s,) = plant("planted_holds", CODE.format(name="holds", lhs=0.5),
                 TABLE.format(name="holds", expect="valid"))
    o = s.compute()
    assert o.status == VALID
    assert "deliberately" not in o.detail and o.correction is None


def test_a_bad_table_is_refused(plant):
    with pytest.raises(ValueError, match="unknown key"):
        plant("planted_unknown", CODE.format(name="unknown", lhs=0.5),
              TABLE.format(name="unknown", expect="valid") + 'check = "no"\n')
    with pytest.raises(ValueError, match="search_budget must be a whole number"):
        plant("planted_type", CODE.format(name="type", lhs=0.5),
              TABLE.format(name="type", expect="valid") + 'search_budget = "many"\n')
    with pytest.raises(ValueError, match=r"planted_syntax.toml: .*line"):
        plant("planted_syntax", CODE.format(name="syntax", lhs=0.5),
              TABLE.format(name="syntax", expect="valid") + 'why = "unclosed\n')
    with pytest.raises(ValueError, match="given in planted_twice.toml and in the code"):
        plant("planted_twice",
              CODE.format(name="twice", lhs=0.5).replace("check=", 'claim="again", check='),
              TABLE.format(name="twice", expect="valid"))
