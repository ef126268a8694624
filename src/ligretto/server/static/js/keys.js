// The key bindings of the game, shared with the terminal client (docs/clients.md):
// plain characters a terminal can read too.

import { t } from "./i18n.js";

export const KEYS = {
  row: ["1", "2", "3", "4", "5"],
  stack: "s",
  discard: "d",
  turn: " ",
  vote: "v",
  placeStack: "S",
  placeDiscard: "D",
  ready: "Enter",
  cancel: "Escape",
  help: "?",

  /** How a key is written on the screen. */
  label(key) {
    if (key === " ") return t("key.space");
    if (key === "Enter") return t("key.enter");
    if (key === "Escape") return t("key.escape");
    if (key === "S" || key === "D") return `⇧${key}`;
    return key.toUpperCase();
  },

  /** The aria-keyshortcuts value of a key. */
  aria(key) {
    if (key === " ") return "Space";
    if (key === "S" || key === "D") return `Shift+${key}`;
    return key.length === 1 ? key.toUpperCase() : key;
  },
};
