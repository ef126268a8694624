// The score sheet after a round (place, center, stack, score, running total, every round
// so far), sorted by total with the places and the round's winners the server sends,
// getting ready for the next round (the time left once someone is ready: the table's
// `ready_by`; the host's "Start next round"), the match result and the rematch. The sheet
// can be put aside to look at the final board, and brought back.

import { backBadge, backOfSeat } from "./cards.js";
import { cutInMiddle, h, icon } from "./dom.js";
import { listOf, plural, t } from "./i18n.js";
import { KEYS } from "./keys.js";

const MINUS = "\u2212";

/** A score as the sheet writes it: one minus sign (U+2212) for every negative number. */
export function formatScore(n) {
  return n < 0 ? `${MINUS}${-n}` : String(n);
}

/** "1st", "2nd" (en), "1." (de, fi), "1er" (fr): the place in the page's language. */
export function placeText(place) {
  return plural("sheet.ordinal", place, { n: place }, "ordinal");
}

/** The sheets put aside with "Show board", by table, round and phase: a new sheet shows again. */
const dismissed = new Set();

function endingText(session, round) {
  if (round.ending === "stop") {
    return round.stopped_by === session.seat && !session.watching
      ? t("stop.you")
      : t("stop.by", { name: session.nameOf(round.stopped_by) });
  }
  return t(`ending.${round.ending}`);
}

/** The round winner's mark: a crown (a shape, not a colour) with its name for screen readers. */
function winnerMark() {
  const label = t("sheet.round_winner");
  return h("span", { class: "round-winner", title: label }, icon("sym-crown", "crown"), h("span", { class: "visually-hidden" }, label));
}

/**
 * The player's cell: back, the name on one line, cut in its middle where it is too long
 * ("Smart b…t 11": the end that tells two bots apart stays), whole in its title.  Its two
 * parts are for the eye; screen readers hear the whole name.
 */
function playerCell(session, seat, { back = true, mark = false } = {}) {
  const name = session.nameOf(seat);
  return h("th", { scope: "row", class: "player" },
    h("span", { class: "player-cell" },
      back ? backBadge(session.backOf ? session.backOf(seat) : backOfSeat(seat)) : null,
      h("span", { class: "sheet-name cut-name", title: name, "aria-hidden": "true" }, cutInMiddle(name)),
      h("span", { class: "visually-hidden" }, name),
      mark ? winnerMark() : null,
    ),
  );
}

/** The head of a score sheet: place, player, center, stack, score, total, and `more`. */
function headRow(...more) {
  return h("thead", {}, h("tr", {},
    h("th", { scope: "col", class: "place" }, h("span", { class: "head" }, t("sheet.place"))),
    h("th", { scope: "col", class: "player" }, t("sheet.player")),
    column(t("sheet.center")),
    column(t("sheet.stack")),
    column(t("sheet.score")),
    column(t("sheet.total"), "total"),
    ...more,
  ));
}

function column(text, extra = null) {
  return h("th", { scope: "col", class: ["num", extra] }, h("span", { class: "head" }, text));
}

