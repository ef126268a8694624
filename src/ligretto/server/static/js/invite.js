// The invite page of a first visit by invite link (#/t/CODE with no name kept): what the
// table is (host, who is seated, the rules in a line, the free seats: GET
// /api/tables/{code}, public only) and the name prompt, or Watch.  Part of the table
// screen (tableview.js).

import { backBadge, backOfSeat } from "./cards.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { rulesSummary } from "./rules.js";
import { NAME_INPUT_MAX, storage } from "./storage.js";

export class InvitePrompt {
  /** `onJoin`: the name was sent (the table screen draws its stage again). */
  constructor(session, code, { onJoin = () => {} } = {}) {
    this.session = session;
    this.code = code;
    this.onJoin = onJoin;
    this.prompt = null; // built once (see element)
  }

  /** The field of the name. */
  get input() {
    return this.prompt?.input ?? null;
  }

  /**
   * The name prompt of a first visit by invite link. It is built once and only its words
   * are set again: the page draws the stage again when the socket opens, when the language
   * changes and when the server refuses the name, and the same input keeps what the person
   * typed, the caret and the focus through all of it.
   */
  element() {
    if (!this.prompt) {
      const input = h("input", {
        id: "prompt-name",
        type: "text",
        maxlength: NAME_INPUT_MAX,
        required: true,
        autocomplete: "nickname",
        value: this.session.refusedName || "",
      });
      const label = h("label", { for: input.id });
      const join = h("button", { class: "primary", type: "submit" });
      const watch = h("button", { type: "button", onclick: () => this.session.watch() });
      const form = h("form", {
        onsubmit: (event) => {
          event.preventDefault();
          const name = input.value.trim();
          if (!name) return;
          storage.setName(name);
          this.session.joinAs(name); // sent now, or with the hello when the socket opens
          this.onJoin();
        },
      }, label, h("div", { class: "inline" }, input, join));
      const about = h("div", { class: "invite-about", id: "invite-about", "aria-live": "polite" });
      this.prompt = {
        root: h("section", { class: "panel notice invite", id: "name-prompt" }, about, form, watch),
        input, label, join, watch, about, summary: undefined,
      };
      this.load();
    }
    const { root, label, join, watch } = this.prompt;
    label.textContent = t("lobby.name");
    join.textContent = t("lobby.join");
    watch.textContent = t("lobby.watch");
    this.render();
    return root;
  }

  /** What the invite page tells before joining: `GET /api/tables/{code}` (public only). */
  async load() {
    let summary = null;
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(this.code)}`);
      summary = response.ok ? await response.json() : { error: "no_table" };
    } catch {
      summary = { error: "offline" };
    }
    this.prompt.summary = summary;
    this.render();
  }

  /** The host, who is seated, the rules in a line and the free seats (or why not to join). */
  render() {
    const { about, summary } = this.prompt;
    if (summary === undefined) {
      fill(about, h("p", { class: "muted" }, t("invite.loading")));
      return;
    }
    if (summary.error) {
      fill(about, h("p", { role: "alert" }, t(summary.error === "no_table" ? "error.no_table" : "net.offline")));
      return;
    }
    const players = summary.players.filter(Boolean);
    const free = summary.seats - summary.taken;
    fill(about,
      h("h2", { id: "invite-title" }, summary.host ? t("invite.host", { name: summary.host }) : t("invite.nohost")),
      h("p", { class: "invite-rules", id: "invite-rules" }, rulesSummary(summary.rules)),
      players.length
        ? h("div", {},
            h("h3", {}, t("invite.seated")),
            h("ul", { class: "invite-players", id: "invite-players" },
              players.map((player) => h("li", { dataset: { seat: player.seat, bot: player.bot } },
                backBadge(backOfSeat(player.seat)),
                h("span", { class: "seat-name" }, player.name),
                player.bot ? h("span", { class: "badge" }, t("seat.bot")) : null,
              ))))
        : null,
      h("p", { class: "invite-free", id: "invite-free" },
        summary.phase === "lobby" ? t("invite.free", { n: free }) : t("error.started")),
    );
  }
}
