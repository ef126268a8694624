// Play with people (docs/protocol.md "The queue"): the lobby's panel that waits on
// /ws/queue for a table with other people of about your rating. While it waits it shows
// how many of the seats are taken and counts down to the start (bots then fill the empty
// seats); Leave (or leaving the page) leaves the queue. Friends make a party (one makes it
// and tells its code, the others join it; the maker's Play with people queues them all).
// Once seated, the seat's token is kept as any seat's and the page goes to the table,
// which is dealt already.

import { wsUrl } from "./connection.js";
import { h, toast } from "./dom.js";
import { has, listOf, plural, t } from "./i18n.js";
import { storage } from "./storage.js";

export const QUEUE_SEATS = [2, 3, 4, 5, 6];
export const QUEUE_SEATS_DEFAULT = 4;
/** Seconds between two keepalive pings: the server closes a socket silent for 6 s. */
const KEEPALIVE_S = 2;

export class QueuePanel {
  /** `name()`: the display name to queue with (the lobby's field, filled if empty). */
  constructor(name) {
    this.name = name;
    this.socket = null;
    this.pinger = null;
    this.ticker = null;
    this.startsBy = null;
    this.last = null;
    /** The party this page is in (the last `party` message), and whether it made it. */
    this.party = null;
    this.making = false;
    this.queued = false;
    this.pending = [];
  }

  /** The panel; `nowLine`: the lobby's line of who is playing now, shown in it. */
  render(nowLine) {
    this.seats = h("select", { id: "queue-seats" },
      QUEUE_SEATS.map((n) => h("option", { value: String(n), selected: n === QUEUE_SEATS_DEFAULT }, String(n))));
    this.button = h("button", { class: "primary big", id: "queue-button", onclick: () => this.join() }, t("queue.button"));
    this.leaveButton = h("button", { id: "queue-leave", hidden: true, onclick: () => this.leave() }, t("queue.leave"));
    this.status = h("p", { id: "queue-status", class: "queue-status", role: "status", "aria-live": "polite" });
    this.partyCode = h("input", { id: "party-code", type: "text", autocomplete: "off", spellcheck: false, placeholder: t("queue.party.placeholder") });
    this.partyMake = h("button", { id: "party-make", onclick: () => this.makeParty() }, t("queue.party.make"));
    this.partyJoin = h("button", { id: "party-join", onclick: () => this.joinParty() }, t("queue.party.join"));
    this.partyLine = h("p", { id: "party-status", class: "party-status", role: "status", "aria-live": "polite" });
    return h("section", { class: "panel play-people", "aria-labelledby": "queue-title" },
      h("h2", { id: "queue-title" }, t("queue.title")),
      h("p", {}, t("queue.intro")),
      nowLine,
      h("div", { class: "play-now-row" },
        h("div", { class: "field" }, h("label", { for: this.seats.id }, t("queue.seats")), this.seats),
        this.button,
      ),
      this.status,
      this.leaveButton,
      h("div", { class: "party-row" },
        h("label", { for: this.partyCode.id }, t("queue.party.label")),
        h("div", { class: "inline" }, this.partyCode, this.partyJoin, this.partyMake),
      ),
      this.partyLine,
    );
  }

  get waiting() {
    return this.socket !== null;
  }

  /** Who this page is in the queue: the name, and the profile's secret if it has one. */
  who(type) {
    const message = { type, v: 1, name: this.name() };
    const profile = storage.profile();
    if (profile) message.profile = profile.secret;
    return message;
  }

  /** Send on the queue's socket, opened first if need be. */
  send(message) {
    if (!this.socket) this.connect();
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    else this.pending.push(message);
    this.show(true);
  }

  connect() {
    const socket = new WebSocket(wsUrl("/ws/queue"));
    this.socket = socket;
    this.pending = [];
    socket.addEventListener("open", () => {
      for (const message of this.pending) socket.send(JSON.stringify(message));
      this.pending = [];
      this.pinger = setInterval(() => socket.send(JSON.stringify({ type: "ping", t: Date.now() / 1000 })), KEEPALIVE_S * 1000);
    });
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (this.socket === socket) {
        this.stop();
        toast(t("net.offline"), "warn");
      }
    });
  }

  join() {
    if (this.queued) return;
    this.queued = true;
    this.send({ ...this.who("queue"), seats: Number(this.seats.value), preset: "classic" });
    this.status.textContent = t("queue.joining");
  }

  makeParty() {
    if (this.party) return;
    this.making = true;
    this.send(this.who("party_make"));
  }

  joinParty() {
    const code = this.partyCode.value.trim();
    if (!code) return toast(t("queue.party.bad"), "warn");
    if (this.party) return;
    this.making = false;
    this.send({ ...this.who("party_join"), code });
  }

  receive(message) {
    if (message.type === "queued") {
      this.last = message;
      this.startsBy = Date.now() + message.starts_in * 1000;
      this.tick();
      if (!this.ticker) this.ticker = setInterval(() => this.tick(), 1000);
    } else if (message.type === "party") {
      this.showParty(message);
    } else if (message.type === "seated") {
      storage.setToken(message.code, message.token);
      this.stop();
      location.hash = `#/t/${message.code}`;
    } else if (message.type === "error") {
      this.stop();
      toast(has(`error.${message.code}`) ? t(`error.${message.code}`) : message.message, "warn");
    }
  }

  /** The party's code and members; a member waits for the maker's Play with people. */
  showParty(message) {
    if (!message.members.length) {
      this.stop();
      this.partyLine.textContent = t("queue.party.over");
      return;
    }
    this.party = message;
    this.partyCode.value = message.code;
    const line = t("queue.party.status", { code: message.code, names: listOf(message.members) });
    this.partyLine.textContent = `${line} ${this.making ? t("queue.party.maker") : t("queue.party.member")}`;
    this.show(true);
  }

  /** The wait in words: how many of the seats are taken, and the seconds to the start. */
  tick() {
    const queued = this.last;
    if (!queued) return;
    const seconds = Math.max(0, Math.ceil((this.startsBy - Date.now()) / 1000));
    this.status.textContent = `${plural("queue.people", queued.people, { people: queued.people, seats: queued.seats })} · ${plural("queue.starts_in", seconds, { seconds })}`;
  }

  leave() {
    if (!this.waiting) return;
    const socket = this.socket;
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "unqueue" }));
    this.stop();
    socket.close();
    this.status.textContent = t("queue.left");
  }

  /** Stop waiting (seated, left, or the socket closed): the panel as before. */
  stop() {
    const socket = this.socket;
    this.socket = null;
    clearInterval(this.pinger);
    clearInterval(this.ticker);
    this.pinger = this.ticker = null;
    this.last = this.party = null;
    this.queued = this.making = false;
    this.show(false);
    this.status.textContent = "";
    this.partyLine.textContent = "";
    if (socket && socket.readyState === WebSocket.OPEN) socket.close();
  }

  show(waiting) {
    const member = Boolean(this.party) && !this.making;
    this.button.disabled = this.queued || member;
    this.seats.disabled = this.queued || member;
    this.partyMake.disabled = this.partyJoin.disabled = this.partyCode.disabled = waiting;
    this.leaveButton.hidden = !waiting;
  }

  close() {
    if (this.waiting) this.leave();
  }
}
