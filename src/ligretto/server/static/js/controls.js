// How a person plays: click or tap a card (it goes to a pile where it fits, or starts a
// pile with a 1), drag it onto a chosen pile (or, in the expert variant, a stack or
// discard card onto a row column), or the keyboard (keys.js).  While a card is pressed
// the center keeps still (board.js, `hold`): the pile under it at the drop is the one
// the person sees there, however many piles others start meanwhile.

import { cardFace } from "./cards.js";
import { h, toast, typing } from "./dom.js";
import { t } from "./i18n.js";
import { KEYS } from "./keys.js";
import { NEW_PILE, fitsColumn, fitsPile, targetPile, wirePile } from "./mirror.js";
import { lostRaceText } from "./races.js";

const DRAG_START_PX = 8;

export class Controls {
  /** hooks: {onReady(), onHelp(), canAct()}; `aimer`: the dragged card's aim (aims.js's
   * AimSender: sent only if the person shares it). */
  constructor(session, board, hooks, aimer = { aim() {}, clear() {} }) {
    this.session = session;
    this.board = board;
    this.hooks = hooks;
    this.aimer = aimer;
    this.drag = null;
    this.suppressClick = false;
    const root = board.root;
    root.addEventListener("click", (event) => this.click(event));
    root.addEventListener("pointerdown", (event) => this.pointerDown(event));
    this.onMove = (event) => this.pointerMove(event);
    this.onUp = (event) => this.pointerUp(event);
  }

  // --- what a card does -----------------------------------------------------------

  cardAt(source, position) {
    const area = this.session.myArea;
    if (!area) return null;
    if (source === "row") {
      const column = area.row[position];
      return column && column.length ? column[column.length - 1] : null;
    }
    return area[`${source}_top`];
  }

  ready() {
    if (this.session.playing) return true;
    const phase = this.session.table?.phase;
    if (phase === "countdown") toast(t("refused.countdown"), "warn", 1200);
    return false;
  }

  /** Click, tap or key: play the card to a pile where it fits (a 1 starts a new pile). */
  autoPlay(source, position = 0) {
    if (!this.ready()) return;
    const card = this.cardAt(source, position);
    if (!card || this.session.isPending(source, position)) return;
    const pile = targetPile(this.session.view, card);
    if (pile === null) {
      this.board.refused({ source, position, card }, t("play.nowhere"), null);
      return;
    }
    this.session.play(source, position, wirePile(pile), card);
    this.board.render();
  }

  /**
   * Drag and drop: play the card onto that pile (`NEW_PILE`: a new pile).  `tops`: each
   * pile's top number when the card was pressed; a card that fitted the pile then lost a
   * race to it, and is refused with the race's words.
   */
  playOnto(source, position, pile, tops = []) {
    if (!this.ready()) return;
    const card = this.cardAt(source, position);
    if (!card || this.session.isPending(source, position)) return;
    const view = this.session.view;
    if (pile === NEW_PILE) {
      if (targetPile(view, card) !== NEW_PILE) {
        this.board.refused({ source, position, card }, t("play.not_a_one"), null);
        return;
      }
    } else if (!fitsPile(card, view.center[pile])) {
      const target = view.center[pile];
      const before = tops[pile];
      if (before !== undefined && fitsPile(card, { ...target, top: before })) {
        const by = target.backs[before]; // the seat of the card that came first
        const faster = { name: this.session.nameOf(by), mine: by === this.session.seat, ms: null };
        this.board.refused({ source, position, card, pile }, lostRaceText(faster), null, { lost: true });
        return;
      }
      this.board.refused({ source, position, card }, t(target.top === 10 ? "refused.complete" : "play.no_fit"), null);
      return;
    }
    this.session.play(source, position, wirePile(pile), card);
    this.board.render();
  }

