"""Claim objects: every numbered result of the seeds as sympy expressions.

A :class:`Claim` carries its id, title, source (seed file and location), the
assumptions it rests on (by name, see :data:`ASSUMPTIONS`), its free parameters with
their domains, and one or more :class:`Quantity` objects.  Each quantity is kept in
one or more :class:`Form` objects:

``stated``
    as printed in the seed, with O(.) terms dropped;
``explicit``
    every constant kept, assembled from the proof and the lemmas it cites, so that it
    is a true inequality if the proof is right;
``moment``
    the proof's intermediate form with E_q||s||^2 and ||s(z_{t-1})||^2 in place of L^2;
``corrected``
    our correction, where a check or the audit shows the printed form to be wrong
    (the printed form is always kept next to it).

Evaluation goes through :class:`bounds.numerics.Evaluator` (NumPy, mpmath fallback).
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import importlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np
import sympy as sp

from .numerics import Evaluator, as_float_array, lambdify

#: the precisions (bits) :meth:`Claim.enclose_form` tries in turn by default
ENCLOSE_PRECISIONS = (64, 256, 1024, 4096, 16384)

#: The named assumptions of the toolkit's formulas.  Claims refer to these keys.
BUILTIN_ASSUMPTIONS: Mapping[str, str] = MappingProxyType({
    "A1": "geometric ergodicity: d_TV(P^n(eta,.), Pi) <= C rho^n (Kim et al. 2022 Assumption 1)",
    "A2": "bounded importance weight: w* = sup_z pi(z)/q_def(z) < inf, r = 1 - 1/w* < 1 (Kim et "
          "al. 2022 Assumption 2)",
    "A3": "bounded score: ||s(lambda; z)||_2 <= L for all lambda, z (Kim et al. 2022 Assumption 3)",
    "INV": "the Markov kernel is Pi-invariant (Kim et al. 2022 Proposition 1)",
    "NORM": "pi and q are normalised densities, so E_q[w] = 1",
    "DIFF": "differentiation under the integral (Leibniz rule) is allowed",
    "GAUSS": "Gaussian target and Gaussian variational family",
    "BOUNDED-F": "the test function is bounded: ||g|| <= L",
    "QUAD": "approximately quadratic log density, -log f = c + (theta-theta_MAP)^T H "
            "(theta-theta_MAP)/2 (El hanchi 2018 Eq. 6)",
    "SPD": "H = N C + G with C, G symmetric, C positive definite, G positive semidefinite (El "
           "hanchi 2018 Eq. 9)",
    "PRECOND": "preconditioner D = (k/2) H^-1 (El hanchi 2018 Eq. 10)",
    "CLT": "the minibatch gradient noise is Gaussian, N(0, N^2 C/|S|) (El hanchi 2018 Eq. 4)",
    "STATIONARY": "the chain is at its stationary distribution",
    "MCGD": "the cited MCGD analysis' own assumptions (convexity / smoothness, see Kim et al. 2022 "
            "Table 1 notes)",
})


@functools.cache
def _all_assumptions() -> dict[str, str]:
    """Collect the built-in assumptions and those of every ``mcsa_verify.bounds`` module.

    A claim module declares its own as a value, ``ASSUMPTIONS = {key: text}`` (docs/own-claim.md);
    a built-in key keeps its text.
    """
    from .plugins import BOUNDS_GROUP, discover

    out: dict[str, str] = {}
    for p in discover(BOUNDS_GROUP):
        declared = getattr(importlib.import_module(p.module), "ASSUMPTIONS", None)
        if isinstance(declared, Mapping):
            out.update({str(k): str(v) for k, v in declared.items()})
    return {**BUILTIN_ASSUMPTIONS, **{k: v for k, v in out.items() if k not in BUILTIN_ASSUMPTIONS}}


class _Assumptions(Mapping):
    """The named assumptions, read-only: :data:`BUILTIN_ASSUMPTIONS` and the claim modules'."""

    def __getitem__(self, key: str) -> str:
        """Return the text of assumption ``key``."""
        return _all_assumptions()[key]

    def __iter__(self) -> Iterator[str]:
        """Iterate over the keys (the built-in ones, then the claim modules')."""
        return iter(_all_assumptions())

    def __len__(self) -> int:
        """Return the number of assumptions."""
        return len(_all_assumptions())

    def setdefault(self, key: str, text: str) -> str:
        """Name an assumption for a claim a script or notebook builds (a package declares its own).

        The process's set of assumptions (built once from the claim modules) gets ``key`` unless
        it has it; a key's text is never replaced.

        Parameters
        ----------
        key, text : str
            The assumption's key and its statement, with its source.

        Returns
        -------
        str
            The text the key has.
        """
        return _all_assumptions().setdefault(str(key), str(text))


