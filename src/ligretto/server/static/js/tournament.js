// Tournaments of duplicate deals (docs/protocol.md "Tournaments"): #/tournament makes one
// (its name, tables of N seats, stages, Swiss, mixed or knockout pairing, rules, bots entered at once), #/tournament/ID is
// one: entering it (with this browser's profile, so its matches go in the history), the
// host's Start, the standings by duplicate score (a knockout's with the stage each went out at), and each stage's tables with a link to
// watch each (#/w/CODE) and, for an entrant, to play their own (the seat's token from
// POST …/seat, kept as any seat token).  The host's and the entrant's secrets are kept in
// this browser (storage.js).  While it is being played the page asks again every few seconds.

import { apiCall } from "./apicall.js";
import { h } from "./dom.js";
import { has, t } from "./i18n.js";
import { profiles } from "./profile.js";
import { LEVELS, presetRules, rulesForm } from "./rules.js";
import { NAME_INPUT_MAX, storage } from "./storage.js";

const REFRESH_MS = 4000;
const SIZES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const STAGES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const PAIRINGS = ["swiss", "mixed", "knockout"];
const BOTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16, 20, 24, 32];

/** A refusal in words: the page's own text for its code, else the server's message. */
function refusal(error) {
  return has(`tournament.error.${error.code}`) ? t(`tournament.error.${error.code}`) : error.message || t("tournament.error.generic");
}

function select(id, values, chosen) {
  return h("select", { id }, values.map((v) => h("option", { value: String(v), selected: v === chosen }, String(v))));
}

/** #/tournament: the form that makes a tournament; its host's secret kept here. */
export class TournamentCreateScreen {
  constructor(root) {
    this.root = root;
    this.settings = null;
    this.render();
  }

  close() {}

  render() {
    const chosen = this.settings ? { ...presetRules(this.settings.preset), ...this.settings.options } : presetRules("classic");
    this.form = rulesForm({ rules: chosen }, {
      only: Object.keys(presetRules("classic")), idPrefix: "tournament", onChange: (settings) => (this.settings = settings),
    });
    this.settings = this.form.settings();
    this.root.replaceChildren(h("div", { class: "tournament-page" },
      h("section", { class: "panel", "aria-labelledby": "tournament-title" },
        h("h1", { id: "tournament-title" }, t("tournament.create.title")),
        h("p", {}, t("tournament.create.intro")),
        h("form", { class: "tournament-form", id: "tournament-form", onsubmit: (e) => { e.preventDefault(); this.create(); } },
          h("label", { for: "tournament-name" }, t("tournament.name")),
          h("input", { id: "tournament-name", maxlength: NAME_INPUT_MAX, required: true, autocomplete: "off" }),
          h("label", { for: "tournament-size" }, t("tournament.table_size")), select("tournament-size", SIZES, 4),
          h("label", { for: "tournament-stages" }, t("tournament.stages")), select("tournament-stages", STAGES, 3),
          h("label", { for: "tournament-pairing" }, t("tournament.pairing")),
          h("select", {
            id: "tournament-pairing",
            // a knockout's stages follow from its entrants: the number of stages is not asked
            onchange: (e) => { this.root.querySelector("#tournament-stages").disabled = e.target.value === "knockout"; },
          }, PAIRINGS.map((way) => h("option", { value: way }, t(`tournament.pairing.${way}`)))),
          h("label", { for: "tournament-bots" }, t("tournament.bots")), select("tournament-bots", BOTS, 0),
          h("label", { for: "tournament-level" }, t("tournament.bot_level")),
          h("select", { id: "tournament-level" }, LEVELS.map((level) => h("option", { value: level, selected: level === "skilled" }, t(`level.${level}`)))),
          h("p", { class: "error", role: "alert", id: "tournament-error" }),
          h("button", { type: "submit", class: "primary big", id: "tournament-create" }, t("tournament.create.button")),
        ),
      ),
      h("section", { class: "panel", "aria-labelledby": "tournament-rules-title" },
        h("h2", { id: "tournament-rules-title" }, t("tournament.rules")),
        this.form,
      ),
    ));
  }

