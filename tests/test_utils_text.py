"""One Markdown-cell escaper and one number formatter: the audit's step table cannot be broken
by a '|' or a newline in a step's text; the tables' numbers read as before."""

import math

from mcsa_cli import md_cell, number_text


def _unescaped_pipes(line: str) -> int:
    return sum(1 for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\"))


def test_md_cell():
    assert md_cell("E[. | F]\nnext") == "E[. \\| F] next"
    assert md_cell(3) == "3"


def test_step_table_escapes_every_cell():
    from verify.audit import markdown

    row = {"id": "a|b", "location": "eq. (3) | line 2", "status": "wrong", "affected": True,
           "severity": "major", "lhs": "E[g | F]", "relation": "<=", "rhs": "x\ny",
           "justification": "by (4) | (5)", "detail": "fails\nbadly | here",
           "counterexample": {"at": {"n": 2}, "lhs": 1.0, "rhs": 0.5},
           "correction": "use | instead"}
    plain = {**row, "id": "c", "location": "l", "lhs": "a", "rhs": "b", "justification": "j",
             "detail": "d", "counterexample": None, "correction": "", "affected": False,
             "severity": None}
    lines = markdown([row, plain]).splitlines()
    assert len(lines) == 4  # header, rule, one line per step: no newline leaked
    assert [_unescaped_pipes(line) for line in lines] == [7, 7, 7, 7]
    assert "a\\|b (eq. (3) \\| line 2)" in lines[2] and "use \\| instead" in lines[2]
    assert lines[3] == "| c (l) | wrong | — | `a` <= `b` | j | d |"


def test_number_text_and_the_table_formatter():
    from verify.presenting.formatting import fmt

    assert [fmt(x) for x in (None, math.nan, math.inf, -math.inf, 0.123456, 12345678, "text")] == \
        ["—", "n/a", "∞", "-∞", "0.1235", "1.235e+07", "text"]
    assert [number_text(x) for x in (None, math.nan, -math.inf, 2.0 / 3)] == \
        ["—", "nan", "-inf", "0.666667"]
    assert number_text(object.__new__(object)).startswith("<object")
