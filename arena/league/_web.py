"""The league's web pages and their JSON twins (Starlette, served by Hypercorn's trio worker).

Every page is a handler that returns a template name and a dict; the same
dict is the page's JSON twin under ``/api/``. HTML is rendered by Jinja2
with autoescaping, so every bot-provided string (names, replies, stderr)
arrives as text, never markup. The Content-Security-Policy allows scripts from
the server's own files only (``live.js``: pages that change while read update
in place; without it they reload themselves), and ``nosniff`` keeps any other
response of the site (a bot's stderr, a JSON twin) from running as one.

Who may do what:
* anyone: read leaderboards, bots, matches, tournaments;
* a user (web session cookie, or ``Authorization: Bearer TOKEN``): submit,
  read the build logs, quarantine details and stderr of their own bots,
  pause and resume them;
* an admin: the same for every bot, re-run a quarantine, start a tournament.

Forms carry a CSRF token (the session's, or a double-submitted cookie for the
login form); bearer requests carry no ambient credential and need none.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
from dataclasses import asdict
import hmac
import math
import re
import secrets
import shutil
import time
from urllib.parse import quote
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict, TypeVar

import trio
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from markupsafe import Markup, escape

from protocols.seatview import card_text

from .._checks import current_names
from .._games import PluginLoadError, load_game
from ..results._report import format_words, game_big_blind, game_units, replay_command, standings_of
from ..results._standings import Standings
from ..results._store import FaultRecord, MatchRecord, TournamentRecord, shown_seed
from .._seeds import pseudonyms
from ._charts import cumulative, lines_chart, sparkline
from ._steps import ReadBack, read_back
from ._db import League, LeagueBotRecord, UserRecord, VersionRecord
from ._friendly import Friendlies
from ._ratings import Z95, Ratings
from ._runner import LeagueRunner
from ..results._store import write_problem
from ._disk import no_room
from ._uploads import BlobStore, NoRoomForUpload, UploadError, bot_name_problem, inspect_upload, unpack

HERE = Path(__file__).parent
TRANSCRIPT_LINES = 50_000  # read at most this much of one transcript
WINDOW = 100  # lines shown on each side of the current step
SESSION_COOKIE, LOGIN_COOKIE = "arena_session", "arena_login_csrf"
#: The largest body of a request that is not an upload (a form of a few fields), and
#: how long any body may take to arrive; an upload's is --max-upload-mb and UPLOAD_SECONDS.
FORM_BYTES, FORM_SECONDS, UPLOAD_SECONDS = 64 * 1024, 30.0, 120.0
UPLOAD_PATHS = ("/api/bots", "/submit")


class IdConvertor(Convertor):
    """A row id in a path: at most 18 digits, so that every id SQLite can be
    asked about fits its 64-bit integers; a longer one matches no route (404)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", IdConvertor())


