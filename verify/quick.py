"""A claim in a few lines: :class:`QuickClaim`.

A bound about a quantity the toolkit already computes needs three things: the bound as a
formula, a function computing the quantity, and the parameter domain.  :class:`QuickClaim`
turns them into the same objects a document package registers -- a :class:`bounds.core.Claim`
(the formula, with its domain), a :class:`verify.model.Verification` (the checks over a grid
of the domain) and a :class:`verify.searching.spaces.SearchSpec` (Hypothesis search over the domain)
-- so a plain script gets the verdict, the search, the figure and the counterexamples of a
built-in claim::

    import sys
    from simulate import finite as F
    from verify import QuickClaim

    def tv(M, w_star, N, t):  # the quantity, exact, with its error bound
        pi, q = F.hard_instance(M, w_star)
        K, err = F.cis_matrix(pi, q, N, return_error=True)
        return F.tv_curve(K, pi, t)[-1].max(), t * err

    claim = QuickClaim("my_rate", bound="(1 - (N - 1)/(2*w_star + N - 2))**t", quantity=tv,
                       domain={"M": (2, 6), "w_star": (1.0, 100.0, "log"), "N": (2, 16),
                               "t": (1, 30)})
    sys.exit(claim.main())  # exit status as `python -m verify CLAIM`

The checks: every corner of the domain plus ``points`` random points (quick; the full grid
adds interior values and more points), drawn from ``numpy.random.SeedSequence(seed)``.
``quantity(**point)`` returns the quantity's value in any of these forms
(:meth:`bounds.enclosure.Enclosure.of`):

* a ``float``: exact up to float64 rounding, i.e. an enclosure of a few units in its last
  place, *relative* to the value (no absolute floor: 1e-200 is compared at its own scale);
* ``(value, error)``: a float with a proved bound on its absolute error (use it when the
  computation loses more than rounding, e.g. ``(norm.sf(t), 1e-14 * norm.sf(t))``: scipy's
  normal tail carries a relative error near 1e-15);
* a :class:`fractions.Fraction` or an ``int``: exact;
* an mpmath ``mpf`` (exact up to its precision) or ``mpi`` (an interval);
* a python-flint ``arb`` (a ball).

A quantity that also takes a ``prec`` argument is called again with ``prec`` = 64, 256,
1024 (bits) where a check cannot be decided at first, and should then return an enclosure at
that precision (``mpi``, ``arb``, or an exact Fraction).  With ``method="monte-carlo"`` it
returns ``(mean, standard_error)``; a function taking an ``rng`` argument gets a
``numpy.random.Generator`` seeded per point.  The bound is evaluated in ball arithmetic from
its formula.  Verdicts are decided by the machinery (:func:`verify.decide.decide`): exact
checks on the two enclosures (holds only when the quantity's enclosure lies on the right
side of the bound's; never by a tolerance), Monte Carlo checks one-sided at ``alpha / m``
(Bonferroni).  A declaration is checked before any work: a bound that does not parse, uses an
unknown parameter, is empty, is a relation (``"t > 1"``), or is not finite on the domain gets
one line and exit status 2 from :meth:`QuickClaim.main`.

The same object becomes an installed plugin with two module-level lines (entry points
``mcsa_verify.bounds`` and ``mcsa_verify.claims``; see ``docs/own-claim.md``)::

    BUILDERS = claim.builders      # the formula
    claim.register()               # the verification and its search space
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, cast

if TYPE_CHECKING:
    from .model import Relation

RELATIONS = ("<=", ">=", "=")
QUICK_METHODS = ("exact", "monte-carlo")


@dataclass(eq=False)
class QuickClaim:
    """A claim given by a formula, a quantity and a domain.

    Parameters
    ----------
    id : str
        The claim id (``python -m verify ID`` once registered); letters, digits, ``_``.
    bound : str
        The bound as a formula in the domain's parameter names, in sympy syntax
        (``"(1 - 1/w_star)**t"``).
    quantity : callable
        ``quantity(**point)`` for a point of the domain: a float, or ``(value, error)``;
        see the module docstring.
    domain : dict
        ``{name: (lo, hi)}``: an integer range when both ends are Python ``int`` (``(0, 8)``
        means t in {0, ..., 8}), else a closed real interval (``(0.0, 8.0)``); say it
        explicitly with ``(lo, hi, "int")`` or ``(lo, hi, "real")``; ``(lo, hi, "log")``
        samples a positive real interval on a log scale.
    relation : {"<=", ">=", "="}
        Reads "quantity RELATION bound".
    method : {"exact", "monte-carlo"}
        How ``quantity`` computes (Monte Carlo: it returns ``(mean, standard_error)``).
    title, source : str
        One line on the claim; where it is stated (author, year, equation).
    what : str
        What the quantity is (default: the first line of ``quantity``'s docstring).
    points : int
        Random points of the quick grid, besides the corners of the domain (full: 8 times as many).
    x : str
        The parameter on the x-axis of the figure's second panel (default: the domain's last).
    """

    id: str
    bound: str
    quantity: Callable[..., Any]
    domain: dict
    relation: str = "<="
    method: str = "exact"
    title: str = ""
    source: str = ""
    what: str = ""
    points: int = 24
    x: str = ""
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        """Check the cheap parts of the declaration (id, relation, method, domain).

        A problem is recorded, not raised, so that a script whose declaration is wrong still
        reaches :meth:`main`, which answers with one line and exit status 2; every other use
        (:meth:`formula`, :meth:`run`, :meth:`register`, ...) raises it as a ``ValueError``.
        """
        self._problem = _declaration_problem(self)

    def check(self) -> None:
        """Check the whole declaration, the bound's formula included; raise ``ValueError``.

        The bound must parse as a formula (not empty, not a relation such as ``"t > 1"``),
        use only the domain's parameters, and be finite at every point the quick grid checks
        (the corners of the domain and its random points) and, for a formula of one parameter,
        have no singularity sympy finds inside the domain.  The message is one line.
        """
        if self._problem:
            raise ValueError(self._problem)
        self.formula()
        if "finite" not in self._cache:
            self._cache["finite"] = self._finite_problem()
        if self._cache["finite"]:
            raise ValueError(self._cache["finite"])

    def _finite_problem(self) -> str:
        """Return why the bound is not finite on the domain, or ''."""
        import sympy as sp

        expr = self.formula().quantities[0].forms[0].expr
        grid = dict(self.verification().grid.quick)
        for point, _ in self._points(grid, 0):
            try:
                v = self._bound_float(expr, point)
            except (TypeError, ValueError, ZeroDivisionError, OverflowError) as e:
                why = str(e) or ("division by zero" if isinstance(e, ZeroDivisionError)
                                 else type(e).__name__)
                return (f"{self.id}: the bound {self.bound!r} is not finite at "
                        + ", ".join(f"{k}={x}" for k, x in point.items()) + f" ({why})")
            if v.imag != 0 or not math.isfinite(v.real):
                return (f"{self.id}: the bound {self.bound!r} is not finite at "
                        + ", ".join(f"{k}={x}" for k, x in point.items()))
        syms = list(expr.free_symbols)
        if len(syms) == 1:
            (sym,) = syms
            lo, hi, integer, _ = _interval(sym.name, self.domain[sym.name])
            try:
                sing = sp.singularities(expr, sym, sp.Interval(lo, hi))
            except (NotImplementedError, ValueError, TypeError):
                sing = sp.S.EmptySet
            pts = sorted(float(x) for x in sing) if isinstance(sing, sp.FiniteSet) else []
            if integer:
                pts = [x for x in pts if float(x).is_integer()]
            if pts:
                return (f"{self.id}: the bound {self.bound!r} is not finite at {sym.name}="
                        f"{pts[0]:g}, inside the domain")
        return ""

    @staticmethod
    def _bound_float(expr, point) -> complex:
        import mpmath
        import sympy as sp

        f = sp.lambdify([sp.Symbol(k) for k in point], expr.subs(
            {s: sp.Symbol(s.name) for s in expr.free_symbols}), "mpmath")
        with mpmath.workdps(30):
            return complex(f(*[mpmath.mpf(v) for v in point.values()]))

    def __getstate__(self) -> dict:
        """Pickle without the built objects, which are rebuilt on use.

        ``check_claim`` reruns a claim in a second process this way; ``quantity`` must then
        be importable there (a module-level function).
        """
        return {**self.__dict__, "_cache": {}}

    # ------------------------------------------------------------------ the three objects
    def _require(self) -> None:
        """Raise the declaration's problem (``ValueError``, one line), if it has one."""
        if self._problem:
            raise ValueError(self._problem)

    @property
    def quantity_name(self) -> str:
        """The quantity's name: the function's ``__name__`` (``"quantity"`` for a lambda)."""
        return getattr(self.quantity, "__name__", "quantity").strip("<>") or "quantity"

    def formula(self):
        """Build the claim as a :class:`bounds.core.Claim`: one quantity, one form (``stated``).

        Returns
        -------
        bounds.core.Claim
            Built once and cached.

        Raises
        ------
        ValueError
            The declaration is wrong or the bound is not a formula in the domain's parameters.
        """
        if self._problem:
            raise ValueError(self._problem)
        if "formula" not in self._cache:
            import sympy as sp
            from sympy.parsing.sympy_parser import TokenError

            from bounds.core import Claim, Form, Param, Quantity, Source

            if isinstance(self.bound, str) and not self.bound.strip():
                raise ValueError(f"{self.id}: the bound is empty; give a formula in "
                                 f"{', '.join(self.domain)}")

            params = []
            for name, dom in self.domain.items():
                lo, hi, integer, log = _interval(name, dom)
                params.append(
                    Param(
                        name,
                        "--" + name.replace("_", "-"),
                        name,
                        f"{name} in [{lo}, {hi}]",
                        lower=lo,
                        upper=hi,
                        integer=integer,
                        log_scale=log,
                        sample_max=hi,
                    )
                )
            symbols = {p.name: p.symbol for p in params}
            try:
                expr = (
                    sp.parse_expr(self.bound, local_dict=symbols)
                    if isinstance(self.bound, str)
                    else self.bound
                )
            except (SyntaxError, TypeError, ValueError, AttributeError, NameError,
                    sp.SympifyError, TokenError) as e:
                why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ValueError(
                    f"{self.id}: the bound {self.bound!r} is not a formula ({why})"
                ) from None
            from sympy.logic.boolalg import BooleanAtom, BooleanFunction

            if isinstance(expr, (sp.Rel, BooleanAtom, BooleanFunction)) or not isinstance(
                    expr, sp.Expr):
                raise ValueError(f"{self.id}: the bound {self.bound!r} is a relation or a truth "
                                 "value, not a bound: give the bound's right-hand side only "
                                 "(the relation is the claim's `relation`)")
            if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
                raise ValueError(f"{self.id}: the bound {self.bound!r} is not finite (it "
                                 "contains an infinity or nan)")
            unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in symbols)
            if unknown:
                raise ValueError(
                    f"{self.id}: the bound uses {', '.join(unknown)}, not in the domain"
                )
            what = (
                self.what or (self.quantity.__doc__ or self.quantity_name).strip().splitlines()[0]
            )
            self._cache["formula"] = Claim(
                id=self.id,
                title=self.title or f"{self.quantity_name} {self.relation} {self.bound}",
                source=Source(self.source or "stated by the user", ""),
                assumptions=(),
                params=tuple(params),
                quantities=(
                    Quantity(
                        self.quantity_name,
                        what,
                        self.relation,
                        (Form("stated", expr, f"the bound as given: {self.bound}"),),
                    ),
                ),
                example={p.name: cast(float, p.lower) for p in params},  # _interval's lower ends
            )
        return self._cache["formula"]

    @property
    def builders(self) -> dict:
        """``{id: builder}``: the module-level ``BUILDERS`` of an ``mcsa_verify.bounds`` plugin."""
        return {self.id: self.formula}

    def bound_at(self, **point) -> float:
        """Evaluate the bound at one point of the domain (checked against the domain).

        Parameters
        ----------
        **point
            A value of every parameter of the domain.

        Returns
        -------
        float
            The bound's value.
        """
        return float(self.formula().evaluate_form(self.quantity_name, "stated", **point))

    def verification(self):
        """Build the claim's :class:`verify.model.Verification` (what ``register`` registers).

        Returns
        -------
        verify.model.Verification
            Built once and cached.
        """
        if "verification" not in self._cache:
            from .model import Grid, Verification

            names = list(self.domain)
            quick = {n: _ends(self.domain[n]) for n in names} | {"points": self.points}
            full = {n: _spread(self.domain[n]) for n in names} | {"points": 8 * self.points}
            self._cache["verification"] = Verification(
                self.id,
                measures=self.formula().quantities[0].description,
                targets="corners of the domain and random points: "
                + ", ".join(_interval_text(n, self.domain[n]) for n in names),
                method=self.method,
                forms="stated",
                grid=Grid(quick, full),
                run=self._run,
                overrides=tuple(names) + ("points",),
                adjust_grid=_fix_overridden,
                proof="a quick claim: no proof steps",
                name=self.title or self.id,
                plot=self._plot,
            )
        return self._cache["verification"]

    def search_space(self):
        """Build the search space over the whole domain (exact quantities).

        It is a :class:`verify.searching.spaces.SearchSpec`.

        Returns
        -------
        verify.searching.spaces.SearchSpec
        """
        from .searching.spaces import SearchSpec

        return SearchSpec(
            self.id,
            "the domain " + ", ".join(_interval_text(n, d) for n, d in self.domain.items()),
            self._space,
        )

    # ------------------------------------------------------------------ registering
    def register(self, registry=None) -> "QuickClaim":
        """Make the claim known in this process, as an installed one is.

        Its formula goes to :mod:`bounds` (:func:`bounds.add_builder`), its verification and
        search space to :mod:`verify`.  ``registry`` is the :class:`verify.registry.Registry`
        a ``register(registry)`` plugin hook is given (a plugin module's hook is one line,
        ``def register(registry): claim.register(registry)``); without it, this process's.

        Parameters
        ----------
        registry : verify.registry.Registry, optional
            The registry of a plugin's hook (default: this process's).

        Returns
        -------
        QuickClaim
            The claim itself.
        """
        from .registry import current

        reg = registry if registry is not None else current()
        if reg.claims.get(self.id) is not self.verification():
            reg.add_builder(self.id, self.formula)
            reg.add(self.verification())
            if self.method == "exact":
                space = self.search_space()
                reg.search_space(self.id, space.space, space.factory)
        return self

    # ------------------------------------------------------------------ running
    def run(
        self,
        mode: str = "quick",
        seed: int = 0,
        bound_scale: float = 1.0,
        overrides: dict | None = None,
    ):
        """Verify the claim, as :func:`verify.run`: a :class:`verify.running.outcome.Report`.

        Parameters
        ----------
        mode : {"quick", "full"}
            The quick grid (the domain's corners and ``points`` random points) or the full one.
        seed : int, default 0
            Seed of the random points and of a Monte Carlo quantity's checks.
        bound_scale : float, default 1.0
            Tighten the bound by this factor (:func:`verify.decide.scale_bound`).
        overrides : dict, optional
            Grid values to use instead of the claim's (a domain's parameter or ``points``).

        Returns
        -------
        verify.running.outcome.Report
        """
        from .running.outcome import run_verification

        if mode not in ("quick", "full"):
            raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
        self.register()
        return run_verification(
            self.verification(), mode, seed=seed, bound_scale=bound_scale, overrides=overrides
        )

    def search(self, seed: int = 0, max_examples: int = 200) -> dict | None:
        """Search the domain for a counterexample with Hypothesis.

        The search is :func:`verify.searching.search.search`.

        Returns None for a Monte Carlo quantity (a random value is no counterexample).

        Parameters
        ----------
        seed : int, default 0
            Seed of the search (derandomized Hypothesis).
        max_examples : int, default 200
            Instances tried at most.

        Returns
        -------
        dict or None
            As :func:`verify.searching.search.search`: ``found``, ``examples``, ``space`` and the
            ``counterexample`` or the ``closest`` instance.
        """
        if self.method != "exact":
            return None
        from .searching.search import search

        self.register()
        return search(self.search_space(), seed=seed, max_examples=max_examples)

    def figure(self, report, path: str, dpi: int = 110) -> str:
        """Draw the claim's figure (:func:`verify.presenting.plot.figure`), violations marked.

        Parameters
        ----------
        report : verify.running.outcome.Report
            A report of :meth:`run`.
        path : str
            The PNG file to write.
        dpi : int, default 110
            Its resolution.

        Returns
        -------
        str
            The path written.
        """
        from .presenting.plot import figure

        self.register()
        return figure(report, path, dpi=dpi)

    def main(self, argv=None) -> int:
        """Run the script's command line: run, print, search, draw.

        Returns the exit status of ``python -m verify CLAIM`` (0 holds, 1 violated,
        3 inconclusive, 4 depends on reading).  Bad input -- a bad flag, an output path that
        cannot be written, or a declaration that is wrong (a bound that does not parse, uses
        an unknown parameter, is empty, a relation, or not finite on the domain) -- gets one
        line on stderr and status 2, before any work; an unexpected error one line and status
        70 (``--debug`` shows the traceback); Ctrl-C status 130.

        Parameters
        ----------
        argv : list of str, optional
            The arguments (default: ``sys.argv[1:]``).

        Returns
        -------
        int
            The exit status.
        """
        import sys

        from mcsa_cli import UsageError, discard_unwritten_outputs

        args = sys.argv[1:] if argv is None else list(argv)
        try:
            return self._main(args)
        except (UsageError, ValueError) as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(msg if msg.startswith(f"{self.id}:") else f"{self.id}: {msg}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{self.id}: interrupted", file=sys.stderr)
            return 130
        except Exception as e:  # a crash is never exit 1 ("violated")
            if "--debug" in args:
                raise
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            print(f"{self.id}: internal error: {type(e).__name__}{': ' + first if first else ''}"
                  " (rerun with --debug for the traceback)", file=sys.stderr)
            return 70
        finally:
            discard_unwritten_outputs()  # an output path checked but never written goes again

    def _main(self, argv) -> int:
        from mcsa_cli import Parser, dumps, number, output_path

        from .model import EXIT

        title = self.title or f"{self.quantity_name} {self.relation} {self.bound}"
        ap = Parser(
            prog=self.id,
            description=f"Verify {self.id}: {title}. Checks every corner of the domain and random "
                        "points (--full: a larger grid), decides each check on enclosures of both "
                        "sides, then searches the domain for a counterexample.",
            epilog="Exit status: 0 holds, 1 violated, 2 bad input (one line on stderr, before any "
                   "work), 3 inconclusive, 4 depends on reading, 70 internal error (rerun with "
                   "--debug), 130 interrupted.",
        )
        ap.add_argument("--full", action="store_true", help="the larger grid")
        ap.add_argument("--seed", default="0", help="integer >= 0 (default 0)")
        ap.add_argument(
            "--bound-scale", default="1", help="tighten the bound by this factor (default 1)"
        )
        ap.add_argument(
            "--max-examples", default="200", help="examples of the search (0: no search)"
        )
        ap.add_argument("--plot", default=None, help="write the figure there (.png, .svg, .pdf)")
        ap.add_argument("--json", action="store_true", help="print one JSON object (strict)")
        ap.add_argument(
            "--verbose", action="store_true", help="every check not holding, then every check"
        )
        ap.add_argument("--debug", action="store_true", help="show the traceback of an internal "
                                                             "error")
        a = ap.parse_args(argv)
        seed = number("--seed", a.seed, integer=True, lo=0)
        scale = number("--bound-scale", a.bound_scale, lo=0, lo_strict=True)
        m = number("--max-examples", a.max_examples, integer=True, lo=0, hi=10_000)
        self.check()  # the declaration, before any work
        plot = output_path("--plot", a.plot, (".png", ".svg", ".pdf")) if a.plot else None
        rep = self.run("full" if a.full else "quick", seed=seed, bound_scale=scale)
        found = self.search(seed=seed, max_examples=m) if m else None
        if plot:
            self.figure(rep, plot)
        if a.json:
            print(dumps({**rep.as_json(), "search": found}))
            return EXIT[rep.verdict]
        from .command.cli import print_report

        print_report(rep, verbose=a.verbose)
        if found is not None:
            print(_search_text(found))
        if plot:
            print(f"figure written to {a.plot}")
        return EXIT[rep.verdict]

    # ------------------------------------------------------------------ internals
    def _call(self, point: dict, rng=None, prec: int | None = None):
        """Call the quantity at ``point`` (``rng`` and ``prec`` passed when it takes them)."""
        import inspect

        kw = dict(point)
        params = inspect.signature(self.quantity).parameters
        if "rng" in params:
            kw["rng"] = rng
        if prec is not None:
            kw["prec"] = prec
        return self.quantity(**kw)

    def _takes_prec(self) -> bool:
        import inspect

        return "prec" in inspect.signature(self.quantity).parameters

    def _enclosure(self, point: dict, rng=None, prec: int | None = None):
        """Enclose the quantity at ``point`` (:meth:`bounds.enclosure.Enclosure.of`).

        Raises
        ------
        ValueError
            The quantity returned something that is not a number (one line).
        """
        from bounds.enclosure import Enclosure

        out = self._call(point, rng, prec)
        try:
            return Enclosure.of(out)
        except TypeError as e:
            raise ValueError(f"{self.id}: the quantity at {point}: {e}") from None

    def _value(self, point: dict, rng=None) -> tuple[float, float]:
        """``(value, error)`` of a Monte Carlo quantity at ``point`` (mean, standard error)."""
        out = self._call(point, rng)
        value, err = out if isinstance(out, (tuple, list)) else (out, 0.0)
        return float(value), float(err)

    def _check(self, point: dict, rng=None, label: str = ""):
        from fractions import Fraction

        from .model import CheckResult
        from .registry import bound_value

        b = bound_value(self, self.quantity_name, "stated", **point)
        if self.method == "monte-carlo":
            value, err = self._value(point, rng)
            return CheckResult(
                self.quantity_name,
                "stated",
                dict(point),
                value,
                b,
                "monte-carlo",
                relation=cast("Relation", self.relation),  # checked by _declaration_problem
                stderr=err,
                note=label,
            )
        enc = self._enclosure(point, rng)
        refine = None
        if self._takes_prec():
            def refine(bits, point=dict(point)):
                return self._enclosure(point, None, bits)
        mid = enc.mid
        return CheckResult(
            self.quantity_name,
            "stated",
            dict(point),
            mid if not (enc.is_point and isinstance(enc.lo, Fraction)) else enc.lo,
            b,
            "exact",
            relation=cast("Relation", self.relation),  # checked by _declaration_problem
            lhs=enc,
            refine=refine,
            note=label,
        )

    def _points(self, grid, seed=0) -> list[tuple[dict, str]]:
        """List the points a run checks: every corner of the grid, then ``points`` random ones.

        Random points come from ``numpy.random.SeedSequence(seed)`` (its first spawned child).
        """
        import itertools

        import numpy as np

        names = list(self.domain)
        corners = [dict(zip(names, vals)) for vals in itertools.product(*(grid[n] for n in names))]
        draw = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        fixed = set(grid.get("fixed", ()))
        randoms = [
            {
                n: (draw.choice(grid[n]).item() if n in fixed else _draw(self.domain[n], draw))
                for n in names
            }
            for _ in range(int(_one(grid["points"])))
        ]
        return [(p, "grid point") for p in corners] + [(p, "random point") for p in randoms]

    def _run(self, grid, seed=0, progress=None):
        import numpy as np

        points = self._points(grid, seed)
        # the stream of point i: the SeedSequence's child i + 2 (child 0 drew the points; the
        # numbering is the one every earlier version used, so runs are unchanged)
        streams = np.random.SeedSequence(seed).spawn(len(points) + 2)[2:]
        out = []
        for i, (point, label) in enumerate(points):
            if progress is not None:
                progress(f"{self.id}: {i + 1} of {len(points)}")
            out.append(self._check(point, np.random.default_rng(streams[i]), label))
        return out

    def _plot(self, report, path, dpi=110):
        """Draw two panels: each check's quantity against its bound, and their ratio.

        The first is log-log (the diagonal is equality), the second the ratio against one
        parameter, both from the enclosures at any magnitude; violated checks are red crosses,
        a quantity whose enclosure reaches 0 is a grey triangle at the enclosure's upper end.
        A point that cannot be drawn (outside the double range, or not positive on a log axis)
        is counted in the title, never dropped silently.
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from .model import VIOLATED

        x = self.x or list(self.domain)[-1]
        fig = Figure(figsize=(11, 4.8), layout="constrained")
        FigureCanvasAgg(fig)
        ax1, ax2 = fig.subplots(1, 2)
        lims: list[float] = []
        omitted = 0
        styles = (
            ("holds", dict(marker="o", color="C0", ls="", ms=4, label="holds")),
            ("inconclusive", dict(marker="s", color="C1", ls="", ms=5, mfc="none",
                                  label="inconclusive (enclosures overlap)")),
            ("unresolved", dict(marker="v", color="0.4", ls="", ms=5,
                                label="quantity's enclosure reaches 0 (at its upper end)")),
            (VIOLATED, dict(marker="x", color="red", ls="", ms=8, mew=2, label="violated")),
        )
        groups: dict[str, list] = {k: [] for k, _ in styles}
        for c in report.checks:
            lhs, rhs = c.lhs, c.rhs
            if lhs is None or rhs is None:
                omitted += 1
                continue
            b = float(c.scaled_bound) if c.scaled_bound is not None else rhs.mid
            unresolved = lhs.sign() not in (1, -1)
            e = lhs.floats()[1] if unresolved else lhs.mid
            if not (b > 0 and e > 0 and b < 1e308 and e < 1e308):
                omitted += 1
                continue
            kind = (VIOLATED if c.verdict == VIOLATED else "unresolved" if unresolved
                    else "holds" if c.verdict == "holds" else "inconclusive")
            groups[kind].append((b, e, c.params[x], c.log10_ratio))
            lims += [b, e]
        for kind, style in styles:
            pts = groups[kind]
            if not pts:
                continue
            ax1.loglog([p[0] for p in pts], [p[1] for p in pts], **style)
            ratios = [(p[2], 10.0 ** p[3]) for p in pts
                      if p[3] is not None and -307 < p[3] < 307]
            if ratios:
                ax2.semilogy([r[0] for r in ratios], [r[1] for r in ratios], **style)
        if lims:
            lo, hi = min(lims), max(lims)
            ax1.plot([lo, hi], [lo, hi], "k-", lw=1, label="quantity = bound")
        ax2.axhline(1.0, color="k", lw=1, label="ratio 1")
        if _interval(x, self.domain[x])[3]:
            ax2.set_xscale("log")
        ax1.set(
            xlabel="bound" + (f" (x {report.bound_scale:g})" if report.bound_scale != 1 else ""),
            ylabel=self.quantity_name,
            title=f"{self.quantity_name} against the bound ({len(report.checks)} checks"
            + (f"; {omitted} outside the drawable range, not drawn)" if omitted else ")"),
        )
        ax2.set(
            xlabel=x,
            ylabel=f"{self.quantity_name} / bound",
            title=f"ratio against {x} (relation {self.relation})",
        )
        for ax in (ax1, ax2):
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(
            f"{self.id}: {report.verdict}\n{self.formula().title} "
            f"({self.source or 'stated by the user'})",
            fontsize=10,
        )
        fig.savefig(path, dpi=dpi)
        return path

    def _space(self):
        from hypothesis import strategies as st

        def strategy(dom):
            lo, hi, integer, _ = _interval("", dom)
            return st.integers(lo, hi) if integer else st.floats(lo, hi, allow_nan=False)

        def evaluate(inst):
            from .decide import bound_enclosure, decide

            c = decide(self._check(inst), 0)  # decided on enclosures, refined where needed
            return [(f"{c.quantity} {c.relation} bound", c.lhs, c.rhs if c.rhs is not None
                     else bound_enclosure(c), c.relation, 0.0)]

        return st.fixed_dictionaries({n: strategy(d) for n, d in self.domain.items()}), evaluate


def _declaration_problem(c) -> str:
    """Return what is wrong with a claim's id, relation, method or domain ('' when nothing)."""
    if not isinstance(c.id, str) or not c.id.isidentifier():
        return f"claim id {c.id!r}: letters, digits and _ only"
    if c.relation not in RELATIONS:
        return f"{c.id}: relation must be one of {RELATIONS}, got {c.relation!r}"
    if c.method not in QUICK_METHODS:
        return f"{c.id}: method must be one of {QUICK_METHODS}, got {c.method!r}"
    if not callable(c.quantity):
        return f"{c.id}: the quantity must be a function, got {type(c.quantity).__name__}"
    if not isinstance(c.domain, dict) or not c.domain:
        return f"{c.id}: the domain names no parameter"
    for name, dom in c.domain.items():
        try:
            _interval(name, dom)
        except ValueError as e:
            return f"{c.id}: {e}"
    if c.x and c.x not in c.domain:
        return f"{c.id}: x={c.x!r} is not a parameter of the domain"
    return ""


