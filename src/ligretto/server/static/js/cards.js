// Cards as the protocol writes them ("r5": colour letter + number), their colours, the
// symbol of each colour (colour-blind safe) and of each deck back, and card elements.

import { h, icon } from "./dom.js";
import { plural, t } from "./i18n.js";

/** The four face colours in the engine's order (engine/cards.py: Colour), with their shape. */
export const COLOURS = [
  { letter: "r", name: "red", shape: "diamond" },
  { letter: "g", name: "green", shape: "triangle" },
  { letter: "y", name: "yellow", shape: "circle" },
  { letter: "b", name: "blue", shape: "square" },
];

const BY_LETTER = Object.fromEntries(COLOURS.map((colour) => [colour.letter, colour]));

/** The back symbols of the engine (engine/cards.py: Symbol) and the three boxes (Box). */
export const BACK_SYMBOLS = ["sun", "moon", "star", "heart"];
export const BOXES = ["red", "blue", "green"];

/**
 * The mark of each box that is not its colour: with five players or more two backs share
 * a symbol and differ by box, so every back also shows its box's numeral (and a ring style).
 */
export const BOX_MARKS = { red: "I", blue: "II", green: "III" };

/** The back of the deck dealt to a seat (engine/cards.py: Back.for_seat): 4 per box. */
export function backOfSeat(seat) {
  return { box: BOXES[Math.floor(seat / 4)], symbol: BACK_SYMBOLS[seat % 4] };
}

/** "Deck back: sun, red box I", for titles and screen readers. */
export function backLabel(back) {
  const box = t("box.label", { box: t(`box.${back.box}`), mark: BOX_MARKS[back.box] });
  return t("back.label", { box, symbol: t(`symbol.${back.symbol}`) });
}

function boxMark(back) {
  return h("span", { class: "box-mark", "aria-hidden": "true" }, BOX_MARKS[back.box]);
}

/** {colour: "red", letter: "r", number: 5} of "r5". */
export function parseCard(card) {
  const colour = BY_LETTER[card[0]];
  return { colour: colour.name, letter: colour.letter, number: Number(card.slice(1)) };
}

export function colourOfLetter(letter) {
  return BY_LETTER[letter].name;
}

/** "red 5" in the current language, for labels and screen readers. */
export function cardName(card) {
  const { colour, number } = parseCard(card);
  return t("card.name", { colour: t(`colour.${colour}`), number });
}

/** The face of a card: a coloured tile with its number and its colour's symbol. */
export function cardFace(card, { size = "md", extra = null } = {}) {
  const { colour, number } = parseCard(card);
  return h(
    "span",
    { class: ["card", `c-${colour}`, `card-${size}`, extra], dataset: { card }, role: "img", "aria-label": cardName(card) },
    h("span", { class: "card-num" }, String(number)),
    icon(`sym-${colour}`, "card-sym"),
    // The corner repeats the number as decoration only (CSS draws it from data-n): the
    // visible text of an own card's button stays its number, which its label contains.
    h("span", { class: "card-corner", "aria-hidden": "true", dataset: { n: number } }),
  );
}

/** An empty place (no card there). */
export function emptySlot(size = "md", label = "") {
  return h("span", { class: ["card", "card-empty", `card-${size}`], "aria-label": label || null });
}

/** A deck's back: its symbol in a ring of its box's colour and style, and its box's numeral. */
export function backBadge(back, size = "sm") {
  const label = backLabel(back);
  return h(
    "span",
    {
      class: ["back", `box-${back.box}`, `back-${size}`],
      dataset: { box: back.box, symbol: back.symbol, mark: BOX_MARKS[back.box] },
      title: label,
      role: "img",
      "aria-label": label,
    },
    icon(`back-${back.symbol}`, "back-sym"),
    boxMark(back),
  );
}

/** The face-down hand: a card back showing how many cards it holds. */
export function handBack(back, count, size = "md") {
  return h(
    "span",
    {
      class: ["card", "card-back", `box-${back.box}`, `card-${size}`],
      dataset: { box: back.box, symbol: back.symbol, mark: BOX_MARKS[back.box] },
      title: backLabel(back),
      "aria-label": plural("hand.count", count, { count }),
    },
    icon(`back-${back.symbol}`, "card-sym"),
    boxMark(back),
    h("span", { class: "card-count" }, String(count)),
  );
}
