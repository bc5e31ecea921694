"""Tournaments: a checked plan (build, save, load, resume) and its run, one
match after another, on worker processes, a kept pool of bots or a cluster.

Owns the schedule and the order results reach the store; plays every match
through ``arena.play`` and stores it through ``arena.results``.
"""
