"""mcsa-verify: hold every bound of :mod:`bounds` against exact and Monte Carlo computations.

The public API (nothing else needs importing; importing :mod:`verify` loads no claim and
no heavy library)::

    import verify
    verify.claims()                        # every registered claim id (built-in and users')
    rep = verify.run("theorem3")           # a Report: verdict, readings, checks
    rep.verdict, rep.to_dataframe()        # one tidy row per check (pandas, "dataframe" extra)
    verify.search_claim("theorem3", seed=0)  # adversarial search for a counterexample
    verify.audit_steps("lemma5")           # the proof audit's steps of a claim
    verify.write_report("out")             # the HTML report of every claim

Claims come from the entry-point group ``mcsa_verify.claims`` (:mod:`verify.registry`);
the toolkit's three documents are registered there exactly as a user's package is
(``docs/own-claim.md``).  How verdicts are decided: :mod:`verify.decide`.

Documents: Kim et al., "Markov Chain Score Ascent" (NeurIPS 2022); the CIS-as-IMH draft;
El hanchi, "Stochastic gradient MCMC algorithms and their applications" (2018); see
``docs/references.md``.
"""

from __future__ import annotations

__all__ = ["__version__", "claims", "get", "run", "search_claim", "audit_steps", "write_report"]

from .quick import QuickClaim  # noqa: E402,F401  (a claim in a few lines; imports nothing heavy)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("mcsa-verify")
    except metadata.PackageNotFoundError:  # a bare source tree
        return "0+unknown"


__version__ = _version()


def claims() -> tuple[str, ...]:
    """Ids of every registered claim: the documents' order, then users' claims.

    Returns
    -------
    tuple of str
        Claim ids, e.g. ``("proposition1", ..., "theorem3", ...)``.
    """
    from .registry import claim_ids

    return claim_ids()


def get(claim: str):
    """Return the :class:`verify.model.Verification` of ``claim`` (its readings, grid, forms).

    Parameters
    ----------
    claim : str
        A claim id (:func:`claims`).

    Returns
    -------
    verify.model.Verification
        The claim's registered verification.

    Raises
    ------
    bounds.UnknownClaim
        No registered claim has this id.
    """
    from .registry import verifications

    reg = verifications()
    if claim not in reg:
        import bounds

        raise bounds.UnknownClaim(f"unknown claim {claim!r}; see verify.claims()")
    return reg[claim]


def run(claim: str, mode: str = "quick", seed: int = 0, bound_scale: float = 1.0,
        overrides: dict | None = None,
        progress=None):
    """Verify one claim.

    Parameters
    ----------
    claim : str
        A claim id (:func:`claims`).
    mode : {"quick", "full"}
        The claim's quick grid (seconds) or full grid (minutes).
    seed : int
        Seed of every Monte Carlo check (``numpy.random.SeedSequence`` streams).
    bound_scale : float
        Tighten every bound by this factor: a small enough value must give "violated".
    overrides : dict, optional
        Grid values to use instead of the claim's (keys: ``get(claim).overrides``).
    progress : callable, optional
        Called with a line of text as the claim's checks advance (passed to its ``run``).

    Returns
    -------
    verify.running.outcome.Report
        The checks, each reading's verdict and the final status (``.verdict``).
    """
    from .running.outcome import run_verification

    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
    rep = run_verification(get(claim), mode, seed=seed, bound_scale=bound_scale,
                           overrides=overrides,
                           progress=progress)
    rep.figure_png = lambda: _png(rep)  # drawn only when Jupyter displays the report
    return rep


def _png(rep, dpi: int = 70) -> bytes:
    import io

    from .presenting.plot import figure

    buf = io.BytesIO()
    figure(rep, buf, dpi=dpi)
    return buf.getvalue()


def search_claim(claim, seed: int = 0, max_examples: int = 200):
    """Search ``claim``'s declared space for a counterexample.

    The search itself is :func:`verify.searching.search.search`.

    Parameters
    ----------
    claim : str or verify.searching.spaces.SearchSpec
        A claim id with a search space, or a search space itself.
    seed : int
        Hypothesis seed; the same seed gives the same examples.
    max_examples : int
        Exact evaluations at most.

    Returns
    -------
    dict or None
        ``found``, ``examples``, ``space``, and the shrunk ``counterexample`` or the
        ``closest`` instance; None without a search space.
    """
    from .searching.search import search

    return search(claim, seed=seed, max_examples=max_examples)


def audit_steps(claim: str | None = None) -> list[dict]:
    """Return the proof audit's steps (:func:`verify.audit.rows`).

    Parameters
    ----------
    claim : str, optional
        A claim id; every claim's steps when None.

    Returns
    -------
    list of dict
        One dict a step: status, evidence, counterexample and correction, and how the status
        was established.
    """
    from .audit import rows

    return rows(claim)


def write_report(out="out", mode: str = "quick", seed: int = 0, dpi: int = 90) -> str:
    """Write the HTML report of every claim (:func:`verify.presenting.report.write_report`).

    Parameters
    ----------
    out : str or path
        The directory of ``report.html``.
    mode : str
        ``"quick"`` or ``"full"``: the run of every claim.
    seed : int
        The runs' seed.
    dpi : int
        The figures' resolution.

    Returns
    -------
    str
        The path of ``report.html``.
    """
    from .presenting.report import write_report as write

    return write(out, mode=mode, seed=seed, dpi=dpi)


def __getattr__(name):
    """Import the search, audit and report modules and :data:`PUBLIC` lazily.

    The modules are ``verify.searching.search``, ``verify.audit`` and
    ``verify.presenting.report``.

    The first three are modules (PEP 562: imported on first use, so ``import verify`` stays
    light); their functions for the API are :func:`search_claim`, :func:`audit_steps` and
    :func:`write_report`.

    The names of :data:`PUBLIC` are the documented API for writing and checking a claim
    (``docs/own-claim.md``: ``from verify import Verification, CheckResult, Grid, register``;
    ``verify.rescore(report, C)`` re-decides a report's checks with every bound tightened by C)
    and for auditing a step (``verify.instance_check``, ``verify.sym_equal``); they are imported
    from their modules on first use.
    """
    if name in MODULES:
        from importlib import import_module

        return import_module(f"{__name__}.{MODULES[name]}")
    if name in PUBLIC:
        from importlib import import_module

        return getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the modules reached as attributes (``verify.search``, ``verify.audit``, ``verify.report``)
MODULES = {"search": "searching.search", "audit": "audit", "report": "presenting.report"}

#: public names imported lazily from the toolkit's modules (``from verify import Verification``
#: works)
PUBLIC = {**dict.fromkeys(("CheckResult", "Grid", "Reading", "Verification"), "model"),
          **dict.fromkeys(("bound_value", "register"), "registry"),
          "group_checks": "presenting.formatting", "rescore": "running.outcome",
          **dict.fromkeys(("instance_check", "sym_equal"), "audit.engine")}
