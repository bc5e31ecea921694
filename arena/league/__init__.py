"""The league server (``arena serve``): accounts, submissions, a build and
quarantine pipeline, scheduled tournaments and a web leaderboard.

Modules: ``_db`` (the league's tables), ``_uploads`` (checking and unpacking
submissions), ``_runner`` (pipeline and tournaments), ``_ratings``
(cross-tournament ratings), ``_web`` (pages and their JSON twins),
``_server`` (one process, one trio loop); its commands are in ``arena.cli``.
"""
