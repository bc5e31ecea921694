"""``arena <game>``: one command per installed game, generated from its plugin.

A game's parameters become its options (``max_bet`` -> ``--max-bet``), with
the description, default and range of its pydantic model as help; every
other option is ``arena play``'s, so the two cannot drift. A value is read
as JSON when it parses and as text otherwise (the game's model may accept
text forms, like a probability typed as ``1/1000``). Giving a parameter several
times plays one match per value. A game's extra command groups (its
``commands`` hook) are mounted here too.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Optional

import click
import typer
import typer.main
from typer.core import TyperGroup

from protocols import GamePlugin

from .._checks import UsageError, old_names, parse_value
from .._games import PluginLoadError, available_games, did_you_mean, load_game

if TYPE_CHECKING:
    # the classes typer's commands and contexts are made of: its own copy of click's
    from typer._click import Command, Context, HelpFormatter

# typer carries its own copy of click (typer._click) and raises its exceptions;
# both copies' are caught, so a typer that goes back to click's works the same.
try:
    from typer._click import core as _tcore, exceptions as _texc

    _USAGE: tuple[type[Exception], ...] = (_texc.UsageError, click.UsageError)
    _CLICK: tuple[type[Exception], ...] = (_texc.ClickException, click.ClickException)
    _ABORT: tuple[type[BaseException], ...] = (_tcore.Abort, click.Abort)
    _UsageError: type[Exception] = _texc.UsageError
except ImportError:  # pragma: no cover - a typer without its own click
    _USAGE, _CLICK, _ABORT, _UsageError = (click.UsageError,), (click.ClickException,), (click.Abort,), click.UsageError


def field_range(field: Any) -> str:
    """A field's bounds in words, from its pydantic constraints (``1..1000000``)."""
    low = high = None
    for rule in field.metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
        if getattr(rule, "gt", None) is not None:
            low = f">{rule.gt}"
        if getattr(rule, "lt", None) is not None:
            high = f"<{rule.lt}"
    if low is None and high is None:
        return ""
    return f"{'' if low is None else low}..{'' if high is None else high}"


def _bots_metavar(plugin: GamePlugin[Any]) -> str:
    spec = plugin.spec
    if spec.min_seats == spec.max_seats:
        return " ".join(["BOT"] * spec.min_seats)
    if spec.max_seats - spec.min_seats > 9:  # seats its parameters name (a game string's players)
        return "BOT"
    return " ".join(["BOT"] * spec.min_seats + ["[BOT]"] * (spec.max_seats - spec.min_seats))


def _option_help(field: Any) -> str:
    default = field.default
    shown = list(default) if isinstance(default, tuple) else default
    bounds = field_range(field)
    words = [field.description or ""]
    words.append(f"(default: {shown!r}{'; range: ' + bounds if bounds else ''})".replace("None", "none"))
    return " ".join(w for w in words if w)


def usable(plugin: GamePlugin[Any], option: str) -> bool:
    """Whether ``arena <game>`` offers one of ``arena play``'s options: not
    those the game cannot use."""
    if option == "lifetime":  # one process for many matches needs a protocol that marks them
        return plugin.reusable_processes
    if option == "hand_history":
        return "phh" in plugin.hand_formats
    if option in ("acpc_log", "acpc_lenient"):  # the games with an ACPC translation
        return "acpc" in plugin.hand_formats
    return True


