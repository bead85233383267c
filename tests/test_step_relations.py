"""A step's printed relation (its table) and the relation its check tests agree.

The relation of a step lives in the module's step table; its check names a relation again
(``first_failing(rows, "<=", ...)``).  The two can drift apart, so each module-level check that
names one relation is compared with its step's, read from the source without running anything.
They may differ only where the step says why:

- a ``loose`` step: printed '=', and the check shows the inequality that holds;
- a reformulation, listed in ``REFORMULATED`` with its reason.
"""

from __future__ import annotations

import ast
import pathlib
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKS = ("first_failing", "instance_check")
#: step id -> (the check's relation, why it is the printed relation in another form)
REFORMULATED = {
    "imh.neklyudov": ("<=", "alpha >= 1 - x is checked as the rejection rate 1 - alpha <= x"),
    "cis.growth.linear": ("<=", "'approximately grows linearly': |log2 of the ratio - 1| <= eta"),
    "cis.growth.formula": ("<=", "'approx.' equality: the ratio of the two sides within c"),
    "sgfs.12.iff": (">=", "equal signs: the product of the two signs is >= 0"),
}


def relations(module: pathlib.Path, table: dict) -> list[tuple[str, str, str, str]]:
    """``(step id, printed relation, checked relation, expect)`` of each top-level ``step("id",
    check=NAME)`` whose module-level function NAME calls first_failing or instance_check with
    one literal relation."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out = []
    for node in tree.body:
        call = getattr(node, "value", None)
        if not (isinstance(node, ast.Expr) and isinstance(call, ast.Call)
                and getattr(call.func, "id", None) == "step" and call.args
                and isinstance(call.args[0], ast.Constant)):
            continue
        sid = call.args[0].value
        check = next((k.value for k in call.keywords if k.arg == "check"), None)
        if not (isinstance(check, ast.Name) and check.id in funcs and sid in table):
            continue
        named = {c.args[1].value for c in ast.walk(funcs[check.id])
                 if isinstance(c, ast.Call) and getattr(c.func, "id", None) in CHECKS
                 and len(c.args) > 1 and isinstance(c.args[1], ast.Constant)}
        if len(named) == 1:
            entry = table[sid]
            out.append((sid, entry["relation"], named.pop(), entry.get("expect", "")))
    return out


def disagreements(rows) -> list[str]:
    bad = []
    for sid, printed, checked, expect in rows:
        if checked == printed:
            continue
        if expect == "loose" and printed == "=" and checked in ("<=", ">="):
            continue
        if REFORMULATED.get(sid, (None,))[0] == checked:
            continue
        bad.append(f"{sid}: printed {printed!r}, checked {checked!r} ({expect})")
    return bad


def _all_rows():
    rows = []
    for table in sorted((ROOT / "verify" / "documents").rglob("*.toml")):
        module = table.with_suffix(".py")
        rows += relations(module, tomllib.loads(table.read_text(encoding="utf-8")))
    return rows


def test_printed_and_checked_relations_agree():
    rows = _all_rows()
    assert len(rows) > 100  # the comparison reaches most steps
    assert disagreements(rows) == []
    compared = {r[0] for r in rows}
    assert set(REFORMULATED) <= compared, "a listed reformulation no longer applies"


@pytest.mark.parametrize("row, seen", [
    (("x.1", "=", "<=", "wrong"), True),        # a printed '=' checked as '<=' on a wrong step
    (("x.2", "<=", ">=", "valid"), True),       # the sides swapped
    (("x.3", "=", "<=", "loose"), False),       # loose: the inequality that holds
    (("imh.neklyudov", ">=", ">", "valid"), True),  # not the listed reformulation
])
def test_a_drifted_relation_is_seen(row, seen):
    assert bool(disagreements([row])) == seen


def test_a_drifted_table_is_seen():
    """The real module and table, with one printed relation changed in memory."""
    table_path = ROOT / "verify" / "documents" / "kim2022" / "proofs.toml"
    table = tomllib.loads(table_path.read_text(encoding="utf-8"))
    rows = relations(table_path.with_suffix(".py"), table)
    sid = next(r[0] for r in rows if r[1] == r[2] == "<=")
    table[sid]["relation"] = ">="
    assert disagreements(relations(table_path.with_suffix(".py"), table)) == [
        f"{sid}: printed '>=', checked '<=' ({table[sid].get('expect', '')})"]
