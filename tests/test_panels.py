"""verify.presenting.panels: a claim's figure cut into its columns of panels for the report.

The cut must lose no ink and split no panel: every dark pixel of the figure as drawn lies in
exactly one column, the columns follow the panels left to right, and a figure that cannot be cut
cleanly is kept whole.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from verify.presenting import panels

DPI = 60


def figure(n: int = 3, layout: str | None = "constrained") -> Figure:
    fig = Figure(figsize=(5.6 * n, 4), layout=layout)
    FigureCanvasAgg(fig)
    for k, ax in enumerate(fig.subplots(1, n, squeeze=False)[0]):
        ax.plot([1, 2, 3], [k, 2 * k, 1], label=f"panel {k}")
        ax.set_xlabel("t (iteration)")
        ax.set_ylabel("second moment $E\\|g_t\\|^2$")
        ax.set_title(f"N = {k + 2}")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    fig.suptitle("Theorem 3: holds\ndecisive: $d_{TV}$ = 0.05")
    return fig


def ink(fig: Figure) -> np.ndarray:
    """The dark pixels of the figure as cut() drew it (its canvas's buffer: not drawn again, since
    the constrained layout moves a little at each drawing)."""
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].min(axis=2) < panels.INK


def decoded(p: dict) -> np.ndarray:
    raw = io.BytesIO(__import__("base64").b64decode(p["uri"].split(",", 1)[1]))
    return np.asarray(Image.open(raw).convert("RGB")).min(axis=2) < panels.INK


def test_columns_hold_every_panel_and_lose_no_ink():
    fig = figure(3)
    out = panels.cut(fig, DPI)
    assert out["whole"] is None and len(out["columns"]) == 3
    assert out["title"] == "Theorem 3: holds\ndecisive: $d_{TV}$ = 0.05"
    full = ink(fig)  # the figure as cut: its suptitle taken out
    covered = np.zeros_like(full, dtype=int)
    for p in out["columns"]:
        a, top, b, end = p["box"]
        assert (decoded(p) == full[top:end, a:b]).all()
        covered[top:end, a:b] += 1
        assert p["min_font"] == 10 and abs(p["inches"] - (b - a) / DPI) < 1e-3
    assert covered.max() == 1  # no pixel in two columns
    assert not (full & (covered == 0)).any()  # and none left out
    boxes = [p["box"] for p in out["columns"]]
    assert all(x[2] <= y[0] for x, y in zip(boxes, boxes[1:]))


def test_text_on_the_figure_keeps_it_whole():
    fig = figure(2)
    fig.text(0.5, 0.01, "a note across both panels")  # drawn by cut()
    out = panels.cut(fig, DPI)
    assert out["columns"] == [] and out["whole"]["width"] > 2 * 5 * DPI


def test_overlapping_boxes_are_cut_where_there_is_no_ink():
    """A box that reaches under the next panel without ink there (a label's white space) is cut at
    a blank pixel column; panels whose ink meets stay whole."""
    fig = figure(2, layout=None)
    fig.subplots_adjust(wspace=0.35)
    a0 = fig.axes[0]
    a0.text(1.02, 0.5, " " * 60, transform=a0.transAxes)  # an empty box under the next panel
    out = panels.cut(fig, DPI)
    r = fig.canvas.get_renderer()
    assert fig.axes[0].get_tightbbox(r).x1 > fig.axes[1].get_tightbbox(r).x0
    assert len(out["columns"]) == 2
    full = ink(fig)
    covered = np.zeros_like(full, dtype=int)
    for p in out["columns"]:
        a, top, b, end = p["box"]
        covered[top:end, a:b] += 1
    assert covered.max() == 1 and not (full & (covered == 0)).any()
    fig = figure(2, layout=None)
    fig.subplots_adjust(wspace=0.0)  # the second panel's tick labels touch the first panel
    assert panels.cut(fig, DPI)["columns"] == []


def test_whole_reads_the_dpi_of_the_png():
    fig = figure(1)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    out = panels.whole(buf.getvalue(), 9.0)
    assert out["columns"] == [] and abs(out["whole"]["inches"] - 5.6) < 0.02
    assert out["whole"]["min_font"] == 9.0


def test_drawn_by_measures_a_plot_that_saves_and_closes_its_figure(tmp_path):
    """A claim's own plot (pyplot, saved and closed inside): its smallest type is read as it is
    saved, and Figure.savefig is itself again afterwards, also when the plot fails."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def plot(report, path, dpi=90):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.plot([0, 1], [0, 1])
        ax.text(0.5, 0.5, "a note", fontsize=7)
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        return path

    real = Figure.savefig
    assert panels.drawn_by(plot, None, str(tmp_path / "a.png"), dpi=40) == 7
    assert Figure.savefig is real and (tmp_path / "a.png").stat().st_size > 0

    def broken(report, path, dpi=90):
        raise RuntimeError("planted")

    try:
        panels.drawn_by(broken, None, "x.png")
    except RuntimeError:
        pass
    assert Figure.savefig is real
    assert panels.drawn_by(lambda *a, **k: None) is None  # saves nothing