#: the kinds a domain entry may name as its third element
KINDS = ("int", "real", "log")


def _interval(name, dom):
    """``(lo, hi, integer, log)`` of a domain entry; ValueError (one line) when malformed.

    ``(lo, hi)`` is an integer range when both ends are ``int`` and a real interval otherwise;
    ``(lo, hi, "int")`` and ``(lo, hi, "real")`` say it explicitly, ``(lo, hi, "log")`` is a
    positive real interval sampled on a log scale.
    """
    if (
        not isinstance(dom, (tuple, list))
        or len(dom) not in (2, 3)
        or (len(dom) == 3 and dom[2] not in KINDS)
    ):
        raise ValueError(f"domain of {name}: give (lo, hi) or (lo, hi, kind) with kind one of "
                         f"{', '.join(KINDS)}, got {dom!r}")
    lo, hi = dom[0], dom[1]
    if not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
        for x in (lo, hi)
    ):
        raise ValueError(f"domain of {name}: the ends must be finite numbers, got {dom!r}")
    if not lo <= hi:
        raise ValueError(f"domain of {name}: lo > hi in {dom!r}")
    kind = dom[2] if len(dom) == 3 else ("int" if isinstance(lo, int) and isinstance(hi, int)
                                         else "real")
    integer = kind == "int"
    if integer and not (float(lo).is_integer() and float(hi).is_integer()):
        raise ValueError(f"domain of {name}: an integer range needs integer ends, got {dom!r}")
    if integer:
        lo, hi = int(lo), int(hi)
    elif kind in ("real", "log"):
        lo, hi = float(lo), float(hi)
    log = kind == "log"
    if log and lo <= 0:
        raise ValueError(
            f"domain of {name}: a log scale needs a positive real interval, got {dom!r}"
        )
    return lo, hi, integer, log


