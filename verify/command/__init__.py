"""The command line of ``python -m verify``: argument parsing, one-line errors, exit statuses. May
import every room; nothing imports it but verify.__main__ and the QuickClaim entry.
"""
