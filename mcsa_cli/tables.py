"""Tables: a plain-text table laid out by rich that fits the terminal (:func:`table`: cells wrap
at spaces, no word is split; columns that do not fit are left out and named), one Markdown cell
(:func:`md_cell`) and a number with its special values spelled as the caller says
(:func:`number_text`).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable

from .terminal import marker, terminal_width, text, wrap


# ----------------------------------------------------------------------------- tables
def cell(x) -> str:
    return "—" if x is None else str(x)


def number_text(x, spec: str = ".6g", *, none: str = "—", nan: str = "nan",
                inf: str = "inf") -> str:
    """A number formatted with ``spec``, its special values spelled as the caller says.

    Parameters
    ----------
    x : object
        A number (anything :class:`float` takes), or None.
    spec : str
        The :func:`format` spec of a finite value (``".4g"``: 4 significant digits).
    none : str
        The text of None.
    nan : str
        The text of NaN.
    inf : str
        The text of +infinity; -infinity is ``"-" + inf``.

    Returns
    -------
    str
        The text; a value :class:`float` does not take is shown as ``str(x)``.
    """
    if x is None:
        return none
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f):
        return nan
    if math.isinf(f):
        return inf if f > 0 else "-" + inf
    return format(f, spec)


def md_cell(text) -> str:
    """One Markdown table cell: on one line, every '|' escaped.

    Parameters
    ----------
    text : object
        The cell's content (``str()`` of it), which may hold newlines and pipes (a lone one
        too, as in 'E[. | F]').

    Returns
    -------
    str
        The text with newlines as spaces and ``|`` as ``\\|``, so that it cannot end the cell.
    """
    return str(text).replace("\n", " ").replace("|", "\\|")


_WHITESPACE = str.maketrans({c: " " for c in "\t\n\x0b\x0c\r"})
#: a word longer than its column may break after these list separators, and nowhere else
_PIECE = re.compile(r"[^/,+\[]*[/,+\[]+|[^/,+\[]+")


def _pieces(word: str) -> list[str]:
    """``word`` cut after each ``/``, ``,``, ``+`` and ``[``: ``a[b/c],`` -> ``a[``, ``b/``,
    ``c],``.
    """
    return _PIECE.findall(word)


def _fold(word: str, w: int, cell_len) -> str:
    """A word longer than ``w`` as lines of at most ``w`` (when its pieces allow), broken
    only after ``/``, ``,``, ``+`` or ``[`` (greedy)."""
    lines = [""]
    for p in _pieces(word):
        if lines[-1] and cell_len(lines[-1] + p) > w:
            lines.append("")
        lines[-1] += p
    return "\n".join(lines)


def _count_lines(lens: list, w: int) -> int:
    """The lines a greedy wrap at width ``w`` gives words of lengths ``lens`` (one space
    between words).  A word given as a tuple of its pieces' lengths (:func:`_pieces`) that is
    longer than ``w`` is folded after its pieces as :func:`_fold` does; a plain one longer
    than ``w`` counts ``ceil(length / w)`` lines."""
    n, used = 0, w
    for word in lens:
        x = sum(word) if isinstance(word, tuple) else word
        if used + 1 + x <= w:
            used += 1 + x
        elif x <= w or not isinstance(word, tuple):
            k = max(1, -(-x // max(w, 1)))
            n, used = n + k, x - (k - 1) * w
        else:  # folded after its pieces (_fold); the first line may follow the words before
            chunks = [0]
            for piece in word:
                if chunks[-1] and chunks[-1] + piece > w:
                    chunks.append(0)
                chunks[-1] += piece
            n += len(chunks) - (1 if used + 1 + chunks[0] <= w else 0)
            used = chunks[-1]
    return max(n, 1)


def _allocate(cols: list[list[list]], lo: list[int], hi: list[int], room: int,
              max_lines: int) -> list[int]:
    """Column widths between ``lo`` and ``hi`` (each column's longest word and its longest
    cell) adding up to at most ``room`` at which the table is shortest.

    ``cols``: per column, per row (the header first), the lengths of the cell's words (a word
    that may break after / , + [ as the tuple of its pieces' lengths).  From ``lo`` the spare
    room is handed out step by step: each step widens the one column, and by as much, as
    removes the most per character given of, in this order, the lines cut off cells taller
    than ``max_lines``, the table's lines (a row is as tall as its tallest cell) and the cells'
    lines (so that two cells holding one row up can both narrow it).  Then characters are moved
    between columns while that shortens the table.  So a column that needs a character to lose a
    line gets it before one whose extra room would change nothing: no column is squeezed while
    another has room it cannot use.  The table is narrower than ``room`` only when no column can
    lose a line with what is left."""
    n = len(cols)
    clen = [[sum(sum(x) if isinstance(x, tuple) else x for x in c) + max(len(c) - 1, 0)
             for c in col] for col in cols]
    cache: list[dict[int, list[int]]] = [{} for _ in range(n)]

    def lines(j: int, w: int) -> list[int]:
        h = cache[j].get(w)
        if h is None:
            h = cache[j][w] = [1 if L <= w else _count_lines(c, w)
                               for c, L in zip(cols[j], clen[j])]
        return h

    widths = [min(a, b) for a, b in zip(lo, hi)]
    spare = room - sum(widths)
    rows = range(len(cols[0]) if cols else 0)
    while spare > 0:
        cur = [lines(j, widths[j]) for j in range(n)]
        shown = [[min(x, max_lines) for x in h] for h in cur]
        top = [max(col[r] for col in shown) for r in rows]
        best = None
        for j in range(n):
            tall = [r for r in rows if cur[j][r] > 1]
            if not tall:
                continue
            # each tall row's height without this column
            rest = [max((shown[k][r] for k in range(n) if k != j), default=1) for r in tall]
            prev = cur[j]
            for w in range(widths[j] + 1, min(hi[j], widths[j] + spare) + 1):
                new = lines(j, w)
                if new == prev:
                    continue
                prev = new
                d = w - widths[j]
                dcut = sum(max(cur[j][r] - max_lines, 0) - max(new[r] - max_lines, 0)
                           for r in tall)
                dh = sum(top[r] - max(o, min(new[r], max_lines)) for r, o in zip(tall, rest))
                ds = sum(cur[j][r] - new[r] for r in tall)
                score = (dcut / d, dh / d, ds / d, -d)
                if best is None or score > best[0]:
                    best = (score, j, w)
                if all(x == 1 for x in new):
                    break
        if best is None:
            break
        _, j, w = best
        spare -= w - widths[j]
        widths[j] = w

    def cost(ws):  # (lines cut off, table lines, cell lines)
        hs = [lines(j, w) for j, w in enumerate(ws)]
        return (sum(max(x - max_lines, 0) for h in hs for x in h),
                sum(max(min(h[r], max_lines) for h in hs) for r in rows),
                sum(map(sum, hs)))

    # then no character moved from one column to another shortens the table (the steps above
    # only ever widen)
    now, moved = cost(widths), True
    while moved:
        moved = False
        for i in range(n):
            for j in range(n):
                if i == j or widths[i] >= hi[i] or widths[j] <= lo[j]:
                    continue
                widths[i], widths[j] = widths[i] + 1, widths[j] - 1
                c = cost(widths)
                if c < now:
                    now, moved = c, True
                else:
                    widths[i], widths[j] = widths[i] - 1, widths[j] + 1
    return widths


def table(rows: Iterable[Iterable], header: Iterable, width: int | None = None, *,
          wide: bool = False,
          max_lines: int = 6, optional: Iterable[str] = (), see: str = "--wide",
          key: bool = True) -> str:
    """Columns padded to their widest cell, two spaces apart, a dashed line under the header,
    laid out by Rich (:class:`rich.table.Table`, no colour, no box characters).

    The table fits ``width`` columns (default :func:`terminal_width`: the terminal's, 100
    when unknown).  No word is ever split: cells wrap at spaces, and a word that is a list
    written without spaces may also break after ``/``, ``,``, ``+`` or ``[`` (its pieces), and
    nowhere else; the first column (the row's key: a claim or step id) is never wrapped
    (``key=False``: it wraps like the others).  Each column is at least as wide as its longest
    piece; when those do not fit, columns are left out -- first those named in ``optional``
    (header names, in that order), then the others from the right, never the first -- and a
    line under the table names them and says that ``see`` (the ``--wide`` flag of
    :func:`add_wide`) shows them.  The room left goes where it shortens the table most
    (:func:`_allocate`: first cells that would be cut, then the rows' heights, then the cells'
    lines), so no column is squeezed while another has room it cannot use.  A cell that would
    need more than ``max_lines`` lines is cut after a whole word and ends in :func:`marker`
    (``…``, ``~`` on an ASCII terminal), and a line says so.  ``wide=True``: every column,
    every cell whole on one line, whatever the width.  Cells are shown as
    stdout can print them (:func:`text`).
    """
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    head = [text(cell(h)).translate(_WHITESPACE) for h in header]
    n = len(head)
    body = [([text(cell(c)).translate(_WHITESPACE) for c in r] + [""] * n)[:n] for r in rows]
    cols = [[h] + [r[i] for r in body] for i, h in enumerate(head)]
    natural = [max(cell_len(c) for c in col) for col in cols]
    limit = None if wide else (width or terminal_width())
    keep, widths = list(range(n)), list(natural)
    if limit is not None and sum(natural) + 2 * (n - 1) > limit:
        # the narrowest a column can be: its longest piece of a word between breaks after
        # / , + [ (a list written without spaces breaks there, and nowhere else); the key
        # column (a claim or step id): its longest cell
        lo = [max((cell_len(p) for c in col for w in c.split() for p in _pieces(w)),
                  default=0) for col in cols]
        if key:
            lo[0] = natural[0]
        opt = [i for name in optional for i in range(1, n) if head[i] == name]
        order = list(dict.fromkeys(opt + list(range(n - 1, 0, -1))))  # left out first .. last
        # (nothing left to leave out: the narrowest, wider than the terminal)
        while sum(lo[i] for i in keep) + 2 * (len(keep) - 1) > limit and order:
            keep.remove(order.pop(0))
        room = max(limit - 2 * (len(keep) - 1), 0)
        lens = [[[cell_len(w) if len(_pieces(w)) < 2 else tuple(cell_len(p) for p in _pieces(w))
                  for w in c.split()] for c in cols[i]] for i in keep]
        fitted = _allocate(lens, [lo[i] for i in keep], [natural[i] for i in keep], room,
                           max_lines)
        widths = [0] * n
        for i, w in zip(keep, fitted):
            widths[i] = w
    mark = marker()
    cut = False
    console = Console(file=io.StringIO(), width=max(limit or 1, 1), color_system=None,
                      force_terminal=False,
                      force_jupyter=False, highlight=False, emoji=False, markup=False,
                      legacy_windows=False,
                      no_color=True)

    def lines(c: str, w: int) -> list[str]:
        nonlocal cut
        if wide or cell_len(c) <= w:
            return [c]
        c = re.sub(r"\S+", lambda m: _fold(m.group(), w,
                                           cell_len) if cell_len(m.group()) > w else m.group(), c)
        ls = [line.plain.rstrip() for line in Text(c).wrap(console, w, overflow="fold")] or [""]
        if len(ls) > max_lines:
            ls, last = ls[:max_lines], ls[max_lines - 1]
            while last and cell_len(last) + cell_len(mark) > w:  # cut after a whole word
                last = last.rsplit(" ", 1)[0] if " " in last.strip() else ""
            ls[-1] = last + mark
            cut = True
        return ls

    grid = Table(box=None, show_header=False, show_edge=False, pad_edge=False, padding=(0, 2, 0, 0),
                 expand=False)
    for i in keep:
        grid.add_column(no_wrap=True, overflow="ignore", width=widths[i])
    for r in [head, None, *body]:
        if r is None:  # the dashed rule under the header
            grid.add_row(*("-" * widths[i] for i in keep))
        else:
            grid.add_row(*(Text("\n".join(lines(r[i], widths[i]))) for i in keep))
    total = sum(widths[i] for i in keep) + 2 * (len(keep) - 1)
    console.file, console.width = io.StringIO(), max(total, 1) + 1
    console.print(grid)
    result = [line.rstrip() for line in console.file.getvalue().split("\n")[:-1]]
    left_out = [head[i] for i in range(n) if i not in keep]
    if left_out:
        result.append(wrap(f"({len(left_out)} of {n} columns left out to fit {limit} columns: "
                           f"{', '.join(left_out)}; {see} shows "
                           f"{'it' if len(left_out) == 1 else 'them'})",
                           width=limit, indent=" "))
    if cut:
        result.append(
            wrap(f"({mark} marks a cell cut to fit {limit} columns; {see} shows every cell whole)",
                 width=limit, indent=" "))
    return "\n".join(result)
