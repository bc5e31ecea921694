"""What is kept once played: the results store (SQLite), standings and what a
stored tournament says in words.

Owns the results database's tables and schema; the league reads matches and
ratings input through the store's methods, never its SQL.
"""