#: Every named assumption: a view (no item assignment; a script names its own with setdefault).
ASSUMPTIONS: Mapping[str, str] = _Assumptions()


class ParamError(ValueError):
    """A parameter value outside its domain; the message is one line."""


@dataclass(frozen=True)
class Param:
    """A free parameter of a claim, with its domain.

    ``name`` is the Python keyword, ``flag`` the command-line flag, ``label`` the
    paper's symbol.  Domains are intervals, optionally restricted to integers.

    Parameters
    ----------
    name : str
        The Python keyword (``"w_star"``).
    flag : str
        The command-line flag (``"--w-star"``).
    label : str
        The paper's symbol, as text.
    description : str
        What the parameter is, in words.
    lower, upper : float, optional
        The ends of the domain (None: unbounded on that side).
    lower_strict, upper_strict : bool, default False
        Whether an end is excluded from the domain.
    integer : bool, default False
        Whether the parameter is an integer.
    default : float, optional
        The value used when none is given (None: the parameter is required).
    sample_max : float, default 1e4
        The upper end used when the domain is sampled at random (tests, searches).
    log_scale : bool, default False
        Whether to sample on a log scale.
    limit : int, optional
        The largest value evaluated (integers: :data:`INT_LIMIT` when None).
    """

    name: str
    flag: str
    label: str
    description: str
    lower: float | None = None
    lower_strict: bool = False
    upper: float | None = None
    upper_strict: bool = False
    integer: bool = False
    default: float | None = None
    #: upper end used when sampling the domain at random (tests, searches)
    sample_max: float = 1e4
    #: sample on a log scale (positive parameters spanning decades)
    log_scale: bool = False
    #: the largest value evaluated (integers: :data:`INT_LIMIT` unless set; real numbers are
    #: limited to magnitudes in [1e-100000, 1e100000] and :data:`MAX_DIGITS` digits)
    limit: int | None = None

    @cached_property
    def symbol(self) -> sp.Symbol:
        """The sympy symbol of the parameter: real, integer and positive as its domain says."""
        assumptions = {"real": True}
        if self.integer:
            assumptions["integer"] = True
        if self.lower is not None and (self.lower > 0 or (self.lower == 0 and self.lower_strict)):
            assumptions["positive"] = True
        elif self.lower is not None and self.lower >= 0:
            assumptions["nonnegative"] = True
        return sp.Symbol(self.name, **assumptions)

    def with_domain(self, **changes) -> "Param":
        """Return a copy with other fields (a narrower domain), sharing this sympy symbol.

        Parameters
        ----------
        **changes
            Fields to replace (``lower``, ``upper``, ``description``, ...).

        Returns
        -------
        Param
        """
        new = dataclasses.replace(self, **changes)
        # a narrower domain must not change the sympy symbol shared across claims
        new.__dict__["symbol"] = self.symbol
        return new

    def domain_text(self) -> str:
        """Write the domain in words, e.g. ``"2 ≤ N (integer)"``."""
        lo = ("" if self.lower is None
              else f"{_fmt(self.lower)} {'<' if self.lower_strict else '≤'} ")
        hi = ("" if self.upper is None
              else f" {'<' if self.upper_strict else '≤'} {_fmt(self.upper)}")
        kind = " (integer)" if self.integer else ""
        return f"{lo}{self.label}{hi}{kind}"

    def check(self, value, flag: bool = False) -> None:
        """Raise :class:`ParamError` (one line) when ``value`` is outside the domain.

        ``value`` may be a float, an int of any size or a :class:`decimal.Decimal` (exact
        command-line input, also beyond the double range); comparisons are exact.  The
        message names the Python argument (``w_star``), or with ``flag=True`` the
        command-line flag (``--w-star``).
        """
        where = f"{self.flag if flag else self.name} ({self.label})"
        v: decimal.Decimal | float
        if isinstance(value, (decimal.Decimal, int)) and not isinstance(value, bool):
            v = decimal.Decimal(value)
            shown = (str(value) if isinstance(value, int) and abs(value) < 10 ** 15
                     else f"{v:g}" if isinstance(value, int) else str(v))
            if len(shown) > 24:  # a 40-digit value is echoed by its first digits and its exponent
                from mcsa_cli import show_param

                shown = show_param(v)
            nan, finite = v.is_nan(), v.is_finite()
            is_int = finite and v == v.to_integral_value()
        else:
            v = float(value)
            shown = _fmt(v) if math.isfinite(v) else str(v)
            nan, finite = math.isnan(v), math.isfinite(v)
            is_int = finite and v == int(v)
        if nan:
            raise ParamError(f"{where} must be a number, got nan")
        if self.integer and not is_int:
            raise ParamError(f"{where} must be an integer, got {shown}")
        if not finite:
            raise ParamError(f"{where} must be finite, got {shown}")
        if self.lower is not None and (v < self.lower or (self.lower_strict and v == self.lower)):
            raise ParamError(f"{where} must satisfy {self.domain_text()}, got {shown}")
        if self.upper is not None and (v > self.upper or (self.upper_strict and v == self.upper)):
            raise ParamError(f"{where} must satisfy {self.domain_text()}, got {shown}")
        if self.integer:
            top = self.limit if self.limit is not None else INT_LIMIT
            # v: a Decimal or a float, either compares with an int
            if abs(v) > top:  # type: ignore[operator]
                raise ParamError(f"{where}: at most {top:.0e} is evaluated, got {shown}")
            return
        d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(v)
        if d != 0 and not (-MAX_EXP <= d.adjusted() <= MAX_EXP):
            raise ParamError(
                f"{where}: numbers with decimal exponents from -{MAX_EXP} to {MAX_EXP} are "
                f"evaluated, got {shown}")
        if isinstance(value, decimal.Decimal) and len(value.as_tuple().digits) > MAX_DIGITS:
            raise ParamError(f"{where}: at most {MAX_DIGITS} significant digits are evaluated, "
                             f"got {len(value.as_tuple().digits)}")

    def exact(self, value, flag: bool = False):
        """Read ``value`` as it is evaluated.

        A string of a decimal number (``"1e400"``, ``"1.000000000001"``) becomes an exact
        :class:`decimal.Decimal` (an ``int`` for an integer parameter), as the command line
        reads it; other values are returned as they are.

        Raises
        ------
        ParamError
            A string that is not a number (the message names the argument).
        """
        if isinstance(value, np.ndarray) and value.dtype.kind in "USO":
            out = np.empty(value.shape, dtype=object)
            for idx, x in np.ndenumerate(value):
                out[idx] = self.exact(x, flag)
            return out
        if isinstance(value, (list, tuple)):
            return self.exact(np.array(value, dtype=object), flag)
        if not isinstance(value, (str, np.str_)):
            return value
        text = str(value).strip()
        try:
            d = decimal.Decimal(text)
        except decimal.InvalidOperation:
            d = None
        if d is None or not text:
            raise ParamError(
                f"{self.flag if flag else self.name} ({self.label}) must be a number, got {text!r}")
        if self.integer and d.is_finite() and d == d.to_integral_value():
            return int(d)
        return d


