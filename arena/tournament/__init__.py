"""Tournaments: a checked plan (build, save, load, resume) and its run, one
match after another, on worker processes, a kept pool of bots or a cluster.

Owns the schedule and the order results reach the store; plays every match
through ``arena.play`` and stores it through ``arena.results``. ``_schedule``
(who plays whom, with which seed), ``_config`` (``TournamentConfig``: the
options, as planned, stored and resumed), ``_plan`` (options checked, a
tournament created or loaded), ``_state`` (``TournamentRun``: what every
back-end shares), ``_executors`` (the three back-ends), ``_run``
(``run_tournament``: round by round).
"""
