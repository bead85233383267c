"""A claim's figure for the HTML report: its title as text and one image per column of panels.

A claim's figure (:func:`verify.presenting.plot.make_figure`) has its panels side by side, 5.6 in
each, under
a two-line suptitle.  Shrunk to a phone's width, three panels of 10 pt type become 3 px type.
:func:`cut` draws the figure once and cuts it along the figure's own geometry (each column's
tight bounding box: its panel, title, tick labels, axis labels and legend, which the constrained
layout keeps apart), so that the report can lay the columns side by side on a desktop, where the
figure looks as drawn, and one under the other on a phone, where each takes the screen's width
(:mod:`verify.presenting.report`).  The suptitle becomes the report's text (wrapped, its mathematics
rendered) instead of pixels.

A figure this cannot cut (panels that overlap, text placed on the figure itself) and the
figures a claim draws itself (its registered ``plot``: the reproductions' grids) are kept whole:
:func:`whole`, with the size of their smallest type measured as they are saved
(:func:`drawn_by`), so that a phone can show them at a readable width.
"""

from __future__ import annotations

import base64
import io

import numpy as np

#: margin kept around a column's ink (pixels)
PAD = 4
#: a pixel darker than this (0-255 grey) is ink (the background is white)
INK = 250


def piece(png: bytes, dpi: float | None, min_font: float | None) -> dict:
    """One image of a figure as the report's template shows it.

    Parameters
    ----------
    png : bytes
        The image.
    dpi : float or None
        Its pixels per figure inch (None: unknown).
    min_font : float or None
        The size of its smallest type, in points (None: unknown).

    Returns
    -------
    dict
        ``{"uri", "width", "height", "inches", "min_font"}``: a data URI, its size in pixels, its
        width in the figure's inches (None without ``dpi``) and ``min_font``.
    """
    from PIL import Image

    w, h = Image.open(io.BytesIO(png)).size
    return {"uri": "data:image/png;base64," + base64.b64encode(png).decode("ascii"),
            "width": w, "height": h, "inches": round(w / dpi, 4) if dpi else None,
            "min_font": min_font}


def whole(png: bytes, min_font: float | None = None) -> dict:
    """A figure kept whole: ``{"title": "", "columns": [], "whole": piece}``, its dpi read from the
    PNG (matplotlib records it)."""
    from PIL import Image

    dpi = (Image.open(io.BytesIO(png)).info.get("dpi") or (None,))[0]
    return {"title": "", "columns": [], "whole": piece(png, dpi, min_font)}


