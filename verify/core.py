"""Deprecated: the former home of the verification machinery, kept so that code written
against it keeps working.  Import from the modules that now hold each job instead:

* :mod:`verify.model`: statuses, :class:`CheckResult`, :class:`Reading`, :class:`Status`,
  :class:`Grid`, :class:`Verification`, :class:`CheckList`;
* :mod:`verify.decide`: ``decide``, ``combine``, ``final_status``, ``reading_verdicts``,
  ``summary_status``, ``scale_bound``, ``ALPHA`` (Bonferroni);
* :mod:`verify.formatting`: ``fmt``, ``fmt_ratio``, ``group_checks``, ``status_cell``,
  ``readings_text``;
* :mod:`verify.docio`: ``load_doc``, ``audit_statements``, ``verdicts_document``,
  ``write_verdicts``;
* :mod:`verify.outcome`: :class:`Report`, ``run_verification``, ``rescore``;
* :mod:`verify.registry`: ``REGISTRY``, ``register``, ``bound_value``;
* :mod:`verify.hypothesis_tools`: ``tightness_search``, ``tightness_check``,
  ``hypothesis_without_local_constants``.

Importing this module warns (:class:`DeprecationWarning`); nothing in this project imports it.
"""

from __future__ import annotations

import warnings

from mcsa_cli import dumps, jsonable  # noqa: F401

from .decide import (ALPHA, assign_readings, combine, decide, final_status, full_readings,  # noqa: F401
                     reading_name, reading_verdicts, scale_bound, summary_status, z_one_sided)
from .docio import (AUDIT_DOC, VERDICTS_DOC, audit_statements, load_doc, verdicts_document,  # noqa: F401
                    write_verdicts)
from .formatting import CheckGroup, fmt, fmt_ratio, group_checks, readings_text, status_cell  # noqa: F401
from .hypothesis_tools import (TIGHTNESS_EXAMPLES, hypothesis_without_local_constants,  # noqa: F401
                               tightness_check, tightness_search)
from .model import (AS_PRINTED, DEPENDS, EXIT, HOLDS, INCONCLUSIVE, METHODS,  # noqa: F401
                    RELATIONS, STATUSES, VIOLATED, CheckList, CheckResult, Grid, Reading, Status,
                    Verification, by_form, by_quantity)
from .model import params_json as _jsonable  # noqa: F401
from .outcome import Report, rescore, run_verification  # noqa: F401
from .registry import REGISTRY, bound_value, register  # noqa: F401

warnings.warn(
    "verify.core is deprecated: import from verify.model, verify.decide, verify.formatting, "
    "verify.docio, verify.outcome, verify.registry or verify.hypothesis_tools",
    DeprecationWarning, stacklevel=2)
