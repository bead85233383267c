"""The drawing kit: :class:`Drawing`, the figure and its fonts, titles that fit, labels that do not
overlap (:func:`overlapping_texts`, :func:`texts_outside`), every line in the legend
(:func:`unlabelled_lines`) and bounds drawn grey where they are vacuous.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .constants import FONT, VOID_COLOR, VOID_LABEL, WIDTH

if TYPE_CHECKING:
    from matplotlib.figure import Figure


# ----------------------------------------------------------------------------- drawing
@dataclass
class Drawing:
    """A drawn figure: the matplotlib Figure, the numbers drawn (``data``), what is marked
    (``marks``, e.g. the crossing w*), notes printed by the command line and the figure's
    one-sentence ``message`` (what a slide says with it)."""

    kind: str
    fig: Figure
    data: dict
    marks: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    path: str | None = None
    message: str = ""


def _rc():
    return {"font.size": FONT, "axes.titlesize": FONT, "axes.labelsize": FONT,
            "legend.fontsize": FONT - 3,
            "xtick.labelsize": FONT - 2, "ytick.labelsize": FONT - 2, "axes.grid": True,
            "grid.alpha": 0.3,
            "lines.linewidth": 2.4}


def _new_figure(nrows=1, ncols=1, height=6.75):
    # an Agg canvas of its own, outside pyplot: no backend is selected (a notebook's inline backend
    # stays)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=False)


def fit_title(fig, text: str, size: float = FONT + 2) -> None:
    """A suptitle that fits the figure's width: wrapped (never cut) until its rendered width
    fits.
    """
    words = text
    for width in range(len(text), 10, -4):
        words = ("\n".join(textwrap.wrap(text, width,
                                         break_on_hyphens=False)) if width < len(text) else text)
        t = fig.suptitle(words, fontsize=size)
        renderer = fig.canvas.get_renderer()
        if t.get_window_extent(renderer).width <= 0.97 * fig.bbox.width:
            return
    fig.suptitle(words, fontsize=size)


def title_fits(fig) -> bool:
    """Whether the figure's suptitle is inside the figure (the test of every kind)."""
    fig.canvas.draw()
    t = fig._suptitle
    bb = t.get_window_extent(fig.canvas.get_renderer())
    return bb.x0 >= 0 and bb.x1 <= fig.bbox.width and bb.y1 <= fig.bbox.height


def _shown_texts(fig) -> list:
    """Every text a reader sees: titles, axis labels, tick labels inside their axis, annotations,
    legend entries and titles, figure texts."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []

    def add(t):
        if t is not None and t.get_visible() and t.get_text().strip():
            out.append(t)

    add(fig._suptitle)
    for t in fig.texts:
        if t is not fig._suptitle:
            add(t)
    legends = list(fig.legends)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
            add(t)
        for t in ax.texts:
            add(t)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        if not ax.axison:  # ax.axis("off"): no axis labels, no ticks
            continue
        add(ax.xaxis.label)
        add(ax.yaxis.label)
        box = ax.get_window_extent(r)
        for t in ax.get_xticklabels():  # those drawn: within the axis' horizontal span
            if t.get_visible() and t.get_text().strip():
                bb = t.get_window_extent(r)
                if box.x0 - 1 <= (bb.x0 + bb.x1) / 2 <= box.x1 + 1:
                    out.append(t)
        for t in ax.get_yticklabels():
            if t.get_visible() and t.get_text().strip():
                bb = t.get_window_extent(r)
                if box.y0 - 1 <= (bb.y0 + bb.y1) / 2 <= box.y1 + 1:
                    out.append(t)
    for lg in legends:
        add(lg.get_title())
        for t in lg.get_texts():
            add(t)
    return out


def overlapping_texts(fig, pad: float = 0.5) -> list[tuple[str, str]]:
    """The pairs of shown texts (:func:`_shown_texts`) whose bounding boxes overlap by more than
    ``pad`` pixels, as ``(text, text)``; empty when no label covers another."""
    r = fig.canvas.get_renderer()
    texts = _shown_texts(fig)
    boxes = [t.get_window_extent(r) for t in texts]
    out = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = boxes[i], boxes[j]
            if (min(a.x1, b.x1) - max(a.x0, b.x0) > pad
                    and min(a.y1, b.y1) - max(a.y0, b.y0) > pad):
                out.append((texts[i].get_text(), texts[j].get_text()))
    return out


def texts_outside(fig, pad: float = 1.0) -> list[str]:
    """The shown texts (:func:`_shown_texts`) that run off the figure: empty when every label
    is readable whole."""
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    out = []
    for t in _shown_texts(fig):
        bb = t.get_window_extent(r)
        if bb.x0 < -pad or bb.y0 < -pad or bb.x1 > W + pad or bb.y1 > H + pad:
            out.append(t.get_text())
    return out


def legend_labels(fig) -> set[str]:
    """The labels of every legend of the figure."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes
                                   if ax.get_legend() is not None]
    return {t.get_text() for lg in legends for t in lg.get_texts()}


def unlabelled_lines(fig) -> list[str]:
    """Drawn lines (with data, visible) whose label is not in a legend of the figure: empty when
    every line explains itself."""
    import numpy as np

    shown = legend_labels(fig)
    out = []
    for ax in fig.axes:
        for ln in ax.get_lines():
            x, y = (np.asarray(v, dtype=float) for v in ln.get_data())
            if not ln.get_visible() or not np.isfinite(x).any() or not np.isfinite(y).any():
                continue
            if ln.get_label() not in shown:
                out.append(ln.get_label())
    return out