  /** Expert variant: the stack or discard top onto a row column. */
  placeOnto(source, column) {
    this.board.placeFrom = null;
    if (!this.ready()) {
      this.board.render();
      return;
    }
    const card = this.cardAt(source, 0);
    const target = this.session.myArea.row[column];
    if (!card || !target) {
      this.board.render();
      return;
    }
    if (!fitsColumn(card, target)) {
      this.board.refused({ source, position: 0, card }, t("place.no_fit"), null);
      return;
    }
    this.session.place(source, column, card);
    this.board.render();
  }

  /** Expert variant: choose the stack or discard top for a row column (again: cancel). */
  togglePlace(source) {
    const area = this.session.myArea;
    if (!this.session.table?.rules?.expert || !area) return;
    if (this.board.placeFrom !== source && !this.board.placeColumns(area, source).some(Boolean)) {
      // No column can take it (the button is disabled for the same reason): say so, choose nothing.
      const card = area[`${source}_top`];
      if (card) this.board.refused({ source, position: 0, card }, t("own.place.none"), null);
      return;
    }
    this.board.placeFrom = this.board.placeFrom === source ? null : source;
    this.board.render();
  }

  turn() {
    if (this.ready()) this.session.turn();
  }

  vote() {
    if (this.ready()) this.session.vote();
  }

  // --- mouse, touch and pen -------------------------------------------------------

