// The waiting room of a table (its lobby phase): the invite (link, QR code, share), the
// seats, the host's bot adder and start button, and the rule form (the host's to change,
// a guest's to read).  Part of the table screen (tableview.js), which draws it while the
// table's phase is "lobby".

import { aimToggle } from "./aims.js";
import { backBadge, backOfSeat } from "./cards.js";
import { fill, h, toast } from "./dom.js";
import { has, t } from "./i18n.js";
import { inviteLink } from "./lobby.js";
import { judgingSummary } from "./races.js";
import { LEVELS, STRATEGIES, rulesForm } from "./rules.js";

const RULES_DEBOUNCE_MS = 250;

/** The invite link on the clipboard (or shown, where the clipboard is refused). */
export async function copyInvite(code) {
  const link = inviteLink(code);
  try {
    await navigator.clipboard.writeText(link);
    toast(t("table.invite.copied"), "ok");
  } catch {
    toast(link, "info", 6000);
  }
}

/** The system's share sheet where the browser has one (phones), else copy the link. */
export async function shareInvite(code) {
  const link = inviteLink(code);
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ title: t("invite.share.title"), text: t("invite.share.text"), url: link });
      return;
    } catch (error) {
      if (error && error.name === "AbortError") return; // the person closed the sheet
    }
  }
  await copyInvite(code);
}

/** What the rule form shows of a table: its rules, seats, listing, replays, wait for *Ready* and judging. */
function formValues(table) {
  return {
    rules: table.rules, seats: table.seats.length, public: table.public, replays: table.replays, ready_s: table.ready_s,
    arbitration: table.arbitration, window_ms: table.window_ms,
  };
}

export class WaitingRoom {
  constructor(session, code) {
    this.session = session;
    this.code = code;
    this.seatList = null;
    this.startBox = null;
    this.rulesBox = null;
    this.rulesForm = null;
    this.rulesTimer = null;
  }

  /** The room drawn anew (then `update` fills in the seats, the start box and the rules). */
  build() {
    const session = this.session;
    const table = session.table;
    const host = session.isHost;
    const link = inviteLink(this.code);
    this.seatList = h("ol", { class: "seats", id: "seats" });
    this.startBox = h("div", { class: "start-box" });
    this.rulesBox = null;
    this.rulesForm = null;
    let rulesPart;
    if (host) {
      this.rulesForm = rulesForm(
        formValues(table),
        {
          idPrefix: "table",
          onChange: (settings) => {
            clearTimeout(this.rulesTimer);
            this.rulesTimer = setTimeout(() => this.session.setRules(settings), RULES_DEBOUNCE_MS);
          },
        },
      );
      rulesPart = this.rulesForm;
    } else {
      this.rulesBox = h("div", { class: "rules-readonly" });
      rulesPart = this.rulesBox;
    }
    const strategy = h("select", { id: "bot-strategy", "aria-describedby": "bot-strategy-help" },
      STRATEGIES.map((name) => h("option", { value: name }, t(`bot.${name}`))));
    const level = h("select", { id: "bot-level", "aria-describedby": "bot-level-help" },
      LEVELS.map((name) => h("option", { value: name, selected: name === "skilled" }, t(`level.${name}`))));
    const strategyHelp = h("small", { class: "help", id: "bot-strategy-help" });
    const levelHelp = h("small", { class: "help", id: "bot-level-help" });
    const explain = () => {
      strategyHelp.textContent = t(`bot.${strategy.value}.help`);
      levelHelp.textContent = t(`level.${level.value}.help`);
    };
    strategy.addEventListener("change", explain);
    level.addEventListener("change", explain);
    explain();

    const room = h("div", { class: "waiting" },
      h("section", { class: "panel" },
        h("h2", {}, t("waiting.title")),
        h("label", { for: "invite-link" }, t("waiting.invite")),
        h("div", { class: "inline" },
          h("input", { id: "invite-link", type: "text", readonly: true, value: link, onfocus: (e) => e.target.select() }),
          h("button", { type: "button", onclick: () => copyInvite(this.code) }, t("table.invite.copy")),
          h("button", { type: "button", class: "primary", id: "share-invite", onclick: () => shareInvite(this.code) }, t("invite.share")),
        ),
        h("p", { class: "muted small" }, t("waiting.code", { code: this.code })),
        h("figure", { class: "invite-qr" },
          h("img", {
            id: "invite-qr",
            src: `/api/tables/${encodeURIComponent(this.code)}/qr.svg`,
            alt: t("invite.qr.alt", { code: this.code }),
          }),
          h("figcaption", { class: "muted small" }, t("invite.qr.caption")),
        ),
        this.seatList,
        host
          ? h("div", { class: "add-bot" },
              h("h3", {}, t("bot.add.title")),
              h("div", { class: "field" }, h("label", { for: strategy.id }, t("bot.strategy")), strategy, strategyHelp),
              h("div", { class: "field" }, h("label", { for: level.id }, t("bot.level")), level, levelHelp),
              h("button", { type: "button", id: "add-bot", onclick: () => this.session.addBot(strategy.value, level.value) }, t("bot.add")),
            )
          : null,
        this.startBox,
        // Live presence is each person's own choice (off until they switch it on).
        this.session.watching ? null : aimToggle("waiting", (on) => this.session.shareAim(on)),
      ),
      h("section", { class: "panel" },
        h("h2", {}, t("waiting.rules")),
        h("p", { class: "judging-summary", id: "judging-summary" }, judgingSummary(table)),
        rulesPart,
      ),
    );
    return room;
  }

