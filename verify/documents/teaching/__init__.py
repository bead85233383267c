"""The teaching document: the mathematical facts that the teaching material states, checked.

The notebooks (``notebooks/``), the exercises and their solutions (``notebooks/exercises``,
``notebooks/solutions``) and the glossary (``docs/glossary.md``) teach Kim et al. (NeurIPS 2022).
Every sentence of theirs that states a mathematical fact either cites the verdict of a document's
claim or the status of an audit step it rests on, or is a claim of this document
("(checked: `teach_...`)"), registered and verified by the same machinery as the documents'
claims — the toolkit checking what it teaches (issue 36).

``formulas``  the facts as formulas (entry point ``mcsa_verify.bounds``: ``BUILDERS``);
``exact``     the numbers, computed with exact rational arithmetic, sharing no code with
              :mod:`simulate`;
``checks``    the verifications: each fact against the exact numbers, tolerance 0.

Beside them, as every document package: ``coverage.json`` (every factual sentence of the material
and what checks it, generated from the citations by ``tests/test_teaching_citations.py``),
``coverage_sections.json``, ``severity.json`` (empty: no fact of the material fails) and
``references.json``.
"""


def register(registry) -> None:
    """The plugin hook (entry point ``mcsa_verify.claims``:
    ``teaching = "verify.documents.teaching:register"``): one verification per fact."""
    from .checks import verifications

    for v in verifications():
        registry.add(v)
