#!/usr/bin/env node
// TwoCardDraw bot for node, standalone (speaks the JSON lines itself).
// Bets and raises with a pair of 4s, otherwise checks and calls; keeps any
// pair and otherwise draws one card (the lower one goes).
"use strict";
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n"); // stdout to a pipe is written at once
}

rl.on("line", (line) => {
  const msg = JSON.parse(line);
  const strong = msg.cards && msg.cards[0] === 4 && msg.cards[1] === 4;
  switch (msg.type) {
    case "match_start":
      reply({ type: "ready" });
      break;
    case "round1":
    case "round2": {
      const opts = msg.options;
      let action;
      if (strong && opts.includes("bet")) action = "bet";
      else if (strong && opts.includes("raise")) action = "raise";
      else action = opts.includes("check") ? "check" : "call";
      reply({ type: "action", action });
      break;
    }
    case "draw":
      reply({ type: "draw", count: msg.cards[0] === msg.cards[1] ? 0 : 1 });
      break;
    default: // init, new_hand, hand_end, match_end: notices, no answer
      break;
  }
});
