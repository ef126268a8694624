// The history page #/history/ID: a profile's statistics over time and rating
// (GET /api/profiles/{id}/stats) and every match it played (GET /api/profiles/{id}/matches),
// newest first, 20 a page, each with its players, final places and the score sheet of every
// round (sheet.js) with, on one's own history, a link to each round's replay; both filtered
// by rules preset and number of players. Everything here is public (the profile's id,
// never its secret) and names no card.
// #/history without an id shows this browser's own profile (storage.profile(), kept by
// profile.js); the profile page links to it.

import { barChart } from "./chart.js";
import { h } from "./dom.js";
import { has, language, plural, t } from "./i18n.js";
import { matchEndText, presetNames } from "./rules.js";
import { pastRoundSheet, placeText } from "./sheet.js";
import { storage } from "./storage.js";

/** The kinds of move the statistics time, each with its words. */
const MOVES = {
  play: "history.move.play",
  turn: "history.move.turn",
  place: "history.move.place",
  vote: "history.move.vote",
  withdraw: "history.move.withdraw",
};

export const PLAYER_COUNTS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** A number as the page's language writes it, at most `digits` decimals. */
export function formatNumber(value, digits = 1) {
  return new Intl.NumberFormat(language(), { maximumFractionDigits: digits }).format(value);
}

/** "smart:skilled" in words: "Smart (skilled)". */
export function botText(spec) {
  const [strategy, level] = String(spec).split(":");
  return t("history.bot", { strategy: t(`bot.${strategy}`), level: t(`level.${level}`) });
}

/** The rules of a match of the past: its preset (as the server filed it), how it ends, expert. */
export function rulesText(match) {
  const parts = [match.preset ? t(`preset.${match.preset}`) : t("preset.custom")];
  parts.push(matchEndText(match.rules.match_end));
  if (match.rules.expert) parts.push(t("option.expert"));
  return parts.join(" · ");
}

/** A player's name as the table showed it: the server names bots in English ("Smart bot 3"),
 * said in the page's language as session.js's `nameOf` does. */
export function playerName(player) {
  const bot = player.bot && player.name.match(/^\w+ bot (\d+)$/);
  const strategy = player.bot ? player.bot.split(":")[0] : "";
  if (bot && has(`bot.${strategy}`)) return t("bot.name", { strategy: t(`bot.${strategy}`), n: bot[1] });
  return player.name;
}

/** "Watch the replay" of a round of one's own history (its share token: the history
 * gives them to the profile's owner only). */
function replayLink(token, round) {
  if (!token) return null;
  return h("p", { class: "history-replay" },
    h("a", { class: "button", href: `#/replay/${encodeURIComponent(token)}`, dataset: { round } }, t("replay.watch")));
}

/** This browser's own profile id (profile.js keeps `{id, secret}` through storage.js), or null. */
export function ownProfile() {
  return storage.profile?.()?.id ?? null;
}

/** The history's API, asked with this browser's secret when it is this browser's own
 * profile: its owner sees the codes of its private tables too (nobody else does). */
/** "Table CODE", or "A private table" when the server keeps its code to the owner;
 * "Played on a real table" for a match of the score keeper (never rated). */
function tableText(match) {
  if (match.kind === "table") return t("history.real_table");
  return match.code ? t("history.table", { code: match.code }) : t("history.private_table");
}

async function getJson(path, profile = null) {
  const own = storage.profile?.();
  const headers = own && own.id === profile ? { Authorization: `Bearer ${own.secret}` } : {};
  const response = await fetch(path, { headers });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(body.error || String(response.status)), { code: body.error });
  return body;
}

export class HistoryPage {
  constructor(root, profile) {
    this.root = root;
    this.profile = profile || ownProfile();
    this.filter = { preset: "", players: "", page: 1 };
    this.stats = null;
    this.matches = null;
    this.error = null;
    this.asked = 0;
    this.load();
  }

  query(page) {
    const params = new URLSearchParams();
    if (this.filter.preset) params.set("preset", this.filter.preset);
    if (this.filter.players) params.set("players", this.filter.players);
    if (page) params.set("page", String(this.filter.page));
    const text = params.toString();
    return text ? `?${text}` : "";
  }

  /** Ask for the statistics and the page of matches of the current filter; the newest answer wins. */
  async load() {
    const asked = ++this.asked;
    if (!this.profile) {
      this.error = "history.no_own";
      this.render();
      return;
    }
    const base = `/api/profiles/${encodeURIComponent(this.profile)}`;
    this.loading = true;
    this.render();
    try {
      const [stats, matches] = await Promise.all([getJson(`${base}/stats${this.query(false)}`, this.profile), getJson(`${base}/matches${this.query(true)}`, this.profile)]);
      if (asked !== this.asked) return;
      Object.assign(this, { stats, matches, error: null });
    } catch (error) {
      if (asked !== this.asked) return;
      this.error = error.code === "no_profile" ? "history.no_profile" : "history.unavailable";
    }
    this.loading = false;
    this.render();
  }