class RateLimit:
    """At most ``count`` events per ``seconds`` per key (a sliding window)."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self.events: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        q = self.events.setdefault(key, deque())
        while q and q[0] <= now - self.seconds:
            q.popleft()
        if len(q) >= self.count:
            return False
        q.append(now)
        return True


class Site:
    """The state behind the pages."""

    def __init__(self, league: League, runner: LeagueRunner, *, submit_limit: int = 20, login_limit: int = 10,
                 secure_cookies: bool = False) -> None:
        self.league, self.runner, self.store = league, runner, runner.store
        self.ratings = Ratings(league)
        self.friendlies = Friendlies(runner, idle=runner.settings.play_idle)
        self.blobs = BlobStore(runner.files / "blobs")
        self.submits = RateLimit(submit_limit, 3600)
        self.logins = RateLimit(login_limit, 300)
        self.secure = secure_cookies
        #: each user's open event streams (a page left open in many tabs holds one each)
        self.streams: dict[int, int] = {}
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.filters["when"] = _when
        self.templates.env.filters["num"] = _num
        self.templates.env.filters["cardhtml"] = _card_html
        self.templates.env.globals["chart_series"] = lambda seats, totals: [
            (seat["name"], values) for seat, values in zip(seats, totals)]
        self.templates.env.globals["lines_chart"] = lines_chart
        self.templates.env.globals["sparkline"] = sparkline
        self.templates.env.globals["live_page"] = _live


class Auth:
    def __init__(self, user: UserRecord | None, csrf: str | None, bearer: bool = False) -> None:
        self.user, self.csrf, self.bearer = user, csrf, bearer

    @property
    def admin(self) -> bool:
        return bool(self.user and self.user["admin"])

    def owns(self, owner_id: int) -> bool:
        return bool(self.user and (self.user["id"] == owner_id or self.user["admin"]))


def _auth(site: Site, request: Request) -> Auth:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        user = site.league.user_by_token(header[7:].strip())
        if user is None:
            raise HTTPException(401, "the token is not valid (give the token `arena users add` printed)")
        return Auth(user, None, bearer=True)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        found = site.league.session(cookie)
        if found is not None:
            return Auth(found[0], found[1])
    return Auth(None, None)


async def _form(request: Request, auth: Auth, max_part: int = 64 * 1024) -> Any:
    """The posted form, its CSRF token checked (unless the request used a bearer token)."""
    form = await request.form(max_files=1, max_fields=20, max_part_size=max_part)
    if not auth.bearer:
        expected = auth.csrf or request.cookies.get(LOGIN_COOKIE) or ""
        given = str(form.get("csrf", ""))
        if not expected or not hmac.compare_digest(expected, given):
            raise HTTPException(403, "the form's CSRF token is missing or wrong; reload the page and try again")
    return form


def _need_user(auth: Auth) -> UserRecord:
    if auth.user is None:
        raise HTTPException(401, "log in first (with the token `arena users add` printed)")
    return auth.user


def _api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _render(site: Site, request: Request, template: str, data: dict[str, Any], auth: Auth,
            status: int = 200) -> Response:
    if _api(request):
        return JSONResponse(data, status_code=status)
    context = {"request": request, "me": auth.user, "csrf": auth.csrf, "paused": site.runner.disk.problem, **data}
    return site.templates.TemplateResponse(request, template, context, status_code=status)


# -- pages ------------------------------------------------------------------------------


def _games(site: Site) -> list[dict[str, Any]]:
    out = []
    for game in site.runner.settings.games:
        pool = site.league.pool(game)
        out.append({"game": game, "active": len(pool)})
    return out


async def home(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    data = {"games": _games(site), **_schedule(site), "live": [asdict(lv) for lv in site.runner.live.values()]}
    return _render(site, request, "home.html", data, auth)


def _schedule(site: Site) -> dict[str, Any]:
    """The next scheduled tournament (a time, or None and words why not), and why work is paused, if it is."""
    when, words = site.runner.next_tournament()
    return {"next_tournament": when, "next_tournament_words": words, "paused": site.runner.disk.problem}


async def leaderboard(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    game = request.path_params["game"]
    if game not in site.runner.settings.games:
        raise HTTPException(404, f"this league plays {', '.join(site.runner.settings.games)}, not {game!r}")
    rows = site.ratings.table(game)
    waiting = [{"bot": v["bot"], "label": v["label"], "owner": v["owner_name"], "state": v["state"]}
               for v in site.league.versions("b.game=? AND v.state IN ('received','built','quarantined')", (game,))]
    data = {"game": game, "rows": rows, "waiting": waiting, **_schedule(site)}
    return _render(site, request, "leaderboard.html", data, auth)


def _fault_words(f: FaultRecord, names: list[str], private: bool) -> dict[str, Any]:
    where = f" in hand {f['hand']}" if f.get("hand") is not None else ""
    out = {"seat": f["seat"], "bot": names[f["seat"]] if f["seat"] < len(names) else f.get("bot"),
           "kind": f["kind"], "words": f"{f['kind']}{where}: {f['detail']}",
           "received": f.get("received"), "expected": f.get("expected")}
    if private:
        out["stderr_tail"] = f.get("stderr_tail", "")
    return out


def _match_summary(m: MatchRecord, names: list[str]) -> dict[str, Any]:
    return {"id": m["id"], "tournament": m["tournament"], "round": m["round"], "seed": shown_seed(m),
            "status": m["status"], "entrants": [names[i] for i in m["seats"]], "scores": m["scores"],
            "faults": [_fault_words(f, [names[i] for i in m["seats"]], False) for f in m["faults"]],
            "finished": m["finished"]}


async def bot_page(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    bot = site.league.bot(request.path_params["bot"])
    if bot is None:
        raise HTTPException(404, "no such bot")
    mine = auth.owns(bot["owner"])
    versions = site.league.versions("v.bot=?", (bot["id"],))
    shown = []
    for v in reversed(versions):
        steps = [{**s, "details": s["details"] if mine else [], "log": s.get("log") if mine else None}
                 for s in v["steps"]]
        shown.append({"id": v["id"], "number": v["number"], "label": v["label"], "state": v["state"],
                      "message": v["message"], "kind": v["kind"], "sha256": v["sha256"], "steps": steps,
                      "created": v["created"], "run": v["manifest"].get("run"), "build": v["manifest"].get("build")})
    ratings = {r["version"]: r for r in site.ratings.table(bot["game"])}
    g = site.ratings.update(bot["game"])
    ids = {v["id"] for v in versions}
    recent = [p for p in reversed(g.played) if ids & set(p.versions)][:30]
    labels = {v["id"]: v["label"] for v in site.league.versions("b.game=?", (bot["game"],))}
    matches = []
    for p in recent:
        m = site.store.match(p.match)
        assert m is not None  # rated, so stored
        names = [labels.get(x, "?") for x in p.versions]
        faults = [_fault_words(f, names, mine and p.versions[f["seat"]] in ids) for f in m["faults"]]
        matches.append({"id": p.match, "tournament": p.tournament, "entrants": names, "scores": p.scores,
                        "faults": faults, "finished": p.finished})
    # Each version's rating over its rated matches: (mean, (low, high) of the 95% interval).
    history = {str(vid): [(round(mu, 3), (round(mu - Z95 * sd, 3), round(mu + Z95 * sd, 3)))
                          for _, mu, sd in g.history.get(vid, [])] for vid in ids}
    data = {"bot": bot, "mine": mine, "versions": shown, "ratings": {str(k): ratings[k] for k in ids if k in ratings},
            "matches": matches, "history": history, **_bot_offers(site, bot, shown, bool(matches))}
    return _render(site, request, "bot.html", data, auth)


def _bot_offers(site: Site, bot: Any, shown: list[dict[str, Any]], played: bool) -> dict[str, Any]:
    """A bot page's ``pool`` (an active version with no match yet waits for its placement,
    unless the pool is too small for any table) and ``play`` (a friendly against it)."""
    pool = site.league.pool(bot["game"])
    seats = load_game(bot["game"]).spec.min_seats
    waiting = bool(shown) and shown[0]["state"] == "active" and not played
    active = next((v for v in shown if v["state"] == "active"), None)
    offered = active is not None and bot["game"] in site.runner.settings.games
    return {"pool": {"active": len(pool), "needed": seats, "placing": waiting and len(pool) >= seats,
                     "too_small": waiting and len(pool) < seats},
            "play": f"/play?game={bot['game']}&opponent={active['id']}" if offered and active else None}


async def head_to_head(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    v = site.league.version(request.path_params["version"])
    if v is None:
        raise HTTPException(404, "no such version")
    rows = site.ratings.head_to_head(v["game"], v["id"])
    data = {"version": {"id": v["id"], "label": v["label"], "bot": v["bot"], "game": v["game"]}, "rows": rows}
    return _render(site, request, "h2h.html", data, auth)


def _entrant_versions(site: Site, t: TournamentRecord) -> list[VersionRecord | None]:
    by_store = {v["store_bot"]: v for v in site.league.versions("v.store_bot IS NOT NULL")}
    return [by_store.get(e["bot"]) for e in t["entrants"]]


def _seats_of(t: TournamentRecord, m: MatchRecord, names: list[str], seated: list[Any], private: list[bool]
              ) -> list[dict[str, Any]]:
    """A match page's seats: name, version, score, payoff and its mbb/g (docs/vocabulary.md), stderr link."""
    bb = game_big_blind(t["game"], t["params"])
    payoffs = m["payoffs"]
    rate = 1000 / bb / m["hands"] if bb and payoffs and m["hands"] else None
    return [{"seat": s, "name": name, "bot": v["bot"] if v else None, "version": v["id"] if v else None,
             "score": m["scores"][s] if m["scores"] else None, "payoff": payoffs[s] if payoffs else None,
             "mbb_per_game": payoffs[s] * rate if rate is not None else None,
             "stderr": f"/matches/{m['id']}/stderr/{s}" if private[s] else None}
            for s, (name, v) in enumerate(zip(names, seated))]