  click(event) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    const target = event.target instanceof Element ? event.target : null;
    const action = target?.closest("[data-action]");
    if (action && this.board.root.contains(action)) {
      const kind = action.dataset.action;
      if (kind === "turn") this.turn();
      else if (kind === "vote") this.vote();
      else if (kind === "place-stack") this.togglePlace("stack");
      else if (kind === "place-discard") this.togglePlace("discard");
      return;
    }
    const card = target?.closest(".own-card");
    if (!card || card.disabled) return;
    const source = card.dataset.source;
    const position = Number(card.dataset.position);
    if (this.board.placeFrom && source === "row") this.placeOnto(this.board.placeFrom, position);
    else this.autoPlay(source, position);
  }

  pointerDown(event) {
    if (event.button !== 0) return;
    const card = event.target instanceof Element ? event.target.closest(".own-card") : null;
    if (!card || card.disabled || !card.dataset.card) return;
    this.drag = {
      source: card.dataset.source,
      position: Number(card.dataset.position),
      card: card.dataset.card,
      x: event.clientX,
      y: event.clientY,
      ghost: null,
      hover: null,
      tops: this.session.view ? this.session.view.center.map((pile) => pile.top) : [],
    };
    this.board.hold();
    document.addEventListener("pointermove", this.onMove);
    document.addEventListener("pointerup", this.onUp);
    document.addEventListener("pointercancel", this.onUp);
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_START_PX) return;
      drag.ghost = cardFace(drag.card, { size: "lg", extra: "drag-ghost" });
      drag.ghost.setAttribute("aria-hidden", "true");
      document.body.append(drag.ghost);
      document.body.classList.add("dragging");
      this.aimer.aim(drag.source, drag.position, null);
    }
    event.preventDefault();
    drag.ghost.style.transform = `translate(${event.clientX}px, ${event.clientY}px) translate(-50%, -50%) rotate(-4deg)`;
    const over = this.dropTarget(event.clientX, event.clientY, drag.source);
    if (over !== drag.hover) {
      drag.hover?.classList.remove("drop-hover");
      over?.classList.add("drop-hover");
      drag.hover = over;
      const pile = over?.classList.contains("pile") ? over.dataset.pile : null;
      this.aimer.aim(drag.source, drag.position, pile === null || pile === "new" ? pile : Number(pile));
    }
  }

  /** The pile (or, for a stack or discard card in the expert variant, the row column) under the pointer. */
  dropTarget(x, y, source) {
    const element = document.elementFromPoint(x, y);
    if (!element || !this.board.root.contains(element)) return null;
    const pile = element.closest(".pile");
    if (pile) return pile;
    if (this.session.table?.rules?.expert && source !== "row") {
      return element.closest(".own .column");
    }
    return null;
  }

  /** Whether the pointer is over the dragged card's own place (the drag taken back). */
  overOwnSlot(x, y, drag) {
    const slot = document.elementFromPoint(x, y)?.closest(".own-card");
    return Boolean(slot && slot.dataset.source === drag.source && Number(slot.dataset.position) === drag.position);
  }

  /** A card let go where no pile (or column) is: it comes back with words that say why. */
  offPile(drag) {
    if (!this.ready() || this.session.isPending(drag.source, drag.position)) return;
    const card = this.cardAt(drag.source, drag.position);
    if (card) this.board.refused({ source: drag.source, position: drag.position, card }, t("play.off_pile"), null);
  }

  pointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    document.removeEventListener("pointermove", this.onMove);
    document.removeEventListener("pointerup", this.onUp);
    document.removeEventListener("pointercancel", this.onUp);
    if (!drag || !drag.ghost) {
      this.board.letGo();
      return; // a plain click: the click handler plays it
    }
    this.aimer.clear();
    drag.ghost.remove();
    document.body.classList.remove("dragging");
    drag.hover?.classList.remove("drop-hover");
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    // The drop is judged against the center as it was held, then it may move.
    const cancelled = event.type === "pointercancel";
    const target = cancelled ? null : this.dropTarget(event.clientX, event.clientY, drag.source);
    const home = !cancelled && this.overOwnSlot(event.clientX, event.clientY, drag);
    this.board.letGo();
    if (!target) {
      // Let go in a gap or beside the center: said, never nothing (unless put back in its place).
      if (!cancelled && !home) this.offPile(drag);
      return;
    }
    if (target.classList.contains("pile")) {
      const pile = target.dataset.pile === "new" ? NEW_PILE : Number(target.dataset.pile);
      this.playOnto(drag.source, drag.position, pile, drag.tops);
    } else if (target.dataset.column !== undefined) {
      this.placeOnto(drag.source, Number(target.dataset.column));
    }
  }

  // --- keyboard -------------------------------------------------------------------

  /** Returns true when the key was one of the game's. */
  keydown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) return false;
    const key = event.key;
    const row = KEYS.row.indexOf(key);
    if (row >= 0) {
      if (this.board.placeFrom) this.placeOnto(this.board.placeFrom, row);
      else this.autoPlay("row", row);
      return true;
    }
    switch (key) {
      case KEYS.stack:
        this.autoPlay("stack");
        return true;
      case KEYS.discard:
        this.autoPlay("discard");
        return true;
      case KEYS.placeStack:
        this.togglePlace("stack");
        return true;
      case KEYS.placeDiscard:
        this.togglePlace("discard");
        return true;
      case KEYS.turn:
        this.turn();
        return true;
      case KEYS.vote:
        this.vote();
        return true;
      case KEYS.cancel:
        if (this.board.placeFrom) {
          this.board.placeFrom = null;
          this.board.render();
          return true;
        }
        return false;
      default:
        return false;
    }
  }
}

/** The list of keys, for the help dialog and docs/clients.md. */
export function keyList(expert) {
  const rows = [
    [`${KEYS.label("1")}–${KEYS.label("5")}`, t("keys.row")],
    [KEYS.label(KEYS.stack), t("keys.stack")],
    [KEYS.label(KEYS.discard), t("keys.discard")],
    [KEYS.label(KEYS.turn), t("keys.turn")],
    [KEYS.label(KEYS.vote), t("keys.vote")],
  ];
  if (expert !== false) {
    rows.push([`${KEYS.label(KEYS.placeStack)} / ${KEYS.label(KEYS.placeDiscard)}`, t("keys.place")]);
    rows.push([KEYS.label(KEYS.cancel), t("keys.cancel")]);
  }
  rows.push([KEYS.label(KEYS.ready), t("keys.ready")]);
  rows.push([KEYS.label(KEYS.help), t("keys.help")]);
  return h("table", { class: "keys" },
    h("tbody", {}, rows.map(([key, what]) => h("tr", {}, h("th", {}, h("kbd", {}, key)), h("td", {}, what)))),
  );
}
