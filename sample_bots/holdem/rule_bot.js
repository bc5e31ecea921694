#!/usr/bin/env node
// rule_bot.js - a deterministic rule bot for Texas Hold'em, speaking the
// arena's JSON lines (docs/protocols/holdem.md) directly.
//
// Preflop: a pair, two cards ten or higher, or an ace with a ten or higher
//   is playable. TT+ and AK raise (to three times the highest bet), up to
//   three times a street; the other playable hands raise when nobody has
//   raised yet and otherwise call up to a tenth of their stack. Anything
//   else checks when it can and folds.
// After the flop it sizes up its made hand with the board (pairs, two
//   pair, trips, straight, flush, full house, quads) and counts only what
//   its own cards add to the board:
//   strong (two pair or better that beats the board's own hand): bet or
//     raise about two thirds of the pot, up to twice a street, then call;
//   top pair or an overpair: bet half the pot when checked to, call bets up
//     to three quarters of the pot;
//   a lesser pair: check, call bets up to a quarter of the pot;
//   nothing: check or fold.
//
// Run: node sample_bots/holdem/rule_bot.js   (node >= 18, no packages)
'use strict';

const readline = require('readline');

const RANKS = '23456789TJQKA';
const rankOf = (card) => RANKS.indexOf(card[0]) + 2; // 2..14
const suitOf = (card) => card[1];

// Category of the best hand in `cards`: 0 high card, 1 pair, 2 two pair,
// 3 trips, 4 straight, 5 flush, 6 full house, 7 quads (a straight flush
// counts as a flush: it is rare and strong either way).
function category(cards) {
  const counts = new Map();
  const suits = new Map();
  let bits = 0;
  for (const c of cards) {
    counts.set(rankOf(c), (counts.get(rankOf(c)) || 0) + 1);
    suits.set(suitOf(c), (suits.get(suitOf(c)) || 0) + 1);
    bits |= 1 << rankOf(c);
  }
  if (bits & (1 << 14)) bits |= 1 << 1; // the ace plays low too
  let straight = false;
  for (let low = 1; low <= 10; low++) {
    if (((bits >> low) & 0x1f) === 0x1f) straight = true;
  }
  const flush = [...suits.values()].some((n) => n >= 5);
  const groups = [...counts.values()].sort((a, b) => b - a);
  if (groups[0] >= 4) return 7;
  if (groups[0] === 3 && groups[1] >= 2) return 6;
  if (flush) return 5;
  if (straight) return 4;
  if (groups[0] === 3) return 3;
  if (groups[0] === 2 && groups[1] === 2) return 2;
  if (groups[0] === 2) return 1;
  return 0;
}

// 'strong', 'good', 'weak' or 'none' after the flop
function postflopStrength(hole, board) {
  const mine = category(hole.concat(board));
  const table = category(board);
  if (mine >= 2 && mine > table) return 'strong';
  if (mine !== 1 || table !== 0) return 'none';
  const top = Math.max(...board.map(rankOf));
  const [a, b] = hole.map(rankOf);
  if (a === b) return a > top ? 'good' : 'weak'; // overpair, or a pair under the board
  return a === top || b === top ? 'good' : 'weak'; // top pair, or a lower one
}

function preflopStrength(hole) {
  const [a, b] = hole.map(rankOf).sort((x, y) => y - x);
  if ((a === b && a >= 10) || (a === 14 && b === 13)) return 'strong';
  if (a === b || b >= 10 || (a === 14 && b >= 10)) return 'good';
  return 'none';
}

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

let hand = null;
let raises = {}; // street -> raises made this hand

function call() {
  return { type: 'action', action: 'call' };
}

function checkOrFold(msg) {
  return msg.to_call === 0 || !msg.legal.includes('fold') ? call() : { type: 'action', action: 'fold' };
}

function raiseTo(msg, to) {
  if (!msg.legal.includes('raise')) return call();
  raises[msg.street] = (raises[msg.street] || 0) + 1;
  const clamped = Math.max(msg.min_raise_to, Math.min(msg.max_raise_to, Math.round(to)));
  return { type: 'action', action: 'raise', to: clamped };
}

function decide(msg) {
  if (msg.hand !== hand) {
    hand = msg.hand;
    raises = {};
  }
  const me = msg.seat;
  const myBet = msg.bets[me];
  const stack = msg.stacks[me];
  const topBet = Math.max(...msg.bets);
  const cost = Math.min(msg.to_call, stack);
  const madeRaises = raises[msg.street] || 0;

  if (msg.street === 'preflop') {
    const strength = preflopStrength(msg.cards);
    if (strength === 'strong') return madeRaises < 3 ? raiseTo(msg, 3 * topBet) : call();
    if (strength === 'good') {
      if (topBet <= msg.big_blind && madeRaises === 0) return raiseTo(msg, 3 * msg.big_blind);
      return cost <= (stack + myBet) / 10 ? call() : checkOrFold(msg);
    }
    return checkOrFold(msg);
  }

  const pot = msg.pot;
  const strength = postflopStrength(msg.cards, msg.board);
  if (strength === 'strong') {
    return madeRaises < 2 ? raiseTo(msg, topBet + (2 * (pot + cost)) / 3) : call();
  }
  if (strength === 'good') {
    if (msg.to_call === 0) return madeRaises === 0 ? raiseTo(msg, topBet + pot / 2) : call();
    return cost <= (3 * pot) / 4 ? call() : checkOrFold(msg);
  }
  if (strength === 'weak') return cost <= pot / 4 ? call() : checkOrFold(msg);
  return checkOrFold(msg);
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === 'match_start') {
    hand = null;
    send({ type: 'ready' });
  } else if (msg.type === 'act') {
    send(decide(msg));
  }
  // everything else is a notice: nothing to answer
});
rl.on('close', () => process.exit(0));
