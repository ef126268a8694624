// The parts of the score keeper's sheet screen that only show the sheet: the score sheet
// itself (sheet.js's, with the players' own backs), the entries waiting to sync, a
// conflict side by side, the change history, and the end of the match with its summary.

import { h } from "./dom.js";
import { language, listOf, plural, t } from "./i18n.js";
import { backFromWire } from "./keepapi.js";
import { rulesSummary } from "./rules.js";
import { formatScore, pastRoundSheet, placeText, placesOf, roundsTable } from "./sheet.js";

/** The players of a sheet as the page draws them: names and backs. */
export function playersOf(sheet) {
  return sheet.players.map((player) => ({ name: player.name, back: backFromWire(player.back) }));
}

/** How a round ended, in words. */
export function endingOf(entry, players) {
  if (entry.ending === "stop") return t("stop.by", { name: players[entry.stopped_by]?.name ?? "?" });
  return t("ending.stalemate");
}

/** The score sheet: the last round as the table shows it, then every round and the totals. */
export function sheetView(sheet, players) {
  const scores = sheet.sheet;
  const names = players.map((player) => player.name);
  const backs = players.map((player) => player.back);
  if (!scores || !scores.rounds.length) {
    return h("section", { class: "panel keep-sheet", "aria-labelledby": "keep-sheet-title" },
      h("h2", { id: "keep-sheet-title" }, t("keep.sheet.title")),
      h("p", { class: "muted", id: "keep-no-rounds" }, t("keep.sheet.none")),
    );
  }
  const last = scores.rounds.length - 1;
  const places = scores.places || placesOf(scores.totals);
  const seats = [...players.keys()].sort((a, b) => places[a] - places[b] || a - b);
  const session = { nameOf: (seat) => names[seat], backOf: (seat) => backs[seat] };
  return h("section", { class: "panel keep-sheet", "aria-labelledby": "keep-sheet-title" },
    h("h2", { id: "keep-sheet-title" }, t("keep.sheet.title")),
    pastRoundSheet(scores, last, names, { backs, id: "keep-last-round" }),
    h("div", { class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("sheet.history") },
      roundsTable(scores, session, seats, { id: "keep-rounds", back: true })),
  );
}

/** The entries of this phone not yet on the server: their counts, no score (the server scores). */
export function waitingView(queue, players) {
  const entries = queue.filter((item) => item.kind === "entry");
  const undos = queue.length - entries.length;
  if (!queue.length) return null;
  return h("section", { class: "panel keep-waiting", id: "keep-waiting", "aria-labelledby": "keep-waiting-title" },
    h("h2", { id: "keep-waiting-title" }, t("keep.waiting.title", { n: queue.length })),
    h("ul", {}, entries.map((item) => h("li", { class: "waiting-entry", dataset: { round: item.n } },
      h("strong", {}, t("sheet.round", { n: item.n })), " · ", endingOf(item.entry, players), ". ",
      players.map((player, seat) => plural("keep.waiting.line", item.entry.stack[seat] ?? 0, { name: player.name, center: item.entry.center[seat] ?? 0, stack: item.entry.stack[seat] ?? 0 })).join("; "),
    )), undos ? h("li", {}, t("keep.waiting.undo")) : null),
  );
}

/** Both entries of a conflict in one table, side by side: per player theirs and mine. */
function conflictTable(theirs, yours, players) {
  const count = (entry, field, seat) => (entry ? String(entry[field]?.[seat] ?? 0) : "–");
  return h("table", { class: "sheet keep-conflict-table", id: "keep-conflict-table" },
    h("thead", {},
      h("tr", {},
        h("th", { scope: "col", rowspan: 2, class: "player" }, t("sheet.player")),
        h("th", { scope: "colgroup", colspan: 2, id: "conflict-theirs" }, t("keep.conflict.theirs")),
        h("th", { scope: "colgroup", colspan: 2, id: "conflict-yours" }, t("keep.conflict.yours")),
      ),
      h("tr", {}, [0, 1].map(() => [
        h("th", { scope: "col", class: "num" }, t("sheet.center")),
        h("th", { scope: "col", class: "num" }, t("sheet.stack")),
      ])),
    ),
    h("tbody", {}, players.map((player, seat) => h("tr", { dataset: { seat } },
      h("th", { scope: "row", class: "player" }, h("span", { class: "sheet-name" }, player.name)),
      ["theirs", "yours"].flatMap((side) => ["center", "stack"].map((field) =>
        h("td", { class: "num", dataset: { side, field } }, count(side === "theirs" ? theirs : yours, field, seat)))),
    ))),
  );
}

