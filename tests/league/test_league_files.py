"""A submitted bot reaches none of the league's files, however its run command
names them (issue 42).

The organiser runs ``arena serve --db league.db`` in a folder that also holds
a private note (0600). A bot's ``run`` line may name files: words that are
files of its archive are its own, every other word is text. The server used
to try those words against its own working folder, show the bot what they
named, and (as root) copy what the bot's uid could not read into a readable
place: the bot printed the users table and the organiser's note to its
stderr, which its rejected page then showed its owner.
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from arena.league._server import tar_gz

from .league_server import League, new_user

# a real server, a submission through its pipeline: left out of `make test-fast`
pytestmark = pytest.mark.slow

SECRET = "the organiser's private note, 4f1c"

#: Tries every argument as a path, says what it found, then fails quarantine step 2
#: (so that the page of the rejected version shows its stderr to its owner).
SNOOP = b'''import os, sys
for word in sys.argv[1:]:
    try:
        with open(word, "rb") as f:
            sys.stderr.write("LEAKED %s %r\\n" % (word, f.read(200)))
    except OSError as exc:
        sys.stderr.write("HIDDEN %s %s\\n" % (word, exc.strerror))
sys.stderr.flush()
sys.exit(3)
'''


def test_a_bot_whose_run_words_name_the_servers_files_gets_none_of_them(tmp_path):
    folder = tmp_path / "organiser"
    folder.mkdir()
    note = folder / "notes.txt"
    note.write_text(SECRET)
    note.chmod(0o600)
    token = new_user(folder / "league.db", "mallory")
    league = League(folder.relative_to(folder) / "league.db", "--game", "kuhn3", "-p", "kuhn3.hands=5",
                    "--quarantine-matches", "3", "--every", "1h", cwd=folder)
    try:
        # A word with a '/' that is no file of the archive: refused at the upload, in words.
        r = league.submit(token, "b.tar.gz", tar_gz({
            "arena.toml": b'run = "python3 bot.py league-data/league/bots notes.txt"\n', "bot.py": SNOOP}),
            name="snoop-dir")
        assert r.status_code == 400, r.text
        assert "'league-data/league/bots' names no file or folder of the bot's archive" in r.text, r.text
        # Plain words are the bot's text: it is given them, and nothing they name.
        r = league.submit(token, "b.tar.gz", tar_gz({
            "arena.toml": b'run = "python3 bot.py league.db league.db-wal notes.txt bot.py"\n', "bot.py": SNOOP}),
            name="snoop")
        assert r.status_code == 201, r.text
        v = league.settled(r.json()["bot"])
        assert v["state"] == "rejected", v
        page = league.http.get(f"/bots/{r.json()['bot']}", headers={"Authorization": f"Bearer {token}"}).text
        assert SECRET not in page and "SQLite format" not in page, page[-3000:]
        # What it read is its own file (the word that named a file of its archive), and nothing else.
        leaked = re.findall(r"LEAKED (\S+)", page)
        assert leaked and all(re.search(r"/league-data/league/bots/v\d+/bot.py$", p) for p in leaked), leaked
        for word in ("league.db", "league.db-wal", "notes.txt"):
            assert f"HIDDEN {word} No such file or directory" in page, page[-3000:]
        # Nothing of the server's was copied where the sandbox keeps its copies.
        # (os.walk, not glob: other tests' sandboxes come and go meanwhile, and a walk skips what vanished)
        copies = [os.path.join(root, name) for top in glob.glob("/run/arena-sandbox-*")
                  for root, _, names in os.walk(top) for name in names if name in ("league.db", "notes.txt")]
        assert copies == []
    finally:
        league.stop()