#: the largest integer parameter evaluated, unless the parameter sets its own ``limit``
INT_LIMIT = 10 ** 12
#: real parameters: decimal exponents within +-MAX_EXP, at most MAX_DIGITS significant digits
MAX_EXP = 100000
MAX_DIGITS = 2000


def _fmt(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}"


@dataclass(frozen=True)
class Source:
    """Where a claim is printed: a document and a location in it.

    ``document`` is the document's key in the bibliography (:mod:`bounds.references`: ``"001"``
    for Kim et al. 2022, or a user's key such as ``"Levin & Peres (2017)"``), ``where`` the
    section, equation or theorem.  ``str()`` is the bibliographic citation.

    Parameters
    ----------
    document : str
        The document's bibliography key (``"001"``, ``"Levin & Peres (2017)"``).
    where : str
        The location in it: a section, equation or theorem (``"§4.3 Theorem 3"``).
    """

    document: str
    where: str

    def __str__(self) -> str:
        """Cite the source, e.g. ``"Kim et al. (NeurIPS 2022), §4.3 Theorem 3"``."""
        from .references import cite

        return cite(self)


@dataclass(frozen=True)
class Constraint:
    """A relation between parameters that must hold, e.g. ``mu_norm <= L``."""

    relation: sp.Basic  # a sympy relational in parameter symbols
    message: str