  async create() {
    const value = (id) => this.root.querySelector(`#${id}`).value;
    const bots = Array.from({ length: Number(value("tournament-bots")) }, () => `smart:${value("tournament-level")}`);
    const body = {
      name: value("tournament-name"), table_size: Number(value("tournament-size")), stages: Number(value("tournament-stages")),
      pairing: value("tournament-pairing"),
      preset: this.settings.preset || "classic", options: this.settings.options, bots,
    };
    try {
      const made = await apiCall("POST", "/api/tournaments", { body });
      storage.setTournamentHost(made.id, made.host);
      location.hash = `#/tournament/${encodeURIComponent(made.id)}`;
    } catch (error) {
      this.root.querySelector("#tournament-error").textContent = refusal(error);
    }
  }
}

/** #/tournament/ID: one tournament (see the module's comment). */
export class TournamentScreen {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.base = `/api/tournaments/${encodeURIComponent(id)}`;
    this.data = null;
    this.error = null;
    this.timer = null;
    this.closed = false;
    this.load();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
  }

  async load() {
    clearTimeout(this.timer);
    try {
      this.data = await apiCall("GET", this.base);
      this.error = null;
    } catch (error) {
      this.error = error;
    }
    if (this.closed) return;
    this.render();
    if (!this.data || this.data.state !== "over") this.timer = setTimeout(() => this.load(), REFRESH_MS);
  }

  /** Who this browser is in the tournament: its entrant number, or null. */
  mine() {
    return storage.tournamentEntrant(this.id)?.entrant ?? null;
  }

  render() {
    const data = this.data;
    if (!data) {
      this.root.replaceChildren(h("div", { class: "tournament-page" }, h("p", { class: this.error ? "error" : "muted", role: this.error ? "alert" : null, id: "tournament-status" },
        this.error ? refusal(this.error) : t("history.loading"))));
      return;
    }
    const name = (entrant) => (entrant === null ? t("tournament.bye") : data.entrants[entrant]?.name ?? "?");
    this.root.replaceChildren(h("div", { class: "tournament-page", dataset: { state: data.state } },
      h("section", { class: "panel", "aria-labelledby": "tournament-title" },
        h("h1", { id: "tournament-title" }, data.name),
        h("p", { id: "tournament-state" }, t(`tournament.state.${data.state}`, {
          entrants: data.entrants.length, stages: data.stages, size: data.table_size, played: data.played.length,
        })),
        h("p", { class: "help", id: "tournament-pairing-line" }, t(`tournament.pairing.${data.pairing}`)),
        this.actions(data),
        h("p", { class: "error", role: "alert", id: "tournament-error" }, this.error ? refusal(this.error) : ""),
      ),
      data.state === "open" ? this.entrants(data) : this.standings(data, name),
      data.played.slice().reverse().map((stage) => this.stage(stage, name)),
    ));
  }

  actions(data) {
    const buttons = [];
    const entered = this.mine() !== null;
    if (data.state === "open" && !entered) {
      buttons.push(h("form", { class: "tournament-join", onsubmit: (e) => { e.preventDefault(); this.join(); } },
        h("label", { for: "tournament-my-name" }, t("lobby.name")),
        h("input", { id: "tournament-my-name", maxlength: NAME_INPUT_MAX, value: storage.name(), required: true }),
        h("button", { type: "submit", class: "primary", id: "tournament-join" }, t("tournament.join"))));
    }
    if (entered) buttons.push(h("p", { id: "tournament-entered" }, t("tournament.entered", { name: data.entrants[this.mine()]?.name ?? "" })));
    if (data.state === "open" && storage.tournamentHost(this.id)) {
      buttons.push(h("button", { type: "button", class: "primary big", id: "tournament-start", onclick: () => this.start() }, t("tournament.start")));
    }
    if (data.state === "playing" && entered) {
      buttons.push(h("button", { type: "button", class: "primary big", id: "tournament-play", onclick: () => this.play() }, t("tournament.play")));
    }
    return h("div", { class: "tournament-actions" }, buttons);
  }

  entrants(data) {
    return h("section", { class: "panel", "aria-labelledby": "tournament-entrants-title" },
      h("h2", { id: "tournament-entrants-title" }, t("tournament.entrants", { n: data.entrants.length })),
      h("ol", { class: "tournament-entrants", id: "tournament-entrants" }, data.entrants.map((e) => h("li", {}, e.name))));
  }

  standings(data, name) {
    const head = (text, cls = null) => h("th", { scope: "col", class: cls }, text);
    const knockout = data.pairing === "knockout";
    // A knockout's bracket, under each name (no column more on a phone): the stage each
    // entrant went out at, still in, or the winner once it is over.
    const out = (line) => (line.out !== null ? t("tournament.out.at", { n: line.out })
      : t(data.state === "over" ? "tournament.out.winner" : "tournament.out.in"));
    return h("section", { class: "panel", "aria-labelledby": "tournament-standings-title" },
      h("h2", { id: "tournament-standings-title" }, t("tournament.standings")),
      h("p", { class: "help" }, t("tournament.standings.help")),
      h("div", { class: "sheet-scroll", tabindex: "0" },
        h("table", { class: "sheet tournament-standings", id: "tournament-standings" },
          h("thead", {}, h("tr", {}, head(t("sheet.place"), "place"), head(t("sheet.player"), "player"),
            head(t("tournament.duplicate"), "num"), head(t("tournament.points"), "num"))),
          h("tbody", {}, data.standings.map((line) => h("tr", { class: line.entrant === this.mine() ? "me" : null, dataset: { entrant: line.entrant } },
            h("td", { class: "place" }, String(line.place)),
            h("th", { scope: "row", class: "player" }, name(line.entrant),
              knockout ? h("span", { class: "knockout-out", dataset: { out: line.out ?? "" } }, out(line)) : null),
            h("td", { class: "num" }, (line.duplicate > 0 ? "+" : "") + line.duplicate.toLocaleString()),
            h("td", { class: "num" }, String(line.points))))))));
  }

  stage(stage, name) {
    return h("section", { class: "panel tournament-stage", "aria-labelledby": `tournament-stage-${stage.number}`, dataset: { stage: stage.number } },
      h("h2", { id: `tournament-stage-${stage.number}` }, t(stage.over ? "tournament.stage.over" : "tournament.stage.playing", { n: stage.number })),
      h("ul", { class: "tournament-tables" }, stage.tables.map((table) => h("li", { dataset: { code: table.code } },
        h("span", { class: "tournament-table-name" }, t("tournament.table", { n: table.number })), " ",
        h("span", { class: "tournament-seats" }, table.seats.map(name).join(" · ")), " ",
        h("a", { href: `#/w/${encodeURIComponent(table.code)}`, class: "tournament-watch" }, t("lobby.watch"))))));
  }

  async join() {
    const name = this.root.querySelector("#tournament-my-name").value;
    try {
      // With a profile (made now if this browser has none): its matches go in its history,
      // and its tables' hellos say who it is (an entrant watches no other table of its stage).
      if (!profiles.secret()) await profiles.ensure(name);
      const entered = await apiCall("POST", `${this.base}/entrants`, { body: { name }, secret: profiles.secret() });
      storage.setName(name);
      storage.setTournamentEntrant(this.id, entered);
    } catch (error) {
      this.error = error;
    }
    this.load();
  }

  async start() {
    try {
      await apiCall("POST", `${this.base}/start`, { body: { host: storage.tournamentHost(this.id) } });
    } catch (error) {
      this.error = error;
    }
    this.load();
  }

  async play() {
    try {
      const seat = await apiCall("POST", `${this.base}/seat`, { body: { secret: storage.tournamentEntrant(this.id).secret } });
      storage.setToken(seat.code, seat.token);
      location.hash = `#/t/${encodeURIComponent(seat.code)}`;
    } catch (error) {
      this.error = error;
      this.render();
    }
  }
}
