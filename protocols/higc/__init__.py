"""OpenSpiel's competition (HIGC) bots behind an arena seat: ``relay.py``, run
in the bot's sandbox for a bot given as ``higc:CMD`` (docs/protocols/openspiel.md)."""
