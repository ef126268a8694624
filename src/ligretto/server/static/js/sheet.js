// The score sheet after a round (center, stack, score, running totals, every round so
// far), getting ready for the next round, the match result and the rematch.

import { backBadge } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { KEYS } from "./keys.js";

function backOf(seat) {
  return { box: ["red", "blue", "green"][Math.floor(seat / 4)], symbol: ["sun", "moon", "star", "heart"][seat % 4] };
}

function endingText(session, round) {
  if (round.ending === "stop") {
    return round.stopped_by === session.seat && !session.watching
      ? t("stop.you")
      : t("stop.by", { name: session.nameOf(round.stopped_by) });
  }
  return t(`ending.${round.ending}`);
}

/** The score sheet panel, or null when there is nothing to show. */
export function sheetPanel(session, { onReady, onRematch }) {
  const table = session.table;
  const sheet = table?.sheet;
  if (!sheet || !sheet.rounds.length) return null;
  const over = table.phase === "over";
  const number = sheet.rounds.length;
  const last = sheet.rounds[number - 1];
  const players = sheet.players;
  const seats = [...Array(players).keys()];
  const best = Math.max(...last.lines.map((line) => line.score));
  const winners = new Set(table.winners || []);

  const round = h("table", { class: "sheet", id: "score-sheet" },
    h("caption", {}, t("sheet.round", { n: number })),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("sheet.player")),
      h("th", { scope: "col" }, t("sheet.center")),
      h("th", { scope: "col" }, t("sheet.stack")),
      h("th", { scope: "col" }, t("sheet.score")),
      h("th", { scope: "col" }, t("sheet.total")),
      over ? null : h("th", { scope: "col" }, t("sheet.ready")),
    )),
    h("tbody", {}, seats.map((seat) => {
      const line = last.lines[seat];
      const entry = table.seats[seat];
      return h("tr", { class: [line.score === best ? "best" : null, seat === session.seat && !session.watching ? "me" : null], dataset: { seat } },
        h("th", { scope: "row" }, backBadge(backOf(seat)), " ", session.nameOf(seat)),
        h("td", {}, `+${line.center}`),
        h("td", {}, line.stack ? `−${line.stack}` : "0"),
        h("td", { class: "num" }, String(line.score)),
        h("td", { class: "num total" }, String(last.totals[seat])),
        over ? null : h("td", { class: "ready-cell" }, entry?.ready ? "✓" : "…"),
      );
    })),
  );

  const history = number > 1
    ? h("table", { class: "sheet history", id: "sheet-history" },
        h("caption", {}, t("sheet.history")),
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("sheet.player")),
          sheet.rounds.map((_, i) => h("th", { scope: "col" }, t("sheet.round.short", { n: i + 1 }))),
          h("th", { scope: "col" }, t("sheet.total")),
        )),
        h("tbody", {}, seats.map((seat) => h("tr", {},
          h("th", { scope: "row" }, session.nameOf(seat)),
          sheet.rounds.map((r) => h("td", { class: "num" }, String(r.lines[seat].score))),
          h("td", { class: "num total" }, String(sheet.totals[seat])),
        ))),
      )
    : null;

  let footer;
  if (over) {
    const names = [...winners].map((seat) => session.nameOf(seat)).join(", ");
    const iWon = winners.has(session.seat) && !session.watching;
    footer = h("div", { class: "sheet-footer" },
      h("p", { class: "result", id: "match-result", role: "status" },
        iWon ? t("match.you_won") : t(winners.size > 1 ? "match.winners" : "match.winner", { names }),
      ),
      session.isHost
        ? h("button", { class: "primary big", id: "rematch-button", onclick: onRematch }, t("match.rematch"))
        : h("p", { class: "muted" }, t("match.rematch.wait")),
      h("a", { class: "button", href: "#/" }, t("match.lobby")),
    );
  } else if (!session.watching && session.seat !== null) {
    const mine = table.seats[session.seat];
    footer = h("div", { class: "sheet-footer" },
      mine?.ready
        ? h("p", { class: "muted" }, t("sheet.waiting"))
        : h("button", { class: "primary big", id: "ready-button", onclick: onReady },
            t("sheet.next"), " ", h("kbd", {}, KEYS.label(KEYS.ready))),
    );
  } else {
    footer = h("div", { class: "sheet-footer" }, h("p", { class: "muted" }, t("sheet.waiting")));
  }

  return h("section", { class: ["sheet-panel", over ? "over" : null], role: "dialog", "aria-labelledby": "sheet-title" },
    h("h2", { id: "sheet-title" }, over ? t("match.over") : t("sheet.title", { n: number })),
    h("p", { class: "sheet-ending" },
      last.ending === "stop" ? h("strong", {}, t("stop.title"), " ") : null,
      endingText(session, last),
    ),
    round,
    history,
    footer,
  );
}
