"""The league server (``arena serve``) over HTTP: the real server on 127.0.0.1,
real submissions through the sandboxed build and quarantine, real tournaments,
and the attacks a hostile submitter would try."""

from __future__ import annotations

import gzip
import io
import os
import re
import sqlite3
import subprocess
import tarfile
import zipfile
from pathlib import Path

import httpx
import pytest

from ..conftest import PY, ROOT
from .league_server import blob_exists, new_user, env, sample, tar_gz, zip_bytes

# Every test here uses the run's one shared league (tests/league/league_server.py):
# three bots through quarantine and a placement are set up once for all workers.
pytestmark = pytest.mark.slow

def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchone()[0]


def test_a_submission_is_built_quarantined_activated_and_placed(league):
    v = league.version(league.pool[0])
    assert v["state"] == "active"
    assert [s["name"] for s in v["steps"]] == ["build", "quarantine"]
    assert all(s["status"] == "PASS" for s in v["steps"])
    # The third bot's arrival made a placement gauntlet: all three are rated.
    board = league.http.get("/api/games/kuhn3").json()
    rated = {r["bot"]: r for r in board["rows"]}
    assert set(league.pool) <= set(rated)
    for bot in league.pool:
        assert rated[bot]["matches"] > 0 and rated[bot]["ci"] > 0
    kinds = [t["kind"] for t in league.http.get("/api/tournaments").json()["tournaments"]]
    assert "placement" in kinds
    # An active bot's page offers a friendly against it, with it ticked on the form
    bob = {"Authorization": f"Bearer {league.tokens['bob']}"}
    page = league.http.get(f"/api/bots/{league.pool[0]}", headers=bob).json()
    assert page["play"] == f"/play?game=kuhn3&opponent={v['id']}" and not page["pool"]["too_small"]
    form = league.http.get(page["play"], headers=bob).text
    assert f'value="{v["id"]}" checked>' in form and form.count(" checked>") == 1


