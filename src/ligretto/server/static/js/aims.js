// Live presence, opt-in (docs/protocol.md, `share_aim`, `aim`, `aimed`): the card a person
// drags and the pile it hovers over, shown faintly to the others, and theirs to this page.
//
// - The setting "Show my aim to others" (off by default, remembered per browser): on, the
//   session sends `share_aim` after every welcome, and `AimSender` sends the dragged card and
//   the pile under it, at most AIMS_PER_S a second (the latest wins), again every
//   REFRESH_MS while it is held, and a clear when it is let go.
// - `AimMarks`: each opponent's aim as the server relays it, drawn after every render of
//   the board: their card outlined faintly in their area, a faint marker with their
//   initial (in their box colour, with a dashed ring: not colour alone) on the pile it
//   points at.  Absolutely placed and outlines only: nothing moves.  Hidden from screen
//   readers (an aim changes many times a second; it is never announced).  Gone after
//   FADE_MS without news, at the round's end and at a new snapshot.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { storage } from "./storage.js";

/** protocol.AIMS_PER_S: the server relays at most this many a second per seat (pinned by
 *  tests/client/test_conformance.py, as FADE_MS's default is to protocol.AIM_FADE_S). */
export const AIMS_PER_S = 8;
export const FADE_DEFAULT_MS = 3000;
const SEND_GAP_MS = 1000 / AIMS_PER_S;
/** protocol.AIM_FADE_S: an aim without news for this long is no longer shown. */
export const FADE_MS = globalThis.LIGRETTO_NET?.aimFadeMs ?? FADE_DEFAULT_MS;
/** A held aim is sent again this often, well within FADE_MS. */
const REFRESH_MS = 1000;

export function aimShared() {
  return storage.aimShared();
}

/** The setting's checkbox with its explanation; `onChange(on)` after it was switched. */
export function aimToggle(idPrefix, onChange = () => {}) {
  const id = `${idPrefix}-aim`;
  const input = h("input", {
    id,
    type: "checkbox",
    class: "aim-toggle",
    checked: aimShared(),
    "aria-describedby": `${id}-help`,
    onchange: () => {
      storage.setAimShared(input.checked);
      onChange(input.checked);
    },
  });
  return h("div", { class: "field field-check aim-field" },
    input,
    h("label", { for: id }, t("aim.label")),
    h("small", { class: "help", id: `${id}-help` }, t("aim.help")),
  );
}

/** This page's aim, sent while a card is dragged (controls.js), throttled. */
export class AimSender {
  constructor(session) {
    this.session = session;
    this.current = null; // {source, position, pile} or null
    this.sentAt = 0;
    this.timer = null;
    this.refresher = null;
  }

  /** The dragged card (`source`, `position`) and the pile under it (index, "new", null). */
  aim(source, position, pile) {
    if (!aimShared() || !this.session.playing) return;
    const next = { source, position, pile };
    const same = this.current && JSON.stringify(this.current) === JSON.stringify(next);
    this.current = next;
    if (!same) this.schedule();
    if (!this.refresher) this.refresher = setInterval(() => this.current && this.schedule(), REFRESH_MS);
  }

  /** The card was let go (played, dropped nowhere, cancelled): the aim is cleared. */
  clear() {
    clearInterval(this.refresher);
    this.refresher = null;
    if (!this.current) return;
    this.current = null;
    this.schedule();
  }

  schedule() {
    if (this.timer) return; // the waiting send takes the latest
    const wait = this.sentAt + SEND_GAP_MS - Date.now();
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => {
      this.timer = null;
      this.send();
    }, wait);
  }

  send() {
    this.sentAt = Date.now();
    // Outside a round the server has forgotten every aim: nothing to send, nothing to clear.
    if (this.session.playing) this.session.aim(this.current);
  }
}

/** The opponents' aims, drawn over the board (see the module's comment). */
export class AimMarks {
  constructor(session, board) {
    this.session = session;
    this.board = board;
    this.aims = new Map(); // seat -> {aimed message, until}
    this.timer = null;
  }

  /** An `aimed` of this round: kept (or, cleared, dropped) and drawn. */
  received(message) {
    if (message.seat === this.session.seat && !this.session.watching) return;
    if (message.source === null) this.aims.delete(message.seat);
    else this.aims.set(message.seat, { ...message, until: Date.now() + FADE_MS });
    this.draw(this.board.root);
  }

  forget() {
    this.aims.clear();
    this.draw(this.board.root);
  }

  /** After every render of the board (and on news): the marks of the aims still fresh. */
  draw(root) {
    for (const old of root.querySelectorAll(".aim-markers")) old.remove();
    for (const old of root.querySelectorAll(".aimed")) old.classList.remove("aimed");
    const now = Date.now();
    let next = Infinity;
    for (const [seat, aim] of this.aims) {
      if (aim.until <= now || aim.round !== this.session.round) {
        this.aims.delete(seat);
        continue;
      }
      next = Math.min(next, aim.until);
      const slot = aim.source === "row" ? `row-${aim.position}` : aim.source;
      root.querySelector(`.opponent[data-seat="${seat}"] [data-slot="${slot}"]`)?.classList.add("aimed");
      if (aim.pile === null) continue;
      const pile = root.querySelector(`.pile[data-pile="${aim.pile}"]`);
      if (!pile) continue;
      let markers = pile.querySelector(".aim-markers");
      if (!markers) {
        markers = h("span", { class: "aim-markers", "aria-hidden": "true" });
        pile.append(markers);
      }
      markers.append(this.marker(seat));
    }
    clearTimeout(this.timer);
    this.timer = next < Infinity ? setTimeout(() => this.draw(this.board.root), next - now + 20) : null;
  }

  /** A seat's marker: its initial in its box's colour, with a dashed ring. */
  marker(seat) {
    const area = this.session.view?.areas?.[seat];
    const name = this.session.nameOf(seat);
    const initial = Array.from(name.trim())[0] || "?";
    return h("span", {
      class: ["aim-marker", area ? `box-${area.back.box}` : null],
      dataset: { seat },
      title: t("aim.marker", { name }),
    }, initial.toLocaleUpperCase());
  }

  close() {
    clearTimeout(this.timer);
  }
}