def game_command(plugin: GamePlugin[Any], play: Callable[..., Any], run: Callable[..., int]) -> Callable[..., None]:
    """The ``arena <id>`` function for typer: its signature is built from
    the game's parameters and ``play``'s shared options."""
    game_id = plugin.spec.id
    shared = [p for name, p in inspect.signature(play, eval_str=True).parameters.items()
              if name not in ("game", "bots", "param") and usable(plugin, name)]
    taken = {p.name for p in shared}
    fields = [name for name in plugin.Params.model_fields if name not in taken and name != "bots"]
    params = [inspect.Parameter("bots", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[
        list[str], typer.Argument(metavar=_bots_metavar(plugin),
                                  help="The bots in seat order: a command, or NAME=COMMAND to name it.")])]
    for name in fields:
        info = plugin.Params.model_fields[name]
        option = typer.Option("--" + name.replace("_", "-"), metavar="VALUE", help=_option_help(info))
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation=Annotated[Optional[list[str]], option]))
    # A renamed parameter's old option still works (game_params says its new name), unlisted.
    olds = [old for old, new in old_names(plugin.Params).items() if new in fields and old not in taken | set(fields)]
    for old in olds:
        option = typer.Option("--" + old.replace("_", "-"), metavar="VALUE", hidden=True)
        params.append(inspect.Parameter(old, inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation=Annotated[Optional[list[str]], option]))
    params += [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in shared]

    def command(bots: list[str], **options: Any) -> None:
        given = {name: options.pop(name) for name in [*fields, *olds]}
        try:
            raws = _matches_of(given)
        except UsageError as exc:
            typer.echo(f"arena: error: {exc}", err=True)
            raise typer.Exit(2) from None
        raise typer.Exit(run(game_id, bots, raws, keys=False, **options))

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__name__ = f"{game_id}_cmd"
    command.__doc__ = (f"Play {plugin.spec.title}: {plugin.spec.description}\n\n"
                       f"Every option below is a game parameter or one of `arena play`'s; "
                       f"see `arena games {game_id}`.")
    return command


def _matches_of(given: dict[str, list[str] | None]) -> list[dict[str, Any]]:
    """One parameter dict per match: a parameter given several times gives a
    match per value (only one parameter may be repeated)."""
    fixed = {k: parse_value(v[0]) for k, v in given.items() if v and len(v) == 1}
    repeated = {k: v for k, v in given.items() if v and len(v) > 1}
    if len(repeated) > 1:
        names = " and ".join("--" + k.replace("_", "-") for k in sorted(repeated))
        raise UsageError(f"only one parameter may be given several times (one match per value), not {names}")
    if not repeated:
        return [fixed]
    [(key, values)] = repeated.items()
    return [{**fixed, key: parse_value(value)} for value in values]


