"""The source documents' texts, for the tests that check quotes verbatim (tests/test_coverage.py,
tests/test_severity_data.py).  The package does not carry the documents: they are read from the
folder ``MCSA_SEEDS`` names (one ``<document key>_*.txt`` per document).  And the string constants
of a module, for the tests that check what the code names (tests/test_document_names.py,
tests/test_plugins.py)."""

import ast
import glob
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent  # the checkout


def seed_texts(documents) -> dict:
    """``{document key: text}`` for each key in ``documents``; the calling test is skipped when
    ``MCSA_SEEDS`` is not set, and fails when a document's text is missing from that folder."""
    folder = os.environ.get("MCSA_SEEDS")
    if not folder:
        pytest.skip(
            "MCSA_SEEDS is not set: the quotes are checked against the documents only when it "
            "names "
                    "the folder that holds them")
    texts = {}
    for doc in documents:
        found = sorted(glob.glob(os.path.join(folder, f"{doc}_*.txt")))
        assert found, f"no text for document {doc} in {folder}"
        texts[doc] = pathlib.Path(found[0]).read_text(encoding="utf-8")
    return texts


def code_strings(path: pathlib.Path):
    """``(line, text)`` of each string constant of a module that is not a docstring (f-string parts
    included): what the code says, not its prose."""
    tree = ast.parse(pathlib.Path(path).read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value
