// The score keeper's first screen (#/keep): the rules (a preset and the scoring options,
// rules.js's own form), the players (2-12: a name and the back of their deck, box colour
// and symbol as on the real cards, no two alike), and Start (POST /api/sheets).  This
// browser's earlier sheets are listed below.

import { BACK_SYMBOLS, BOXES, backBadge, backLabel, backOfSeat } from "./cards.js";
import { h, toast } from "./dom.js";
import { has, listOf, plural, t } from "./i18n.js";
import { backToWire, createSheet, installApp } from "./keepapi.js";
import { profiles } from "./profile.js";
import { presetRules, rulesForm } from "./rules.js";
import { NAME_INPUT_MAX, storage } from "./storage.js";

/** The options that matter to a sheet: the scoring ones. */
export const SCORING_OPTIONS = ["stack_penalty", "floor_at_zero", "scoring", "match_end"];
export const MIN_PLAYERS = 2;
export const MAX_PLAYERS = 12;

/** Every back of the game: three boxes of four symbols. */
const BACKS = BOXES.flatMap((box) => BACK_SYMBOLS.map((symbol) => ({ box, symbol })));
const sameBack = (a, b) => a.box === b.box && a.symbol === b.symbol;

/** The words of a refused call, in the page's language. */
export function sheetErrorText(error) {
  if (error?.code === "offline") return t("net.offline");
  if (error?.message && error.message !== error.code) return error.message;
  return has(`error.${error?.code}`) ? t(`error.${error.code}`) : t("error.generic");
}

export class KeepStartScreen {
  constructor(root) {
    this.root = root;
    this.settings = null;
    const mine = storage.name();
    this.players = [0, 1, 2, 3].map((seat) => ({ name: seat === 0 ? mine : "", back: backOfSeat(seat) }));
    this.me = mine && profiles.secret() ? 0 : null;
    this.render();
    installApp();
  }

  close() {}

  render() {
    // Drawn again in another language: the rules chosen so far stay.
    const chosen = this.settings ? { ...presetRules(this.settings.preset), ...this.settings.options } : presetRules("classic");
    this.form = rulesForm({ rules: chosen }, {
      only: SCORING_OPTIONS, idPrefix: "keep", onChange: (settings) => (this.settings = settings),
    });
    this.settings = this.form.settings();
    this.list = h("ol", { class: "keep-players", id: "keep-players" });
    this.root.replaceChildren(h("div", { class: "keep-start" },
      h("section", { class: "panel", "aria-labelledby": "keep-title" },
        h("h1", { id: "keep-title" }, t("keep.title")),
        h("p", {}, t("keep.intro")),
      ),
      h("section", { class: "panel", "aria-labelledby": "keep-rules-title" },
        h("h2", { id: "keep-rules-title" }, t("keep.rules")),
        this.form,
      ),
      h("section", { class: "panel", "aria-labelledby": "keep-players-title" },
        h("h2", { id: "keep-players-title" }, t("keep.players")),
        h("p", { class: "help" }, t("keep.players.help")),
        this.list,
        h("button", { type: "button", id: "keep-add", onclick: () => this.add() }, t("keep.players.add")),
        h("button", { type: "button", class: "primary big", id: "keep-go", onclick: () => this.go() }, t("keep.go")),
      ),
      this.earlier(),
    ));
    this.renderPlayers();
  }

  renderPlayers() {
    this.list.replaceChildren(...this.players.map((player, seat) => this.playerRow(player, seat)));
    this.root.querySelector("#keep-add").disabled = this.players.length >= MAX_PLAYERS;
  }

