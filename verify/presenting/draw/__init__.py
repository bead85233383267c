"""Lecture figures in one command: ``python -m verify draw KIND --out FILE``.

    python -m verify draw mixing     [--N 4,16] [--w-star 10,100] [--schemes S,...] [--k KMAX]
    python -m verify draw variance   [--N 2,4,...] [--w-star 10] [--t 100] [--schemes S,...]
    python -m verify draw wstar      [--N 16] [--t 100] [--w-star LO,HI] [--schemes S,...]
    python -m verify draw rates      [--N 16] [--w-star LO,HI]
    python -m verify draw stationary [--N 2,...] [--w-star W | --counterexample | --pi --q --s]
    python -m verify draw step STEP_ID
    python -m verify draw lecture --out DIR [--format png|pdf|svg]

Every kind but ``lecture`` takes ``--out FILE``; its format (PDF, SVG or PNG) follows the
extension.  ``lecture`` writes the figures of a 50-minute lecture and its outline
(``outline.md``) into a directory (:func:`write_lecture`, :data:`SLIDES`).

Every number drawn is exact: nothing here is sampled, and nothing is computed anew — the kernels,
laws and conditional moments come from :mod:`simulate.finite` (finite-state kernels of Kim et al.,
NeurIPS 2022, App. B Algorithms 2 and 3; conditional moments of Theorems 1–4,
``docs/methods.md`` §6) and the bounds from :mod:`bounds` (the forms of Theorems 1–4 and Table 1
as stated and as proved).

The instance is the two-state hard instance (:func:`simulate.finite.hard_instance`): the state
z* carries target mass ``pi0`` (default 0.3) and importance weight w* = π(z*)/q(z*), the other
state a weight below 1; the "score" is :func:`simulate.finite.centred_bounded_score` (|s| <= L,
E_π s = 0, s(z*) = L).  Every chain starts at z*, the worst start of Eq. (7) (§3.2).
``stationary`` also takes any finite instance (``--pi --q --s``) and the three-state
counterexample to "pMCSA always has the smallest second moment at stationarity"
(``--counterexample``: π = (1/2, 1/4, 1/4), q = (1/10, 9/20, 9/20), s = (0, 1, −1), w* = 5).

What a figure shows, it explains:

* every drawn line has a legend entry (:func:`unlabelled_lines` finds those without);
* a bound at or above the trivial bound — 1 for a total variation distance, L² for E‖g‖² (each
  estimator averages scores of norm <= L) — says nothing: it is *vacuous* and drawn in grey along
  the trivial bound (:func:`bounds.cli.trivial_bound`), never in its scheme's colour;
* a stated form whose O(·) terms hide constants the paper does not give
  (:attr:`bounds.core.Form.dropped`) is drawn without them, and the legend's title says so;
* a curve that cannot be drawn (JSA's exact joint law for N > 20: 2^N atoms) is named in its
  panel with the reason, not dropped;
* no two labels overlap (:func:`overlapping_texts`, checked by the tests on every kind);
* the axis says what one step is per scheme: an *iteration* is one CIS step (MSC, MSC-RB), N IMH
  steps of one chain (JSA) or one IMH step of each of N chains (pMCSA).

Public functions (used by the notebooks and the lecture): :func:`instance`,
:func:`second_moments`, :func:`stationary_moments`, :func:`stationary_data`,
:func:`wstar_data`, :func:`crossing`, :func:`mixing_data`, :func:`variance_data`,
:func:`rates_data`, :func:`figure`, :func:`draw`, and the figure checks :func:`overlapping_texts`,
:func:`unlabelled_lines`, :func:`title_fits`.
"""

from __future__ import annotations

from .canvas import (
    BOUND_NOTE,
    Drawing,
    fit_title,
    legend_labels,
    overlapping_texts,
    texts_outside,
    title_fits,
    unlabelled_lines,
)
from .command import cmd_draw, parse
from .constants import (
    COLOR,
    COUNTEREXAMPLE,
    DEFAULTS,
    EPILOG,
    EXTENSIONS,
    FONT,
    FORM_STYLE,
    ITERATION,
    KINDS,
    MAX_N,
    MAX_N_JSA_JOINT,
    MAX_N_STATIONARY,
    MAX_PANELS,
    MAX_STATES,
    MAX_T,
    MAX_W,
    PROG,
    SCHEMES,
    THEOREM,
    VOID_COLOR,
    VOID_LABEL,
    WIDTH,
)
from .exact import (
    OPTIMIZERS,
    claim_of,
    counterexample,
    crossing,
    instance,
    mixing_data,
    rates_claim,
    rates_data,
    second_moments,
    stationary_data,
    stationary_moments,
    variance_data,
    wstar_data,
)
from .kinds import STEP_MEANING, draw, figure
from .lecture import SLIDES, WRAP_UP, outline, slides, write_lecture
from .lecture_figures import LECTURE_FIGURES, informative_w_max
from .steps import claim_display_name, claim_status, step_ids, step_row, wrong_upstream

__all__ = [
    "COLOR",
    "COUNTEREXAMPLE",
    "DEFAULTS",
    "EPILOG",
    "EXTENSIONS",
    "FONT",
    "FORM_STYLE",
    "ITERATION",
    "KINDS",
    "MAX_N",
    "MAX_N_JSA_JOINT",
    "MAX_N_STATIONARY",
    "MAX_PANELS",
    "MAX_STATES",
    "MAX_T",
    "MAX_W",
    "PROG",
    "SCHEMES",
    "THEOREM",
    "VOID_COLOR",
    "VOID_LABEL",
    "WIDTH",
    "OPTIMIZERS",
    "claim_of",
    "counterexample",
    "crossing",
    "instance",
    "mixing_data",
    "rates_claim",
    "rates_data",
    "second_moments",
    "stationary_data",
    "stationary_moments",
    "variance_data",
    "wstar_data",
    "claim_display_name",
    "claim_status",
    "step_ids",
    "step_row",
    "wrong_upstream",
    "BOUND_NOTE",
    "Drawing",
    "fit_title",
    "legend_labels",
    "overlapping_texts",
    "texts_outside",
    "title_fits",
    "unlabelled_lines",
    "LECTURE_FIGURES",
    "informative_w_max",
    "STEP_MEANING",
    "draw",
    "figure",
    "SLIDES",
    "WRAP_UP",
    "outline",
    "slides",
    "write_lecture",
    "cmd_draw",
    "parse",
]