  /** The seats, the start box and the rules as the table now has them; false when the
   *  room must be built again first (it is not on the page, or the host role moved). */
  update() {
    const session = this.session;
    const table = session.table;
    if (!this.seatList || !this.seatList.isConnected) return false;
    const host = session.isHost;
    if (Boolean(this.rulesForm) !== host) return false;
    this.seatList.replaceChildren(
      ...table.seats.map((entry, seat) => {
        const back = backOfSeat(seat);
        if (!entry) {
          return h("li", { class: "seat free", dataset: { seat } }, backBadge(back), h("span", { class: "muted" }, t("seat.free")));
        }
        const [strategy, level] = entry.bot ? entry.bot.split(":") : [];
        return h("li", { class: "seat", dataset: { seat, bot: entry.bot || null } },
          backBadge(back),
          h("span", { class: "seat-name" }, session.nameOf(seat)),
          seat === table.host ? h("span", { class: "badge host" }, t("seat.host")) : null,
          seat === session.seat && !session.watching ? h("span", { class: "badge me" }, t("seat.you")) : null,
          entry.bot
            ? h("span", { class: "badge" }, `${has(`bot.${strategy}`) ? t(`bot.${strategy}`) : strategy} · ${has(`level.${level}`) ? t(`level.${level}`) : level}`)
            : null,
          !entry.bot && !entry.connected ? h("span", { class: "badge warn" }, t("seat.away")) : null,
          host && seat !== session.seat
            ? h("button", {
                type: "button",
                class: "ghost small remove-seat",
                "aria-label": t("seat.remove.label", { name: session.nameOf(seat) }),
                onclick: () => this.session.removeSeat(seat),
              }, t("seat.remove"))
            : null,
        );
      }),
    );
    const summary = document.getElementById("judging-summary");
    if (summary) summary.textContent = judgingSummary(table);
    const taken = table.seats.filter(Boolean).length;
    if (host) {
      fill(
        this.startBox,
        h("button", {
          type: "button",
          class: "primary big",
          id: "start-button",
          disabled: taken < 2,
          onclick: () => this.session.start(),
        }, t("waiting.start")),
        taken < 2 ? h("p", { class: "muted small" }, t("waiting.too_few")) : null,
      );
      this.rulesForm.update(formValues(table));
    } else {
      const hostName = table.host === null ? null : session.nameOf(table.host);
      this.startBox.replaceChildren(h("p", { class: "muted" }, hostName ? t("waiting.for_host", { name: hostName }) : t("waiting.no_host")));
      this.rulesBox.replaceChildren(rulesForm({ ...formValues(table), open: true }, { disabled: true, idPrefix: "view" }));
    }
    return true;
  }
}