  setFilter(change) {
    Object.assign(this.filter, change);
    this.load();
  }

  /** The profile's display name, as its newest match shows it. */
  name() {
    for (const match of this.matches?.matches || []) {
      const mine = match.players.find((player) => player.profile === this.profile);
      if (mine) return mine.name;
    }
    return null;
  }

  render() {
    const name = this.name();
    const title = h("h1", { id: "history-title" }, name ? t("history.title.named", { name }) : t("history.title"));
    const body = this.error
      ? h("p", { role: "alert", id: "history-error" }, t(this.error))
      : [this.filters(), this.statsSection(), this.matchList()];
    const focused = this.root.contains(document.activeElement) ? document.activeElement.id : "";
    this.root.replaceChildren(h("div", { class: "history-page", "aria-busy": this.loading ? "true" : "false" },
      title,
      h("p", {}, h("a", { href: "#/leaderboard", id: "history-to-leaderboard" }, t("leaderboard.title"))),
      body,
    ));
    // Drawn again after a filter or a page: the control used keeps the focus (keyboard users).
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  }

  filters() {
    const preset = h("select", { id: "history-preset", onchange: (e) => this.setFilter({ preset: e.target.value, page: 1 }) },
      h("option", { value: "" }, t("history.filter.all_presets")),
      presetNames().map((name) => h("option", { value: name, selected: name === this.filter.preset }, t(`preset.${name}`))));
    const players = h("select", { id: "history-players", onchange: (e) => this.setFilter({ players: e.target.value, page: 1 }) },
      h("option", { value: "" }, t("history.filter.all_players")),
      PLAYER_COUNTS.map((n) => h("option", { value: String(n), selected: String(n) === this.filter.players }, plural("history.filter.players_n", n, { n }))));
    return h("form", { class: "panel history-filters", role: "search", "aria-label": t("history.filter"), onsubmit: (e) => e.preventDefault() },
      h("label", { for: "history-preset" }, t("history.filter.preset")), preset,
      h("label", { for: "history-players" }, t("history.filter.players")), players,
    );
  }

