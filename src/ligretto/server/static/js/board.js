// The play board: every opponent compact, the center piles in a responsive grid, and the
// player's own area large (row, Ligretto stack, discard pile, hand, vote).  Also the
// animations: cards flying into the piles, refused plays returning, completed piles.

import { backBadge, cardFace, cardName, emptySlot, handBack } from "./cards.js";
import { cutInMiddle, fill, h, icon, reducedMotion, setChildren } from "./dom.js";
import { language, listOf, plural, t } from "./i18n.js";
import { KEYS } from "./keys.js";
import { aidOn } from "./aid.js";
import { fitsColumn, targetPile } from "./mirror.js";
import { formatScore } from "./sheet.js";

/** How long the Stop banner stays alone on the screen at a round's end, before the score
 *  sheet (live table) or the round's scores alone (replay) take its place. */
export const BANNER_MS = 1400;
const REFUSAL_SHOWN_MS = 1800;
const FLIGHT_MS = 320;
const LOST_PILE_MS = 1000;
const LOW_STACK = 3; // a stack count at or below this gets the warning look
/** The longest a pressed card holds the center still (a press whose release never came). */
const HOLD_MAX_MS = 10000;

/** An element hidden from assistive technology (its words are elsewhere in the name). */
function decoration(element) {
  element.setAttribute("aria-hidden", "true");
  return element;
}

/** The mark on a card or button whose action went without an answer (connection lost). */
function notSentMark(action) {
  return action?.notSent ? h("span", { class: "bubble not-sent-mark", role: "status" }, t("pending.not_sent")) : null;
}

export class Board {
  constructor(session) {
    this.session = session;
    this.root = h("div", { class: "board" });
    this.placeFrom = null; // expert variant: "stack" or "discard" waiting for a row column
    this.refusals = []; // {source, position, card, text, until}
    this.flashes = new Map(); // pile index -> until
    this.lostPiles = new Map(); // pile index -> until: a play of ours lost the race to it
    this.onRender = null; // called with the board's element after every drawing
    this.parts = new Map(); // part name -> {key, element}
    this.lang = null;
    this.held = null; // {at, round} while a card is pressed or dragged: the center keeps still
    this.heldBack = false; // the center has news it did not draw while held
    this.flights = new Map(); // card in flight to its pile (its animation) -> its ghost on the page's body
    this.awaitingFocus = null; // a control that had the focus but was disabled when drawn again
  }

  /** The table is left: cards still in flight go with it, at once, not onto the next page. */
  close() {
    for (const [flight, ghost] of this.flights) {
      flight.cancel();
      ghost.remove(); // now: the animation's cancel event comes a frame later
    }
    this.flights.clear();
  }

  // --- a card in the hand: the center keeps still ---------------------------------

  /**
   * A card is pressed (and perhaps dragged): until `letGo`, the center keeps its layout,
   * so the pile under the card stays under it.  Its piles still show every card played
   * onto them; a pile started meanwhile, and the re-centring and shrinking it brings,
   * wait for the drop.
   */
  hold() {
    this.held = { at: Date.now(), round: this.session.round };
  }

  /** The card is dropped (or the press was a click): the center shows what it held back. */
  letGo() {
    this.held = null;
    if (!this.heldBack) return;
    this.heldBack = false;
    // After the click a press may still make: the card under the pointer stays the same element.
    setTimeout(() => this.render(), 0);
  }

  /** Whether the center drawn now is to stay as it is (see `hold`). */
  holding(view) {
    const held = this.held;
    const drawn = this.parts.get("center")?.element;
    return Boolean(
      held && drawn && Date.now() - held.at < HOLD_MAX_MS && held.round === this.session.round && view.ending === null &&
        drawn.querySelectorAll(".pile[data-colour]").length <= view.center.length,
    );
  }

  // --- rendering ------------------------------------------------------------------

