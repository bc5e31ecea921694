#!/usr/bin/env node
// random_bot.js - a Hold'em bot that picks uniformly among the legal actions;
// a raise goes to a uniformly random amount in [min_raise_to, max_raise_to].
// Speaks the arena's JSON lines (docs/protocols/holdem.md) directly.
//
// Run: node sample_bots/holdem/random_bot.js [--seed N]   (node >= 18, no packages)
'use strict';

const readline = require('readline');

// mulberry32: a small seeded generator, so that --seed N replays the same choices
function mulberry32(a) {
  return function () {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const at = process.argv.indexOf('--seed');
const random = at >= 0 ? mulberry32(Number(process.argv[at + 1]) | 0) : Math.random;

// uniform integer in [low, high]; amounts may pass 2^32, so no bit tricks here
function randint(low, high) {
  return low + Math.floor(random() * (high - low + 1));
}

// One line straight to the pipe (writes to pipes are synchronous in node on Linux).
function send(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function decide(msg) {
  const action = msg.legal[Math.floor(random() * msg.legal.length)];
  if (action !== 'raise') return { type: 'action', action };
  const low = msg.min_raise_to;
  const high = Math.max(low, msg.max_raise_to);
  return { type: 'action', action: 'raise', to: randint(low, high) };
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === 'match_start') send({ type: 'ready' });
  else if (msg.type === 'act') send(decide(msg));
  // everything else is a notice: nothing to answer
});
rl.on('close', () => process.exit(0));
