// simple.js - keeps the stronger of the two offered cards (the one that would
// win if the two met with no pair on the table: higher number, then R > S >
// P > R) and always plays the first card of its hand. A top-level variable
// holding the bot, one of the forms the shim accepts:
//   node shims/js/rpsdraft_runner.js sample_bots/rpsdraft/simple.js
// tests/test_rpsdraft_stats.py relies on exactly this strategy.
var strongerKeeper = {
  name: 'StrongerKeeper',

  // true when card a wins against card b without a pair
  wins(a, b) {
    if (a[1] !== b[1]) return a[1] > b[1];
    return { R: 'S', S: 'P', P: 'R' }[a[0]] === b[0];
  },
  draftPick(cards) {
    return this.wins(cards[0], cards[1]) ? 0 : 1;
  },
  draftReceive(card) {},
  mainPlay(hand, base) {
    return 0;
  },
  mainPostprocess(card) {},
};
