// odds.js - an odds-based rpsdraft bot, exported with module.exports:
//   node shims/js/rpsdraft_runner.js sample_bots/rpsdraft/odds.js
//
// Draft: keep the card with the better chance to beat a random card on a
// random base (worked out once from `fullDeck`, which the runner provides).
// Main phase: the opponent's next card is taken to be uniform over what it
// may still hold (the cards it is known to have, plus every unseen card,
// weighted by the chance it is one of the opponent's unknown cards). Play the
// card whose chance to win now most exceeds its chance to win on a later,
// random base, so strong cards are kept for bases where they are needed.

// true when card a beats card b on base `base`
function beats(a, b, base) {
  const pa = a[1] === base[1];
  const pb = b[1] === base[1];
  if (pa !== pb) return pa;
  if (a[1] !== b[1]) return a[1] > b[1];
  return { R: 'S', S: 'P', P: 'R' }[a[0]] === b[0];
}

module.exports = {
  name: 'Odds',
  strength: null,

  newMatch() {
    this.unseen = new Set(fullDeck); // not in my deck, not known, not shown
    this.oppKnown = new Set(); // cards the opponent has and has not played
    this.deckSize = 0; // cards each seat ends the draft with
    this.oppPlayed = 0;
    this.inMain = false;
  },
  cardStrength(card) {
    if (!this.strength) {
      this.strength = {};
      for (const c of fullDeck) {
        let wins = 0;
        let all = 0;
        for (const o of fullDeck) {
          if (o === c) continue;
          for (const b of fullDeck) {
            if (b === c || b === o) continue;
            all += 1;
            if (beats(c, o, b)) wins += 1;
          }
        }
        this.strength[c] = wins / all;
      }
    }
    return this.strength[card];
  },
  draftPick(cards) {
    if (!this.unseen || this.inMain) this.newMatch(); // the first pick of a match
    this.deckSize += 2;
    const i = this.cardStrength(cards[0]) >= this.cardStrength(cards[1]) ? 0 : 1;
    cards.forEach((c) => this.unseen.delete(c));
    this.oppKnown.add(cards[1 - i]);
    return i;
  },
  draftReceive(card) {
    this.unseen.delete(card);
  },
  // chance that `card` beats the opponent's next card on `base`
  winChance(card, base) {
    const unknown = Math.max(0, this.deckSize - this.oppPlayed - this.oppKnown.size);
    const pool = [...this.unseen].filter((c) => c !== base);
    const weight = pool.length ? unknown / pool.length : 0;
    let win = 0;
    let total = 0;
    for (const o of this.oppKnown) {
      total += 1;
      if (beats(card, o, base)) win += 1;
    }
    for (const o of pool) {
      total += weight;
      if (beats(card, o, base)) win += weight;
    }
    return total ? win / total : 0.5;
  },
  mainPlay(hand, base) {
    this.inMain = true;
    this.unseen.delete(base);
    const later = [...this.unseen];
    let best = 0;
    let bestScore = -Infinity;
    hand.forEach((card, i) => {
      let future = 0;
      if (hand.length > 1 && later.length) { // a card kept now can still be played
        for (const b of later) future += this.winChance(card, b);
        future /= later.length;
      }
      const score = this.winChance(card, base) - future;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    });
    return best;
  },
  mainPostprocess(card) {
    this.unseen.delete(card);
    this.oppKnown.delete(card);
    this.oppPlayed += 1;
  },
};