  render() {
    const session = this.session;
    const view = session.view;
    if (this.lang !== language()) {
      this.parts.clear(); // every text changes
      this.lang = language();
    }
    if (!view) {
      this.root.replaceChildren(h("p", { class: "muted" }, t("board.waiting")));
      this.parts.clear();
      return;
    }
    const own = session.myArea;
    const others = view.areas.filter((area) => !own || area.seat !== own.seat);
    const live = session.table?.phase === "playing" && view.ending === null;
    this.root.className = ["board", own ? "playing-seat" : "watching", live ? "live" : null]
      .filter(Boolean)
      .join(" ");
    // For programs (tests, tools): how many actions are in flight, and the round shown.
    this.root.dataset.pending = String(session.pending.size);
    this.root.dataset.round = String(session.round);

    // What the person looks at stays put: the focused control and the opponents strip's
    // scroll position survive a part being drawn again.
    const focused = this.focusedControl();
    const previous = this.parts.get(`opponents-${Boolean(own)}`)?.element;
    const scrolled = previous ? previous.scrollTop : 0;

    // Each part is drawn again only when what it shows changed: a fast table changes many
    // times a second, and a card being clicked or dragged must stay the same element.
    const opponents = this.part(`opponents-${Boolean(own)}`, "", () =>
      h("section", {
        class: "opponents",
        "aria-label": own ? t("board.opponents") : t("board.players"),
        tabindex: "0", // it scrolls at large tables: reachable with the keyboard too
      }),
    );
    opponents.dataset.count = String(others.length);
    opponents.style.setProperty("--opponents", String(others.length)); // app.css: the chips' columns
    setChildren(
      opponents,
      others.map((area) =>
        this.part(`opponent-${area.seat}`, this.seatKey(area), () => this.opponent(area, Boolean(own))),
      ),
    );
    const names = view.areas.map((area) => session.nameOf(area.seat));
    const centerKey = JSON.stringify([view.center, view.ending, view.stopped_by, names, session.seat]);
    const center = this.holding(view) ? this.steadyCenter(view, centerKey) : this.part("center", centerKey, () => this.center(view));
    const parts = [opponents, center];
    if (own) {
      // A placement whose card left (or that no column takes any more) is over.
      if (this.placeFrom && !this.placeColumns(own, this.placeFrom).some(Boolean)) this.placeFrom = null;
      const key = JSON.stringify([
        this.seatKey(own),
        [...session.pending.values()].map((action) => [action.kind, action.source, action.position, action.pile, action.notSent]),
        this.activeRefusals().map((each) => [each.source, each.position, each.text]),
        this.placeFrom,
        Boolean(session.table?.rules?.expert),
        view.areas.filter((each) => each.voted).length,
        aidOn() && view.center.map((pile) => pile.top), // the beginner aid follows the piles
      ]);
      parts.push(this.part("own", key, () => this.ownArea(own)));
    }
    setChildren(this.root, parts);
    // Chromium puts the strip back to the top when its siblings are drawn again (or it is
    // new): give it the place the person had scrolled to.
    if (scrolled && opponents.scrollTop !== scrolled) opponents.scrollTop = scrolled;
    this.restoreFocus(focused);
    this.showFlashes();
    this.afterRender();
    if (this.onRender) this.onRender(this.root);
  }

