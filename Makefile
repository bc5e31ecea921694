# Everything a fresh machine needs is installed from here: `make demo`, `make test`.
# Debian's python3 (3.11 in bookworm) is built with PGO and LTO; pyenv's default
# build is not, and runs the same Python about 15% slower (the tests, the
# arena and the Python bots are most of `make test`'s CPU). Any other
# interpreter: make PYTHON=/path/to/python3.
PYTHON ?= $(shell /usr/bin/python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo /usr/bin/python3 || echo python3)
VENV   := .venv
PY     := $(VENV)/bin/python
ARENA  := $(VENV)/bin/arena
BOTS   := sample_bots/kuhn3
BUILD  := $(BOTS)/build
# rustup installs under ~/.cargo/bin, which a non-login shell may not have on PATH.
RUSTC  := $(shell command -v rustc 2>/dev/null || ls $(HOME)/.cargo/bin/rustc 2>/dev/null)

.PHONY: all demo serve screenshots test test-fast types bench bots install bytecode system-deps supervisor clean csharp-bot

all: install bots

# Compilers and runtimes for the sample bots, bubblewrap for the strict
# sandbox, runsc (gVisor) for the gvisor one, ip to bring up an ACPC agent's
# loopback; apt-get only for what is missing.
system-deps:
	@missing=""; \
	command -v gcc  >/dev/null 2>&1 || missing="$$missing gcc"; \
	[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || [ -f /usr/lib/libc.a ] || missing="$$missing libc6-dev"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v mcs  >/dev/null 2>&1 || missing="$$missing mono-mcs"; \
	command -v mono >/dev/null 2>&1 || missing="$$missing mono-runtime"; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v runsc >/dev/null 2>&1 || missing="$$missing runsc"; \
	command -v ip    >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing="$$missing iproute2"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	[ -x /usr/lib/chromium/chromium-headless-shell ] || missing="$$missing chromium-headless-shell"; \
	[ -n "$(RUSTC)" ] || missing="$$missing rustc"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# The packages go in with uv (from PyPI, into the venv): a fresh clone's
# install took pip 42 s, 30 of them resolving and unpacking; uv does the
# same in about 10 s, most of it compiling the bytecode that every Python
# process the tests start would otherwise compile again (PYTHONDONTWRITEBYTECODE
# is set on these machines). Should uv not install, pip does the same work.
# open-spiel (the openspiel game; the extra `.[openspiel]` for a plain pip
# install) goes in without its declared dependencies: pyspiel and the
# observation module the HIGC bots use import only numpy, which the arena
# has, and scipy, absl-py and ml-collections would cost a fresh clone more.
# examples/pennies is a third-party game package, installed so that the
# suite runs with a game the arena does not know (tests/project/test_example_game.py).
# The editable installs are path entries ("compat" mode), not setuptools'
# import hooks: the hooks ran in every Python process the venv starts (the
# arena, its workers, Python bots) and cost more than the interpreter's own
# start (89 M instructions against 39 M for `python -c pass`). Should a later
# setuptools drop the mode, the default install is taken instead.
EDITABLE := -e '.[test,cluster]' -e examples/pennies
UV := $(VENV)/bin/uv pip install -q --python $(PY) --compile-bytecode
$(VENV)/.installed: pyproject.toml examples/pennies/pyproject.toml Makefile
	@# A venv made by another interpreter (an older checkout's choice) is made again:
	@# venv cannot turn one into the other, and its ensurepip fails half-way.
	@if [ -e $(VENV)/bin/python3 ] && [ "$$(readlink -f $(VENV)/bin/python3)" != \
	     "$$($(PYTHON) -c 'import os, sys; print(os.path.realpath(sys.executable))')" ]; then \
	  echo "$(VENV) was made with $$(readlink -f $(VENV)/bin/python3): making it again with $(PYTHON)"; \
	  rm -rf $(VENV); \
	fi
	$(PYTHON) -m venv $(VENV)
	@if $(PY) -m pip install -q uv \
	   && { $(UV) -C editable_mode=compat $(EDITABLE) || $(UV) $(EDITABLE); } \
	   && $(UV) --no-deps 'open-spiel>=2.0.2'; then :; else \
	  echo "uv did not install the packages; installing with pip"; \
	  { PYTHONWARNINGS=ignore::UserWarning $(PY) -m pip install -q --config-settings editable_mode=compat $(EDITABLE) \
	    || $(PY) -m pip install -q $(EDITABLE); } \
	  && $(PY) -m pip install -q --no-deps 'open-spiel>=2.0.2'; \
	fi
	touch $@

# The bot supervisor (C), built once into the arena's private cache.
supervisor: install system-deps
	@$(PY) -m arena.native >/dev/null

install: $(VENV)/.installed

# The tests start hundreds of Python processes; with PYTHONDONTWRITEBYTECODE
# set (as on these machines) each would compile the arena from source again.
bytecode: install
	@$(PY) -m compileall -q arena games protocols shims sample_bots tests examples >/dev/null

VN := sample_bots/vonneumann
VN_BOTS := $(VN)/build/naive $(VN)/build/kuhn3 $(VN)/build/likeme

HE := sample_bots/holdem
HE_BOTS := $(patsubst $(HE)/%.c,$(HE)/build/%,$(wildcard $(HE)/*.c)) \
           $(patsubst $(HE)/%.cs,$(HE)/build/%.exe,$(wildcard $(HE)/*.cs))
CS_SHIM := $(wildcard shims/csharp/*.cs)

OS := sample_bots/openspiel
OS_BOTS := $(OS)/build/random_bot

bots: system-deps supervisor $(BUILD)/rule_bot $(BUILD)/rule_bot_rs $(VN_BOTS) $(HE_BOTS) $(OS_BOTS)

# The game-agnostic OpenSpiel random bot in C (docs/protocols/openspiel.md).
$(OS)/build/%: $(OS)/%.c
	@mkdir -p $(OS)/build
	gcc -O2 -Wall -Wextra -std=c99 -o $@ $<

# Hold'em sample bots: C programs, and seed-style C# entries built with the
# C# shim (run the latter as "mono sample_bots/holdem/build/NAME.exe").
$(HE)/build/%: $(HE)/%.c
	@mkdir -p $(HE)/build
	gcc -O2 -Wall -Wextra -std=c99 -o $@ $< -lm

$(HE)/build/%.exe: $(HE)/%.cs $(CS_SHIM) shims/csharp/build.sh
	sh shims/csharp/build.sh $< $@

# Any seed entry: make csharp-bot ENTRY=MyBot.cs OUT=build/MyBot.exe
csharp-bot: system-deps
	@[ -n "$(ENTRY)" ] && [ -n "$(OUT)" ] || { echo "usage: make csharp-bot ENTRY=MyBot.cs OUT=build/MyBot.exe"; exit 2; }
	sh shims/csharp/build.sh $(ENTRY) $(OUT)

# Seed-style von Neumann entries (a()/b() in C) built with the C shim.
$(VN)/build/%: $(VN)/%.c shims/c/vonneumann_main.c shims/c/vonneumann.h
	@mkdir -p $(VN)/build
	gcc -O2 -Wall -Wextra -std=c99 -I shims/c -o $@ shims/c/vonneumann_main.c $< -lm

$(BUILD)/rule_bot: $(BOTS)/rule_bot.c
	@mkdir -p $(BUILD)
	gcc -O2 -Wall -Wextra -std=c99 -o $@ $<

$(BUILD)/rule_bot_rs: $(BOTS)/rule_bot.rs
	@mkdir -p $(BUILD)
	$(or $(RUSTC),rustc) -O -o $@ $<

# A real round between bots in three languages: C, JavaScript and Python.
demo: install bots
	$(ARENA) kuhn3 ./$(BUILD)/rule_bot "node $(BOTS)/rule_bot.js" "python3 $(BOTS)/equilibrium_bot.py --seed 1" \
	  --seed 2026:cb6b8eb97575c15e5e2eefa354a23678 --end-prob 1/2000

# A demo league on 127.0.0.1:8000 (PORT=...): the sample bots already
# submitted, a tournament every minute; it prints the URL and an admin token.
LEAGUE_DB ?= .league/demo.db
PORT ?= 8000
serve: install bots
	@mkdir -p $(dir $(LEAGUE_DB))
	$(ARENA) serve --demo --db $(LEAGUE_DB) --port $(PORT) --every 1m \
	  -p kuhn3.hands=100 -p holdem.hands=20 --game kuhn3 --game holdem

# The league's pictures in docs/img, taken by the browser test.
screenshots: install bots
	ARENA_UPDATE_SCREENSHOTS=1 $(VENV)/bin/pytest -q tests/league/test_server_browser.py

# The whole suite and, beside it, the sandbox tests again as an unprivileged
# user (when run as root; see tests/unprivileged.py; its report follows the
# main one). Six workers on two cores: many tests wait on a bot's deadline,
# and the others use that time; no assertion depends on how busy the machine is.
# The type check is one of the tests (tests/project/test_types.py: mypy finds
# nothing in the tree, and finds an error planted in a copy), so it runs beside
# the others rather than before them: 10 s of one core on a fresh clone.
test: install bots bytecode
	@log=$$(mktemp); $(PY) tests/unprivileged.py > $$log 2>&1 & unprivileged=$$!; \
	$(VENV)/bin/pytest -q -n 6 --dist worksteal; main=$$?; \
	wait $$unprivileged; second=$$?; cat $$log; rm -f $$log; \
	[ $$main -eq 0 ] && [ $$second -eq 0 ]

# The type check ([tool.mypy] in pyproject.toml: arena, games, protocols), on
# its own and before the inner loop; `make test` runs it as a test.
types: install
	$(VENV)/bin/mypy

# The inner loop: everything not marked slow (rules, protocols, fuzzing, the
# CLI's own checks), in well under a minute.
test-fast: install bots bytecode types
	$(VENV)/bin/pytest -q -n 4 --dist worksteal -m "not slow"

bench: install bots
	$(PY) -m benchmarks.tournament_jobs
	$(PY) -m benchmarks.sandbox_spawn
	$(PY) -m benchmarks.duplicate_ci
	$(PY) -m benchmarks.luck_hands
	$(PY) -m benchmarks.holdem_engine
	$(PY) -m benchmarks.server_load
	$(PY) -m benchmarks.cluster
	$(PY) -m benchmarks.match_rates
	$(PY) -m benchmarks.exchange_ratios --before benchmarks/baselines/exchange_ratios-2026-11-24.json
	$(PY) -m benchmarks.twocarddraw_value
	$(PY) -m benchmarks.holdem_speed
	$(PY) -m benchmarks.acpc_speed
	$(PY) -m benchmarks.covert_channels

clean:
	rm -rf $(VENV) $(BUILD) *.egg-info .pytest_cache .hypothesis