class LazyGames(TyperGroup):
    """The ``arena`` group: ``arena <id>`` and the games' extra commands are
    built when asked for, so a command that needs one game (or none) does not
    import every installed plugin (some 0.1 s of every ``arena`` process)."""

    #: (play, run) of ``arena play``: bound by ``register_games`` in a subclass
    game_runner: tuple[Callable[..., Any], Callable[..., int]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and self.game_runner is not None:
            self._load(ctx, [cmd_name] if cmd_name in available_games() else sorted(available_games()))
            found = super().get_command(ctx, cmd_name)
        if found is not None:
            one_help_style(found)
        return found

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[Any, Any, list[str]]:
        name = click.utils.make_str(args[0])
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            raise _UsageError(f"no command {name!r}{did_you_mean(name, self.list_commands(ctx))} "
                              "(`arena -h` lists them)", ctx)
        return super().resolve_command(ctx, args)

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        one_help_style(self)
        super().format_help(ctx, formatter)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        """One error style for every command: ``arena: error: ...`` and exit 2,
        whether click found the mistake (an unknown option, a missing argument)
        or the arena did."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except _USAGE as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # the help was printed: that is the answer
                sys.exit(exc.exit_code)  # type: ignore[attr-defined]
            ctx = getattr(exc, "ctx", None)
            where = f" (see `{ctx.command_path} -h`)" if ctx is not None and "-h`" not in str(exc) else ""
            click.echo(f"arena: error: {_sentence(exc.format_message())}{where}", err=True)  # type: ignore[attr-defined]
            sys.exit(2)
        except _CLICK as exc:
            click.echo(f"arena: error: {_sentence(exc.format_message())}", err=True)  # type: ignore[attr-defined]
            sys.exit(getattr(exc, "exit_code", 1))
        except _ABORT:  # Ctrl-C where click itself was reading (a prompt)
            click.echo("arena: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx: Context) -> list[str]:
        if self.game_runner is not None:
            self._load(ctx, sorted(available_games()))
        return super().list_commands(ctx)

    def _load(self, ctx: Context, game_ids: list[str]) -> None:
        loaded = self._loaded
        reserved = set(super().list_commands(ctx)) - loaded
        play, run = self.game_runner  # type: ignore[misc]
        for game_id in game_ids:
            if game_id in loaded:
                continue
            loaded.add(game_id)
            try:
                plugin = load_game(game_id)
            except PluginLoadError:
                continue  # `arena games` lists it as broken; the rest of the CLI works
            if game_id in reserved:
                print(f"arena: warning: game {game_id!r} has the name of a command; play it with "
                      f"`arena play {game_id}`", file=sys.stderr)
            else:
                self.add_command(_single(game_id, game_command(plugin, play, run)), game_id)
            for name, target in plugin.commands.items():
                if name in reserved or name in self.commands:
                    continue
                module, _, attr = target.partition(":")
                try:
                    group = getattr(importlib.import_module(module), attr)
                except (ImportError, AttributeError) as exc:
                    print(f"arena: warning: {game_id}'s command {name!r} ({target}) failed to load: {exc}",
                          file=sys.stderr)
                    continue
                command = typer.main.get_command(group)
                command.name = name  # a typer app converted on its own has none
                self.add_command(command, name)


def _sentence(message: str) -> str:
    """click's messages in the arena's voice: no capital, no full stop, quotes as the arena's."""
    message = message.strip().replace("\u2018", "'").replace("\u2019", "'")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return message[:-1] if message.endswith(".") else message


#: how a value is named in help when the option does not name it itself
_METAVARS = {int: "N", float: "NUMBER", str: "TEXT"}


def one_help_style(command: Command) -> None:
    """Help says every value's kind the same way (N, NUMBER, TEXT, PATH, or
    the option's own FILE, ADDRESS...), flags take none, and a default is
    ``(default: X)`` at the end of the help, as the arena's own help writes it."""
    if getattr(command, "_arena_styled", False):
        return
    command._arena_styled = True  # type: ignore[attr-defined]
    for param in command.params:
        if param.param_type_name == "argument":
            _style_argument(param)
        elif param.param_type_name == "option":
            _style_option(param)
    for sub in (getattr(command, "commands", None) or {}).values():
        one_help_style(sub)
    made = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            option.metavar = ""  # a flag, like every other
        return option

    command.get_help_option = help_option  # type: ignore[method-assign]


def _style_argument(param: Any) -> None:
    """An argument's kind is not shown: its name says it (typer's arguments
    show it with ``display_type_rich``)."""
    param.display_type_rich = lambda ctx: None


def _style_option(param: Any) -> None:
    """An option's kind in one word (none for a flag), and its default at the end of its help."""
    if param.is_flag:
        param.metavar = ""
    elif param.metavar is None:
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        for base, word in _METAVARS.items():
            if kind is base or kind == Optional[base]:
                param.metavar = word
        if param.metavar is None:
            param.metavar = "PATH" if "Path" in str(kind) else "TEXT"
    default, shown = param.default, param.show_default
    param.show_default = False
    if shown is False or default is None or param.is_flag or default == [] or callable(default):
        return
    if param.help and "default" not in param.help:
        param.help = f"{param.help} (default: {default})"


def _single(name: str, function: Callable[..., None]) -> Command:
    holder = typer.Typer(add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})
    holder.command(name)(function)
    return typer.main.get_command(holder)


def register_games(app: typer.Typer, play: Callable[..., Any], run: Callable[..., int]) -> None:
    """``arena <id>`` for every installed game, and each game's extra commands,
    built on demand: ``app`` becomes a ``LazyGames`` group bound to ``play``/``run``."""
    app.info.cls = type("ArenaCommands", (LazyGames,), {"game_runner": (play, run)})
