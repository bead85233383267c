"""The source documents' texts, for the tests that check quotes verbatim (tests/test_coverage.py,
tests/test_severity_data.py).  The package does not carry the documents: they are read from the
folder ``MCSA_SEEDS`` names (one ``<document key>_*.txt`` per document)."""

import glob
import os
import pathlib

import pytest


def seed_texts(documents) -> dict:
    """``{document key: text}`` for each key in ``documents``; the calling test is skipped when
    ``MCSA_SEEDS`` is not set, and fails when a document's text is missing from that folder."""
    folder = os.environ.get("MCSA_SEEDS")
    if not folder:
        pytest.skip("MCSA_SEEDS is not set: the quotes are checked against the documents only when it names "
                    "the folder that holds them")
    texts = {}
    for doc in documents:
        found = sorted(glob.glob(os.path.join(folder, f"{doc}_*.txt")))
        assert found, f"no text for document {doc} in {folder}"
        texts[doc] = pathlib.Path(found[0]).read_text(encoding="utf-8")
    return texts
