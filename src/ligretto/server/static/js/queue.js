// Play with people (docs/protocol.md "The queue"): the lobby's panel that waits on
// /ws/queue for a table with other people of about your rating. While it waits it shows
// how many of the seats are taken and counts down to the start (bots then fill the empty
// seats); Leave (or leaving the page) leaves the queue. Once seated, the seat's token is
// kept as any seat's and the page goes to the table, which is dealt already.

import { wsUrl } from "./connection.js";
import { h, toast } from "./dom.js";
import { has, plural, t } from "./i18n.js";
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
  }

  /** The panel; `nowLine`: the lobby's line of who is playing now, shown in it. */
  render(nowLine) {
    this.seats = h("select", { id: "queue-seats" },
      QUEUE_SEATS.map((n) => h("option", { value: String(n), selected: n === QUEUE_SEATS_DEFAULT }, String(n))));
    this.button = h("button", { class: "primary big", id: "queue-button", onclick: () => this.join() }, t("queue.button"));
    this.leaveButton = h("button", { id: "queue-leave", hidden: true, onclick: () => this.leave() }, t("queue.leave"));
    this.status = h("p", { id: "queue-status", class: "queue-status", role: "status", "aria-live": "polite" });
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
    );
  }

  get waiting() {
    return this.socket !== null;
  }

  join() {
    if (this.waiting) return;
    const message = { type: "queue", v: 1, seats: Number(this.seats.value), preset: "classic", name: this.name() };
    const profile = storage.profile();
    if (profile) message.profile = profile.secret;
    const socket = new WebSocket(wsUrl("/ws/queue"));
    this.socket = socket;
    this.show(true);
    this.status.textContent = t("queue.joining");
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify(message));
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

  receive(message) {
    if (message.type === "queued") {
      this.last = message;
      this.startsBy = Date.now() + message.starts_in * 1000;
      this.tick();
      if (!this.ticker) this.ticker = setInterval(() => this.tick(), 1000);
    } else if (message.type === "seated") {
      storage.setToken(message.code, message.token);
      this.stop();
      location.hash = `#/t/${message.code}`;
    } else if (message.type === "error") {
      this.stop();
      toast(has(`error.${message.code}`) ? t(`error.${message.code}`) : message.message, "warn");
    }
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
    this.last = null;
    this.show(false);
    this.status.textContent = "";
    if (socket && socket.readyState === WebSocket.OPEN) socket.close();
  }

  show(waiting) {
    this.button.disabled = waiting;
    this.seats.disabled = waiting;
    this.leaveButton.hidden = !waiting;
  }

  close() {
    if (this.waiting) this.leave();
  }
}
