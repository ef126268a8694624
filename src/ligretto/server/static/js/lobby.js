// The lobby: Play now, your name, the score keeper for a game on a real table, create a
// table, join one by code or invite link, and the live list of public tables with who is
// playing now (over /ws/lobby).

import { wsUrl } from "./connection.js";
import { h, toast } from "./dom.js";
import { has, plural, t } from "./i18n.js";
import { LEVELS, presetRules, rulesForm, rulesSummary } from "./rules.js";
import { NAME_INPUT_MAX, storage } from "./storage.js";
import { aidToggle } from "./aid.js";
import { QueuePanel } from "./queue.js";

/** The way in for newcomers: the tutorial's button, and the beginner aid's switch. */
function learning() {
  return h("div", { class: "learning" },
    h("div", { class: "tutorial-entry" },
      h("a", { class: "button primary big", href: "#/learn", id: "learn-button" }, t("tutorial.button")),
      h("small", { class: "help" }, t("tutorial.button.help")),
    ),
    aidToggle("lobby"),
  );
}

/** The invite code in a pasted link (".../#/t/CODE", "...?t=CODE") or a bare code. */
export function codeFrom(text) {
  const value = String(text || "").trim();
  const match = value.match(/[#/]t\/([A-Za-z0-9_-]+)/) || value.match(/[?&]t=([A-Za-z0-9_-]+)/);
  if (match) return match[1];
  return /^[A-Za-z0-9_-]{4,64}$/.test(value) ? value : "";
}

export function inviteLink(code) {
  return `${location.origin}/#/t/${code}`;
}

/**
 * Play now: you and three `smart` bots, classic rules, the match starts as you sit down.
 * `casual` by default: about 1.5 s a card, the pace of a person new to the game (a
 * `skilled` bot, about 1 s, takes most contested piles from a beginner). `machine` is not
 * offered: no person keeps up with it.
 */
export const PLAY_NOW_BOTS = 3;
export const PLAY_NOW_LEVELS = LEVELS.filter((level) => level !== "machine");
export const PLAY_NOW_LEVEL = "casual";

export class LobbyScreen {
  constructor(root) {
    this.root = root;
    this.tables = null;
    /** Who is playing now (the lobby message's `now`). */
    this.now = null;
    /** How many public tables there are: the list shows the first few (Limits, lobby_tables). */
    this.total = 0;
    /** The tournaments being played, once each (their stage tables are only on their page). */
    this.tournaments = [];
    this.settings = { preset: "classic", options: {}, seats: 4, public: true };
    this.socket = null;
    this.closed = false;
    this.queue = new QueuePanel(() => this.defaultName());
    this.connectList();
    this.render();
  }

  connectList() {
    if (this.closed) return;
    const socket = new WebSocket(wsUrl("/ws/lobby"));
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "lobby") {
        this.tables = message.tables;
        this.total = message.total;
        this.tournaments = message.tournaments || [];
        this.now = message.now;
        this.renderList();
        this.renderNow();
      }
    });
    socket.addEventListener("close", () => {
      if (!this.closed) setTimeout(() => this.connectList(), 2000);
    });
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
    this.queue.close();
  }

  render() {
    const nameInput = h("input", {
      id: "player-name",
      type: "text",
      maxlength: NAME_INPUT_MAX,
      autocomplete: "nickname",
      value: storage.name(),
      placeholder: t("lobby.name.placeholder"),
      oninput: () => storage.setName(nameInput.value.trim()),
    });
    this.nameInput = nameInput;

    const form = rulesForm(
      { rules: { ...presetRules(this.settings.preset), ...this.settings.options }, seats: this.settings.seats, public: this.settings.public },
      { onChange: (settings) => (this.settings = settings), idPrefix: "create" },
    );
    this.settings = form.settings();

    const codeInput = h("input", {
      id: "join-code",
      type: "text",
      autocomplete: "off",
      spellcheck: false,
      placeholder: t("lobby.join.placeholder"),
    });
    const joinForm = h(
      "form",
      {
        class: "join-form",
        onsubmit: (event) => {
          event.preventDefault();
          const code = codeFrom(codeInput.value);
          if (!code) return toast(t("lobby.join.bad"), "warn");
          if (!this.checkName()) return;
          location.hash = `#/t/${code}`;
        },
      },
      h("label", { for: codeInput.id }, t("lobby.join.label")),
      h("div", { class: "inline" },
        codeInput,
        h("button", { type: "submit", class: "primary", id: "join-button" }, t("lobby.join")),
        h("button", {
          type: "button",
          id: "watch-button",
          onclick: () => {
            const code = codeFrom(codeInput.value);
            if (!code) return toast(t("lobby.join.bad"), "warn");
            location.hash = `#/w/${code}`;
          },
        }, t("lobby.watch")),
      ),
    );

    this.list = h("div", { id: "public-tables", class: "table-list", "aria-live": "polite" });
    this.nowLine = h("p", { id: "people-now", class: "muted people-now" });
    this.root.replaceChildren(
      h("div", { class: "lobby" },
        // A newcomer's first screen, a phone's included: what the game is, then Play now
        // (no name needed); the name, the profile and the tutorial come after it.
        h("section", { class: "panel intro" },
          h("h1", {}, t("lobby.title")),
          h("p", {}, t("lobby.intro")),
        ),
        this.playNowPanel(),
        this.queue.render(this.nowLine),
        h("section", { class: "panel you" },
          h("div", { class: "field" }, h("label", { for: nameInput.id }, t("lobby.name")), nameInput),
          h("p", { class: "profile-line" }, h("a", { href: "#/profile", id: "profile-link" }, t("lobby.profile"))),
          learning(),
        ),
        h("section", { class: "panel keep-entry", "aria-labelledby": "keep-entry-title" },
          h("h2", { id: "keep-entry-title" }, t("lobby.keep.title")),
          h("p", {}, t("lobby.keep.intro")),
          h("a", { class: "button primary big", href: "#/keep", id: "keep-button" }, t("lobby.keep.button")),
        ),
        h("section", { class: "panel create", "aria-labelledby": "create-title" },
          h("h2", { id: "create-title" }, t("lobby.create")),
          form,
          h("button", { class: "primary big", id: "create-button", onclick: () => this.create() }, t("lobby.create.button")),
          h("p", { class: "tournament-line" }, h("a", { href: "#/tournament", id: "tournament-link" }, t("lobby.tournament"))),
        ),
        h("section", { class: "panel join", "aria-labelledby": "join-title" },
          h("h2", { id: "join-title" }, t("lobby.join.title")),
          joinForm,
          h("h3", {}, t("lobby.public")),
          this.list,
        ),
      ),
    );
    this.renderList();
    this.renderNow();
  }

  // --- play now ------------------------------------------------------------------

  /** One big button: you against three bots of the level chosen beside it (remembered). */
  playNowPanel() {
    const chosen = storage.playNowLevel();
    const level = h("select", { id: "play-now-level", "aria-describedby": "play-now-level-help" },
      PLAY_NOW_LEVELS.map((name) => h("option", { value: name, selected: name === (PLAY_NOW_LEVELS.includes(chosen) ? chosen : PLAY_NOW_LEVEL) }, t(`level.${name}`))));
    const help = h("small", { class: "help", id: "play-now-level-help" });
    const explain = () => {
      help.textContent = t(`level.${level.value}.help`);
    };
    level.addEventListener("change", () => {
      storage.setPlayNowLevel(level.value);
      explain();
    });
    explain();
    this.playNowButton = h("button", { class: "primary big", id: "play-now-button", onclick: () => this.playNow(level.value) }, t("lobby.play_now.button"));
    return h("section", { class: "panel play-now", "aria-labelledby": "play-now-title" },
      h("h2", { id: "play-now-title" }, t("lobby.play_now.title")),
      h("p", {}, t("lobby.play_now.intro")),
      h("div", { class: "play-now-row" },
        h("div", { class: "field" }, h("label", { for: level.id }, t("lobby.play_now.level")), level, help),
        this.playNowButton,
      ),
    );
  }

  /** Make a table with the bots seated that starts when this page joins, and go there.
   * Without a name the page plays as "Player" in its language (kept, as a typed name). */
  async playNow(level) {
    this.defaultName();
    this.playNowButton.disabled = true;
    const body = { bots: Array(PLAY_NOW_BOTS).fill(`smart:${level}`), start: true };
    const code = await this.post(body);
    if (code) location.hash = `#/t/${code}`;
    else this.playNowButton.disabled = false;
  }

  /** The name typed, or "Player" in the page's language (kept, as a typed name). */
  defaultName() {
    const name = this.nameInput.value.trim() || t("lobby.play_now.default_name");
    this.nameInput.value = name;
    storage.setName(name);
    return name;
  }

  checkName() {
    const name = this.nameInput.value.trim();
    if (!name) {
      toast(t("lobby.name.needed"), "warn");
      this.nameInput.focus();
      return false;
    }
    storage.setName(name);
    return true;
  }

  async create() {
    if (!this.checkName()) return;
    const code = await this.post(this.settings);
    if (code) location.hash = `#/t/${code}`;
  }

  /** `POST /api/tables`: the new table's code, or null after a toast saying what went wrong. */
  async post(body) {
    let response;
    let answer;
    try {
      response = await fetch("/api/tables", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      answer = await response.json();
    } catch {
      toast(t("net.offline"), "warn");
      return null;
    }
    if (response.status !== 201) {
      toast(has(`error.${answer.error}`) ? t(`error.${answer.error}`) : answer.message || t("error.generic"), "warn");
      return null;
    }
    return answer.code;
  }

  /** Who is playing now, in one line (the lobby message's `now`, live over /ws/lobby). */
  renderNow() {
    const now = this.now;
    if (!this.nowLine || !now) return;
    this.nowLine.textContent = [
      plural("now.online", now.online, { count: now.online }),
      plural("now.queued", now.queued, { count: now.queued }),
      plural("now.playing", now.playing, { count: now.playing }),
      plural("now.watching", now.watching, { count: now.watching }),
    ].join(" · ");
  }

  renderList() {
    if (!this.list) return;
    if (this.tables === null) {
      this.list.replaceChildren(h("p", { class: "muted" }, t("lobby.public.loading")));
      return;
    }
    const tournaments = this.tournaments.length
      ? [h("ul", { class: "tables", id: "lobby-tournaments" }, this.tournaments.map((tournament) =>
          h("li", { class: "table-entry", dataset: { tournament: tournament.id } },
            h("div", { class: "table-entry-main" },
              h("strong", {}, tournament.name),
              h("span", { class: "muted" }, `${t("lobby.tournament.stage", { stage: tournament.stage, stages: tournament.stages })} · ${plural("lobby.tournament.tables", tournament.tables, { count: tournament.tables })}`),
            ),
            h("div", { class: "table-entry-actions" },
              h("a", { class: "button", href: `#/tournament/${encodeURIComponent(tournament.id)}` }, t("lobby.tournament.open")),
            ),
          )))]
      : [];
    if (!this.tables.length) {
      this.list.replaceChildren(...tournaments, h("p", { class: "muted" }, t("lobby.public.none")));
      return;
    }
    const more = this.total > this.tables.length
      ? [h("p", { class: "muted", id: "public-tables-more" },
          plural("lobby.public.more", this.tables.length, { shown: this.tables.length, total: this.total }))]
      : [];
    this.list.replaceChildren(
      ...tournaments,
      h("ul", { class: "tables" },
        this.tables.map((table) => {
          const open = table.phase === "lobby" && table.taken < table.seats;
          return h("li", { class: "table-entry", dataset: { code: table.code } },
            h("div", { class: "table-entry-main" },
              h("strong", {}, table.host ? t("lobby.public.host", { name: table.host }) : t("lobby.public.nohost")),
              h("span", { class: "muted" }, `${t(`phase.${table.phase}`)} · ${plural("lobby.public.seats", table.taken, { taken: table.taken, seats: table.seats })}`),
              h("span", { class: "muted small" }, rulesSummary(table.rules)),
            ),
            h("div", { class: "table-entry-actions" },
              open
                ? h("button", {
                    class: "primary",
                    onclick: () => {
                      if (this.checkName()) location.hash = `#/t/${table.code}`;
                    },
                  }, t("lobby.join"))
                : null,
              h("a", { class: "button", href: `#/w/${table.code}` }, t("lobby.watch")),
            ),
          );
        }),
      ),
      ...more,
    );
  }
}
