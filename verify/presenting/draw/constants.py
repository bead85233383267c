"""The settings every drawing of ``python -m verify draw`` shares: the kinds, the schemes and their
colours and theorems, the fonts, the caps on the sizes drawn, the defaults and the counterexample
of ``stationary``.
"""

from __future__ import annotations

from typing import Any

PROG = "python -m verify draw"
KINDS = ("mixing", "variance", "wstar", "rates", "stationary", "step", "lecture")
SCHEMES = ("MSC", "MSC-RB", "JSA", "pMCSA")
COLOR = {"MSC": "C0", "MSC-RB": "C1", "JSA": "C3", "pMCSA": "C2"}
FORM_STYLE = {"stated": "--", "explicit": ":"}
#: the theorem that bounds each scheme (Kim et al. 2022, §4.2-§5.1)
THEOREM = {"MSC": "Theorem 1", "MSC-RB": "Theorem 2", "JSA": "Theorem 3", "pMCSA": "Theorem 4"}
#: what one MCGD iteration does, per scheme (the unit of k and t)
ITERATION = {"MSC": "one CIS step", "MSC-RB": "one CIS step", "JSA": "N IMH steps",
             "pMCSA": "one IMH step per chain"}
EXTENSIONS = (".png", ".pdf", ".svg")
#: the lecture font size (points) and figure width (inches) of a 16:9 slide
FONT = 16
WIDTH = 12.0
#: how a vacuous bound is drawn: grey, along the trivial bound
VOID_COLOR = "0.62"
VOID_LABEL = "at or above the trivial bound: vacuous (grey)"
#: limits of the flags, with their reasons (one line each on bad input)
MAX_N = 64                    # JSA's exact second moment is O(N^2) products per state and w*
MAX_N_JSA_JOINT = 20          # JSA's exact joint law has 2^N atoms
MAX_N_STATIONARY = 32         # MSC-RB's exact sum over the proposals' counts
MAX_STATES = 8
MAX_T = 100_000
MAX_W = 1e6
MAX_PANELS = 6
#: the three-state counterexample to "at stationarity pMCSA always has the smallest second
#: moment" (exact rationals; MSC-RB is below pMCSA at every N from 2 to 16)
COUNTEREXAMPLE = {"pi": ("1/2", "1/4", "1/4"), "q": ("1/10", "9/20", "9/20"),
                  "s": ("0", "1", "-1")}
DEFAULTS: dict[str, dict[str, Any]]
DEFAULTS = {"mixing": {"N": [4, 16], "w_star": [10.0, 100.0], "schemes": list(SCHEMES)},
            "variance": {"N": [2, 4, 8, 16, 32, 64], "w_star": [10.0, 1000.0], "t": 100,
                         "schemes": list(SCHEMES)},
            "wstar": {"N": [16], "w_star": [2.0, 1e4], "t": 100, "schemes": ["JSA", "pMCSA"]},
            "rates": {"N": [16], "w_star": [1.5, 1e4]},
            "stationary": {"N": list(range(2, 17)), "w_star": [10.0]}}

EPILOG = (
    "Exit status: 0 written, 2 bad input (one line on stderr, before any work), 70 internal error "
    "(rerun with --debug for the traceback), 74 an output cannot be written (a full disk), 130 "
    "interrupted.")
