"""Running claims: the runner and its worker tasks, a claim's outcome (its Report), the figure
reproductions, and the recorded results of each document (where they are stored and how they are
read). May import the model, decide and registry modules of verify, and simulate, bounds and
mcsa_cli; never judging, searching, presenting or command.
"""