@dataclass(frozen=True)
class Form:
    """One form of a quantity: an expression plus how it was obtained.

    Parameters
    ----------
    name : str
        The form's name (``"stated"``, ``"explicit"``, ...).
    expr : sympy.Expr
        The formula.
    derivation : str
        How it is obtained (where it is printed, what it follows from).
    dropped : tuple of sympy.Expr, default ()
        For a ``stated`` form: the terms the printed O(.) hides, each built from the proof
        (explicit = stated + sum(dropped) is tested).
    """

    name: str
    expr: sp.Expr
    derivation: str
    #: for ``stated`` forms: the terms the printed O(.) hides, each built from the proof.
    #: The bookkeeping identity explicit = stated + sum(dropped) is tested.
    dropped: tuple[sp.Expr, ...] = ()


@dataclass(frozen=True)
class Expansion:
    """A series of ``form`` of this quantity as ``variable -> point``.

    ``series`` is derived with sympy (see :mod:`bounds.series`), never typed in.
    ``remainder_order`` is the power of the next neglected term, in
    ``1/variable`` when ``point`` is oo and in ``variable`` when ``point`` is 0.
    """

    form: str
    variable: sp.Symbol
    point: sp.Expr
    series: sp.Expr
    remainder_order: int
    note: str = ""


@dataclass(frozen=True)
class Quantity:
    """A bounded (or equated) quantity with its forms.

    ``relation`` reads ``quantity RELATION form``: ``<=`` for an upper bound,
    ``>=`` for a lower bound, ``=`` for an identity, ``~`` for an approximation.

    Parameters
    ----------
    name : str
        The quantity's name (``"variance"``).
    description : str
        What it is, in words.
    relation : {"<=", ">=", "=", "~"}
        How the quantity relates to its forms.
    forms : tuple of Form
        Its forms, the printed one first.
    expansions : tuple of Expansion, default ()
        Asymptotic expansions of the quantity.
    """

    name: str
    description: str
    relation: str
    forms: tuple[Form, ...]
    expansions: tuple[Expansion, ...] = ()

    @classmethod
    def stated(cls, name: str, description: str, relation: str, expr: sp.Expr,
               derivation: str) -> Quantity:
        """Build a quantity with one form, the printed one (``"stated"``).

        Parameters
        ----------
        name, description, relation : str
            As the fields of the same names.
        expr : sympy.Expr
            The printed formula.
        derivation : str
            How the formula is obtained (where it is printed, what it follows from).

        Returns
        -------
        Quantity
            ``Quantity(name, description, relation, (Form("stated", expr, derivation),))``.
        """
        return cls(name, description, relation, (Form("stated", expr, derivation),))

    def form(self, name: str) -> Form:
        """Return the form called ``name``; raise ``KeyError`` if there is none."""
        for f in self.forms:
            if f.name == name:
                return f
        raise KeyError(f"quantity {self.name!r} has no form {name!r}")

    @property
    def form_names(self) -> tuple[str, ...]:
        """The names of the forms, in order (``("stated", "explicit")``)."""
        return tuple(f.name for f in self.forms)