async def match_page(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    m = site.store.match(request.path_params["match"])
    if m is None or m["tournament"] not in site.league.tournament_kinds():
        raise HTTPException(404, "no such match")
    t = _tournament_of(site, m)
    versions = _entrant_versions(site, t)
    seated = [versions[i] for i in m["seats"]]
    names = [v["label"] if v else t["entrants"][i]["name"] for v, i in zip(seated, m["seats"])]
    private = [bool(v and auth.owns(v["owner"])) for v in seated]
    # Read (and cached) off the event loop: a long transcript must not stall
    # the tournament the same loop is running.
    lines = await trio.to_thread.run_sync(_transcript, m.get("transcript"))
    step_i = min(_line_number(request, "step"), max(len(lines) - 1, 0))
    first = max(0, step_i - WINDOW)
    # Names as `arena play` takes them (no spaces), each bot a file the reader has.
    safe = [re.sub(r"[^A-Za-z0-9_.-]", "_", n) for n in names]
    # a friendly's first entrant was a person's seat (arena.league._friendly): replayed as one
    person = [bool(t["settings"].get("friendly")) and i == 0 for i in m["seats"]]
    local = [(n, "human" if p else "./" + n) for n, p in zip(safe, person)]
    hands = await trio.to_thread.run_sync(_hands, t["game"], m.get("transcript"))
    steps = None if hands else await _steps_of(t, m, len(names))
    seats = _seats_of(t, m, names, seated, private)
    data = {
        "match": _match_facts(t, m),
        "seats": seats,
        "faults": [_fault_words(f, names, private[f["seat"]]) for f in m["faults"]],
        "replay": _replay_of(t, m, local),
        # A window of the transcript around the step; ?step=N moves it.
        "transcript": lines[first:step_i + WINDOW + 1], "transcript_lines": len(lines),
        "current": lines[step_i] if lines else None, "step": step_i, "permalink": f"/matches/{m['id']}",
        # As a person reads it (the game's hands_of), and each seat's running total over the hands.
        "hands": hands, "totals": cumulative(hands, len(names)) if hands else None,
        # Any other game: each seat's running payoff over the game's unit, and its steps in words.
        "readback": steps,
        "opened": "step" in request.query_params,
    }
    return _render(site, request, "match.html", data, auth)


def _tournament_of(site: Site, m: MatchRecord) -> TournamentRecord:
    t = site.store.tournament(m["tournament"])
    assert t is not None  # a match's tournament is stored before it (a foreign key)
    return t


def _match_facts(t: TournamentRecord, m: MatchRecord) -> dict[str, Any]:
    return {"id": m["id"], "tournament": m["tournament"], "round": m["round"], "index": m["idx"],
            "seed": shown_seed(m), "status": m["status"], "hands": m["hands"], "completed": m["completed"],
            "finished": m["finished"], "game": t["game"], "params": _params_now(t),
            "hands_word": _hands_word(t["game"], t["params"])}


def _replay_of(t: TournamentRecord, m: MatchRecord, local: list[tuple[str, str]]) -> str | None:
    """The command that plays the match again, once its seed may be shown."""
    if shown_seed(m) is None:
        return None
    defaults = load_game(t["game"]).Params().model_dump(mode="json")
    return replay_command(t["game"], _params_now(t), defaults, local, m["seed"], t["settings"],
                          t.get("lifetime", "match"))


async def _steps_of(t: TournamentRecord, m: MatchRecord, seats: int) -> Any:
    """A game that draws no hands: its dialogue read back (arena.league._steps), off the event loop."""
    told = (tuple(pseudonyms(m["seed"], seats)) if m.get("seed") is not None else (),
            tuple(t["entrants"][i]["name"] for i in m["seats"]))
    steps = await trio.to_thread.run_sync(_read_back, t["game"], json.dumps(t["params"], sort_keys=True),
                                          m.get("seed"), told, m.get("transcript"))
    return _steps_shown(steps, m)


def _line_number(request: Request, key: str) -> int:
    """A query value that is a line number (0 when absent); 400 in words when it is not one."""
    given = request.query_params.get(key, "")
    if given == "":
        return 0
    if not re.fullmatch(r"[0-9]{1,9}", given):
        shown = given if len(given) <= 20 else given[:20] + f"... ({len(given)} characters)"
        raise HTTPException(400, f"?{key}= takes a line number of the transcript (0, 1, 2, ...), not {shown!r}")
    return int(given)


class TranscriptLine(TypedDict):
    """A line of a stored transcript as the match page shows it (a line that is no message: seat None)."""

    n: int
    t: str  # seconds since the match began, as written
    seat: int | None
    dir: str  # -> (to the seat) or <- (its reply)
    text: str


def _transcript(path: str | None) -> list[TranscriptLine]:
    """A stored match's transcript, parsed. Cached by the file's size and
    time: a file read while it was missing or still being written (a page
    asked for early) is read again once it changes, never served stale."""
    stamp = _stamp(path)
    return [] if stamp is None else _read_transcript(path, stamp)


def _stamp(path: str | None) -> tuple[int, int] | None:
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=64)
def _read_transcript(path: str, stamp: tuple[int, int]) -> list[TranscriptLine]:
    out = []
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="backslashreplace") as f:
            for n, raw in enumerate(f):
                if n >= TRANSCRIPT_LINES:
                    out.append(TranscriptLine(n=n, t="", seat=None, dir="", text="(transcript cut here)"))
                    break
                m = re.match(r"\[\s*([\d.]+)\] seat (\d+) (->|<-) ?(.*)$", raw.rstrip("\n"))
                if m:
                    out.append(TranscriptLine(n=n, t=m[1], seat=int(m[2]), dir=m[3], text=m[4]))
                else:
                    out.append(TranscriptLine(n=n, t="", seat=None, dir="", text=raw.rstrip("\n")))
    except (OSError, EOFError):
        return []
    return out


def _hands(game: str, path: str | None) -> list[dict[str, Any]] | None:
    """A stored match's hands as the game reads them (``GamePlugin.hands_of``), cached like its transcript."""
    return _read_hands(game, path, _stamp(path))


@functools.lru_cache(maxsize=64)
def _read_hands(game: str, path: str | None, stamp: tuple[int, int] | None) -> list[dict[str, Any]] | None:
    lines = [] if stamp is None else _read_transcript(path, stamp)
    return load_game(game).hands_of([(ln["seat"], ln["dir"], ln["text"]) for ln in lines if ln["seat"] is not None])


def _hands_word(game: str, params: dict[str, Any]) -> str:
    """The game's word for what a match is counted in ("hands", "rounds", "games": ``units()``)."""
    return game_units(game, params)["hands"]


def _read_back(game: str, params: str, seed: str | None, told: tuple[tuple[str, ...], ...],
               path: str | None) -> ReadBack:
    return _read_back_cached(game, params, seed, told, path, _stamp(path))


