// Cards as the protocol writes them ("r5": colour letter + number), their colours, the
// symbol of each colour (colour-blind safe) and of each deck back, and card elements.

import { h, icon } from "./dom.js";
import { t } from "./i18n.js";

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

/** A deck's back: its box colour as a ring and its symbol. */
export function backBadge(back, size = "sm") {
  return h(
    "span",
    {
      class: ["back", `box-${back.box}`, `back-${size}`],
      title: t("back.label", { box: t(`box.${back.box}`), symbol: t(`symbol.${back.symbol}`) }),
    },
    icon(`back-${back.symbol}`, "back-sym"),
  );
}

/** The face-down hand: a card back showing how many cards it holds. */
export function handBack(back, count, size = "md") {
  return h(
    "span",
    { class: ["card", "card-back", `box-${back.box}`, `card-${size}`], "aria-label": t("hand.count", { count }) },
    icon(`back-${back.symbol}`, "card-sym"),
    h("span", { class: "card-count" }, String(count)),
  );
}