  /** One player: the back (tap for the twelve), the name, "me", remove. */
  playerRow(player, seat) {
    const name = h("input", {
      type: "text", id: `keep-name-${seat}`, maxlength: NAME_INPUT_MAX, value: player.name, autocomplete: "off",
      "aria-label": t("keep.players.name", { n: seat + 1 }), placeholder: t("keep.players.placeholder", { n: seat + 1 }),
      oninput: () => (player.name = name.value),
    });
    const picker = h("fieldset", { class: "back-choices", id: `keep-backs-${seat}`, hidden: true },
      h("legend", {}, t("keep.players.back", { n: seat + 1 })),
      BACKS.map((back) => h("label", { class: "back-choice" },
        h("input", { type: "radio", name: `keep-back-${seat}`, checked: sameBack(back, player.back), dataset: { box: back.box, symbol: back.symbol },
          "aria-label": backLabel(back), onchange: () => this.chooseBack(seat, back) }),
        backBadge(back, "md"),
      )),
    );
    const backButton = h("button", {
      type: "button", class: "back-button", id: `keep-back-${seat}`, "aria-expanded": "false", "aria-controls": picker.id,
      "aria-label": t("keep.players.back_button", { n: seat + 1, back: backLabel(player.back) }),
      onclick: () => {
        picker.hidden = !picker.hidden;
        backButton.setAttribute("aria-expanded", String(!picker.hidden));
      },
    }, backBadge(player.back, "md"));
    const me = h("input", { type: "radio", name: "keep-me", id: `keep-me-${seat}`, checked: this.me === seat, onchange: () => (this.me = seat) });
    return h("li", { class: "keep-player", dataset: { seat } },
      h("div", { class: "inline" },
        backButton,
        name,
        profiles.secret() ? h("label", { class: "keep-me", for: me.id }, me, t("keep.players.me")) : null,
        this.players.length > MIN_PLAYERS
          ? h("button", { type: "button", class: "ghost small", id: `keep-remove-${seat}`, onclick: () => this.remove(seat),
              "aria-label": t("keep.players.remove", { n: seat + 1 }) }, "✕")
          : null,
      ),
      picker,
    );
  }

  /** A back taken by another player is swapped with theirs: no two decks alike. */
  chooseBack(seat, back) {
    const other = this.players.findIndex((player, i) => i !== seat && sameBack(player.back, back));
    if (other >= 0) this.players[other].back = this.players[seat].back;
    this.players[seat].back = back;
    this.renderPlayers();
    this.root.querySelector(`#keep-back-${seat}`).focus();
  }

  add() {
    if (this.players.length >= MAX_PLAYERS) return;
    const free = BACKS.find((back) => !this.players.some((player) => sameBack(player.back, back)));
    this.players.push({ name: "", back: free });
    this.renderPlayers();
    this.root.querySelector(`#keep-name-${this.players.length - 1}`).focus();
  }

  remove(seat) {
    this.players.splice(seat, 1);
    if (this.me === seat) this.me = null;
    else if (this.me !== null && this.me > seat) this.me -= 1;
    this.renderPlayers();
  }

  async go() {
    const players = this.players.map((player, seat) => ({
      name: player.name.trim() || t("keep.players.placeholder", { n: seat + 1 }), back: backToWire(player.back), profile: null,
    }));
    const { preset, options } = this.settings;
    const body = { preset, options, players };
    const secret = this.me !== null ? profiles.secret() : null;
    if (secret) body.me = this.me;
    const button = this.root.querySelector("#keep-go");
    button.disabled = true;
    try {
      const sheet = await createSheet(body, secret);
      location.hash = `#/keep/${sheet.code}`;
    } catch (error) {
      button.disabled = false;
      toast(sheetErrorText(error), "warn", 5000);
    }
  }

  /** This browser's earlier sheets. */
  earlier() {
    const kept = storage.keptSheets();
    if (!kept.length) return null;
    return h("section", { class: "panel", "aria-labelledby": "keep-earlier-title" },
      h("h2", { id: "keep-earlier-title" }, t("keep.earlier")),
      h("ul", { class: "keep-earlier" }, kept.map((sheet) => h("li", {},
        h("a", { href: `#/keep/${sheet.code}` }, listOf(sheet.names)),
        " ",
        h("span", { class: "muted" }, sheet.over ? t("keep.earlier.over") : plural("keep.earlier.rounds", sheet.rounds, { n: sheet.rounds })),
      ))),
    );
  }
}
