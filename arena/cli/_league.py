"""``arena serve``, ``arena users``, ``arena submit``: the league from the command line."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

if TYPE_CHECKING:
    from ..league._db import League

from .._checks import UsageError, check_range


def parse_every(text: str) -> float:
    """``1h``, ``30m``, ``45s``, ``90`` (seconds) -> seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if not m:
        raise UsageError(f"--every takes a duration like 1h, 30m, 45s or 90, not {text!r}")
    seconds = float(m[1]) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m[2]]
    check_range("--every", seconds, 1, 30 * 86400)
    return seconds


def _usage(message: str) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(2)


def serve_cmd(
    db: Annotated[Path, typer.Option(help="The league's SQLite file (created if missing).")] = Path("league.db"),
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port; the URL is printed).")] = 8000,
    every: Annotated[str, typer.Option(help="Time between scheduled tournaments: 1h, 30m, 45s...")] = "1h",
    jobs: Annotated[int, typer.Option(help="Matches at once in a tournament.")] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="Play tournaments on the Dask cluster whose scheduler is at ADDRESS "
        "(builds and quarantines stay here); see docs/cluster.md.")] = None,
    certs: Annotated[Optional[Path], typer.Option(
        help="The cluster's certificates (made by `arena cluster init-certs DIR`; default: $ARENA_CERTS).")] = None,
    game: Annotated[Optional[list[str]], typer.Option(
        "--game", help="A game this league plays (repeatable; default: every installed game with sample bots).")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", "-p", metavar="GAME.KEY=VALUE", help="A game parameter for the league's matches (repeatable).")] = None,
    rounds: Annotated[int, typer.Option(help="Rounds per tournament (scheduled, placement or started by an admin).")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds allowed for each reply.")] = 1.0,
    quarantine_matches: Annotated[int, typer.Option("--quarantine-matches", help="Matches of a quarantine.")] = 6,
    placement_matches: Annotated[int, typer.Option(
        "--placement-matches", help="Most matches of a new bot's placement (whole sets of bots, every seat each).")] = 60,
    build_seconds: Annotated[float, typer.Option("--build-seconds", help="Time limit of a build command.")] = 120.0,
    submit_limit: Annotated[int, typer.Option("--submit-limit", help="Submissions per user per hour.")] = 20,
    max_upload_mb: Annotated[float, typer.Option("--max-upload-mb", help="Largest upload, MB.")] = 8.0,
    pipeline_jobs: Annotated[int, typer.Option(
        "--pipeline-jobs", help="Builds at once, and as many quarantines at once (one version per user at a time).")] = 2,
    quarantine_seconds: Annotated[float, typer.Option(
        "--quarantine-seconds", help="Time limit of a whole quarantine, every step together.")] = 600.0,
    min_free_mb: Annotated[float, typer.Option(
        "--min-free-mb", help="Free disk space (MB) below which submissions and tournaments wait.")] = 100.0,
    pool_limit: Annotated[int, typer.Option(
        "--pool-limit", help="Most versions of one user in one game's pool.")] = 8,
    sandbox: Annotated[Optional[str], typer.Option(help="none, basic, strict or gvisor (default: strict, else basic; gvisor closes what seats "
                                                          "still share, for a league: docs/sandbox.md).")] = None,
    play_idle: Annotated[float, typer.Option(
        "--play-idle", help="Seconds a friendly match (/play) waits for its person before it is abandoned.")] = 600.0,
    secure_cookies: Annotated[bool, typer.Option("--secure-cookies", help="Mark cookies Secure (behind HTTPS).")] = False,
    demo: Annotated[bool, typer.Option("--demo", help="Add an admin 'demo' and submit the sample bots (once).")] = False,
    check: Annotated[bool, typer.Option("--check", help="Check the options and stop (starts and creates nothing).")] = False,
) -> None:
    """Run a league: submissions, quarantine, scheduled tournaments and a web leaderboard."""
    from ..league._server import serve

    try:
        code = serve(_serve_options(**locals()))  # every option above, by its name
    except UsageError as exc:
        raise _usage(str(exc)) from None
    raise typer.Exit(code)


#: The options of ``arena serve`` that are numbers, and the range each takes: (low, high, low open).
_SERVE_RANGES = {
    "port": (0, 65535, False), "timeout": (0, 3600, True), "jobs": (1, 256, False), "rounds": (1, 10_000, False),
    "quarantine_matches": (1, 10_000, False), "placement_matches": (1, 1_000_000, False),
    "build_seconds": (1, 86400, False), "submit_limit": (1, 100_000, False), "max_upload_mb": (0.001, 1024, False),
    "pipeline_jobs": (1, 64, False), "quarantine_seconds": (1, 86400, False), "min_free_mb": (0, 1_000_000, False),
    "pool_limit": (1, 10_000, False), "play_idle": (1, 86400, False),
}


def _serve_options(**given: Any) -> Any:
    """``arena serve``'s options checked into the league's ``ServeOptions``; UsageError with a sentence."""
    from ..cluster._security import certs_folder
    from ..tournament._plan import check_cluster
    from ..league._server import ServeOptions

    settings_params: dict[str, list[str]] = {}
    for p in given.pop("param") or []:
        head, sep, rest = p.partition(".")
        if not sep or "=" not in rest:
            raise UsageError(f"--param takes GAME.KEY=VALUE (e.g. GAME.hands=100), not {p!r}")
        settings_params.setdefault(head, []).append(rest)
    for name, (low, high, low_open) in _SERVE_RANGES.items():
        check_range("--" + name.replace("_", "-"), given[name], low, high, low_open=low_open)
    cluster = given["cluster"]
    certs = certs_folder(given["certs"]) if cluster else None
    check_cluster(cluster, "match", reach=True, certs=certs)
    return ServeOptions(
        db=given["db"], host=given["host"], port=given["port"], every=parse_every(given["every"]), jobs=given["jobs"],
        cluster=cluster, cluster_certs=certs, games=list(given["game"] or []), params=settings_params,
        rounds=given["rounds"], timeout=given["timeout"], quarantine_matches=given["quarantine_matches"],
        build_seconds=given["build_seconds"], placement_matches=given["placement_matches"],
        submit_limit=given["submit_limit"], max_upload_bytes=int(given["max_upload_mb"] * 2**20),
        sandbox=given["sandbox"], pipeline_jobs=given["pipeline_jobs"],
        quarantine_seconds=given["quarantine_seconds"], min_free_bytes=int(given["min_free_mb"] * 2**20),
        pool_limit=given["pool_limit"], play_idle=given["play_idle"], secure_cookies=given["secure_cookies"],
        demo=given["demo"], check=given["check"])


@contextmanager
def _tables(db: Path, create: bool) -> Iterator["League"]:
    """The league's tables in ``db``; a usage error (exit 2) for a bad file or a refused change."""
    from ..results._store import open_store
    from ..league._db import League

    try:
        store = open_store(db, create=create)
    except UsageError as exc:
        raise _usage(str(exc)) from None
    try:
        yield League(store)
    except ValueError as exc:
        raise _usage(str(exc)) from None
    finally:
        store.close()


users_app = typer.Typer(help="League accounts: each user submits with a token.", no_args_is_help=True)


@users_app.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="The user's name.")],
    admin: Annotated[bool, typer.Option("--admin", help="May pause any bot, re-run quarantines, start tournaments.")] = False,
    db: Annotated[Path, typer.Option(help="The league's SQLite file.")] = Path("league.db"),
) -> None:
    """Add a user and print their token (shown once; only its hash is kept)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", name):
        raise _usage(f"user name {name!r}: 1 to 40 letters, digits, '_', '.' or '-'")
    with _tables(db, create=True) as league:
        token = league.add_user(name, admin)
    typer.echo(f"Added {'admin' if admin else 'user'} {name}. Their token (shown once, keep it):", err=True)
    typer.echo(token)


@users_app.command("token")
def users_token(
    name: Annotated[str, typer.Argument(help="The user's name.")],
    db: Annotated[Path, typer.Option(help="The league's SQLite file.")] = Path("league.db"),
) -> None:
    """Give a user a new token (a lost or leaked one): the old token and its web sessions stop working."""
    with _tables(db, create=False) as league:
        token = league.new_token(name)
    typer.echo(f"New token for {name} (shown once; the old one no longer works):", err=True)
    typer.echo(token)


@users_app.command("list")
def users_list(db: Annotated[Path, typer.Option(help="The league's SQLite file.")] = Path("league.db")) -> None:
    """List the users."""
    with _tables(db, create=False) as league:
        for u in league.users():
            typer.echo(f"{u['id']}\t{u['name']}\t{'admin' if u['admin'] else 'user'}")


def submit_cmd(
    game: Annotated[str, typer.Argument(help="The game the bot plays.")],
    path: Annotated[Path, typer.Argument(help="An executable or script, a .zip/.tar.gz, or a folder with arena.toml.")],
    server: Annotated[str, typer.Option(help="The league's URL, e.g. http://127.0.0.1:8000.")] = "http://127.0.0.1:8000",
    token: Annotated[Optional[str], typer.Option(help="Your token (default: $ARENA_TOKEN).", envvar="ARENA_TOKEN")] = None,
    name: Annotated[Optional[str], typer.Option(help="The bot's name (default: arena.toml's, or the file's).")] = None,
) -> None:
    """Submit a bot to a league server; prints the new version and its page."""
    import httpx

    if not token:
        raise _usage("give --token (or set ARENA_TOKEN): the token `arena users add` printed")
    if not path.exists():
        raise _usage(f"{path} does not exist")
    if path.is_dir():
        if not (path / "arena.toml").is_file():
            raise _usage(f"{path} is a folder without arena.toml; a folder is sent as an archive with its manifest")
        data, filename = _tar_folder(path), path.name + ".tar.gz"
    else:
        data, filename = path.read_bytes(), path.name
    try:
        response = httpx.post(server.rstrip("/") + "/api/bots", headers={"Authorization": f"Bearer {token}"},
                              data={"game": game, "name": name or ""}, files={"file": (filename, data)}, timeout=60)
    except httpx.HTTPError as exc:
        typer.echo(f"arena: error: could not reach {server}: {exc}", err=True)
        raise typer.Exit(3) from None
    try:
        body = response.json()
    except ValueError:
        body = {"error": response.text[:500]}
    if response.status_code != 201:
        typer.echo(f"arena: error: the server refused the bot ({response.status_code}): {body.get('error')}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Submitted {body['label']} ({body['game']}): {body['state']}; follow it at "
               f"{server.rstrip('/')}{body['url']}")


def _tar_folder(folder: Path) -> bytes:
    import tarfile  # only `arena submit` packs a folder

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for item in sorted(folder.rglob("*")):
            if item.is_symlink() or not (item.is_file() or item.is_dir()):
                continue
            if any(part in ("__pycache__", ".git") for part in item.relative_to(folder).parts):
                continue
            tar.add(item, arcname=str(item.relative_to(folder)), recursive=False)
    return buf.getvalue()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_cmd)
    app.command("submit")(submit_cmd)
    app.add_typer(users_app, name="users")

