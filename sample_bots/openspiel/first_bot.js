#!/usr/bin/env node
// first_bot.js - plays every OpenSpiel game (docs/protocols/openspiel.md):
// at each `act` it takes the first legal action whose name does not say
// "fold" or "pass" when there is one, else the first legal action; it never
// looks at the game otherwise. Deterministic, so a baseline to beat.
//
// Run: node sample_bots/openspiel/first_bot.js   (node >= 18, no packages)
'use strict';

const readline = require('readline');

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const message = JSON.parse(line);
  let reply = null;
  if (message.type === 'match_start') {
    reply = { type: 'ready' };
  } else if (message.type === 'act') {
    const keen = message.legal.find((a) => !/fold|pass/i.test(a.name));
    reply = { type: 'action', action: (keen || message.legal[0]).action };
  }
  if (reply !== null) process.stdout.write(JSON.stringify(reply) + '\n');
});