/** A 409: their entry and this phone's side by side; keep theirs or send mine on theirs. */
export function conflictView(conflict, players, { onTheirs, onMine }) {
  return h("section", { class: "panel keep-conflict", id: "keep-conflict", role: "alert", "aria-labelledby": "keep-conflict-title" },
    h("h2", { id: "keep-conflict-title" }, t("keep.conflict.title", { n: conflict.n })),
    h("p", {}, t("keep.conflict.text")),
    h("div", { class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("keep.conflict.text") },
      conflictTable(conflict.theirs, conflict.yours, players)),
    h("ul", { class: "conflict-endings" },
      h("li", {}, h("strong", {}, t("keep.conflict.theirs")), " ", conflict.theirs ? endingOf(conflict.theirs, players) : t("keep.conflict.gone")),
      h("li", {}, h("strong", {}, t("keep.conflict.yours")), " ", endingOf(conflict.yours, players)),
    ),
    h("div", { class: "inline" },
      h("button", { type: "button", id: "keep-theirs", onclick: onTheirs }, t("keep.conflict.keep_theirs")),
      h("button", { type: "button", class: "primary", id: "keep-mine", onclick: onMine }, t("keep.conflict.keep_mine")),
    ),
  );
}

/** "14:05" of a change's time (seconds since the epoch or an ISO text). */
function timeOf(at) {
  const date = typeof at === "number" ? new Date(at * 1000) : new Date(at);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat(language(), { hour: "2-digit", minute: "2-digit" }).format(date);
}

/** What a change changed: "Alice: center 12 → 14", the ending. */
function differences(before, after, players) {
  if (!before || !after) return [];
  const lines = [];
  players.forEach((player, seat) => {
    for (const field of ["center", "stack"]) {
      const was = before[field]?.[seat] ?? 0;
      const now = after[field]?.[seat] ?? 0;
      if (was !== now) lines.push(t(`keep.change.${field}`, { name: player.name, was, now }));
    }
  });
  if (before.ending !== after.ending || before.stopped_by !== after.stopped_by) {
    lines.push(t("keep.change.ending", { was: endingOf(before, players), now: endingOf(after, players) }));
  }
  return lines;
}

/** Who changed what, newest first (a link or unlink: whose seat). */
export function changesView(changes, players, { open = false, onToggle = () => {} } = {}) {
  if (!changes?.length) return null;
  const details = h("details", { class: "panel keep-changes", id: "keep-changes", open, ontoggle: () => onToggle(details.open) },
    h("summary", {}, t("keep.changes.title", { n: changes.length })),
    h("ol", { reversed: true }, [...changes].reverse().map((change) => h("li", { dataset: { kind: change.kind, round: change.round } },
      h("span", { class: "muted" }, timeOf(change.at)), " ",
      t(`keep.change.${change.kind}`, { by: change.by, n: change.round, name: players[change.seat]?.name ?? "" }),
      differences(change.before, change.after, players).map((line) => h("span", { class: "change-line" }, line)),
    ))),
  );
  return details;
}

/** The match's summary as text to copy or share: the places, the totals, the link. */
export function summaryText(sheet, players, link) {
  const totals = sheet.sheet?.totals ?? players.map(() => 0);
  const places = sheet.places ?? placesOf(totals);
  const seats = [...players.keys()].sort((a, b) => places[a] - places[b] || a - b);
  const rounds = sheet.sheet?.rounds.length ?? 0;
  const head = plural("keep.summary.head", rounds, { rules: rulesSummary(sheet.rules), n: rounds });
  const lines = seats.map((seat) => `${placeText(places[seat])} ${players[seat].name}: ${formatScore(totals[seat])}`);
  return [head, ...lines, link].join("\n");
}

/** The end of the match: the winners (ties share the win), every place, and the summary. */
export function resultView(sheet, players, { link, onCopy, onShare }) {
  const totals = sheet.sheet.totals;
  const places = sheet.places ?? placesOf(totals);
  const winners = sheet.winners ?? [];
  const seats = [...players.keys()].sort((a, b) => places[a] - places[b] || a - b);
  const names = listOf(winners.map((seat) => players[seat].name));
  return h("section", { class: "panel keep-result", id: "keep-result", "aria-labelledby": "keep-result-title" },
    h("h2", { id: "keep-result-title" }, t("match.over")),
    h("p", { class: "result", id: "match-result", role: "status" }, plural("match.winner", winners.length, { names })),
    h("ol", { class: "podium", id: "match-places", "aria-label": t("match.places") }, seats.map((seat) =>
      h("li", { class: `place-${places[seat]}`, dataset: { seat, place: places[seat] } },
        h("span", { class: "podium-place" }, placeText(places[seat])), " ",
        h("span", { class: "sheet-name" }, players[seat].name), " ",
        h("span", { class: "podium-total" }, plural("match.points", totals[seat], { points: formatScore(totals[seat]) })),
      ))),
    h("pre", { class: "keep-summary", id: "keep-summary", tabindex: "0", "aria-label": t("keep.summary") }, summaryText(sheet, players, link)),
    h("div", { class: "inline" },
      h("button", { type: "button", id: "keep-copy", onclick: onCopy }, t("keep.summary.copy")),
      navigator.share ? h("button", { type: "button", id: "keep-share-summary", onclick: onShare }, t("keep.summary.share")) : null,
    ),
  );
}