def smallest_font(fig) -> float | None:
    """The smallest size (points) of the visible, non-empty texts of a drawn figure."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes) if sizes else None


def drawn_by(plot, *args, **kwargs) -> float | None:
    """Call ``plot(*args, **kwargs)`` (a claim's registered plot, which saves its own figure) and
    return the smallest type, in points, of the figures it saves (None when it saves none through
    :meth:`matplotlib.figure.Figure.savefig`).

    Each figure is read as it is saved, drawn, before the plot closes it: ``Figure.savefig`` is
    wrapped for the duration of the call (in this process; the report draws its figures one
    after another).
    """
    from matplotlib.figure import Figure

    sizes = []
    real = Figure.savefig

    def savefig(fig, *a, **k):
        out = real(fig, *a, **k)
        sizes.append(smallest_font(fig))
        return out

    setattr(Figure, "savefig", savefig)  # (a method replaced for this call)
    try:
        plot(*args, **kwargs)
    finally:
        setattr(Figure, "savefig", real)
    return min((x for x in sizes if x), default=None)


def cut(fig, dpi: float) -> dict:
    """Draw ``fig`` at ``dpi`` (its suptitle taken out as text) and cut it into columns of panels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure on an Agg canvas whose axes stand in one row of columns
        (:func:`verify.presenting.plot.make_figure`).
    dpi : float
        Pixels per inch of the images.

    Returns
    -------
    dict
        ``{"title": the suptitle's text ('' without one), "columns": [piece, ...], "whole": None}``
        (pieces as :func:`piece` gives them, left to right, each with its ``box``: left, top,
        right, bottom in the drawn figure's pixels); or, when the columns cannot be cut apart,
        ``{"title": text, "columns": [], "whole": piece}`` (the figure drawn without its
        suptitle).  Columns are cut half-way across the gap between their tight boxes or, where
        the boxes overlap (a label's padding), at a pixel column without ink between the two
        panels; when there is none, or when text stands on the figure itself, it stays whole.
    """
    from PIL import Image

    title = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    if title:
        fig.suptitle("")  # the page shows it as text; the panels take its room
    fig.set_dpi(dpi)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3]
    h, w = rgb.shape[:2]
    small = smallest_font(fig)  # the suptitle, emptied, is not counted
    image = Image.fromarray(rgb)

    def encode(img) -> bytes:
        out = io.BytesIO()
        img.save(out, format="PNG", dpi=(dpi, dpi))
        return out.getvalue()

    # columns: the axes grouped by their horizontal extent on the figure
    groups: list[list] = []
    for ax in sorted((a for a in fig.axes if a.get_visible()), key=lambda a: a.get_position().x0):
        p = ax.get_position()
        if groups and p.x0 < groups[-1][-1].get_position().x1:
            groups[-1].append(ax)
        else:
            groups.append([ax])
    boxes: list = []  # (x0, x1, y0, y1) per group
    spans: list = []
    for g in groups:
        bbs = [b for b in (a.get_tightbbox(renderer) for a in g) if b is not None]
        if not bbs:
            boxes = []
            break
        boxes.append((min(b.x0 for b in bbs), max(b.x1 for b in bbs),
                      min(b.y0 for b in bbs), max(b.y1 for b in bbs)))
        spans.append((min(a.get_position().x0 for a in g) * w,
                      max(a.get_position().x1 for a in g) * w))
    alone = not (fig.legends or fig.images or fig.patches or fig.lines
                 or any(t.get_text().strip() for t in fig.texts))
    if not boxes or not alone:
        return {"title": title, "columns": [], "whole": piece(encode(image), dpi, small)}
    # rows span every column's box (pixel rows count from the top, the renderer's y from the
    # bottom)
    top = max(0, int(h - max(b[3] for b in boxes)) - PAD)
    bottom = min(h, int(np.ceil(h - min(b[2] for b in boxes))) + PAD)
    ink = rgb.min(axis=2) < INK
    blank = ~ink[top:bottom].any(axis=0)  # pixel columns with no ink from top to bottom
    xs = [0]
    for (a, b), (_, right), (left, _) in zip(zip(boxes, boxes[1:]), spans, spans[1:]):
        if a[1] <= b[0]:  # the boxes are apart: cut half-way across the gap
            xs.append((a[1] + b[0]) / 2)
            continue
        # the boxes overlap (a tick label reaching under the next panel's label): cut at the
        # blank pixel column nearest the middle of the gap between the two panels' axes
        lo, hi = int(right), int(np.ceil(left))
        free = [x for x in range(lo, hi + 1) if 0 <= x < w and blank[x]]
        if not free:
            return {"title": title, "columns": [], "whole": piece(encode(image), dpi, small)}
        xs.append(min(free, key=lambda x: abs(x - (a[1] + b[0]) / 2)))
    xs.append(w)
    columns = []
    for x0, x1 in zip(xs[:-1], xs[1:]):
        a, b = int(round(x0)), int(round(x1))
        cols = ink[top:bottom, a:b].any(axis=0)
        end = bottom
        if cols.any():  # trimmed to its ink: both sides, and the bottom (the tops stay level)
            a, b = (max(a, a + int(np.argmax(cols)) - PAD),  # never past the cuts
                    min(b, b - int(np.argmax(cols[::-1])) + PAD))
            rows = ink[top:bottom, a:b].any(axis=1)
            end = min(bottom, top + len(rows) - int(np.argmax(rows[::-1])) + PAD)
        columns.append(piece(encode(image.crop((a, top, b, end))), dpi, small)
                       | {"box": [a, top, b, end]})
    return {"title": title, "columns": columns, "whole": None}