@functools.lru_cache(maxsize=32)
def _read_back_cached(game: str, params: str, seed: str | None, told: tuple[tuple[str, ...], ...],
                      path: str | None, stamp: tuple[int, int] | None) -> ReadBack:
    lines = [] if stamp is None else _read_transcript(path, stamp)
    plugin = load_game(game)
    try:
        checked = plugin.Params.model_validate(json.loads(params))
    except ValueError as exc:  # parameters an older version of the game stored
        return ReadBack(unit=_hands_word(game, {}), problem=f"its parameters no longer fit {game}: "
                                                           f"{str(exc).splitlines()[0]}")
    return read_back(plugin, checked, seed, [list(n) for n in told if n],
                     [(ln["seat"], ln["dir"], ln["text"]) for ln in lines if ln["seat"] is not None])


def _steps_shown(rb: ReadBack, m: MatchRecord) -> dict[str, Any]:
    """What the match page shows of a read-back match (and its JSON twin): the
    chart's points, from the stored result alone when the replay had none."""
    xs, totals, words = rb.xs, rb.totals, None
    if not xs and m["payoffs"] and m["hands"]:
        xs, totals = [0, m["hands"]], [[0.0, float(p)] for p in m["payoffs"]]
        words = "the stored result only"
    return {"unit": rb.unit if rb.xs else rb.hands_word, "payoff": rb.payoff_word, "hands_word": rb.hands_word,
            "xs": xs, "totals": totals, "complete": rb.complete, "problem": rb.problem, "from_result": words,
            "steps": rb.steps, "steps_total": rb.steps_total}