  /** A selector for the board's control that has the focus (to find it again once drawn anew). */
  focusedControl() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !this.root.contains(active)) return null;
    if (active.id) return `#${active.id}`;
    if (active.dataset.slot) return `.own [data-slot="${active.dataset.slot}"]`;
    if (active.dataset.action) return `[data-action="${active.dataset.action}"]`;
    return null;
  }

  /** Give the focus back to the same control, without scrolling anything into view.  A
   * control that is disabled when drawn again (its card in flight) gets it back at a later
   * drawing once enabled, unless the focus went somewhere else meanwhile. */
  restoreFocus(selector) {
    if (this.root.contains(document.activeElement)) {
      this.awaitingFocus = null;
      return;
    }
    const nowhere = !document.activeElement || document.activeElement === document.body;
    const wanted = selector || (nowhere ? this.awaitingFocus : null);
    this.awaitingFocus = null;
    if (!wanted) return;
    const element = this.root.querySelector(wanted);
    if (element && !element.disabled) element.focus({ preventScroll: true });
    else this.awaitingFocus = wanted;
  }

  /** The element of a part of the board, built again only when its key changed. */
  part(name, key, build) {
    const known = this.parts.get(name);
    if (known && known.key === key) return known.element;
    const element = build();
    this.parts.set(name, { key, element });
    return element;
  }

  /** What a seat's area shows, as a string: its cards, name, score and badges. */
  seatKey(area) {
    const entry = this.session.table?.seats?.[area.seat] || null;
    return JSON.stringify([area, this.session.nameOf(area.seat), this.score(area.seat), entry]);
  }

  /** A seat's running total. */
  total(seat) {
    const totals = this.session.table?.sheet?.totals;
    return totals && totals[seat] !== undefined ? totals[seat] : 0;
  }

  /** A seat's running total as the score sheet writes it (one minus sign, U+2212). */
  score(seat) {
    return formatScore(this.total(seat));
  }

  seatBadges(seat, area) {
    const entry = this.session.table?.seats?.[seat];
    const badges = [];
    if (entry?.bot) badges.push(h("span", { class: "badge bot", title: entry.bot }, t("seat.bot")));
    if (entry?.stand_in) badges.push(h("span", { class: "badge warn" }, t("seat.stand_in")));
    else if (entry && !entry.bot && !entry.connected) badges.push(h("span", { class: "badge warn" }, t("seat.away")));
    if (area.voted) badges.push(h("span", { class: "badge vote" }, t("seat.voted")));
    return badges;
  }

  /**
   * An opponent's chip: back, name, score, badges; row tops, stack with its big count,
   * discard top, hand.  One line where it is wide, two where it is narrow (app.css); the
   * name is cut in its middle, never at the end that tells it apart.
   */
  opponent(area, compact) {
    const size = compact ? "xs" : "sm";
    const bot = this.session.table?.seats?.[area.seat]?.bot || null;
    const row = area.row.map((column, position) =>
      h("span", { class: "slot", dataset: { slot: `row-${position}` } },
        column.length ? cardFace(column[column.length - 1], { size }) : emptySlot(size),
        column.length > 1 ? h("span", { class: "slot-count" }, String(column.length)) : null,
      ),
    );
    const name = this.session.nameOf(area.seat);
    return h("article", { class: "opponent", dataset: { seat: area.seat }, "aria-label": t("board.area", { name }) },
      h("header", { class: "opp-head" },
        backBadge(area.back),
        // A bot's name says it is one; its strategy and level are in the tooltip (the dense
        // line has no room for the "bot" badge beside a name that would then be cut).  Its
        // two parts are for the eye: screen readers have the whole name in the chip's label.
        h("span", { class: "opp-name", title: bot ? `${name} (${bot})` : name, "aria-hidden": "true" }, cutInMiddle(name)),
        h("span", { class: "opp-score", title: t("sheet.total") }, String(this.score(area.seat))),
        h("span", { class: "opp-badges" }, this.seatBadges(area.seat, area)),
      ),
      h("div", { class: "opp-cards" },
        h("div", { class: "opp-row", "aria-label": t("area.row") }, row),
        h("div", { class: "opp-piles" },
          h("span", { class: "slot stack-slot", dataset: { slot: "stack" }, title: t("area.stack") },
            area.stack_top ? cardFace(area.stack_top, { size, extra: "stack-card" }) : emptySlot(size),
            this.stackCount(area.stack_size, plural("area.stack.count", area.stack_size, { count: area.stack_size })),
          ),
          h("span", { class: "slot", dataset: { slot: "discard" }, title: t("area.discard") },
            area.discard_top ? cardFace(area.discard_top, { size }) : emptySlot(size),
          ),
          h("span", { class: "hand-count", title: t("area.hand") }, t("hand.short", { count: area.hand_size })),
        ),
      ),
    );
  }

  /** A Ligretto stack's count: big, beside the card, with a warning look (outline and icon) when low. */
  stackCount(count, words, extra = null) {
    const low = count <= LOW_STACK;
    return h("span", { class: ["stack-count", low ? "low" : null, extra], dataset: { count } },
      low ? icon("sym-warn", "icon low-icon") : null,
      h("span", { "aria-hidden": "true" }, String(count)),
      h("span", { class: "visually-hidden" }, words),
    );
  }

  /**
   * A center pile: its top card, marked complete at 10.  `element`: a pile of the held
   * center, filled again in place (it keeps its marks: flash, lost, drop-hover).
   */
  pile(pile, element = h("div", { class: "pile" })) {
    const complete = pile.top === 10;
    const top = `${pile.colour[0]}${pile.top}`;
    element.classList.toggle("complete", complete);
    Object.assign(element.dataset, { pile: pile.index, colour: pile.colour, top: pile.top });
    if (complete) element.dataset.complete = "true";
    else delete element.dataset.complete;
    element.setAttribute("aria-label", complete
      ? t("pile.complete.label", { card: cardName(top) })
      : plural("pile.label", pile.top, { card: cardName(top), count: pile.top }));
    return fill(element,
      cardFace(top, { size: "md" }),
      complete ? h("span", { class: "pile-done" }, icon("sym-done", "done-icon"), t("pile.complete")) : null,
    );
  }

  /** The held center (see `hold`), its piles' cards brought up to date in place. */
  steadyCenter(view, key) {
    const element = this.parts.get("center").element;
    for (const shown of element.querySelectorAll(".pile[data-colour]")) {
      const pile = view.center[Number(shown.dataset.pile)];
      if (Number(shown.dataset.top) !== pile.top) this.pile(pile, shown);
    }
    if (key !== this.parts.get("center").key) this.heldBack = true;
    return element;
  }

  center(view) {
    const piles = view.center.map((pile) => this.pile(pile));
    // The cards shrink as piles come: 48 piles (12 players) still fit the screen.
    const section = h("section", { class: "center", "aria-label": t("board.center") },
      h("div", { class: "piles" },
        piles,
        h("div", { class: "pile new-pile", dataset: { pile: "new" }, "aria-label": t("pile.new") },
          h("span", {}, t("pile.new.short")),
        ),
      ),
      this.banner(view),
    );
    section.style.setProperty("--piles", String(piles.length + 1));
    return section;
  }

  banner(view) {
    if (!view.ending) return null;
    let text;
    if (view.ending === "stop") {
      text =
        view.stopped_by === this.session.seat && !this.session.watching
          ? t("stop.you")
          : t("stop.by", { name: this.session.nameOf(view.stopped_by) });
    } else {
      text = t(`ending.${view.ending}`);
    }
    return h("div", { class: ["banner", view.ending === "stop" ? "banner-stop" : "banner-stalemate"], role: "alert" },
      view.ending === "stop" ? h("strong", {}, t("stop.title")) : null,
      h("span", {}, text),
    );
  }

  ownCard(source, position, card, key, label) {
    const session = this.session;
    const pending = session.isPending(source, position);
    const refusal = this.refusalAt(source, position);
    const slot = source === "row" ? `row-${position}` : source;
    const fits = Boolean(card) && aidOn() && targetPile(session.view, card) !== null; // beginner aid
    // The button's name is words inside it, not an aria-label: they contain the card's
    // number, and a refusal bubble shown in the button is part of its name too (speech
    // input says what it sees: WCAG 2.5.3). The face and the key hint are decoration here.
    const face = decoration(card ? cardFace(card, { size: "lg" }) : emptySlot("lg"));
    const button = h(
      "button",
      {
        type: "button",
        class: ["own-card", pending ? "pending" : null, pending?.notSent ? "not-sent" : null, refusal ? "refused" : null,
          this.placeFrom === source ? "placing" : null, fits ? "fits" : null],
        dataset: { slot, source, position, card: card || null },
        disabled: !card,
        "aria-keyshortcuts": KEYS.aria(key),
      },
      h("span", { class: "visually-hidden" }, card
        ? t("own.card.label", { place: label, card: cardName(card), key: KEYS.label(key) })
        : t("own.empty.label", { place: label })),
      face,
      // Drawn by CSS from data-key: the key is in the name and in aria-keyshortcuts.
      h("kbd", { class: "key-hint", "aria-hidden": "true", dataset: { key: KEYS.label(key) } }),
      fits ? h("span", { class: "fit-mark", "aria-hidden": "true" }, "✓") : null,
      refusal ? h("span", { class: "bubble", role: "status" }, refusal.text) : notSentMark(pending),
    );
    return button;
  }

  /**
   * Expert variant: per row column, whether the stack or discard top (`source`) may go onto
   * it (mirror.js's rule); all false when there is no such card.
   */
  placeColumns(area, source) {
    const card = area[`${source}_top`];
    return area.row.map((column) => Boolean(card) && fitsColumn(card, column));
  }

  ownArea(area) {
    const session = this.session;
    const expert = Boolean(session.table?.rules?.expert);
    const name = session.nameOf(area.seat);
    const legal = expert && this.placeFrom ? this.placeColumns(area, this.placeFrom) : [];
    const columns = area.row.map((column, position) => {
      const under = column.slice(0, -1);
      const top = column.length ? column[column.length - 1] : null;
      return h("div", { class: ["column", legal[position] ? "drop-column" : null], dataset: { column: position } },
        under.length
          ? h("div", { class: "column-under", "aria-label": t("own.column.under", { cards: listOf(under.map(cardName)) }) },
              under.map((card) => cardFace(card, { size: "xs" })),
            )
          : null,
        this.ownCard("row", position, top, KEYS.row[position], t("own.row", { n: position + 1 })),
      );
    });
    const votedCount = session.view.areas.filter((each) => each.voted).length;
    const turning = session.pendingOf("turn");
    const voting = session.pendingOf("vote", "withdraw");
    const placing = expert && this.placeFrom ? area[`${this.placeFrom}_top`] : null;
    return h("section", { class: "own", dataset: { seat: area.seat }, "aria-label": t("board.own") },
      h("header", { class: "own-head" },
        backBadge(area.back, "md"),
        h("span", { class: "own-name" }, name),
        h("span", { class: "own-score" }, plural("own.score", this.total(area.seat), { score: this.score(area.seat) })),
        h("span", { class: "opp-badges" }, this.seatBadges(area.seat, area)),
        placing
          ? h("span", { class: "place-prompt", role: "status" }, t("own.place.prompt", { card: cardName(placing) }))
          : null,
      ),
      h("div", { class: "own-row", role: "group", "aria-label": t("area.row") }, columns),
      h("div", { class: "own-side" },
        // The card that matters most says what it is, as the discard and the hand do.
        h("div", { class: "side-slot own-stack" },
          h("div", { class: "stack-slot" },
            this.ownCard("stack", 0, area.stack_top, KEYS.stack, t("area.stack")),
            this.stackCount(area.stack_size, t("own.stack.count", { count: area.stack_size }), "side-label"),
          ),
          h("span", { class: "side-label stack-label" }, t("area.stack")),
        ),
        h("div", { class: "side-slot" },
          this.ownCard("discard", 0, area.discard_top, KEYS.discard, t("area.discard")),
          h("span", { class: "side-label", dataset: { count: area.discard_size } }, t("own.discard.count", { count: area.discard_size })),
        ),
        h("div", { class: "side-slot hand", dataset: { slot: "hand", count: area.hand_size } },
          h("button", {
            type: "button",
            class: ["turn-button", turning ? "pending" : null, turning?.notSent ? "not-sent" : null],
            id: "turn-button",
            "aria-keyshortcuts": KEYS.aria(KEYS.turn),
            dataset: { action: "turn" },
          },
            // Named by words inside it, as the own cards are: a "not sent" mark shown in the
            // button is then part of its name too (WCAG 2.5.3).
            h("span", { class: "visually-hidden" }, plural("own.turn.label", area.hand_size, { count: area.hand_size, key: KEYS.label(KEYS.turn) })),
            decoration(handBack(area.back, area.hand_size, "lg")),
            h("kbd", { class: "key-hint", "aria-hidden": "true", dataset: { key: KEYS.label(KEYS.turn) } }),
            notSentMark(turning),
          ),
          h("span", { class: "side-label" }, t("own.turn")),
        ),
        h("div", { class: "side-actions" },
          h("button", {
            type: "button",
            class: ["vote-button", area.voted ? "voted" : null, voting ? "pending" : null, voting?.notSent ? "not-sent" : null],
            id: "vote-button",
            "aria-pressed": area.voted ? "true" : "false",
            "aria-keyshortcuts": KEYS.aria(KEYS.vote),
            dataset: { action: "vote" },
          }, area.voted ? t("own.withdraw") : t("own.vote"), " ", h("kbd", { class: "key-text" }, KEYS.label(KEYS.vote)), notSentMark(voting)),
          h("span", { class: "side-label votes" }, plural("own.votes", votedCount, { count: votedCount, players: session.view.players })),
          expert
            ? h("div", { class: "place-buttons", role: "group", "aria-label": t("own.place") },
                ["stack", "discard"].map((source) =>
                  h("button", {
                    type: "button",
                    class: ["place-button", this.placeFrom === source ? "active" : null],
                    "aria-pressed": this.placeFrom === source ? "true" : "false",
                    // Nothing to place, or no column takes it: nothing to choose.
                    disabled: this.placeFrom !== source && !this.placeColumns(area, source).some(Boolean),
                    dataset: { action: `place-${source}` },
                  }, t(`own.place.${source}`), " ", h("kbd", { class: "key-text" }, KEYS.label(source === "stack" ? KEYS.placeStack : KEYS.placeDiscard))),
                ),
              )
            : null,
        ),
      ),
    );
  }

  // --- feedback -------------------------------------------------------------------

  activeRefusals() {
    const now = Date.now();
    this.refusals = this.refusals.filter((each) => each.until > now);
    return this.refusals;
  }

  refusalAt(source, position) {
    return this.activeRefusals().find((each) => each.source === source && (source !== "row" || each.position === position));
  }

  /** Piles that just got a card (or were completed) light up for a moment. */
  showFlashes() {
    this.markPiles(this.flashes, "flash");
    this.markPiles(this.lostPiles, "lost");
  }

  /** Give each pile of `marks` (pile -> until) the class `name` until then. */
  markPiles(marks, name) {
    const now = Date.now();
    for (const [pile, until] of marks) {
      const element = this.pileElement(pile);
      if (until <= now) marks.delete(pile);
      else if (element && !element.classList.contains(name)) {
        element.classList.add(name);
        setTimeout(() => element.classList.remove(name), until - now);
      }
    }
  }

  /** After a render: lift the cards in flight toward their pile. */
  afterRender() {
    for (const action of this.session.pending.values()) {
      if (action.kind !== "play" || action.notSent) continue; // a card not sent stays in its place
      const card = this.ownSlot(action.source, action.position);
      const pile = this.pileElement(action.pile);
      if (!card || !pile) continue;
      const from = card.getBoundingClientRect();
      const to = pile.getBoundingClientRect();
      const dx = (to.left + to.width / 2 - (from.left + from.width / 2)) * 0.3;
      const dy = (to.top + to.height / 2 - (from.top + from.height / 2)) * 0.3;
      card.style.transform = `translate(${dx}px, ${dy}px) scale(0.94)`;
    }
  }

  ownSlot(source, position) {
    const slot = source === "row" ? `row-${position}` : source;
    return this.root.querySelector(`.own [data-slot="${slot}"]`);
  }

  pileElement(pile) {
    return this.root.querySelector(pile === null || pile === undefined ? '[data-pile="new"]' : `[data-pile="${pile}"]`);
  }

  /** Where every card that is about to move lies now (before the board is drawn again). */
  measure(effects) {
    const rects = new Map();
    effects.forEach((effect, index) => {
      if (effect.kind !== "played" && effect.kind !== "placed") return;
      const slot = effect.source === "row" ? `row-${effect.position}` : effect.source;
      const element = this.root.querySelector(`[data-seat="${effect.player}"] [data-slot="${slot}"]`);
      if (element) rects.set(index, element.getBoundingClientRect());
    });
    return rects;
  }

  /** Fly each played card from where it was into its pile; mark completed piles. */
  animate(effects, rects) {
    const now = Date.now();
    effects.forEach((effect) => {
      if (effect.kind === "played") this.flashes.set(effect.pile, now + 600);
      if (effect.kind === "completed") this.flashes.set(effect.pile, now + 1200);
    });
    this.showFlashes();
    if (reducedMotion()) return;
    effects.forEach((effect, index) => {
      const from = rects.get(index);
      if (!from) return;
      const target =
        effect.kind === "played"
          ? this.pileElement(effect.pile)
          : this.root.querySelector(`[data-seat="${effect.player}"] [data-slot="row-${effect.column}"]`);
      if (!target) return;
      const to = target.getBoundingClientRect();
      const ghost = cardFace(effect.card, { size: "md", extra: "flying" });
      ghost.setAttribute("aria-hidden", "true");
      Object.assign(ghost.style, { left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px` });
      document.body.append(ghost);
      const dx = from.left + from.width / 2 - (to.left + to.width / 2);
      const dy = from.top + from.height / 2 - (to.top + to.height / 2);
      const scale = Math.max(0.3, Math.min(1.6, from.width / Math.max(1, to.width)));
      const flight = ghost.animate(
        [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.9 }, { transform: "none", opacity: 1 }],
        { duration: FLIGHT_MS, easing: "cubic-bezier(.2,.7,.3,1)" },
      );
      this.flights.set(flight, ghost);
      flight.onfinish = flight.oncancel = () => {
        ghost.remove();
        this.flights.delete(flight);
      };
    });
  }

  /**
   * A refused play: the card comes back from where it was heading, with the reason; with
   * `lost`, the pile it lost the race to flashes too.
   */
  refused(action, text, lifted, { lost = false } = {}) {
    this.refusals.push({ source: action.source, position: action.position ?? 0, card: action.card, text, until: Date.now() + REFUSAL_SHOWN_MS });
    if (lost && Number.isInteger(action.pile)) this.lostPiles.set(action.pile, Date.now() + LOST_PILE_MS);
    this.render();
    const element = this.ownSlot(action.source, action.position ?? 0);
    if (!element) return;
    setTimeout(() => this.render(), REFUSAL_SHOWN_MS + 20);
    if (!lifted || reducedMotion()) return;
    const now = element.getBoundingClientRect();
    const dx = lifted.left - now.left;
    const dy = lifted.top - now.top;
    element.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
      { duration: 360, easing: "cubic-bezier(.3,1.4,.5,1)" },
    );
  }
}
