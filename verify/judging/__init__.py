"""Judging findings: severities, certificates and their index, and the coverage of each document's
text. May import verify's model, decide, registry and running, and the lower packages; never
presenting or command.
"""
