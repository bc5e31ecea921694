"""One match: a bot process and its host, lines off a pipe, an exchange and its
clocks, the match driver and the process that plays matches it is sent.

Owns every running bot process (started only through ``BotHost``) and every
seat's clock; below it are the sandbox and the native helpers, above it
tournaments, quarantine and the league.
"""
