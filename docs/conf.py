"""Sphinx configuration of the mcsa-verify site.

Build (warnings are errors; executes the notebooks that tests/test_notebooks.py has not executed for
the current code, and runs every claim once for its figure):

    pip install -e ".[docs]"
    python -m sphinx -W -b html docs docs/_build/html

A fast build (no notebook execution, no claim figures), as tests/test_docs_site.py makes:

    python -m sphinx -W -b html -D nb_execution_mode=off -D mcsa_claim_figures=0 docs DIR

The pages about claims are generated from the registry at build time by docs/_ext/mcsa_docs.py
into docs/_generated/.  Nothing is fetched from the network when building or viewing: MathJax
is served from _static/mathjax (copied from the PyPI package django-static-mathjax).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(1, str(DOCS.parent))  # the packages of this checkout, also when not installed
os.environ.setdefault("MPLBACKEND", "Agg")
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # 2 shared cores
    os.environ.setdefault(_var, "1")
# nbformat imports jsonschema, whose optional IRI format check (present when Jupyter's
# jsonschema[format-nongpl] is installed) imports rfc3987_syntax, which compiles a grammar at
# import: 2-3 CPU s in every process that reads a notebook.  Nothing here validates an IRI
# (nbformat checks no string formats), so the module is marked absent and the check not defined.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

import verify  # noqa: E402

project = "mcsa-verify"
author = "the mcsa-verify authors"
copyright = "the mcsa-verify authors, MIT licence"
release = version = verify.__version__

extensions = [
    "myst_nb",  # MyST Markdown pages and executed notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # NumPy-style docstrings
    "sphinx.ext.mathjax",
    "mcsa_docs",  # docs/_ext: the generated claim pages, MathJax copied in
]

root_doc = "index"
smartquotes = False  # command lines and flags (--w-star, 'x') are shown as typed
exclude_patterns = [
    "_build", "Thumbs.db", ".DS_Store",
    "_generated/fragments",  # included by the hand-written pages, not pages themselves
    "_generated/claim-figures",
    "COVERAGE.md",  # shown through coverage.md (the build does not fail when it is missing)
    "figures/README.md",  # shown through figures.md, with the figures
]

# ----------------------------------------------------------------------------- MyST
myst_enable_extensions = ["dollarmath", "amsmath", "attrs_inline", "attrs_block", "colon_fence",
                          "deflist"]
myst_heading_anchors = 3

# ----------------------------------------------------------------------------- notebooks
# Each notebook is executed once for the tests and the docs: tests/test_notebooks.py stores its
# executions in a jupyter-cache whose directory is named by a digest of the packages' code
# (docs/_ext/nbcache.py), and the build reads them from there; a notebook not found there is
# executed now.  An output of older code is never shown.
nb_execution_mode = "cache"
nb_execution_cache_path = str(__import__("nbcache").cache_path())
nb_execution_timeout = 300  # seconds per cell, as tests/test_notebooks.py
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_show_tb = True
nb_execution_in_temp = True  # kernels run in a temporary directory: the checkout is left as it was
nb_ipywidgets_js = {}  # no widget manager from a CDN
nb_merge_streams = True

# ----------------------------------------------------------------------------- autodoc
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"undoc-members": False}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_custom_sections = ["Verdicts", "Readings", "Forms"]

# ----------------------------------------------------------------------------- HTML
html_theme = "furo"
html_title = "mcsa-verify"
html_static_path = ["_static"]
html_css_files = ["mcsa.css"]
html_js_files = ["mcsa.js"]
html_show_sphinx = False
html_copy_source = False
html_last_updated_fmt = None
html_show_search_summary = False  # summaries fetch() each page: blocked (and logged) under file://
# MathJax 3 served from the site itself (copied by mcsa_docs at build-finished)
mathjax_path = "mathjax/tex-mml-chtml.js"

# ----------------------------------------------------------------------------- this site
mcsa_claim_figures = True  # each claim's figure from a quick run (about 2 minutes on 2 cores)
mcsa_root = str(DOCS.parent)  # the checkout: notebooks/ and the packages' sources
