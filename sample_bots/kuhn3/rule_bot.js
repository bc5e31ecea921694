#!/usr/bin/env node
// rule_bot.js - a deterministic "loose opener, tight caller" for 3-player Kuhn
// poker, speaking the arena text protocol on stdin/stdout.
//
// Rule: nobody has bet yet -> bet with A or K; also bluff-bet a J when I am the
//       last to act and both others checked; otherwise check.
//       facing a bet        -> call only with an A, fold everything else.
// It tracks everyone's money to answer the dealer's "Money:" check.
//
// Run: node rule_bot.js        (standalone, node >= 18, no packages)
'use strict';

const readline = require('readline');

const MAX_BET = 2; // the only bet brings a seat to 2 in front

// Every reply is one line written straight to the pipe (writes to pipes are
// synchronous in node on Linux, so nothing waits in a buffer).
function reply(text) {
  process.stdout.write(text + '\n');
}

function ints(text) {
  return (text.match(/-?\d+/g) || []).map(Number);
}

function bodyOf(line) {
  const i = line.indexOf(':');
  return (i >= 0 ? line.slice(i + 1) : line).trim();
}

function parseAction(line) {
  const parts = bodyOf(line).split(/\s+/);
  return { kind: parts[0].toUpperCase(), value: Number(parts[1]) };
}

function decide(card, acts) {
  const mine = acts[0].value;
  const top = Math.max(acts[0].value, acts[1].value, acts[2].value);
  if (top > mine) return card === 'A' ? `BET ${top}` : `FOLD ${mine}`;
  if (mine >= MAX_BET) return `BET ${mine}`;
  // Last to act with everyone checked: neither other seat still shows its BLIND.
  const checkedToMe = acts[1].kind !== 'BLIND' && acts[2].kind !== 'BLIND';
  const bet = card === 'A' || card === 'K' || (card === 'J' && checkedToMe);
  return `BET ${bet ? MAX_BET : mine}`;
}

let money = [0, 0, 0];
let card = 'J';
let header = null; // message being collected
let want = 0; // field lines still expected for it
let fields = [];
let endActions = 0;

// Field-line counts for each message header.
const SIZES = { init_round: 4, init_hand: 2, play: 3, end_hand: 5, end_round: 2 };

function handle(name, lines) {
  switch (name) {
    case 'init_round':
      for (const l of lines) if (l.startsWith('Money')) money = ints(bodyOf(l));
      reply('READY');
      break;
    case 'init_hand':
      for (const l of lines) if (l.startsWith('Cards')) card = bodyOf(l).charAt(0).toUpperCase();
      reply('READY');
      break;
    case 'play':
      reply(decide(card, lines.map(parseAction)));
      break;
    case 'end_hand': {
      // Each seat loses what it has in front; each pot goes to its winner.
      let seat = 0;
      for (const l of lines) {
        if (l.startsWith('Action') && seat < 3) money[seat++] -= parseAction(l).value;
        else if (l.startsWith('Pots')) {
          const n = ints(bodyOf(l)); // "<value>,<winner>" pairs, possibly several
          for (let k = 0; k + 1 < n.length; k += 2) money[n[k + 1]] += n[k];
        }
      }
      endActions = 0;
      reply('OK');
      break;
    }
    case 'end_round':
      // Exit only once the closing line has been handed to the OS.
      process.stdout.write('Thank you dealer, have a nice day!\n', () => process.exit(0));
      break;
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (raw) => {
  const l = raw.trim();
  if (!l) return;
  if (header !== null) {
    fields.push(l);
    if (--want === 0) {
      const name = header;
      header = null;
      handle(name, fields);
    }
  } else if (l.startsWith('EndAction')) {
    // Three header-less lines; the Money check is due after the third.
    if (++endActions === 3) {
      endActions = 0;
      reply('Money: ' + money.join(','));
    }
  } else if (Object.prototype.hasOwnProperty.call(SIZES, l)) {
    header = l;
    want = SIZES[l];
    fields = [];
  } else {
    process.stderr.write(`rule_bot.js: ignoring unexpected line ${JSON.stringify(l)}\n`);
  }
});
rl.on('close', () => process.exit(0)); // dealer went away