@dataclass
class Claim:
    """A numbered result of a seed document, as formulas you can evaluate.

    Parameters
    ----------
    id : str
        The claim's id (``"theorem3"``).
    title : str
        Its title.
    source : Source
        Where it is printed.
    assumptions : tuple of str
        The assumptions it rests on (keys of ``ASSUMPTIONS``).
    params : tuple of Param
        Its free parameters.
    quantities : tuple of Quantity
        The bounded (or equated) quantities, with their forms.
    definitions : dict of sympy.Symbol to sympy.Expr, optional
        Defined symbols (r, gamma, ...) and what they stand for, substituted before evaluation.
    constraints : tuple of Constraint, default ()
        Constraints between parameters beyond their domains.
    notes : tuple of str, default ()
        Remarks shown with the claim.
    kind : {"bound", "identity", "approximation", "calculator", "data"}
        What sort of result the claim is.
    example : dict of str to float, optional
        A minimal point used in docs and tests, ``{param: value}``.

    Raises
    ------
    KeyError
        An unknown assumption.
    ValueError
        A duplicate parameter, or a form using an undeclared symbol.
    """

    id: str
    title: str
    source: Source
    assumptions: tuple[str, ...]
    params: tuple[Param, ...]
    quantities: tuple[Quantity, ...]
    #: defined symbols (r, gamma, ...) and what they stand for, substituted before evaluation
    definitions: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    constraints: tuple[Constraint, ...] = ()
    notes: tuple[str, ...] = ()
    #: bound | identity | approximation | calculator | data
    kind: str = "bound"
    #: minimal grids/points used in docs and tests: {param: value}
    example: dict[str, float] = field(default_factory=dict)

    def __post_init__(self):
        """Check the assumptions are known, the parameters distinct and every symbol declared."""
        for a in self.assumptions:
            if a not in ASSUMPTIONS:
                raise KeyError(f"{self.id}: unknown assumption {a}")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: duplicate parameter")
        for q in self.quantities:
            for f in q.forms:
                free = self.resolve(f.expr).free_symbols
                unknown = {s.name for s in free} - set(names)
                if unknown:
                    raise ValueError(f"{self.id}.{q.name}.{f.name}: unknown symbols {unknown}")

    # ------------------------------------------------------------------ structure
    def param(self, name: str) -> Param:
        """Return the parameter called ``name``; raise ``KeyError`` if there is none.

        Parameters
        ----------
        name : str
            The parameter's Python name.

        Returns
        -------
        Param
        """
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.id} has no parameter {name!r}")

    def quantity(self, name: str) -> Quantity:
        """Return the quantity called ``name``; raise ``KeyError`` if there is none.

        Parameters
        ----------
        name : str
            The quantity's name.

        Returns
        -------
        Quantity
        """
        for q in self.quantities:
            if q.name == name:
                return q
        raise KeyError(f"{self.id} has no quantity {name!r}")

    def resolve(self, expr: sp.Expr) -> sp.Expr:
        """Substitute the defined symbols (r, gamma, ...) until none remain."""
        e = sp.sympify(expr)
        for _ in range(8):
            new = e.subs(self.definitions)
            if new == e:
                break
            e = new
        return e

    def form_params(self, quantity: str, form: str) -> tuple[Param, ...]:
        """Return the parameters one form depends on (after substituting the definitions)."""
        expr = self.resolve(self.quantity(quantity).form(form).expr)
        used = {s.name for s in expr.free_symbols}
        return tuple(p for p in self.params if p.name in used)

    @property
    def required(self) -> tuple[Param, ...]:
        """Parameters without default used by at least one form."""
        used = set()
        for q in self.quantities:
            for f in q.forms:
                used |= {p.name for p in self.form_params(q.name, f.name)}
        return tuple(p for p in self.params if p.name in used and p.default is None)

    # ------------------------------------------------------------------ evaluation
    @cached_property
    def _evaluators(self) -> dict[tuple[str, str], tuple[Evaluator, tuple[str, ...]]]:
        out = {}
        for q in self.quantities:
            for f in q.forms:
                ps = self.form_params(q.name, f.name)
                out[(q.name, f.name)] = (
                    Evaluator(self.resolve(f.expr), tuple(p.symbol for p in ps)),
                    tuple(p.name for p in ps),
                )
        return out

    def evaluator(self, quantity: str, form: str) -> tuple[Evaluator, tuple[str, ...]]:
        """Return the compiled form (:class:`bounds.numerics.Evaluator`) and its argument names."""
        return self._evaluators[(quantity, form)]

    @cached_property
    def _constraint_functions(self):
        """(constraint, its symbols, its lambdified relation), built once per claim."""
        out = []
        for c in self.constraints:
            syms = sorted(c.relation.free_symbols, key=lambda s: s.name)
            out.append((c, syms, lambdify(syms, c.relation, "numpy")))
        return tuple(out)

    def exact(self, values: dict, flag: bool = False) -> dict:
        """Read the decimal strings among ``values`` exactly (:meth:`Param.exact`)."""
        names = {p.name for p in self.params}
        return {k: (self.param(k).exact(v, flag) if k in names else v) for k, v in values.items()}

    def validate(self, values: dict[str, np.ndarray], flag: bool = False) -> None:
        """Check domains and cross-parameter constraints.

        Raises
        ------
        ParamError
            A value outside its domain or a constraint broken (one line naming the Python
            argument, or with ``flag=True`` the command-line flag).
        """
        values = self.exact(values, flag)
        for name, arr in values.items():
            p = self.param(name)
            a = np.asarray(arr)
            for v in np.atleast_1d(a if a.dtype == object else a.astype(float)).ravel():
                p.check(v, flag)
        for c, syms, f in self._constraint_functions:
            if not all(s.name in values for s in syms):
                continue
            with np.errstate(all="ignore"):
                ok = np.asarray(f(*[as_float_array(values[s.name]) for s in syms]))
            if not np.all(ok):
                raise ParamError(f"{self.id}: {c.message}")

    def with_defaults(self, values: dict) -> dict:
        """Return ``values`` with the defaults of the parameters not given filled in."""
        out = dict(values)
        for p in self.params:
            if p.name not in out and p.default is not None:
                out[p.name] = p.default
        return out

    def missing(self, quantity: str, form: str, values: dict) -> tuple[Param, ...]:
        """Return the parameters a form needs that ``values`` does not give."""
        return tuple(p for p in self.form_params(quantity, form) if p.name not in values)

    def evaluate_form(self, quantity: str, form: str, exact: bool = False, flag: bool = False,
                      **values):
        """Evaluate one form on broadcast parameter arrays (defaults filled in).

        Values may be floats, ints, :class:`decimal.Decimal` or decimal strings (read
        exactly, as the command line reads them).  With ``exact=True`` a value outside the
        double range is an ``mpf``.  Errors name the Python arguments (``flag=True``: the
        command-line flags).

        Parameters
        ----------
        quantity, form : str
            The quantity's and the form's names.
        exact : bool, default False
            Return an ``mpf`` for a value outside the double range, instead of a double.
        flag : bool, default False
            Name parameters by their command-line flags in error messages.
        **values
            The parameters, as arrays or scalars (broadcast together).

        Returns
        -------
        numpy.ndarray or float or mpmath.mpf
            The form's value at each broadcast point.

        Raises
        ------
        ParamError
            A parameter the form needs is missing, or outside its domain.
        """
        values = self.exact(self.with_defaults(values), flag)
        ev, names = self.evaluator(quantity, form)
        miss = [n for n in names if n not in values]
        if miss:
            raise ParamError(
                f"{self.id}.{quantity}.{form} needs "
                + ", ".join(self.param(n).flag if flag else self.param(n).name for n in miss)
            )
        self.validate({n: values[n] for n in names}, flag)
        return ev(*[values[n] for n in names], exact=exact, boundaries=self._boundaries(names))

    def enclose_form(self, quantity: str, form: str, prec: int | None = None, **values):
        """Enclose one form's value at one point in ball arithmetic (docs/methods.md §12).

        Parameters
        ----------
        quantity, form : str
            The form.
        prec : int, optional
            Working precision in bits.  By default it starts at 64 bits and is raised (64,
            256, 1024, then doubled up to 16384) until the enclosure's width is at most
            2^-50 of its magnitude, or the cap is reached.
        **values
            The parameters, as :meth:`evaluate_form` takes them (doubles, ints, Decimals and
            decimal strings, read exactly).

        Returns
        -------
        bounds.enclosure.Enclosure
            It provably contains the form's value at the given parameters; whole-line when
            the form cannot be enclosed there (e.g. ``0 * log 0`` at a domain end).
        """
        from .enclosure import Enclosure, enclose_expr

        values = self.exact(self.with_defaults(values))
        ev, names = self.evaluator(quantity, form)
        miss = [n for n in names if n not in values]
        if miss:
            raise ParamError(f"{self.id}.{quantity}.{form} needs "
                             + ", ".join(self.param(n).name for n in miss))
        self.validate({n: values[n] for n in names})
        expr = self._resolved(quantity, form)
        point = {n: values[n] for n in names}
        if prec is not None:
            out = enclose_expr(expr, point, prec)
            return out if out.finite else (self._edge_limit(expr, point, prec) or out)
        out = Enclosure(-math.inf, math.inf, "arb-64")
        for bits in ENCLOSE_PRECISIONS:
            out = enclose_expr(expr, point, bits)
            if not out.finite:
                out = self._edge_limit(expr, point, bits) or out
            if out.finite and out.rel_width() <= 2.0 ** -50:
                return out
        return out

    def _edge_limit(self, expr, point: dict, prec: int):
        """Enclose the one-sided limit of ``expr`` at a real parameter on its domain's end.

        As :meth:`mp_value` takes it (``0 * log 0``, ``0^0`` at w* = 1); None if none applies or
        the limit is not finite.
        """
        from fractions import Fraction

        from .enclosure import enclose_expr

        def exact(v):
            if isinstance(v, decimal.Decimal):
                return sp.Rational(str(v))
            if isinstance(v, (int, np.integer)):
                return sp.Integer(int(v))
            f = Fraction(v) if not isinstance(v, Fraction) else v
            return sp.Rational(f.numerator, f.denominator)

        for name, v in point.items():
            p = self.param(name)
            if p.integer:
                continue
            side = ("+" if p.lower is not None and float(v) == p.lower else
                    "-" if p.upper is not None and float(v) == p.upper else None)
            if side is None:
                continue
            others = {self.param(n).symbol: exact(x) for n, x in point.items() if n != name}
            try:
                lim = sp.limit(expr.subs(others), p.symbol, exact(v), side)
            except (NotImplementedError, ValueError, TypeError):
                continue
            if lim.is_finite:
                out = enclose_expr(lim, {}, prec)
                if out.finite:
                    return out
        return None

    def _resolved(self, quantity: str, form: str) -> sp.Expr:
        """Return the form's expression with its definitions substituted (cached per form)."""
        key = (quantity, form)
        cache = self.__dict__.setdefault("_resolved_cache", {})
        if key not in cache:
            cache[key] = self.resolve(self.quantity(quantity).form(form).expr)
        return cache[key]

    def mp_value(self, quantity: str, form: str, **values):
        """Evaluate the form at one point in adaptive-precision mpmath.

        On a domain boundary the value is the one-sided limit
        (:meth:`bounds.numerics.Evaluator.mp`).
        """
        values = self.exact(self.with_defaults(values))
        ev, names = self.evaluator(quantity, form)
        point = [values[n] if isinstance(values[n], (int, decimal.Decimal)) else float(values[n])
                 for n in names]
        nudge = [(1 if lo is not None and x == lo else -1 if hi is not None and x == hi else 0)
                 for x, (lo, hi) in zip(point, self._boundaries(names))]
        return ev.mp(*point, nudge=nudge)

    def _boundaries(self, names):
        """Domain ends of the real (non-integer) parameters, for one-sided limits."""
        return [(None, None) if self.param(n).integer else (self.param(n).lower,
                                                            self.param(n).upper)
                for n in names]

    def evaluate(self, exact: bool = False, flag: bool = False,
                 **values) -> dict[str, dict[str, np.ndarray | None]]:
        """Evaluate every form whose parameters are given; others map to ``None``.

        Values and errors as in :meth:`evaluate_form`.

        Parameters
        ----------
        exact : bool, default False
            As in :meth:`evaluate_form`.
        flag : bool, default False
            As in :meth:`evaluate_form`.
        **values
            The parameters, as arrays or scalars (broadcast together).

        Returns
        -------
        dict of str to dict of str to numpy.ndarray or None
            ``{quantity: {form: values}}``, None for a form whose parameters are not all given.
        """
        values = self.exact(self.with_defaults(values), flag)
        mine = {k: v for k, v in values.items() if k in {p.name for p in self.params}}
        self.validate(mine, flag)
        shape = np.broadcast_shapes(*[np.shape(v) for v in mine.values()]) if mine else ()
        out: dict[str, dict[str, np.ndarray | None]] = {}
        for q in self.quantities:
            out[q.name] = {}
            for f in q.forms:
                ev, names = self.evaluator(q.name, f.name)
                if any(n not in values for n in names):
                    out[q.name][f.name] = None
                    continue
                v = ev(*[values[n] for n in names], exact=exact, boundaries=self._boundaries(names))
                out[q.name][f.name] = (np.broadcast_to(v, shape).copy() if np.shape(v) != shape
                                       else v)
        return out

    def latex(self, quantity: str, form: str) -> str:
        """Write one form as LaTeX with sympy's own symbol names (:func:`latex`: the papers').

        Parameters
        ----------
        quantity, form : str
            The quantity's and the form's names.

        Returns
        -------
        str
            ``sympy.latex`` of the form's expression.
        """
        return sp.latex(self.quantity(quantity).form(form).expr)

    def _repr_markdown_(self) -> str:
        """Jupyter: the claim's forms in LaTeX, with its source and assumptions."""
        from .references import cite

        to_latex = latex  # the papers' symbols (w^*, \\mu, ...)

        lines = [f"**{self.id}**: {self.title}  ", f"*{cite(self.source)}*", ""]
        if self.assumptions:
            lines.append("Assumptions: "
                         + "; ".join(f"{a} ({ASSUMPTIONS[a]})" for a in self.assumptions))
            lines.append("")
        for q in self.quantities:
            lines.append(f"- {q.name} ({q.description}), {q.relation} each form:")
            for f in q.forms:
                lines.append(f"    - {f.name}: $${to_latex(f.expr)}$$")
        return "\n".join(lines)

    def pretty(self, quantity: str, form: str) -> str:
        """Write one form as a one-line sympy string (``sympy.sstr``)."""
        return sp.sstr(self.quantity(quantity).form(form).expr)


