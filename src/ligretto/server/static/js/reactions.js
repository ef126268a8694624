// Reactions: a small bar of emotes a seated player sends to the table, and everyone's
// emotes shown for a moment beside their name (on players' and spectators' boards) and
// announced politely.  The emotes are the server's fixed list (GET /api/emotes): the bar
// offers only those, and a received emote that is not on it is never shown.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const SHOWN_MS = 2500;

let serverList = null; // a promise of the server's emotes, fetched once per page

/** The emotes the server accepts (an empty list until it answers, or if it cannot). */
export function emotes() {
  if (!serverList) {
    serverList = fetch("/api/emotes")
      .then((response) => (response.ok ? response.json() : { emotes: [] }))
      .then((body) => (Array.isArray(body.emotes) ? body.emotes.filter((each) => typeof each === "string") : []))
      .catch(() => {
        serverList = null; // ask again next time
        return [];
      });
  }
  return serverList;
}

export class Reactions {
  constructor(session) {
    this.session = session;
    this.list = [];
    this.shown = new Map(); // seat -> {emote, until}
    this.bar = h("div", { class: "reaction-bar", id: "reaction-bar", role: "group" });
    this.live = h("div", { class: "visually-hidden", id: "reaction-announce", "aria-live": "polite" });
    this.board = null;
    emotes().then((list) => {
      this.list = list;
      this.renderBar();
    });
  }

  /** The bar (seated players only; spectators see reactions but cannot send them). */
  renderBar() {
    this.bar.setAttribute("aria-label", t("react.bar"));
    this.bar.replaceChildren(
      ...this.list.map((emote) =>
        h("button", {
          type: "button",
          class: "ghost emote",
          dataset: { emote },
          "aria-label": t("react.send", { emote }),
          title: t("react.send", { emote }),
          onclick: () => this.session.react(emote),
        }, emote),
      ),
    );
    return this.bar;
  }

  /** A `reaction` from the server: shown beside the seat's name and announced. */
  received({ seat, emote }) {
    if (!this.list.includes(emote) || !Number.isInteger(seat)) return;
    this.shown.set(seat, { emote, until: Date.now() + SHOWN_MS });
    const mine = seat === this.session.seat && !this.session.watching;
    this.live.textContent = mine ? t("react.you", { emote }) : t("react.by", { name: this.session.nameOf(seat), emote });
    this.decorate();
    setTimeout(() => this.decorate(), SHOWN_MS + 20);
  }

  /** Put the emotes being shown beside the names on the board (after every drawing). */
  decorate(root = this.board) {
    if (!root) return;
    this.board = root;
    const now = Date.now();
    for (const [seat, shown] of this.shown) if (shown.until <= now) this.shown.delete(seat);
    for (const area of root.querySelectorAll("[data-seat]")) {
      const header = area.querySelector(":scope > header");
      if (!header) continue;
      const shown = this.shown.get(Number(area.dataset.seat));
      let badge = header.querySelector(".reaction-badge");
      if (!shown) {
        badge?.remove();
        continue;
      }
      if (!badge) {
        badge = h("span", { class: "reaction-badge", "aria-hidden": "true" });
        header.append(badge);
      }
      if (badge.textContent !== shown.emote) badge.textContent = shown.emote;
    }
  }
}