def test_arena_submit_sends_a_folder_that_is_built_in_the_sandbox(league, tmp_path):
    folder = tmp_path / "cbot"
    folder.mkdir()
    (folder / "rule_bot.c").write_bytes((ROOT / "sample_bots/kuhn3/rule_bot.c").read_bytes())
    (folder / "arena.toml").write_text('name = "rule-c"\nrun = "./rule_bot"\nbuild = "gcc -O2 -o rule_bot rule_bot.c"\n')
    out = subprocess.run([PY, "-m", "arena", "submit", "kuhn3", str(folder), "--server", league.url,
                          "--token", league.tokens["bob"]], capture_output=True, text=True, env=env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Submitted rule-c v1 (kuhn3)" in out.stdout
    bot = int(out.stdout.rsplit("/bots/", 1)[1])
    v = league.settled(bot)
    # Built inside the sandbox, then run from the folder the build replaced.
    assert v["state"] == "active", v
    assert v["steps"][0]["summary"].startswith("built in")
    # Placements are capped (--placement-matches 6): one whole set of three bots.
    placements = [t for t in league.http.get("/api/tournaments").json()["tournaments"] if t["kind"] == "placement"]
    assert placements and all(t["matches"] == 6 for t in placements)


def test_a_failed_build_shows_its_step_and_log_to_the_owner_only(league):
    data = tar_gz({"arena.toml": b'run = "./bot"\nbuild = "gcc -o bot missing.c"\n'})
    r = league.submit(league.tokens["bob"], "broken.tar.gz", data, name="broken-build")
    assert r.status_code == 201, r.text
    bot = r.json()["bot"]
    v = league.settled(bot)
    assert v["state"] == "rejected" and v["message"].startswith("build failed")
    owner = league.http.get(f"/api/bots/{bot}", headers={"Authorization": f"Bearer {league.tokens['bob']}"}).json()
    log = owner["versions"][0]["steps"][0]["log"]
    assert "missing.c" in log  # gcc's own words
    other = league.http.get(f"/api/bots/{bot}", headers={"Authorization": f"Bearer {league.tokens['eve']}"}).json()
    assert other["versions"][0]["steps"][0]["log"] is None


def test_a_bot_that_fails_quarantine_is_rejected_with_the_step_and_its_reply_escaped(league):
    bad = b"#!/usr/bin/env python3\nimport sys\nfor line in sys.stdin:\n    print('<b>bad</b>', flush=True)\n"
    r = league.submit(league.tokens["bob"], "bad.py", bad, name="html-bot")
    bot = r.json()["bot"]
    v = league.settled(bot)
    assert v["state"] == "rejected"
    assert "quarantine step 2 failed" in v["message"]
    page = league.http.get(f"/bots/{bot}", headers={"Authorization": f"Bearer {league.tokens['bob']}"}).text
    assert "&lt;b&gt;bad&lt;/b&gt;" in page  # the owner sees its reply, as text
    assert "<b>bad</b>" not in page


def test_a_bot_cannot_read_the_league_database_or_storage(league):
    data_dir = league.db.with_name(league.db.stem + "-data")
    # Its own folder's parents exist in its view (empty, as mount points); nothing else does.
    targets = [str(league.db), str(league.db) + "-wal", str(data_dir / "league" / "blobs"),
               str(data_dir / "league" / "bots" / "v1"), str(data_dir / "t1"), str(data_dir / "t1.lock")]
    probe = (f"import os, sys\nfor p in {targets!r}:\n"
             "    try:\n        (os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1))\n"
             "        print('ESCAPED ' + p, flush=True); sys.exit(0)\n"
             "    except OSError:\n        pass\n").encode()
    source = sample("check_fold_bot.py").replace(b"import re\n", probe + b"import re\n", 1)
    r = league.submit(league.tokens["eve"], "snoop.py", source, name="snoop")
    v = league.settled(r.json()["bot"])
    assert v["state"] == "active", v["message"]
    # Nor can its build: it sees neither the file nor the folder.
    build = f"cat {league.db} > got || true; ls {data_dir} > listed || true"
    r = league.submit(league.tokens["eve"], "b.tar.gz", tar_gz({
        "arena.toml": f'run = "python3 bot.py"\nbuild = "{build}"\n'.encode(), "bot.py": sample("check_fold_bot.py")}),
        name="snoop-build")
    v = league.settled(r.json()["bot"])
    folder = data_dir / "league" / "bots" / f"v{v['id']}"
    assert (folder / "got").stat().st_size == 0
    assert (folder / "listed").read_text() == "league\n"  # the way to its own folder, nothing else


def _tar(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def _info(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname, info.mode = kind, size, link, 0o755
    return info


def _gzip_bomb() -> bytes:
    # 100 MB of zeros (the limit is 64 MB unpacked) inside one tar entry,
    # compressed chunk by chunk (~100 KB).
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1) as gz:
        header = _info("arena.toml", size=100 * 2**20)
        gz.write(header.tobuf(format=tarfile.GNU_FORMAT))
        chunk = bytes(2**20)
        for _ in range(100):
            gz.write(chunk)
    return out.getvalue()


def _zip_ratio_bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("arena.toml", 'run = "./bot"\n')
        z.writestr("bot", b"#!/bin/sh\n" + bytes(30 * 2**20))
    return buf.getvalue()


MANIFEST = b'run = "python3 bot.py"\n'
ATTACKS = [
    ("zip traversal", "x.zip", lambda: zip_bytes({"arena.toml": MANIFEST, "../evil.py": b"x"}), 400, "../evil.py"),
    ("absolute path", "x.tar.gz", lambda: _tar([(_info("/etc/cron.d/x", size=1), b"x")]), 400, "/etc/cron.d/x"),
    ("symlink out", "x.tar.gz", lambda: _tar([(_info("arena.toml", size=len(MANIFEST)), MANIFEST),
                                              (_info("bot.py", tarfile.SYMTYPE, link="/etc/passwd"), None)]),
     400, "bot.py"),
    ("hard link", "x.tar.gz", lambda: _tar([(_info("arena.toml", size=len(MANIFEST)), MANIFEST),
                                            (_info("bot.py", tarfile.LNKTYPE, link="arena.toml"), None)]),
     400, "bot.py"),
    ("device", "x.tar.gz", lambda: _tar([(_info("arena.toml", size=len(MANIFEST)), MANIFEST),
                                         (_info("dev", tarfile.CHRTYPE), None)]), 400, "dev"),
    ("gzip bomb", "x.tar.gz", _gzip_bomb, 400, "arena.toml"),
    ("zip bomb", "x.zip", _zip_ratio_bomb, 400, "ratio"),
    ("too many files", "x.zip", lambda: zip_bytes({"arena.toml": MANIFEST, **{f"f{i}": b"" for i in range(1200)}}),
     400, "1000"),
    ("oversize", "big.py", lambda: b"#!/bin/sh\n" + os.urandom(9 * 2**20), 413, "8 MB"),
    ("empty", "e.py", lambda: b"", 400, "empty"),
    ("bad manifest", "x.zip", lambda: zip_bytes({"arena.toml": b'run = "./b"\nhack = 1\n', "b": b"#!/bin/sh\n"}),
     400, "hack"),
    ("no manifest", "x.zip", lambda: zip_bytes({"bot.py": b"print()"}), 400, "arena.toml"),
    ("not a program", "notes.txt", lambda: b"hello", 400, "notes.txt"),
]


@pytest.mark.parametrize("label,filename,make,status,phrase", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_hostile_uploads_are_refused_with_a_reason_and_nothing_stored(league, label, filename, make, status, phrase):
    user = "att" + label.replace(" ", "-")
    token = new_user(league.db, user)
    data = make()
    r = league.submit(token, filename, data, name="attack")
    assert r.status_code == status, r.text
    assert phrase in r.json()["error"], r.json()
    # Nothing stored: no upload, no bot, no version (other tests submit meanwhile).
    assert not blob_exists(league.db, data)
    assert _count(league.db, "SELECT COUNT(*) FROM league_bots b JOIN league_users u ON u.id=b.owner"
                             f" WHERE u.name='{user}'") == 0


def test_tokens_ownership_and_roles_are_enforced(league):
    bob, eve, ada = (league.tokens[n] for n in ("bob", "eve", "ada"))
    auth = lambda t: {"Authorization": f"Bearer {t}"}  # noqa: E731
    r = league.submit("arena_not-a-token", "r.py", sample("random_bot.py"))
    assert r.status_code == 401 and "token" in r.json()["error"]
    r = league.http.post("/api/bots", data={"game": "kuhn3"}, files={"file": ("r.py", sample("random_bot.py"))})
    assert r.status_code == 401
    # Eve cannot take over, pause or re-run Bob's bot.
    r = league.submit(eve, "r.py", sample("random_bot.py"), name="random")
    assert r.status_code == 403 and "belongs to another user" in r.json()["error"]
    bot = league.pool[0]
    assert league.http.post(f"/api/bots/{bot}/pause", headers=auth(eve)).status_code == 403
    assert league.http.post(f"/api/bots/{bot}/requarantine", headers=auth(bob)).status_code == 403
    assert league.http.post("/api/tournaments/start", headers=auth(eve), data={"game": "kuhn3"}).status_code == 403
    # Stderr logs: the seat's owner (or an admin) only.
    match = league.http.get(f"/api/bots/{bot}").json()["matches"][0]
    seat = match["entrants"].index(league.version(bot)["label"])
    path = f"/matches/{match['id']}/stderr/{seat}"
    assert league.http.get(path, headers=auth(eve)).status_code == 403
    assert league.http.get(path).status_code == 403
    assert league.http.get(path, headers=auth(bob)).status_code == 200
    assert league.http.get(path, headers=auth(ada)).status_code == 200
    # The owner may pause (out of the pool) and resume.
    assert league.http.post(f"/api/bots/{bot}/pause", headers=auth(bob)).status_code == 200
    assert league.http.get(f"/api/bots/{bot}").json()["bot"]["paused"] is True
    assert league.http.post(f"/api/bots/{bot}/resume", headers=auth(bob)).status_code == 200
    assert league.http.get(f"/api/bots/{bot}").json()["bot"]["paused"] is False


def test_a_users_page_sends_a_visitor_to_log_in_and_back_never_off_site(league):
    with httpx.Client(base_url=league.url, timeout=30) as web:
        for path in ("/play", "/mine", "/submit"):
            r = web.get(path)
            assert r.status_code == 303 and r.headers["location"].startswith("/login"), (path, r.status_code)
        assert web.get("/api/mine").status_code == 401  # a program gets the status, not a page
        assert web.get("/mine").headers["location"] == "/login?next=/mine"
    # The way back is a path of this site only (two logins: the server allows 10 in 5 minutes per address).
    for given, kept in (("/mine", True), ("//evil.example/x", False), ("https://evil.example", False),
                        ("/\\evil.example", False), ("/play/1", True)):
        page = httpx.get(league.url + "/login", params={"next": given}, timeout=30)
        assert (f'name="next" value="{given}"' in page.text) == kept, given
    for given, back in (("/mine", "/mine"), ("//evil.example/x", "/")):  # a forged form is held to it too
        with httpx.Client(base_url=league.url, timeout=30) as web:
            login_csrf = web.get("/login").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            r = web.post("/login", data={"token": league.tokens["bob"], "csrf": login_csrf, "next": given})
            assert (r.status_code, r.headers.get("location")) == (303, back), (given, r.status_code, r.text[:300])


def test_web_forms_need_their_csrf_token_and_a_valid_login(league):
    with httpx.Client(base_url=league.url, timeout=30) as web:
        page = web.get("/login")
        login_csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert web.post("/login", data={"token": league.tokens["bob"]}).status_code == 403  # no CSRF
        assert web.post("/login", data={"token": "wrong", "csrf": login_csrf}).status_code == 401
        r = web.post("/login", data={"token": league.tokens["bob"], "csrf": login_csrf})
        assert r.status_code == 303
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie
        bot = league.pool[1]
        # Logged in, but a form without the session's CSRF token is refused...
        assert web.post(f"/bots/{bot}/pause", data={}).status_code == 403
        assert web.post(f"/bots/{bot}/pause", data={"csrf": "forged"}).status_code == 403
        assert league.http.get(f"/api/bots/{bot}").json()["bot"]["paused"] is False
        # ... and accepted with it.
        csrf = web.get(f"/bots/{bot}").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert web.post(f"/bots/{bot}/pause", data={"csrf": csrf}).status_code == 303
        assert web.post(f"/bots/{bot}/resume", data={"csrf": csrf}).status_code == 303


def test_every_page_has_a_json_twin_and_safe_headers(league):
    # A finished one (another test may have just started one whose matches are not listed yet), and a
    # match of it played through (another test's bot may fault in every match of its placement).
    finished = [t["id"] for t in league.http.get("/api/tournaments").json()["tournaments"] if t["status"] == "finished"]
    played = ((tid, [m["id"] for m in got["matches"] if not m["faults"] and m["status"] == "done"])
              for tid in finished for got in [league.http.get(f"/api/tournaments/{tid}").json()])
    tid, match = next((tid, ids[0]) for tid, ids in played if ids)
    version = league.version(league.pool[0])["id"]
    for path in ("/games/kuhn3", f"/bots/{league.pool[0]}", f"/versions/{version}/h2h", f"/matches/{match}",
                 "/tournaments", f"/tournaments/{tid}"):
        html = league.http.get(path)
        assert html.status_code == 200 and html.headers["content-type"].startswith("text/html"), path
        policy = html.headers["content-security-policy"]
        assert "script-src 'self';" in policy and "unsafe" not in policy, policy  # the server's own files only
        assert not re.search(r"<script(?![^>]*\ssrc=\"/static/live\.js\")", html.text), path  # no inline one
        assert html.headers["x-content-type-options"] == "nosniff"
        api = league.http.get("/api" + path)
        assert api.status_code == 200 and api.headers["content-type"] == "application/json", path
    assert league.http.get("/api/games").json()["games"][0]["game"] == "kuhn3"
    m = league.http.get(f"/api/matches/{match}").json()
    assert m["transcript"] and str(m["match"]["seed"]) in m["replay"] and m["replay"].startswith("arena play kuhn3")
    # kuhn3's big blind is its ante (1): each seat's chips per hand, in thousandths
    assert [s["mbb_per_game"] for s in m["seats"]] == [1000 * s["payoff"] / m["match"]["hands"] for s in m["seats"]]
    assert "mbb/g" in league.http.get(f"/matches/{match}").text
    # The page carries a window of the transcript around the current step.
    total = m["transcript_lines"]
    assert total > 101 and len(m["transcript"]) == 101 and m["current"]["n"] == 0
    mid = league.http.get(f"/api/matches/{match}", params={"step": total // 2}).json()
    assert mid["current"]["n"] == total // 2
    assert [ln["n"] for ln in mid["transcript"]] == list(range(total // 2 - 100, total // 2 + 101))
    h2h = league.http.get(f"/api/versions/{version}/h2h").json()["rows"]
    assert h2h and all(r["matches"] == r["wins"] + r["losses"] + r["draws"] for r in h2h)


def test_tokens_are_stored_hashed_and_can_be_replaced(league):
    token = new_user(league.db, "tess")
    assert token.encode() not in league.db.read_bytes()
    wal = Path(str(league.db) + "-wal")
    assert not wal.exists() or token.encode() not in wal.read_bytes()
    out = subprocess.run([PY, "-m", "arena", "users", "token", "tess", "--db", str(league.db)],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert out.returncode == 0, out.stderr
    new = out.stdout.strip()
    assert new != token
    me = lambda t: league.http.post("/api/bots", headers={"Authorization": f"Bearer {t}"})  # noqa: E731
    assert me(token).status_code == 401
    assert me(new).status_code != 401


def test_a_new_version_replaces_the_old_which_keeps_its_record(league):
    bob = league.tokens["bob"]
    bot = league.pool[1]
    old = league.version(bot)
    r = league.submit(bob, "check_fold_bot.py", sample("check_fold_bot.py"), name="checkfold")
    assert r.status_code == 201 and r.json()["bot"] == bot and r.json()["number"] == old["number"] + 1
    assert league.settled(bot)["state"] == "active"
    versions = league.http.get(f"/api/bots/{bot}").json()["versions"]
    assert [v["state"] for v in versions[:2]] == ["active", "retired"]
    assert versions[1]["message"] == f"replaced by v{old['number'] + 1}"
    # The retired version keeps its line (below the playing ones) and its matches.
    rows = {r["version"]: r for r in league.http.get("/api/games/kuhn3").json()["rows"]}
    assert rows[old["id"]]["state"] == "retired" and rows[old["id"]]["matches"] > 0
    # Its owner may put it back beside the new one (to compare them); nobody else may.
    eve = {"Authorization": f"Bearer {league.tokens['eve']}"}
    assert league.http.post(f"/api/versions/{old['id']}/reinstate", headers=eve).status_code == 403
    r = league.http.post(f"/api/versions/{old['id']}/reinstate", headers={"Authorization": f"Bearer {bob}"})
    assert r.status_code == 200, r.text
    states = [v["state"] for v in league.http.get(f"/api/bots/{bot}").json()["versions"][:2]]
    assert states == ["active", "active"]
    r = league.http.post(f"/api/versions/{old['id']}/reinstate", headers={"Authorization": f"Bearer {bob}"})
    assert r.status_code == 400 and "only a retired version" in r.json()["error"]
    assert league.http.post(f"/api/versions/{old['id']}/retire",
                            headers={"Authorization": f"Bearer {bob}"}).status_code == 200


def test_an_admin_may_pause_anyones_bot_and_rerun_its_quarantine(league):
    ada = {"Authorization": f"Bearer {league.tokens['ada']}"}
    bot = league.pool[2]
    assert league.http.post(f"/api/bots/{bot}/pause", headers=ada).status_code == 200
    assert league.http.post(f"/api/bots/{bot}/resume", headers=ada).status_code == 200
    assert league.http.post(f"/api/bots/{bot}/requarantine", headers=ada).status_code == 200
    v = league.settled(bot)
    assert v["state"] == "active" and v["message"] == ""