# --- LaTeX: the papers' notation -----------------------------------------------------
#: LaTeX of the symbols whose code names differ from the documents' notation, by symbol
#: name (Kim et al. (NeurIPS 2022) §4 for w*, C_cov, ||mu||_2, d_chi2; the CIS-as-IMH
#: draft for sigma_f^2; El hanchi (2018) Eqs. (10)-(17) for k, N, |S|, r, c, C, G, n).
#: The symbols keep their code names (the derivation cache and every caller use them);
#: only :func:`latex` prints these.
LATEX_NAMES = {
    "w_star": r"w^{*}",
    "mu_norm": r"\|\boldsymbol{\mu}\|_{2}",
    "c_cov": r"C_{\mathrm{cov}}",
    "chi2": r"d_{\chi^{2}}(\pi \parallel q)",
    "eq_s2": r"\mathbb{E}_{q_{\mathrm{def}}} \|\mathbf{s}\|_{2}^{2}",
    "s_prev2": r"\|\mathbf{s}(\mathbf{z}_{t-1})\|_{2}^{2}",
    "epi_s2": r"\mathbb{E}_{\pi} \|\mathbf{s}\|_{2}^{2}",
    "eq_f": r"\mathbb{E}_{q} f",
    "epi_f": r"\mathbb{E}_{\pi} f",
    "f_z": r"f(\mathbf{z})",
    "variance": r"\mathbb{V}[\mathbf{g}]",
    "bias": r"\mathrm{Bias}[\mathbf{g}]",
    "mse": r"\mathrm{MSE}[\mathbf{g}]",
    "tv": r"\delta",
    "kl": r"d_{\mathrm{KL}}(\pi \parallel q)",
    "kl_rev": r"d_{\mathrm{KL}}(q \parallel \pi)",
    "kl_min": r"\mathrm{KL}^{*}",
    "r_w": r"r",
    "w_sum": r"\left(\sum_{i} w(\mathbf{z}^{(i)})\right)",
    "sigma2": r"\sigma_{f}^{2}",
    "c_rate": r"c",
    "k_frac": r"k",
    "eps": r"\epsilon",
    "t_iter": r"t",
    "n_data": r"N",
    "batch": r"|S|",
    "eig_ratio": r"r",
    "c_max": r"c",
    "fisher": r"C",
    "prior": r"G",
    "n_avg": r"n",
}


def latex(expr) -> str:
    r"""Write ``expr`` as LaTeX in the documents' notation.

    The names are :data:`LATEX_NAMES` (``w^{*}``, ``\|\boldsymbol{\mu}\|_{2}``,
    ``C_{\mathrm{cov}}``, ...), passed through sympy's printer option ``symbol_names``; the
    sympy symbols themselves keep their code names.
    """
    expr = sp.sympify(expr)
    names = {s: LATEX_NAMES[s.name] for s in expr.atoms(sp.Symbol) if s.name in LATEX_NAMES}
    return sp.latex(expr, symbol_names=names)
