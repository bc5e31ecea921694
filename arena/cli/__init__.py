"""Every command of `arena`, on top of the library: each module here imports the
library, and nothing in the library imports a module here."""

from ._main import app, command, main

__all__ = ["app", "command", "main"]
