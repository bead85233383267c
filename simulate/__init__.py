"""mcsa-verify simulators: Gaussian targets with known w*, the four MCSA schemes (MSC,
MSC-RB, JSA, pMCSA), exact finite-state and weight-line kernels, and sweeps.

Docstrings cite the documents by number: 001 is Kim et al., "Markov Chain Score Ascent"
(NeurIPS 2022); 003 the CIS-as-IMH draft; 002 El hanchi (2018); see docs/references.md.
"""
