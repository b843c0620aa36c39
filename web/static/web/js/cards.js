// Card codes (RULES.md: rank + suit, "QH", "TD") and their faces and names.

import { t } from "./i18n.js";

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK_FACE = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_KEY = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};
const SUIT_KEY = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

export function parse(code) {
  const rank = code.slice(0, -1) === "10" ? "T" : code.slice(0, -1);
  return { rank, suit: code.slice(-1) };
}

/** "Q♥", "10♠". */
export function short(code) {
  const { rank, suit } = parse(code);
  return (RANK_FACE[rank] || rank) + SUITS[suit];
}

/** "Queen of hearts", in the page's language; a hidden card is only "face-down card". */
export function cardName(code) {
  if (!code) return t("card.down");
  const { rank, suit } = parse(code);
  return t("card.name", { rank: t(`rank.${RANK_KEY[rank]}`), suit: t(`suit.${SUIT_KEY[suit]}`) });
}

export function suitName(suit) {
  return t(`suit.${SUIT_KEY[suit]}`);
}

export function isRed(code) {
  const suit = code.slice(-1);
  return suit === "H" || suit === "D";
}