def _declutter(fig, texts, step: float = 1.15, tries: int = 40) -> None:
    """Move the given (movable) texts apart vertically until no two of them, nor one of them and
    any other shown text, overlap: each overlapping one is shifted down by its own height (and up
    again from the bottom of its axes).  Offsets are in points, so the move survives a resize."""
    from matplotlib.text import Annotation

    r = fig.canvas.get_renderer()
    for _ in range(tries):
        fig.canvas.draw()
        shown = _shown_texts(fig)
        moved = False
        for t in texts:
            bb = t.get_window_extent(r)
            for o in shown:
                if o is t:
                    continue
                ob = o.get_window_extent(r)
                if min(bb.x1, ob.x1) - max(bb.x0, ob.x0) > 0.5 and \
                        min(bb.y1, ob.y1) - max(bb.y0, ob.y0) > 0.5:
                    dy = -step * bb.height * 72 / fig.dpi
                    if isinstance(t, Annotation):
                        x0, y0 = t.xyann
                        ax = t.axes
                        low = ax.get_window_extent(r).y0 if ax is not None else 0
                        if bb.y0 + dy * fig.dpi / 72 < low:
                            dy = -dy * 3
                        t.xyann = (x0, y0 + dy)
                    else:
                        x0, y0 = t.get_position()
                        t.set_position((x0, y0 - step * bb.height / fig.bbox.height))
                    moved = True
                    break
        if not moved:
            return


def _cap_line(ax, value, what):
    """The trivial bound as a grey line with its own legend entry."""
    ax.axhline(value, color="0.35", lw=1.4, zorder=0, label=f"trivial bound ({what})")


def _bound_line(ax, x, vals, cap, color, ls, label, lw=1.8):
    """A bound (already capped at ``cap``): the part below the trivial bound in the scheme's colour
    with ``label``; the part at the cap (vacuous) in grey along the cap, labelled
    :data:`VOID_LABEL`.  Returns ``"all"`` when the whole bound is vacuous, ``"some"`` when a part
    is, else ``""``."""
    import numpy as np

    vals = np.asarray(vals, float)
    void = vals >= cap
    informative = np.where(void, np.nan, vals)
    if np.isfinite(informative).any():
        ax.plot(x, informative, ls, color=color, lw=lw, label=label)
    if void.any():
        # a vacuous stretch is drawn one point wider on each side, so that a single point shows
        grey = void.copy()
        grey[1:] |= void[:-1]
        grey[:-1] |= void[1:]
        ax.plot(x, np.where(grey, cap, np.nan), ls, color=VOID_COLOR, lw=4.5, alpha=0.8,
                label=VOID_LABEL, zorder=1)
    return "all" if void.all() else "some" if void.any() else ""


def _void_title(everywhere, title=None) -> str:
    """The legend title, naming the bounds that are vacuous at every point drawn (they show only
    in grey, so the legend must say whose they are)."""
    title = title or BOUND_NOTE
    if not everywhere:
        return title
    by_panel: dict = {}
    for panel, name in everywhere:
        by_panel.setdefault(panel, [])
        if name not in by_panel[panel]:
            by_panel[panel].append(name)
    text = "vacuous at every point drawn: " + "; ".join(
        (f"{panel}: " if len(by_panel) > 1 or panel else "") + ", ".join(names)
        for panel, names in by_panel.items())
    return title + "\n" + "\n".join(textwrap.wrap(text, 118))


def _log2_ticks(ax, Ns) -> None:
    """Budgets as plain integers on a log2 axis (2, 4, 8, ... rather than 2^1, 2^2, ...)."""
    ticks = [int(n) for n in Ns if int(n) & (int(n) - 1) == 0] or [int(n) for n in Ns]
    ax.set_xticks(ticks, [str(n) for n in ticks])
    ax.set_xticks([], minor=True)


def _forms_to_draw(forms: dict) -> list[tuple[str, object]]:
    """``[(label, values)]``: stated and explicit, or one line "stated and explicit" where they
    draw the same numbers (equal, or both capped at the trivial bound), so that no legend style
    stands for a line hidden under another."""
    import numpy as np

    if "stated" in forms and "explicit" in forms and np.allclose(
            forms["stated"], forms["explicit"], rtol=1e-12, atol=0, equal_nan=True):
        return [("stated and explicit", forms["stated"])]
    return [(f, v) for f, v in forms.items()]


BOUND_NOTE = ("dashed: bounds (a stated form drops its O(·) terms: the paper gives no constants); "
              "grey: vacuous")


def _legend_below(fig, axes, title=BOUND_NOTE, ncol=None):
    """One legend under the panels with every labelled line (and patch) of ``axes``, each label
    once."""
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    if VOID_LABEL in labels:  # the vacuous grey last
        i = labels.index(VOID_LABEL)
        handles.append(handles.pop(i))
        labels.append(labels.pop(i))
    ncol = ncol or (1 if len(labels) <= 2 else 2 if len(labels) <= 10 else 3)
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False,
               fontsize=FONT - 4 if len(labels) > 10 else FONT - 3, title=title,
               title_fontsize=FONT - 4)


def _omitted_note(ax, text):
    """Name a curve that is not drawn, in its panel (never silently)."""
    ax.text(0.02, 0.03, "\n".join(textwrap.wrap(text, 38)), transform=ax.transAxes, ha="left",
            va="bottom", fontsize=FONT - 5, color="0.15",
            bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="0.6", alpha=0.95))