def _interval_text(name, dom) -> str:
    lo, hi, integer, log = _interval(name, dom)
    return f"{name} in {'{' if integer else '['}{lo}..{hi}{'}' if integer else ']'}" + (
        " (log)" if log else ""
    )


def _ends(dom) -> list:
    lo, hi, _, _ = _interval("", dom)
    return sorted({lo, hi})


def _spread(dom) -> list:
    """Four values from lo to hi (log-spaced on a log domain), the ends included."""
    import numpy as np

    lo, hi, integer, log = _interval("", dom)
    xs = np.geomspace(lo, hi, 4) if log else np.linspace(lo, hi, 4)
    return sorted({int(round(x)) for x in xs}) if integer else sorted({float(x) for x in xs})


def _draw(dom, rng):
    lo, hi, integer, log = _interval("", dom)
    if integer:
        return int(rng.integers(lo, hi + 1))
    return (
        float(math.exp(rng.uniform(math.log(lo), math.log(hi))))
        if log
        else float(rng.uniform(lo, hi))
    )


def _one(v):
    return v[0] if isinstance(v, (list, tuple)) else v


def _fix_overridden(grid, overrides) -> None:
    """Let random points draw an overridden parameter from the values given.

    ``--N 4``: every check at N = 4.
    """
    grid["fixed"] = [k for k in overrides if k != "points"]


def _search_text(res: dict) -> str:
    from mcsa_cli import dumps

    head = f"search over {res['space']}: {res['examples']} examples, seed {res['seed']}"
    if res["found"]:
        return (
            f"{head}\nCOUNTEREXAMPLE ({res['check']}): {res['empirical']:.6g} "
            f"vs bound {res['bound']:.6g} (ratio {_ratio_text(res)}) at "
            f"{dumps(res['counterexample'])}"
        )
    close = res.get("closest")
    tail = (f"; closest: ratio {_ratio_text(close)} at {dumps(close['instance'])}" if close
            else "")
    return f"{head}\nno violation found{tail}"


def _ratio_text(row: dict) -> str:
    """Write a search row's ratio at any magnitude ("3.1e-200"; "10^-412.3" beyond doubles)."""
    lr = row.get("log10_ratio")
    r = row.get("ratio")
    if r is not None and r != 0 and math.isfinite(r):
        return f"{r:.4g}"
    if lr is not None:
        return f"10^{lr:.4g}"
    return f"{r:.4g}" if r is not None else "undefined"
