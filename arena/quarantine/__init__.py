"""Vetting newcomers before they play for real: a submitted bot (quarantine,
its report and the reference opponents) and a game plugin (check-game).

Owns the quarantine steps and their verdicts; plays through ``arena.play``.
"""
