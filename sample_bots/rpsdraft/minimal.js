// minimal.js - the smallest valid rpsdraft bot, written the way the original
// contest posted bots: one bare object literal. Run it with the shim:
//   node shims/js/rpsdraft_runner.js sample_bots/rpsdraft/minimal.js
// Keeps the first offered card and always plays the first card of its hand.
{
  name: 'FirstCard',
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) { return 0; },
  mainPostprocess(card) {},
},