  statsSection() {
    const stats = this.stats;
    if (!stats) return h("p", { class: "muted" }, t("history.loading"));
    const item = (key, label, value) => h("div", { class: "stat", dataset: { stat: key, value } },
      h("dt", {}, label), h("dd", {}, typeof value === "number" ? formatNumber(value, 2) : value));
    const numbers = h("dl", { class: "stats", id: "history-numbers" },
      item("matches", t("history.stat.matches"), stats.matches),
      item("rounds", t("history.stat.rounds"), stats.rounds),
      item("rounds_won", t("history.stat.rounds_won"), stats.rounds_won),
      item("stops", t("history.stat.stops"), stats.stops),
      item("center_per_round", t("history.stat.center"), stats.center_per_round),
      item("stack_per_round", t("history.stat.stack"), stats.stack_per_round),
      item("races_won", t("history.stat.races_won"), stats.races_won),
      item("races_lost", t("history.stat.races_lost"), stats.races_lost),
    );
    const kinds = Object.keys(MOVES).filter((kind) => kind in (stats.reaction_s || {}));
    const reactions = h("table", { class: "sheet reactions", id: "history-reactions" },
      h("caption", {}, t("history.reaction")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "player" }, t("history.reaction.move")), h("th", { scope: "col", class: "num" }, t("history.reaction.median")))),
      h("tbody", {}, kinds.length
        ? kinds.map((kind) => h("tr", { dataset: { kind, seconds: stats.reaction_s[kind] } },
            h("th", { scope: "row" }, t(MOVES[kind])),
            h("td", { class: "num" }, t("history.seconds", { s: formatNumber(stats.reaction_s[kind], 2) }))))
        : h("tr", {}, h("td", { colspan: "2", class: "muted" }, t("history.none")))),
    );
    return h("section", { class: "panel history-stats", id: "history-stats", "aria-labelledby": "history-stats-title" },
      h("h2", { id: "history-stats-title" }, t("history.stats")),
      this.ratingLine(stats.rating),
      numbers,
      reactions,
      this.charts(stats.by_match || []),
    );
  }

  ratingLine(rating) {
    if (!rating) return null;
    return h("p", { class: "rating-line", id: "history-rating", dataset: { rating: rating.rating, sigma: rating.sigma, mu: rating.mu, matches: rating.matches } },
      h("strong", {}, t("history.rating", { rating: formatNumber(rating.rating), sigma: formatNumber(rating.sigma) })),
      " ",
      h("span", { class: "muted" }, plural("history.rating.matches", rating.matches, { n: rating.matches })),
      rating.like_bot ? h("span", { class: "like-bot", id: "history-like-bot" }, " · ", t("history.like_bot", { bot: botText(rating.like_bot) })) : null,
    );
  }

  /** The statistics over time: one bar per match (oldest first). */
  charts(byMatch) {
    if (byMatch.length < 2) return null;
    const center = byMatch.map((m) => (m.rounds ? Math.round((m.center / m.rounds) * 10) / 10 : 0));
    const won = byMatch.map((m) => m.rounds_won);
    const figure = (label, values, id) => h("figure", { class: "chart-box", id }, barChart(values, `${label}: ${values.join(", ")}`), h("figcaption", {}, label));
    return h("div", { class: "charts" },
      figure(t("history.chart.center"), center, "chart-center"),
      figure(t("history.chart.rounds_won"), won, "chart-rounds-won"),
    );
  }

  matchList() {
    const list = this.matches;
    if (!list) return null;
    const section = h("section", { class: "history-matches", id: "history-matches", "aria-labelledby": "history-matches-title", dataset: { total: list.total } },
      h("h2", { id: "history-matches-title" }, t("history.matches", { n: list.total })),
      list.matches.length ? list.matches.map((match, index) => this.matchCard(match, index)) : h("p", { class: "muted" }, t("history.none")),
      this.pager(list),
    );
    return section;
  }

  matchCard(match, index = 0) {
    const names = [];
    for (const player of match.players) names[player.seat] = playerName(player);
    const me = match.players.find((player) => player.profile === this.profile)?.seat ?? null;
    const date = new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(match.started * 1000));
    const places = match.places || match.sheet?.places || [];
    const order = [...match.players].sort((a, b) => (places[a.seat] ?? 99) - (places[b.seat] ?? 99) || a.seat - b.seat);
    const rounds = match.sheet?.rounds || [];
    return h("article", { class: "panel history-match", dataset: { code: match.code || "", match: match.match, players: match.players.length, preset: match.preset || "", kind: match.kind || "online" } },
      h("h3", {}, h("time", { datetime: new Date(match.started * 1000).toISOString() }, date)),
      h("p", { class: "muted small" },
        tableText(match), " · ", rulesText(match),
        " · ", match.rated ? t("history.rated") : t("history.unrated"),
        match.ended === null ? [" · ", t("history.abandoned")] : null,
        match.kind === "table" && match.code
          ? [" · ", h("a", { href: `#/keep/${encodeURIComponent(match.code)}`, class: "history-sheet-link" }, t("history.open_sheet"))]
          : null,
        match.tournament
          ? [" · ", h("a", { href: `#/tournament/${encodeURIComponent(match.tournament)}`, class: "history-tournament-link" }, t("history.tournament"))]
          : null),
      h("ol", { class: "history-places", "aria-label": t("match.places") },
        order.map((player) => h("li", { class: player.seat === me ? "me" : null, dataset: { seat: player.seat, place: places[player.seat] ?? "" } },
          places[player.seat] ? h("span", { class: "podium-place" }, placeText(places[player.seat]), " ") : null,
          player.profile && player.profile !== this.profile
            ? h("a", { href: `#/history/${encodeURIComponent(player.profile)}` }, player.name)
            : h("span", {}, playerName(player)),
          player.bot ? h("span", { class: "muted small" }, ` (${t(`level.${player.bot.split(":")[1]}`)})`) : null,
        ))),
      rounds.length
        ? h("details", { class: "history-sheets" },
            h("summary", {}, plural("history.sheets", rounds.length, { n: rounds.length })),
            rounds.map((_, i) => [
              pastRoundSheet(match.sheet, i, names, { me, match: `${date} · ${tableText(match)} · ${match.match}${match.code ? "" : ` (${index + 1})`}` }),
              replayLink(match.replays?.[i], i + 1),
            ]))
        : null,
    );
  }

  pager(list) {
    if (list.pages <= 1) return null;
    const go = (page) => this.setFilter({ page });
    return h("nav", { class: "pager", "aria-label": t("history.pages") },
      h("button", { type: "button", id: "history-prev", disabled: list.page <= 1, onclick: () => go(list.page - 1) }, t("history.prev")),
      h("span", { id: "history-page" }, t("history.page", { page: list.page, pages: list.pages })),
      h("button", { type: "button", id: "history-next", disabled: list.page >= list.pages, onclick: () => go(list.page + 1) }, t("history.next")),
    );
  }

  close() {
    this.asked += 1; // an answer still on its way is not drawn any more
  }
}
