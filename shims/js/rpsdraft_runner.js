#!/usr/bin/env node
// rpsdraft_runner.js - runs a bot written for the original JavaScript
// controller of the RPS card draft, unchanged, as an arena bot.
//
//   node shims/js/rpsdraft_runner.js entry.js
//
// The entry file holds one bot object with name, draftPick, draftReceive,
// mainPlay and mainPostprocess. Accepted forms:
//   - the bare object literal, as posted with the seed ({ name: ..., ... },
//     a trailing comma allowed);
//   - module.exports = { ... } (or exports.bot = { ... });
//   - a top-level var/let/const holding the object.
// As the seed's controller did, the runner provides a global `fullDeck` (the
// 30 cards) and keeps ONE bot object for the whole process, so its state
// carries over from match to match under --lifetime tournament.
// Node's standard library only (node >= 18).
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const readline = require('readline');
const { createRequire } = require('module');

const SYMBOLS = ['R', 'P', 'S'];
const FULL_DECK = SYMBOLS.flatMap((s) => [...Array(10).keys()].map((n) => s + n));
const METHODS = ['draftPick', 'draftReceive', 'mainPlay', 'mainPostprocess'];

function die(message, code) {
  process.stderr.write(`rpsdraft_runner: ${message}\n`);
  process.exit(code);
}

// stdout is the protocol channel: whatever a bot logs goes to stderr.
globalThis.console = new console.Console({ stdout: process.stderr, stderr: process.stderr });
globalThis.fullDeck = FULL_DECK.slice();

function looksLikeBot(value) {
  return value !== null && typeof value === 'object' && METHODS.every((m) => typeof value[m] === 'function');
}

function compiles(code, filename) {
  try {
    new vm.Script(code, { filename });
    return true;
  } catch (err) {
    if (err instanceof SyntaxError) return false;
    throw err;
  }
}

// The function wrapper gives the entry CommonJS names, like a node module.
function wrap(body) {
  return `(function (exports, require, module, __filename, __dirname) {${body}\n})`;
}

function loadBot(file) {
  const full = path.resolve(file);
  let source = fs.readFileSync(full, 'utf8').replace(/^\uFEFF/, '').replace(/^#!.*/, '');
  const mod = { exports: {} };
  const args = [mod.exports, createRequire(full), mod, full, path.dirname(full)];

  // 1. The whole file is one expression: the seed's bare object literal
  //    (its trailing comma dropped), or `module.exports = {...}`.
  const expr = source.trim().replace(/[,;]\s*$/, '');
  const asExpr = wrap(`return (\n${expr}\n);`);
  if (compiles(asExpr, full)) {
    const value = vm.runInThisContext(asExpr, { filename: full })(...args);
    if (looksLikeBot(value)) return value;
    if (looksLikeBot(mod.exports)) return mod.exports;
  }

  // 2. A script: module.exports, exports.<name>, or a top-level variable.
  const names = [...source.matchAll(/^\s*(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=/gm)].map((m) => m[1]);
  const peek = names.map((n) => `${JSON.stringify(n)}: typeof ${n} === 'undefined' ? undefined : ${n}`).join(', ');
  const asScript = wrap(`${source}\n;return {${peek}};`);
  const locals = vm.runInThisContext(asScript, { filename: full })(...args);
  if (looksLikeBot(mod.exports)) return mod.exports;
  for (const value of Object.values(mod.exports || {})) if (looksLikeBot(value)) return value;
  for (const n of names) if (looksLikeBot(locals[n])) return locals[n];
  throw new Error(`found no bot object (with ${METHODS.join(', ')}) in ${file}`);
}

// Arguments after the entry are ignored (they may mark the process, say).
if (process.argv.length < 3) die('usage: node rpsdraft_runner.js ENTRY.js', 2);
let bot;
try {
  bot = loadBot(process.argv[2]);
} catch (err) {
  die(`cannot load ${process.argv[2]}: ${err && err.stack ? err.stack : err}`, 2);
}

function send(obj) {
  const data = Buffer.from(JSON.stringify(obj) + '\n');
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(1, data, off);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
}

// An index goes back as the bot returned it: the arena judges it, so an
// invalid one is reported as illegal_action, as the seed disqualified it.
function asIndex(value) {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  try {
    return JSON.stringify(value) === undefined ? null : value;
  } catch (err) {
    return String(value);
  }
}

// A throwing bot is disqualified in the seed: here it exits non-zero, which
// the arena reports as crashed, with this trace in the stderr tail.
function call(method, ...args) {
  try {
    return bot[method](...args);
  } catch (err) {
    die(`${bot.name || 'bot'}.${method} threw: ${err && err.stack ? err.stack : err}`, 1);
  }
}

function handle(msg) {
  switch (msg.type) {
    case 'match_start':
      send({ type: 'ready' });
      break;
    case 'draft_pick':
      send({ type: 'pick', index: asIndex(call('draftPick', msg.cards.slice())) });
      break;
    case 'draft_receive':
      call('draftReceive', msg.card);
      break;
    case 'main_play':
      send({ type: 'play', index: asIndex(call('mainPlay', msg.hand.slice(), msg.base)) });
      break;
    case 'turn_result':
      call('mainPostprocess', msg.opponent_card);
      break;
    case 'match_end':
      break;
    default:
      process.stderr.write(`rpsdraft_runner: ignoring a message of type ${JSON.stringify(msg.type)}\n`);
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    die(`not JSON from the arena: ${line.slice(0, 200)}`, 2);
  }
  handle(msg);
});
lines.on('close', () => process.exit(0));
