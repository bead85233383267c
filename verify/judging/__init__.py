"""Judging findings: severities, certificates and their index, and the coverage of each document's
text. May import verify's model, decide, registry and running, and the lower packages; never
presenting or command.
"""


def check_data() -> None:
    """Read every document's severity and coverage data through the data contract.

    Commands that run claims call it first, so that a bad data file of any document package is
    refused (:class:`bounds.contract.DataError`: exit 2, one line naming the file, the entry and
    the field) before any work rather than after it.
    """
    from . import coverage, severity

    severity.load()
    coverage.load()