async def match_stderr(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    m = site.store.match(request.path_params["match"])
    seat: int = request.path_params["seat"]
    if m is None or m["tournament"] not in site.league.tournament_kinds() or seat >= len(m["seats"]):
        raise HTTPException(404, "no such match or seat")
    v = _entrant_versions(site, _tournament_of(site, m))[m["seats"][seat]]
    if v is None or not auth.owns(v["owner"]):
        raise HTTPException(403, "a bot's stderr is shown to its owner only")
    path = Path(m["log_dir"] or "") / f"seat{seat}.stderr.log"
    try:
        text = path.read_bytes()[-256 * 1024:].decode("utf-8", "backslashreplace")
    except OSError:
        text = ""
    return PlainTextResponse(text, headers={"Content-Disposition": "inline"})


async def tournaments_page(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    kinds = site.league.tournament_kinds()
    rows = []
    for t in site.store.tournaments()[::-1]:  # newest first (through reversed() here, mypy lost t's type)
        if t["id"] not in kinds:
            continue
        live = site.runner.live.get(t["id"])
        total, done = site.store.match_counts(t["id"])
        rows.append({"id": t["id"], "game": t["game"], "kind": kinds[t["id"]].kind, "status": t["status"],
                     "entrants": len(t["entrants"]), "matches": total, "done": done,
                     "playing": live is not None, "seed": shown_seed(t)})
        if len(rows) >= 100:
            break
    data = {"tournaments": rows, "games": site.runner.settings.games, **_schedule(site), "admin": auth.admin}
    return _render(site, request, "tournaments.html", data, auth)


def _params_now(t: TournamentRecord) -> dict[str, Any]:
    """A stored tournament's parameters under their current names (a renamed one, docs/vocabulary.md)."""
    try:
        return current_names(load_game(t["game"]).Params, t["params"])
    except PluginLoadError:
        return t["params"]


async def tournament_page(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    tid = request.path_params["tournament"]
    kinds = site.league.tournament_kinds()
    t = site.store.tournament(tid)
    if t is None or tid not in kinds:
        raise HTTPException(404, "no such tournament")
    versions = _entrant_versions(site, t)
    names = [v["label"] if v else e["name"] for v, e in zip(versions, t["entrants"])]
    matches = site.store.matches(tid, pending=True)
    done = [m for m in matches if m["status"] != "pending"]
    # Its standings under its own rules (so far, while it plays), with each entrant's league name.
    standings = []
    ranking = None
    if done:
        found = standings_of(site.store, tid)
        label = {e["name"]: n for e, n in zip(t["entrants"], names)}
        # (an interval of one match is infinite: null in the JSON twin, blank on the page)
        standings = [{**{k: None if isinstance(x, float) and not math.isfinite(x) else x for k, x in row.items()},
                      "bot": label.get(row["bot"], row["bot"])} for row in found["standings"]]
        ranking = _ranking(found, game_units(t["game"], t["params"])["tournament"], label)
    settings = t["settings"]
    rules = {"rounds": t["rounds"], "lifetime": t.get("lifetime", "match"), "timeout (s)": settings.get("timeout"),
             "seats per match": settings.get("seats")}
    data = {"tournament": {"id": tid, "game": t["game"], "kind": kinds[tid].kind, "status": t["status"],
                           "seed": shown_seed(t), "params": _params_now(t), "entrants": names,
                           "matches": len(matches), "done": len(done),
                           "playing": tid in site.runner.live,
                           "rules": {k: v for k, v in rules.items() if v is not None},
                           "format": format_words(settings)},
            "standings": standings, "ranking": ranking,
            "matches": [_match_summary(m, names) for m in done[-200:]][::-1]}
    return _render(site, request, "tournament.html", data, auth)


def _ranking(found: Standings, unit: str, label: dict[str, str]) -> dict[str, Any]:
    """What the standings' rank counts and what the rating counts (in a two-seat game: matches won,
    not by how much), and, where the two disagree at the top, a sentence that says so."""
    two = found.get("seats") == 2
    out: dict[str, Any] = {"by": found["ranked_by"], "unit": unit,
                           "rating_counts": "matches won, drawn and lost" if two else "each match's order of finish",
                           "disagree": None}
    rows = [r for r in found["standings"] if not r["disqualified"]]
    if not two or len(rows) < 2:
        return out
    first, second = rows[0], rows[1]
    pair = next((h for h in found["head_to_head"] if h["bot"] == first["bot"] and h["opponent"] == second["bot"]),
                None)
    if pair is not None and pair["wins"] < pair["losses"]:
        a, b = label.get(first["bot"], first["bot"]), label.get(second["bot"], second["bot"])
        out["disagree"] = (f"{a} ranks first by {unit} but won {pair['wins']} and lost {pair['losses']} of its "
                           f"{pair['matches']} matches against {b}: {a} won by more, {b} more often.")
    return out


# -- accounts ----------------------------------------------------------------------------


async def login(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    if request.method == "GET":
        token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
        response = _render(site, request, "login.html", {"login_csrf": token, "error": None,
                                                         "next": _local(request.query_params.get("next"))}, auth)
        response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", secure=site.secure)
        return response
    host = request.client.host if request.client else "?"
    if not site.logins.allow(host):
        raise HTTPException(429, "too many login attempts from this address; wait a few minutes")
    form = await _form(request, Auth(None, None))
    user = site.league.user_by_token(str(form.get("token", "")).strip())
    if user is None:
        token = request.cookies.get(LOGIN_COOKIE, "")
        return _render(site, request, "login.html", {"login_csrf": token, "error": "that token is not valid",
                                                     "next": _local(form.get("next"))}, auth, status=401)
    cookie, _ = site.league.new_session(user["id"])
    response = RedirectResponse(_local(form.get("next")) or "/", status_code=303)
    response.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="lax", secure=site.secure,
                        max_age=7 * 24 * 3600)
    response.delete_cookie(LOGIN_COOKIE)
    return response


def _local(path: Any) -> str | None:
    """``path`` when it is a page of this site (a login's way back), else None: never another
    host (``//evil``, ``/\\evil``, a scheme), so a link cannot send a user off-site after logging in."""
    if isinstance(path, str) and re.fullmatch(r"/(?:[A-Za-z0-9._~-][A-Za-z0-9._~/-]*)?", path) and "//" not in path:
        return path
    return None


async def logout(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    await _form(request, auth)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        site.league.end_session(cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


# -- submissions ---------------------------------------------------------------------------


class Submitted(TypedDict):
    """What a submission answers (``POST /api/bots``, its JSON)."""

    bot: int
    version: int
    number: int
    label: str
    game: str
    state: str
    url: str  # the bot's page


def submit_bot(site: Site, user: UserRecord, game: str, name: str, filename: str, data: bytes,
               *, limited: bool = True) -> Submitted:
    """Check an upload and store it as a new version; raises HTTPException with a sentence.

    Nothing is stored unless every check passed. ``limited``: counts against
    the user's hourly submissions (not the server's own demo seeding).
    """
    limits = site.runner.settings.limits
    games = site.runner.settings.games
    _refuse_without_room(site, "a submission")
    # Every attempt counts, refused ones too: unpacking costs the server, not the sender.
    if limited and not site.submits.allow(f"user{user['id']}"):
        raise HTTPException(429, f"at most {site.submits.count} submissions an hour; try again later")
    try:
        inspect_upload(data, filename, limits)
    except UploadError as exc:
        raise HTTPException(413 if len(data) > limits.max_upload_bytes else 400, str(exc)) from None
    work = site.runner.files / "work" / f"upload-{secrets.token_hex(8)}"
    try:
        vid, bot, game = _store_upload(site, user, game, name, filename, data, work)
    except HTTPException:
        raise
    except NoRoomForUpload as exc:  # this upload alone does not fit: refused, the league goes on
        site.runner.log(f"Disk: the upload of {filename!r} was refused, the league going on: {exc}")
        raise HTTPException(507, f"a submission is refused: {exc}") from None
    except Exception as exc:
        if not no_room(exc):
            raise
        # Nothing of it is kept (the work folder goes; a blob is whole or absent).
        site.runner.out_of_room(exc, f"the upload of {filename!r}")
        raise HTTPException(507, _refusal(site, "a submission")) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    site.runner.submitted(vid)
    v = site.league.version(vid)
    assert v is not None  # stored just above
    return Submitted(bot=bot, version=vid, number=v["number"], label=v["label"], game=game,
                     state=v["state"], url=f"/bots/{bot}")


def _refusal(site: Site, what: str) -> str:
    return site.runner.disk.refusal(what) or f"{what} is refused for now: the league's disk is full"


def _refuse_without_room(site: Site, what: str) -> None:
    """507 with a sentence while the league has no room to write."""
    if site.runner.disk.refusal(what) is not None:
        raise HTTPException(507, _refusal(site, what))


def _store_upload(site: Site, user: UserRecord, game: str, name: str, filename: str, data: bytes,
                  work: Path) -> tuple[int, int, str]:
    """Unpack and store one upload as a new version: (version, bot, game)."""
    limits = site.runner.settings.limits
    games = site.runner.settings.games
    try:
        unpacked = unpack(data, filename, work, limits)
    except UploadError as exc:
        raise HTTPException(400, str(exc)) from None
    manifest = unpacked.manifest
    if game and manifest.game and manifest.game != game:
        raise HTTPException(400, f"the form says game {game!r} but arena.toml says {manifest.game!r}")
    game = game or manifest.game or ""
    if game not in games:
        raise HTTPException(400, f"game {game!r} is not played in this league (it plays {', '.join(games)})")
    name = name or manifest.name or ""
    if (problem := bot_name_problem(name)) is not None:
        raise HTTPException(400, problem)
    found = site.league.find_bot(game, name)
    if found is None or (found.owner == user["id"]
                         and not site.league.versions("v.bot=? AND v.state='active'", (found.id,))):
        # A bot with no version in the pool would add one: the owner's cap counts it.
        _check_pool_room(site, user["id"], game, f"a new bot {name!r}")
    try:
        bot = site.league.bot_for(user["id"], game, name)
    except PermissionError as exc:
        raise HTTPException(403, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    sha = site.blobs.put(data)
    vid = site.league.add_version(bot, sha, unpacked.kind, {"run": manifest.run, "build": manifest.build})
    work.rename(site.runner.bot_folder(vid))
    return vid, bot, game


def _check_pool_room(site: Site, owner: int, game: str, what: str) -> None:
    cap = site.runner.settings.pool_limit
    have = site.league.pool_count(owner, game)
    if have >= cap:
        raise HTTPException(400, f"{what} would add to your {have} versions in the {game} pool, and one user may "
                                 f"have at most {cap} there; retire one of them first (from its bot's page)")


async def _upload(request: Request, site: Site, auth: Auth) -> tuple[Any, bytes, str]:
    limit = site.runner.settings.limits.max_upload_bytes
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        raise HTTPException(411, "an upload needs a Content-Length")
    if int(length) > limit + 64 * 1024:
        raise HTTPException(413, f"upload is {int(length) / 2**20:.1f} MB; the limit is {limit / 2**20:g} MB")
    form = await _form(request, auth, max_part=64 * 1024)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise HTTPException(400, "no file: send the bot as the form field 'file'")
    data = await upload.read(limit + 1)
    return form, data, upload.filename or "bot"


async def api_submit(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    user = _need_user(auth)
    _refuse_without_room(site, "a submission")  # before the upload is read
    form, data, filename = await _upload(request, site, auth)
    out = submit_bot(site, user, str(form.get("game", "")), str(form.get("name", "")), filename, data)
    return JSONResponse(out, status_code=201)


async def submit_page(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    if request.method == "GET":
        if auth.user is None:
            return RedirectResponse("/login", status_code=303)
        return _render(site, request, "submit.html", {"games": site.runner.settings.games, "error": None,
                                                      "game": "", "name": ""}, auth)
    user = _need_user(auth)
    form = None
    try:
        _refuse_without_room(site, "a submission")
        form, data, filename = await _upload(request, site, auth)
        out = submit_bot(site, user, str(form.get("game", "")), str(form.get("name", "")), filename, data)
    except HTTPException as exc:
        if exc.status_code in (401, 403) and "CSRF" in str(exc.detail):
            raise
        # The form comes back as it was sent (but the file, which a browser never refills).
        given = {"game": str(form.get("game", "")), "name": str(form.get("name", ""))} if form else {}
        return _render(site, request, "submit.html", {"games": site.runner.settings.games, "error": exc.detail,
                                                      "game": given.get("game", ""), "name": given.get("name", "")},
                       auth, status=exc.status_code)
    return RedirectResponse(out["url"], status_code=303)


# -- admin and owner actions -----------------------------------------------------------------


#: what an owner acts on: a bot, or one of its versions (each has its ``owner``)
_Owned = TypeVar("_Owned", LeagueBotRecord, VersionRecord)


async def _owned(request: Request, find: str,
                 lookup: Callable[[League, int], _Owned | None]) -> tuple[Site, Auth, _Owned]:
    """The bot or version a POST names (``find``: ``bot`` or ``version``; ``lookup``:
    ``League.bot`` or ``League.version``), once the form's CSRF token and the
    user's ownership (or admin role) are checked."""
    site: Site = request.app.state.site
    auth = _auth(site, request)
    _need_user(auth)
    await _form(request, auth)
    thing = lookup(site.league, request.path_params[find])
    if thing is None:
        raise HTTPException(404, f"no such {find}")
    if not auth.owns(thing["owner"]):
        raise HTTPException(403, "only the bot's owner or an admin may do that")
    return site, auth, thing


async def bot_action(request: Request) -> Response:
    site, auth, bot = await _owned(request, "bot", League.bot)
    action = request.path_params["action"]
    if action in ("pause", "resume"):
        site.league.set_paused(bot["id"], action == "pause")
        if action == "resume":
            site.runner.resumed(bot["id"])
    elif action == "requarantine":
        if not auth.admin:
            raise HTTPException(403, "only an admin may re-run a quarantine")
        latest = site.league.versions("v.bot=? AND v.command IS NOT NULL", (bot["id"],))
        if not latest:
            raise HTTPException(400, "this bot has no built version to quarantine")
        v = latest[-1]
        site.league.set_state(v["id"], "built", "quarantine re-run by an admin")
        site.runner.submitted(v["id"])
    else:
        raise HTTPException(404, f"no action {action!r}")
    if _api(request):
        return JSONResponse({"bot": bot["id"], "done": action})
    return RedirectResponse(f"/bots/{bot['id']}", status_code=303)


async def version_action(request: Request) -> Response:
    """An owner keeps an older version in the pool beside the newest (to compare
    them), or takes one out; its record stays either way."""
    site, _, v = await _owned(request, "version", League.version)
    action = request.path_params["action"]
    if action == "reinstate":
        if v["state"] != "retired":
            raise HTTPException(400, f"{v['label']} is {v['state']}; only a retired version can be put back in the pool")
        _check_pool_room(site, v["owner"], v["game"], f"putting {v['label']} back")
        site.league.set_state(v["id"], "active", "put back in the pool by its owner")
    elif action == "retire":
        if v["state"] != "active":
            raise HTTPException(400, f"{v['label']} is {v['state']}, not active")
        site.league.set_state(v["id"], "retired", "taken out of the pool by its owner")
    else:
        raise HTTPException(404, f"no action {action!r}")
    if _api(request):
        return JSONResponse({"version": v["id"], "done": action})
    return RedirectResponse(f"/bots/{v['bot']}", status_code=303)


async def start_tournament(request: Request) -> Response:
    site: Site = request.app.state.site
    auth = _auth(site, request)
    _need_user(auth)
    form = await _form(request, auth)
    if not auth.admin:
        raise HTTPException(403, "only an admin may start a tournament")
    game = str(form.get("game", ""))
    if game not in site.runner.settings.games:
        raise HTTPException(400, f"game {game!r} is not played in this league")
    _refuse_without_room(site, "a tournament")
    site.runner.start_now(game)
    if _api(request):
        return JSONResponse({"started": game}, status_code=202)
    return RedirectResponse("/tournaments", status_code=303)


# -- the app ------------------------------------------------------------------------------


async def my_bots(request: Request) -> Response:
    """Every bot and version of the logged-in user, where each stands in the
    pipeline; a rejected one with the step it failed, in words."""
    site: Site = request.app.state.site
    auth = _auth(site, request)
    user = _need_user(auth)
    rows = []
    for v in reversed(site.league.versions("b.owner=?", (user["id"],))):
        failed = next((st for st in v["steps"] if st["status"] == "FAIL"), None)
        rows.append({"bot": v["bot"], "name": v["name"], "game": v["game"], "version": v["id"], "number": v["number"],
                     "label": v["label"], "state": v["state"], "paused": v["paused"], "message": v["message"],
                     "failed_step": failed["name"] if failed else None,
                     "failed_words": failed["summary"] if failed else None, "updated": v["updated"]})
    return _render(site, request, "mine.html", {"versions": rows}, auth)


# -- friendlies: a person's seat in the browser (arena.league._friendly) ----------------------


async def play_page(request: Request) -> Response:
    """GET: the form to start a friendly; POST: start it (against active bots of a game)."""
    site: Site = request.app.state.site
    auth = _auth(site, request)
    user = _need_user(auth)
    problem = None
    if request.method == "POST":
        form = await _form(request, auth)
        started, problem = _start_friendly(site, user, form)
        if started is not None:
            if _api(request):
                return JSONResponse(started.public(), status_code=201)
            return RedirectResponse(f"/play/{started.id}", status_code=303)
        if _api(request):
            raise HTTPException(400, problem)
    games = [{"id": g, "bots": [{"id": v["id"], "label": v["label"], "owner": v["owner_name"]}
                                for v in site.league.pool(g)], "seats": load_game(g).spec.min_seats,
              "hands": "hands" in load_game(g).Params.model_fields}
             for g in site.runner.settings.games]
    mine = [f.public() for f in site.friendlies.games.values() if f.owner == user["id"]]
    # ?game=G&opponent=V (a bot page's "play against this bot"): that opponent ticked
    chosen = {"game": request.query_params.get("game"), "opponent": request.query_params.get("opponent")}
    return _render(site, request, "play.html", {"games": games, "problem": problem, "friendlies": mine[::-1],
                                                "chosen": chosen}, auth, status=400 if problem else 200)


def _start_friendly(site: Site, user: UserRecord, form: Any) -> tuple[Any, str | None]:
    """The friendly the posted form starts, or why it cannot be played (in words)."""
    game = str(form.get("game", ""))
    if game not in site.runner.settings.games:
        raise HTTPException(400, f"this league plays {', '.join(site.runner.settings.games)}, not {game!r}")
    pool = {str(v["id"]): v for v in site.league.pool(game)}
    chosen = [str(x) for x in form.getlist("opponents")]
    unknown = [x for x in chosen if x not in pool]
    given_hands = str(form.get("hands", "")).strip()
    if unknown:
        return None, f"version {unknown[0]} is not an active bot of {game}"
    if not chosen:
        return None, f"choose at least one opponent among the active bots of {game}"
    if given_hands and not given_hands.isdigit():
        return None, f"hands is a whole number, not {given_hands!r}"
    if site.runner.nursery is None:
        return None, "the league is starting; try again in a moment"
    try:
        return site.friendlies.start(site.runner.nursery, user, game, [pool[x] for x in chosen],
                                     int(given_hands) if given_hands else None), None
    except ValueError as exc:
        return None, str(exc).splitlines()[0]


def _my_friendly(site: Site, request: Request, user: UserRecord) -> Any:
    f = site.friendlies.games.get(request.path_params["friendly"])
    if f is None or f.owner != user["id"]:
        raise HTTPException(404, "no such friendly match of yours (they are kept until the server restarts; "
                                 "the stored match stays on its page)")
    return f


async def play_match(request: Request) -> Response:
    """GET: the seat's screen and one form for the decision due; POST: that decision."""
    site: Site = request.app.state.site
    auth = _auth(site, request)
    user = _need_user(auth)
    f = _my_friendly(site, request, user)
    problem = None
    if request.method == "POST":
        reply, problem = _decision(f.question, await _form(request, auth))
        if reply is not None:
            await site.friendlies.answer(f, reply)
            if not _api(request):
                return RedirectResponse(f"/play/{f.id}", status_code=303)
    return _render(site, request, "play_match.html", {"friendly": f.public(), "problem": problem}, auth,
                   status=400 if problem else 200)


#: one event stream lasts this long at most (the browser's EventSource opens the next by itself),
#: so no connection outlives its reader by more, nor holds a stopping server past its grace time
STREAM_SECONDS = 25.0
#: event streams one user may hold open at once (each is a connection and a task of the server)
STREAMS_PER_USER = 8
#: changes closer together than this are told as one (a bots' hand can change the screen many times)
STREAM_GAP = 0.2


async def play_events(request: Request) -> Response:
    """A friendly's changes as server-sent events, for its page's script (``live.js``): ``change``
    with the new revision at each, ``over`` at the end. The page itself still works without them."""
    site: Site = request.app.state.site
    user = _need_user(_auth(site, request))
    f = _my_friendly(site, request, user)
    if site.streams.get(user["id"], 0) >= STREAMS_PER_USER:
        raise HTTPException(429, f"{user['name']} already follows {STREAMS_PER_USER} pages live; close some "
                                 "(each page still works without: reload it)")

    async def events() -> Any:
        # No cancel scope spans a yield (the response iterates this generator in its own task group).
        site.streams[user["id"]] = site.streams.get(user["id"], 0) + 1
        try:
            told, end = -1, trio.current_time() + STREAM_SECONDS
            yield "retry: 1000\n\n"
            while trio.current_time() < end:
                if f.revision != told:
                    told = f.revision
                    yield f"event: {'over' if f.over else 'change'}\ndata: {told}\n\n"
                if f.over:
                    return
                await trio.sleep(STREAM_GAP)
                if not await _changed_within(f, told, min(10.0, end - trio.current_time())):
                    yield ": still here\n\n"  # a comment keeps proxies from closing an idle stream
        finally:
            site.streams[user["id"]] -= 1

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def _changed_within(f: Any, told: int, seconds: float) -> bool:
    with trio.move_on_after(max(0.0, seconds)):
        await f.wait_past(told)
        return True
    return False


def _decision(question: Any, form: Any) -> tuple[str | None, str | None]:
    """The reply line a person's form stands for, or what is wrong with it, in words."""
    if question is None:
        return None, "no decision is due now"
    if not question[1]:  # the plain view: a reply line as typed
        line = str(form.get("line", "")).strip()
        if not line or len(line) > 4096:
            return None, "type the reply line (one line, at most 4096 characters)"
        return line, None
    word = str(form.get("choice", ""))
    amount = str(form.get("amount", "")).strip()
    choice = next((c for c in question[1] if c.word == word), None)
    if choice is None:
        return None, f"{word!r} is not one of {'/'.join(c.word for c in question[1])}"
    if choice.low is None:
        return word, None
    if not (amount.isdigit() and choice.high is not None and choice.low <= int(amount) <= choice.high):
        return None, f"{word} needs an amount from {choice.low} to {choice.high}, not {amount or 'nothing'!r}"
    return f"{word} {amount}", None


async def style(request: Request) -> Response:
    return Response((HERE / "templates" / "style.css").read_text(), media_type="text/css",
                    headers={"Cache-Control": "max-age=300"})


async def live_script(request: Request) -> Response:
    """The one script of the pages (templates/live.js): a page that changes while it is read
    updates in place, keeping the reader's place, instead of reloading itself."""
    return Response((HERE / "templates" / "live.js").read_text(), media_type="text/javascript",
                    headers={"Cache-Control": "max-age=300"})


async def icon(request: Request) -> Response:
    """The pages' icon (a browser asks for one; a 404 there is an error in its console)."""
    return Response((HERE / "templates" / "icon.svg").read_text(), media_type="image/svg+xml",
                    headers={"Cache-Control": "max-age=86400"})


async def _error(request: Request, exc: Exception) -> Response:
    site: Site = request.app.state.site
    if isinstance(exc, HTTPException):
        status, detail = exc.status_code, exc.detail
        if status == 404 and detail == "Not Found":  # Starlette's own: no route matched
            detail = f"there is no page at {request.url.path[:200]!r} (an id too long for any row is one of those)"
    elif no_room(exc):
        site.runner.out_of_room(exc, f"{request.method} {request.url.path[:100]}")
        status, detail = 507, _refusal(site, "this request")
    elif (problem := write_problem(exc, site.store.path)) is not None:
        status, detail = 503, f"this request could not be answered: {problem}"
        site.runner.log(f"arena: {request.method} {request.url.path[:100]}: {problem}")
    else:
        status = 500
        detail = (f"the server met an error it did not expect ({type(exc).__name__}) while answering "
                  f"{request.method} {request.url.path[:100]}; it is in the server's log. Nothing you sent was at "
                  "fault, and other pages still work.")
    if _api(request):
        return JSONResponse({"error": detail, "status": status}, status_code=status)
    if status == 401 and request.method == "GET":  # a page for users: log in, then come back to it
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
    try:
        auth = _auth(site, request)
    except Exception:  # the database itself may be what failed
        auth = Auth(None, None)
    return site.templates.TemplateResponse(
        request, "error.html", {"request": request, "me": auth.user, "csrf": auth.csrf, "status": status,
                                "detail": detail, "paused": site.runner.disk.problem}, status_code=status)


class _Bodies:
    """A limit on every request's body: its declared length is checked before
    any of it is read, what arrives is counted against that and the route's
    cap, and the whole body must arrive within a time limit."""

    def __init__(self, app: Any, upload_bytes: int) -> None:
        self.app, self.upload_bytes = app, upload_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        upload = scope["path"] in UPLOAD_PATHS
        cap = self.upload_bytes if upload else FORM_BYTES
        what = "an upload" if upload else f"a request to {scope['path'][:100]}"
        declared: int | None = None
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit():
                declared = int(value)
        deadline = trio.current_time() + (UPLOAD_SECONDS if upload else FORM_SECONDS)
        got = 0

        async def capped() -> Any:
            nonlocal got
            # Raised from the handler's read: the app answers it like any refusal, in words.
            if declared is not None and declared > cap:
                raise HTTPException(413, f"{what} may carry at most {_bytes(cap)}; this one declares "
                                         f"{_bytes(declared)}, and none of it was read")
            with trio.move_on_at(deadline):
                message = await receive()
                if message["type"] == "http.request":
                    got += len(message.get("body", b""))
                    if got > cap or (declared is not None and got > declared):
                        raise HTTPException(413, f"{what} may carry at most {_bytes(cap)}; more was sent")
                return message
            raise HTTPException(408, f"{what}'s body did not arrive within "
                                     f"{UPLOAD_SECONDS if upload else FORM_SECONDS:g} s ({_bytes(got)} of "
                                     f"{_bytes(declared) if declared is not None else 'an unknown length'} came)")

        await self.app(scope, capped, send)


def _bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 2**10:.0f} KB" if n >= 2**10 else f"{n} bytes"


class _Headers:
    """Security headers on every response."""

    HEADERS = [
        (b"content-security-policy", b"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "
                                     b"img-src 'self'; form-action 'self'; "
                                     b"frame-ancestors 'none'; base-uri 'none'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),
    ]

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.HEADERS
            await send(message)

        await self.app(scope, receive, send_with)


def make_app(site: Site) -> Any:
    routes = []
    for path, handler, methods in (
        ("/", home, ["GET"]),
        ("/games/{game}", leaderboard, ["GET"]),
        ("/bots/{bot:id}", bot_page, ["GET"]),
        ("/versions/{version:id}/h2h", head_to_head, ["GET"]),
        ("/matches/{match:id}", match_page, ["GET"]),
        ("/tournaments", tournaments_page, ["GET"]),
        ("/tournaments/{tournament:id}", tournament_page, ["GET"]),
        ("/bots/{bot:id}/{action}", bot_action, ["POST"]),
        ("/versions/{version:id}/{action}", version_action, ["POST"]),
        ("/tournaments/start", start_tournament, ["POST"]),
    ):
        routes.append(Route(path, handler, methods=methods))
        routes.append(Route("/api" + (path if path != "/" else "/games"), handler, methods=methods))
    routes += [
        Route("/api/bots", api_submit, methods=["POST"]),
        Route("/submit", submit_page, methods=["GET", "POST"]),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/mine", my_bots, methods=["GET"]),
        Route("/api/mine", my_bots, methods=["GET"]),
        Route("/play", play_page, methods=["GET", "POST"]),
        Route("/api/play", play_page, methods=["GET", "POST"]),
        Route("/play/{friendly:id}", play_match, methods=["GET", "POST"]),
        Route("/api/play/{friendly:id}", play_match, methods=["GET", "POST"]),
        Route("/play/{friendly:id}/events", play_events, methods=["GET"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/matches/{match:id}/stderr/{seat:id}", match_stderr, methods=["GET"]),
        Route("/static/style.css", style, methods=["GET"]),
        Route("/static/icon.svg", icon, methods=["GET"]),
        Route("/static/live.js", live_script, methods=["GET"]),
        Route("/favicon.ico", icon, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error, Exception: _error})
    app.state.site = site
    return _Headers(_Bodies(app, site.runner.settings.limits.max_upload_bytes + 64 * 1024))


def _when(t: float | None) -> str:
    if not t:
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))


def _live(every: int, events: str | None = None, reload: bool = True) -> Markup:
    """A page that changes while read: live.js updates it in place (following ``events``, a
    stream of server-sent events, else asking every ``every`` s); without scripts it reloads
    itself every ``every`` s instead (unless ``reload`` is off: a page awaiting the reader's form)."""
    stream = f' data-events="{escape(events)}"' if events else ""
    fallback = f'<noscript><meta http-equiv="refresh" content="{every}"></noscript>' if reload else ""
    return Markup(f'{fallback}<meta name="arena-live" content="{every}"{stream}>'
                  '<script src="/static/live.js" defer></script>')


def _card_html(card: str) -> Markup:
    """A card as a small face: ``Ah`` -> A♥ in red (a rank alone, ``K``, stays a rank)."""
    text = card_text(card)
    red = " red" if text[-1:] in "♥♦" else ""
    return Markup(f'<span class="pc{red}">{escape(text)}</span>')


def _num(x: Any, digits: int = 2) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.{digits}f}".rstrip("0").rstrip(".") if abs(x) < 1e6 else f"{x:.3g}"
    return str(x)
