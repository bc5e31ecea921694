"""Tournaments: play every match of a stored schedule, store each as it ends, resume.

Every match has a fixed position (round, index) in the schedule and a seed
derived from the tournament seed and that position (``_schedule``), so the
results do not depend on the back-end (``_executors``), on how many matches
run at once or on the order they finish.

The whole schedule is written to the store before play (each match gets its
id up front); ``--until-ci`` writes it a round at a time and stops early once
every entrant's 95% interval is narrow enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocols import GamePlugin

from ..play._bot import DEFAULT_SYNC_WAIT
from ..play._jobs import MatchJob, MatchRecord
from ..results._sprt import Sprt, elo, tally
from ..results._standings import BROKEN_START, compute_standings
from ..results._store import MatchRecord as StoredMatch, Store
from ..sandbox import resolve_level
from ._config import FAULT_RULES, TournamentConfig, unplayed_score
from ._data import entrant_data
from ._executors import Executor, executor_for
from ._schedule import Pairing, sample_sets, schedule
from ._state import Progress, TournamentRun


@dataclass(slots=True)
class Outcome:
    """How a run of ``run_tournament`` ended."""

    rounds: int  # rounds scheduled in the end
    finished: bool
    stopped_early: bool = False
    sprt: dict[str, Any] | None = None  # with --sprt: the test's state when it stopped (see sprt_state)


async def run_tournament(
    plugin: GamePlugin[Any], config: TournamentConfig, store: Store, tid: int, progress: Progress | None = None,
    cluster: Any = None, *, sync_wait: float = DEFAULT_SYNC_WAIT,
) -> Outcome:
    """Play every match of tournament ``tid`` not yet stored; store each as it ends.

    The bots run at ``config.sandbox``; without one, at this machine's
    default level (as ``open_host()`` chooses it), decided once here so that
    every match applies and records the same level. With ``config.cluster``
    the matches run on that Dask cluster, through ``cluster`` (an open
    ``arena.cluster.ClusterSession``) if given, else through a connection
    made for this run. ``sync_wait`` is the host setting of bots kept in this
    process (``--lifetime tournament``): 0 where the event loop serves other
    work too (the league's pages).
    """
    if config.cluster is not None and cluster is None:
        from ..cluster import open_cluster

        session = await open_cluster(config.cluster, config.cluster_certs)
        try:
            return await run_tournament(plugin, config, store, tid, progress, session, sync_wait=sync_wait)
        finally:
            await session.aclose()
    if config.sandbox is None:
        config.sandbox = resolve_level(None)
    config.seat_for(plugin)
    run = TournamentRun.open(plugin, config, store, tid, progress if progress is not None else Progress())
    if config.data_mb is None:
        return await _play_rounds(run, executor_for(run, cluster, sync_wait=sync_wait))
    entrants = config.bots
    with entrant_data(entrants, run.data, config.data_mb, config.keep_data) as config.bots:
        try:
            return await _play_rounds(run, executor_for(run, cluster, sync_wait=sync_wait))
        finally:
            config.bots = entrants


def sprt_results(matches: Sequence[StoredMatch]) -> list[tuple[float, float, Any, int]]:
    """(first entrant's score, second's, round, hands) of each match of a two-entrant tournament."""
    out = []
    for m in matches:
        if len(m["seats"]) == 2 and m["scores"]:
            first = m["seats"].index(0)
            out.append((m["scores"][first], m["scores"][1 - first], m["round"], m.get("hands") or 0))
    return out


def chip_values(results: Sequence[tuple[float, float, Any, int]], big_blind: float, paired: bool) -> list[float]:
    """The first entrant's mbb/g in each match, or in each deal (its seatings' chips over their hands)
    with duplicate seatings, which are not independent; a deal still waiting for a seating is left out."""
    if not paired:
        return [1000 * x / big_blind / hands for x, _, _, hands in results if hands]
    deals: dict[Any, list[tuple[float, int]]] = {}
    for x, _, key, hands in results:
        deals.setdefault(key, []).append((x, hands))
    whole = [d for d in deals.values() if len(d) == 2 and sum(h for _, h in d) > 0]
    return [1000 * sum(x for x, _ in d) / big_blind / sum(h for _, h in d) for d in whole]


def sprt_state(test: Sprt, results: list[tuple[float, float, Any, int]], paired: bool,
               big_blind: float | None = None) -> dict[str, Any]:
    """What the test says of ``results``: LLR, its bounds, the decision so far, Elo and LOS
    (of match wins, whatever the test counts), and with a test on chips their mean in mbb/g."""
    counts = tally([(x, y, key) for x, y, key, _ in results], paired=paired)
    chips: dict[str, Any] = {}
    if test.model == "chips":
        assert big_blind is not None
        values = chip_values(results, big_blind, paired)
        llr = test.llr_chips(values)
        chips = {"observations": len(values), "mbb_per_game": sum(values) / len(values) if values else None}
    else:
        llr = test.llr(counts)
    found = elo(counts)
    return {**test.to_json(), "llr": llr, "bounds": list(test.bounds), "decision": test.decide(llr),
            "model_counts": "pentanomial" if counts.paired else "trinomial",
            "counts": list(counts.pentanomial if counts.pentanomial is not None else counts.trinomial),
            "elo": None if found is None else found.diff, "elo_error": None if found is None else found.error,
            "los": None if found is None else found.los, **chips}


async def _play_sprt(run: TournamentRun, executor: Executor) -> Outcome:
    """Two entrants, a round (both seatings) at a time, as many rounds as there
    are pairs of workers, until the SPRT accepts a hypothesis or ``rounds`` are played."""
    config, store, tid = run.config, run.store, run.tid
    assert config.sprt is not None
    test = Sprt.from_json(config.sprt)
    big_blind = run.plugin.big_blind(run.plugin.Params(**config.params)) if test.model == "chips" else None
    batch = max(1, (config.jobs + 1) // 2)
    results: list[tuple[float, float, Any, int]] = []  # a resumed test reads its stored rounds again as it goes
    state = sprt_state(test, results, config.duplicate, big_blind)
    r = 0
    while r < config.rounds and state["decision"] is None:
        todo = config.pairings(rounds=min(batch, config.rounds - r), first_round=r)
        await executor.play(run, run.schedule(todo))
        if not store.done_positions(tid) >= {(p.round, p.idx) for p in todo}:
            return Outcome(r + 1, False, sprt=state)
        results += [x for x in sprt_results(store.matches(tid, from_round=r)) if x[2] < r + batch]
        r += batch
        state = sprt_state(test, results, config.duplicate, big_blind)
    r = min(r, config.rounds)
    store.set_rounds(tid, r)
    store.finish_tournament(tid)
    if state["decision"] is not None and r < config.rounds:
        store.add_event(tid, f"stopped after round {r} of {config.rounds}: the SPRT accepted {state['decision']} "
                             f"(LLR {state['llr']:.2f}, bounds {state['bounds'][0]:.2f}, {state['bounds'][1]:.2f})")
    return Outcome(r, True, stopped_early=r < config.rounds, sprt=state)


async def _play_rounds(run: TournamentRun, executor: Executor) -> Outcome:
    config, store, tid = run.config, run.store, run.tid
    if config.sprt is not None:
        return await _play_sprt(run, executor)
    if config.until_ci is None:
        await executor.play(run, run.schedule(config.pairings()))
        finished = store.done_positions(tid) >= {(p.round, p.idx) for p in config.pairings()}
        if finished:
            store.finish_tournament(tid)
        return Outcome(config.rounds, finished)
    # One round at a time, until every interval is narrow enough (or the cap).
    for r in range(config.rounds):
        round_pairings = config.pairings(rounds=1, first_round=r)
        await executor.play(run, run.schedule(round_pairings))
        if not store.done_positions(tid) >= {(p.round, p.idx) for p in round_pairings}:
            return Outcome(r + 1, False)
        table = compute_standings(config.names(), store.matches(tid), max_faults=config.max_faults,
                                  broken_start=config.broken_start, unplayed=config.unplayed,
                                  duplicate=config.duplicate)
        widest = max((row["ci_high"] - row["ci_low"]) / 2 for row in table["standings"]
                     if not row["disqualified"])
        if widest <= config.until_ci:
            store.set_rounds(tid, r + 1)
            store.finish_tournament(tid)
            if r + 1 < config.rounds:
                store.add_event(tid, f"stopped after round {r + 1} of {config.rounds}: every 95% interval "
                                     f"is at most +/-{config.until_ci:g} (widest +/-{widest:.3g})")
            return Outcome(r + 1, True, stopped_early=r + 1 < config.rounds)
    store.finish_tournament(tid)
    return Outcome(config.rounds, True)


__all__ = ["BROKEN_START", "FAULT_RULES", "MatchJob", "MatchRecord", "Outcome", "Pairing", "Progress",
           "TournamentConfig", "TournamentRun", "run_tournament", "sample_sets", "schedule", "unplayed_score"]
