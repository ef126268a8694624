// The leaderboard page #/leaderboard: the rated profiles by conservative rating (mu - 3 sigma,
// the server's order: GET /api/leaderboard?players=&page=&season=), overall or at one number
// of players, of this season (the default), a past one (its final standings) or all time,
// 50 a page, each row with its rated matches and a link to the player's history.

import { backBadge } from "./cards.js";
import { h } from "./dom.js";
import { language, plural, t } from "./i18n.js";
import { formatNumber, ownProfile, PLAYER_COUNTS } from "./history.js";

export class LeaderboardPage {
  constructor(root) {
    this.root = root;
    this.players = "";
    this.season = ""; // "": the current season (the server's default); "all"; or a name
    this.page = 1;
    this.board = null;
    this.error = false;
    this.asked = 0;
    this.load();
  }

  async load() {
    const asked = ++this.asked;
    const params = new URLSearchParams({ page: String(this.page) });
    if (this.players) params.set("players", this.players);
    if (this.season) params.set("season", this.season);
    this.loading = true;
    this.render();
    try {
      const response = await fetch(`/api/leaderboard?${params}`);
      if (!response.ok) throw new Error(String(response.status));
      const board = await response.json();
      if (asked !== this.asked) return;
      Object.assign(this, { board, error: false });
    } catch {
      if (asked !== this.asked) return;
      this.error = true;
    }
    this.loading = false;
    this.render();
  }

  render() {
    const select = h("select", { id: "leaderboard-players", onchange: (e) => { this.players = e.target.value; this.page = 1; this.load(); } },
      h("option", { value: "" }, t("leaderboard.overall")),
      PLAYER_COUNTS.map((n) => h("option", { value: String(n), selected: String(n) === this.players }, plural("history.filter.players_n", n, { n }))));
    const seasons = h("select", { id: "leaderboard-season", onchange: (e) => { this.season = e.target.value; this.page = 1; this.load(); } },
      (this.board?.seasons ?? []).map((season, i) => h("option", { value: i === 0 ? "" : season.name, selected: (i === 0 ? "" : season.name) === this.season }, seasonText(season, i === 0))),
      h("option", { value: "all", selected: this.season === "all" }, t("leaderboard.all_time")));
    const controls = h("form", { class: "panel history-filters", role: "search", "aria-label": t("leaderboard.title"), onsubmit: (e) => e.preventDefault() },
      h("label", { for: "leaderboard-season" }, t("leaderboard.season")), seasons,
      h("label", { for: "leaderboard-players" }, t("leaderboard.players")), select);
    const focused = this.root.contains(document.activeElement) ? document.activeElement.id : "";
    this.root.replaceChildren(h("div", { class: "history-page leaderboard-page", "aria-busy": this.loading ? "true" : "false" },
      h("h1", { id: "leaderboard-title" }, t("leaderboard.title")),
      controls,
      this.error ? h("p", { role: "alert", id: "leaderboard-error" }, t("history.unavailable")) : this.table(),
    ));
    // Drawn again after a filter or a page: the control used keeps the focus (keyboard users).
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  }

  table() {
    const board = this.board;
    if (!board) return h("p", { class: "muted" }, t("history.loading"));
    const note = h("p", { class: "muted small", id: "leaderboard-note" }, plural("leaderboard.min", board.min_matches, { n: board.min_matches }));
    if (!board.entries.length) return [note, h("p", { class: "muted", id: "leaderboard-empty" }, t("leaderboard.empty"))];
    const head = (text, extra = null) => h("th", { scope: "col", class: extra }, h("span", { class: "head" }, text));
    const table = h("table", { class: "sheet leaderboard", id: "leaderboard-table" },
      h("caption", {}, `${this.players ? plural("history.filter.players_n", Number(this.players), { n: this.players }) : t("leaderboard.overall")} · ${this.caption(board)}`),
      h("thead", {}, h("tr", {},
        head(t("sheet.place"), "place"), h("th", { scope: "col", class: "player" }, t("sheet.player")),
        head(t("leaderboard.rating"), "num"), head(t("leaderboard.uncertainty"), "num"), head(t("leaderboard.matches"), "num"))),
      h("tbody", {}, board.entries.map((entry) => h("tr", { class: entry.id === ownProfile() ? "me" : null, dataset: { id: entry.id, place: entry.place, rating: entry.rating, matches: entry.matches } },
        h("td", { class: "place" }, String(entry.place)),
        h("th", { scope: "row", class: "player" }, h("span", { class: "player-cell" },
          backBadge({ box: "red", symbol: entry.symbol }),
          h("a", { class: "sheet-name", href: `#/history/${encodeURIComponent(entry.id)}`, title: entry.name }, entry.name))),
        h("td", { class: "num" }, formatNumber(entry.rating)),
        h("td", { class: "num" }, `±${formatNumber(entry.sigma)}`),
        h("td", { class: "num" }, String(entry.matches)),
      ))),
    );
    return [note, h("div", { class: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("leaderboard.title") }, table), this.pager(board)];
  }

  /** Which leaderboard this is: this season's, a past one's final standings, all time's. */
  caption(board) {
    if (board.season === "all") return t("leaderboard.all_time");
    const season = board.seasons.find((s) => s.name === board.season);
    if (!season) return board.season;
    return season === board.seasons[0] ? seasonText(season, true) : t("leaderboard.season_past", { months: months(season) });
  }

  pager(board) {
    if (board.pages <= 1) return null;
    const go = (page) => { this.page = page; this.load(); };
    return h("nav", { class: "pager", "aria-label": t("history.pages") },
      h("button", { type: "button", id: "leaderboard-prev", disabled: board.page <= 1, onclick: () => go(board.page - 1) }, t("history.prev")),
      h("span", {}, t("history.page", { page: board.page, pages: board.pages })),
      h("button", { type: "button", id: "leaderboard-next", disabled: board.page >= board.pages, onclick: () => go(board.page + 1) }, t("history.next")),
    );
  }

  close() {
    this.asked += 1;
  }
}

/** A season's months in the page's language ("Oct – Dec 2026"), from its bounds (UTC). */
export function months(season) {
  const format = new Intl.DateTimeFormat(language(), { month: "short", year: "numeric", timeZone: "UTC" });
  return format.formatRange(new Date(season.starts * 1000), new Date(season.ends * 1000 - 1));
}

function seasonText(season, current) {
  return current ? t("leaderboard.season_now", { months: months(season) }) : months(season);
}