/** Scrolls sideways inside the panel when a wide table does not fit (never the page). */
function scroller(table, label) {
  return h("div", { class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": label }, table);
}

/** The score sheet panel (with its "Show board" toggle), or null when there is nothing to show. */
export function sheetPanel(session, { onReady, onRematch, onNextRound }) {
  const table = session.table;
  const sheet = table?.sheet;
  if (!sheet || !sheet.rounds.length) return null;
  const over = table.phase === "over";
  const number = sheet.rounds.length;
  const last = sheet.rounds[number - 1];
  const places = sheet.places;
  const roundWinners = new Set(last.winners || []);
  const winners = new Set(table.winners || []);
  // Best total first; a shared place keeps the seats' order.
  const seats = [...Array(sheet.players).keys()].sort((a, b) => places[a] - places[b] || a - b);
  const me = (seat) => seat === session.seat && !session.watching;

  const roundTable = h("table", { class: "sheet", id: "score-sheet" },
    h("caption", {}, over ? t("match.standings") : t("sheet.round", { n: number })),
    headRow(over ? null : column(t("sheet.ready"))),
    h("tbody", {}, seats.map((seat) => {
      const line = last.lines[seat];
      const entry = table.seats[seat];
      const won = roundWinners.has(seat);
      return h("tr", { class: [won ? "best" : null, me(seat) ? "me" : null], dataset: { seat, place: places[seat], total: last.totals[seat] } },
        h("td", { class: "place" }, placeText(places[seat])),
        playerCell(session, seat, { mark: won }),
        h("td", { class: "num" }, `+${line.center}`),
        h("td", { class: "num" }, String(line.stack)), // cards left (their cost is in the round score)
        h("td", { class: "num" }, formatScore(line.score)),
        h("td", { class: "num total" }, formatScore(last.totals[seat])),
        over ? null : h("td", { class: "num ready-cell" }, entry?.ready ? "✓" : "…"),
      );
    })),
  );

  const history = number > 1 ? roundsTable(sheet, session, seats, { me }) : null;

  const panel = h("section", { class: ["sheet-panel", over ? "over" : null], role: "dialog", "aria-labelledby": "sheet-title" },
    h("h2", { id: "sheet-title" }, over ? t("match.over") : t("sheet.title", { n: number })),
    h("p", { class: "sheet-ending" },
      last.ending === "stop" ? h("strong", {}, t("stop.title"), " ") : null,
      endingText(session, last),
    ),
    over ? matchResult(session, seats, places, winners) : null,
    scroller(roundTable, over ? t("match.standings") : t("sheet.round", { n: number })),
    history ? scroller(history, t("sheet.history")) : null,
    footer(session, over, { onReady, onRematch, onNextRound }),
  );
  return withBoardToggle(panel, `${table.code}:${number}:${table.phase}`);
}

/**
 * Every round's score and the total, one line per player in the order of `seats`
 * (`id`: the table's id; `me(seat)`: the line to mark; `back`: draw each player's back).
 */
export function roundsTable(sheet, session, seats, { me = () => false, id = "sheet-history", back = false } = {}) {
  return h("table", { class: "sheet history", id },
    h("caption", {}, t("sheet.history")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", class: "player" }, t("sheet.player")),
      sheet.rounds.map((_, i) => column(t("sheet.round.short", { n: i + 1 }))),
      column(t("sheet.total"), "total"),
    )),
    h("tbody", {}, seats.map((seat) => h("tr", { class: me(seat) ? "me" : null, dataset: { seat, total: sheet.totals[seat] } },
      playerCell(session, seat, { back }),
      sheet.rounds.map((r) => h("td", { class: "num" }, formatScore(r.lines[seat].score))),
      h("td", { class: "num total" }, formatScore(sheet.totals[seat])),
    ))),
  );
}

/** At the end of the match: who won, and the places on the podium (ties share one). */
function matchResult(session, seats, places, winners) {
  const names = listOf([...winners].map((seat) => session.nameOf(seat)));
  const iWon = winners.has(session.seat) && !session.watching;
  const totals = session.table.sheet.totals;
  return h("div", { class: "match-result" },
    h("p", { class: "result", id: "match-result", role: "status" },
      iWon ? t("match.you_won") : plural("match.winner", winners.size, { names }),
    ),
    h("ol", { class: "podium", id: "match-places", "aria-label": t("match.places") },
      seats.filter((seat) => places[seat] <= 3).map((seat) =>
        h("li", { class: `place-${places[seat]}`, dataset: { seat, place: places[seat] } },
          h("span", { class: "podium-place" }, placeText(places[seat])),
          " ",
          h("span", { class: "sheet-name", title: session.nameOf(seat) }, session.nameOf(seat)),
          " ",
          h("span", { class: "podium-total" }, plural("match.points", totals[seat], { points: formatScore(totals[seat]) })),
        )),
    ),
  );
}

/** "Watch the replay" of the round just scored, by its share token from `round_over`, or
 * from the `table` message after the page was loaded again on the score sheet (in a new
 * tab: the seat stays at the table). */
function replayLink(session) {
  const token = session.roundOver?.replay ?? session.table?.replay;
  if (!token) return null;
  const href = `#/replay/${encodeURIComponent(token)}`;
  return h("a", { class: "button", id: "replay-link", href, target: "_blank", rel: "noopener" }, t("replay.watch"));
}

/**
 * The time left before the next round is dealt whoever is ready, or the rematch starts
 * with whoever wants one (`over`) (the table's `ready_by`, on the server's clock, as the
 * countdown's `start_at`), counted down; null while nobody waits. Its timer stops once
 * the element has left the page.
 */
function readyWait(session, over) {
  const readyBy = ["scoring", "over"].includes(session.table?.phase) ? session.table.ready_by : null;
  if (typeof readyBy !== "number") return null;
  const element = h("p", { class: "ready-wait", id: "ready-wait", role: "timer" });
  let shown = false;
  const tick = () => {
    if (element.isConnected) shown = true;
    else if (shown) {
      clearInterval(timer);
      return;
    }
    // Never more than the table's whole wait: a clock estimate a little behind the
    // server's (a loaded machine's first round trips) would show 31 s of a 30 s wait.
    const most = Math.ceil(session.table?.ready_s ?? Infinity);
    const left = Math.min(most, Math.max(0, Math.ceil(readyBy - session.connection.serverNow())));
    element.dataset.left = String(left);
    element.textContent = t(over ? "match.rematch.by" : "sheet.ready_by", { s: left });
  };
  const timer = setInterval(tick, 250);
  tick();
  return element;
}

function footer(session, over, { onReady, onRematch, onNextRound }) {
  const toBoard = h("button", { class: "show-board", id: "show-board-button", type: "button" }, t("sheet.show_board"));
  const wait = readyWait(session, over);
  if (over) {
    // Everyone seated says whether they want a rematch (`ready`); it starts when every
    // seat does or when the wait is over; the host may start it at once with every seat.
    const mine = session.watching || session.seat === null ? null : session.table.seats[session.seat];
    const rematchNow = session.isHost
      ? h("button", { class: "big", id: "rematch-now-button", type: "button", onclick: onRematch }, t("match.rematch.now"))
      : null;
    return h("div", { class: "sheet-footer" },
      !mine
        ? h("p", { class: "muted" }, t("match.rematch.watch"))
        : mine.ready
          ? wait ?? h("p", { class: "muted", id: "rematch-waiting" }, t("match.rematch.waiting"))
          : h("button", { class: "primary big", id: "rematch-button", type: "button", onclick: onReady }, t("match.rematch")),
      mine && !mine.ready ? wait : null,
      toBoard,
      rematchNow,
      replayLink(session),
      h("a", { class: "button", href: "#/" }, t("match.lobby")),
    );
  }
  if (!session.watching && session.seat !== null) {
    const mine = session.table.seats[session.seat];
    // The host may deal the next round now (the server says whether enough are ready):
    // after "Show board", so that the focus never lands on it by itself.
    const next = session.isHost
      ? h("button", { class: "big", id: "next-round-button", type: "button", onclick: onNextRound }, t("sheet.start_next"))
      : null;
    return h("div", { class: "sheet-footer" },
      mine?.ready
        ? wait ?? h("p", { class: "muted" }, t("sheet.waiting"))
        : h("button", { class: "primary big", id: "ready-button", onclick: onReady },
            t("sheet.next"), " ", h("kbd", {}, KEYS.label(KEYS.ready))),
      mine?.ready ? null : wait,
      toBoard,
      next,
      replayLink(session),
    );
  }
  return h("div", { class: "sheet-footer" }, wait ?? h("p", { class: "muted" }, t("sheet.waiting")), toBoard, replayLink(session));
}

/**
 * The panel and, while it is put aside, a button that brings it back. "Show board" (or
 * Escape on the sheet) hides the panel so the final board can be seen; "Show score sheet"
 * brings it back. The choice holds until the next sheet (another round or phase).
 */
function withBoardToggle(panel, key) {
  const back = h("button", { class: "primary", id: "show-sheet-button", type: "button" }, t("sheet.show_sheet"));
  const peek = h("div", { class: "sheet-peek" }, back);
  const show = (visible, focus) => {
    if (visible) dismissed.delete(key);
    else dismissed.add(key);
    panel.hidden = !visible;
    peek.hidden = visible;
    if (focus) (visible ? panel.querySelector("#show-board-button") : back).focus({ preventScroll: true });
  };
  panel.querySelector("#show-board-button").addEventListener("click", () => show(false, true));
  back.addEventListener("click", () => show(true, true));
  panel.addEventListener("keydown", (event) => {
    if (event.key === KEYS.cancel) {
      show(false, true);
      event.preventDefault();
    }
  });
  const hidden = dismissed.has(key);
  show(!hidden, false);
  // The first button of the layer takes the focus when it appears: the visible one.
  return h("div", { class: "sheet-layer" }, hidden ? [peek, panel] : [panel, peek]);
}

/** Competition places of totals (ties share a place, the next is skipped): the engine's `scoring.places`. */
export function placesOf(totals) {
  return totals.map((total) => 1 + totals.filter((other) => other > total).length);
}

/**
 * One round of a past match's score sheet, laid out as the table showed it at that round's
 * end (place, player, center, stack, score, running total; best total first, the round's
 * winners crowned): for the history page. `names[seat]` are the names then; `me` is the
 * seat to mark (or null); `match` names the match in the scrolling region's label (each
 * region's name is unique on a page of many matches); `backs[seat]` the decks' backs
 * where they are not the seats' (the score keeper's players chose theirs).
 */
export function pastRoundSheet(sheet, index, names, { me = null, id = null, match = "", backs = null } = {}) {
  const round = sheet.rounds[index];
  const places = index === sheet.rounds.length - 1 && sheet.places ? sheet.places : placesOf(round.totals);
  const winners = new Set(round.winners || []);
  const seats = [...Array(sheet.players).keys()].sort((a, b) => places[a] - places[b] || a - b);
  const session = { nameOf: (seat) => names[seat] ?? "?", backOf: backs ? (seat) => backs[seat] : null };
  const caption = t("sheet.round", { n: index + 1 });
  const ending = round.ending === "stop"
    ? t("stop.by", { name: session.nameOf(round.stopped_by) })
    : t(`ending.${round.ending}`);
  const table = h("table", { class: "sheet past-sheet", id, dataset: { round: index + 1 } },
    h("caption", {}, caption, " · ", h("span", { class: "sheet-ending-small" }, ending)),
    headRow(),
    h("tbody", {}, seats.map((seat) => {
      const line = round.lines[seat];
      const won = winners.has(seat);
      return h("tr", { class: [won ? "best" : null, seat === me ? "me" : null], dataset: { seat, place: places[seat], total: round.totals[seat], center: line.center, stack: line.stack, score: line.score } },
        h("td", { class: "place" }, placeText(places[seat])),
        playerCell(session, seat, { mark: won }),
        h("td", { class: "num" }, `+${line.center}`),
        h("td", { class: "num" }, String(line.stack)),
        h("td", { class: "num" }, formatScore(line.score)),
        h("td", { class: "num total" }, formatScore(round.totals[seat])),
      );
    })),
  );
  return scroller(table, match ? `${match} · ${caption}` : caption);
}
