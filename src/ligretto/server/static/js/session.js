// One table as this browser sees it: the connection, the seat and its token, the table
// message, the mirror of the round, plays in flight, and every command a person can give.

import { Connection } from "./connection.js";
import { applyEvents } from "./mirror.js";
import { has, t } from "./i18n.js";
import { PROFILE_GONE, profiles } from "./profile.js";
import { storage } from "./storage.js";

// An action without an answer after NOT_SENT_MS (or sent while the connection is down) is
// shown as "not sent"; it stays pending until its ack, or until a reconnection clears it.
const NOT_SENT_MS = globalThis.LIGRETTO_NET?.notSentMs ?? 2000;
const PENDING_TIMEOUT_MS = 10000;

/**
 * Listeners get `(kind, detail)`: "table", "snapshot", "events" (effects), "go",
 * "ack" (a refused or applied play; `by`: who was faster, `byMs`: by how many ms of
 * compensated time), "race" (a race for a pile of this round decided: `winner`, `loser`,
 * `ms`), "not_sent" (`actions` that went without an answer or could not be sent),
 * "dropped" (`actions` cleared unanswered by a reconnection or the end of the round),
 * "round_over", "reaction", "aimed" (an opponent's aim in this round), "error", "net", "welcome" (`renumbered`: the start moved this
 * seat, not a (re)connection), "state".
 */
export class TableSession {
  constructor(code, { watch = false, name = "" } = {}) {
    this.code = code;
    this.watching = watch;
    this.name = name;
    this.refusedName = null; // the name the server refused (bad_name): the prompt offers it again
    this.seat = null;
    this.token = watch ? null : storage.token(code);
    this.table = null;
    this.view = null;
    this.round = 0;
    this.roundOver = null;
    this.pending = new Map();
    this.ids = 0;
    this.hellos = 0; // the latest hello: one that waited for the profile and was overtaken is not sent
    this.renewed = false; // the profile was made anew once already (the server said it was gone)
    this.joined = false;
    this.fatal = null; // a reason this browser cannot go on at this table ("no_table", "replaced", ...)
    this.blocked = null; // "started" or "full": joining was refused; watching is possible
    this.listeners = new Set();
    this.connection = new Connection({
      onOpen: () => this.hello(),
      onMessage: (message) => this.receive(message),
      onStatus: () => {
        if (this.connection && this.connection.status !== "open") this.markNotSent([...this.pending.values()]);
        this.emit("net");
      },
    });
  }

  on(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(kind, detail) {
    for (const listener of this.listeners) listener(kind, detail);
  }

  close() {
    this.listeners.clear();
    this.connection.close();
  }

  // --- joining --------------------------------------------------------------------

  hello() {
    this.joined = false;
    this.dropPending();
    const message = { type: "hello", v: 1, code: this.code };
    if (this.watching) message.watch = true;
    else if (this.token) message.token = this.token;
    else if (this.name) message.name = this.name;
    else {
      this.emit("state"); // the screen asks for a name first
      return;
    }
    // Every hello carries the profile's secret; it waits while the profile is being made
    // or renamed to the name this page joins with.
    const turn = ++this.hellos;
    const ready = profiles.ready(message.name, t("lobby.play_now.default_name"));
    const send = () => {
      if (turn !== this.hellos) return;
      const secret = profiles.secret();
      if (secret) message.profile = secret;
      this.connection.send(message);
    };
    if (ready) ready.then(send);
    else send();
  }

  /** Join with a name (when the screen asked for one), or watch instead. */
  joinAs(name) {
    this.name = name;
    this.blocked = null;
    this.hello();
  }

  watch() {
    this.watching = true;
    this.blocked = null;
    this.hello();
  }

  // --- receiving ------------------------------------------------------------------

  receive(message) {
    switch (message.type) {
      case "welcome": {
        // A welcome on a connection that was already welcomed answers no hello: the host's
        // start closed a gap and renumbered the seats (same token, new seat).
        const renumbered = this.joined;
        this.joined = true;
        this.seat = message.seat;
        if (message.token) {
          this.token = message.token;
          storage.setToken(this.code, message.token);
        }
        // Live presence is the person's choice, told again on every connection.
        if (message.seat !== null && !renumbered && storage.aimShared()) this.shareAim(true);
        this.emit("welcome", { ...message, renumbered });
        break;
      }
      case "table":
        this.table = message;
        if (message.phase === "lobby" || message.phase === "countdown") this.roundOver = null;
        this.emit("table", message);
        break;
      case "snapshot":
        this.view = message.view;
        this.round = message.round;
        if (!this.watching && message.view.viewer !== null) this.seat = message.view.viewer;
        this.dropPending();
        this.emit("snapshot", message);
        break;
      case "go":
        if (this.table) this.table = { ...this.table, phase: "playing" };
        this.emit("go", message);
        break;
      case "events": {
        if (!this.view || message.round !== this.round) return;
        const effects = applyEvents(this.view, message.events);
        this.emit("events", { by: message.by, effects });
        break;
      }
      case "ack":
        this.acknowledged(message);
        break;
      case "round_over":
        this.roundOver = message;
        this.dropPending("round_over");
        this.emit("round_over", message);
        break;
      case "error":
        this.refusedMessage(message);
        break;
      case "reaction":
        this.emit("reaction", message);
        break;
      case "aimed":
        if (message.round === this.round) this.emit("aimed", message);
        break;
      case "race":
        if (message.round === this.round) this.emit("race", message);
        break;
      case "speed": // to the host only: a seat played faster than a person can
        this.emit("speed", message);
        break;
      default:
        break;
    }
  }

  acknowledged(message) {
    const action = this.pending.get(message.id);
    if (!action) return;
    this.pending.delete(message.id);
    const { applied, reason, by, by_ms: byMs } = message;
    this.emit("ack", { action, applied, reason, message: message.message, by, byMs });
  }

  refusedMessage(message) {
    if (message.id !== undefined && this.pending.has(message.id)) {
      const action = this.pending.get(message.id);
      this.pending.delete(message.id);
      this.emit("ack", { action, applied: false, reason: message.code, message: message.message });
      return;
    }
    switch (message.code) {
      case "bad_token":
        storage.forgetToken(this.code);
        this.token = null;
        this.hello(); // with the name, if there is one
        break;
      case PROFILE_GONE:
        // The server no longer knows the kept profile: forgotten, a new one, the hello again.
        if (!this.joined && !this.renewed) {
          this.renewed = true;
          profiles.renew(t("lobby.play_now.default_name")).then(() => this.hello());
        }
        break;
      case "bad_name":
        // The server refused the name this page joined with: ask for one again.
        if (!this.joined && !this.watching) {
          this.refusedName = this.name;
          this.name = "";
        }
        this.emit("state");
        break;
      case "started":
      case "full":
      case "profile_seated": // the profile sits at this table on another device
        if (!this.joined) this.blocked = message.code;
        this.emit("state");
        break;
      case "no_table":
      case "own_stage": // an entrant of the tournament's stage this table plays (docs/protocol.md)
        this.fatal = message.code;
        this.connection.close();
        this.emit("state");
        break;
      case "replaced":
        this.fatal = "replaced";
        this.emit("state");
        break;
      case "removed":
      case "no_rematch":
        storage.forgetToken(this.code);
        this.token = null;
        this.seat = null;
        this.watching = true;
        this.emit("state");
        break;
      default:
        break;
    }
    this.emit("error", message);
  }

  // --- playing --------------------------------------------------------------------

  get playing() {
    return (
      !this.watching &&
      this.seat !== null &&
      this.table?.phase === "playing" &&
      this.view !== null &&
      this.view.ending === null
    );
  }

  get myArea() {
    return this.view && this.seat !== null && !this.watching ? this.view.areas[this.seat] : null;
  }

  isPending(source, position) {
    for (const action of this.pending.values()) {
      if (action.source === source && (source !== "row" || action.position === position)) return action;
    }
    return null;
  }

  /** Send an action and keep it pending until its answer.  With the connection down it is
   * kept as "not sent" (a reconnection reports it); it is never dropped silently. */
  act(action) {
    const id = ++this.ids;
    // Stamped with when it leaves, on the server's clock: fair judging ranks races by it.
    const message = { type: "act", id, action };
    if (this.connection.synced) message.t = this.connection.serverNow();
    const sent = this.connection.send(message);
    const record = { ...action, id, at: Date.now(), notSent: false };
    this.pending.set(id, record);
    if (!sent) this.markNotSent([record]);
    else setTimeout(() => this.markNotSent([record].filter((each) => this.pending.get(id) === each)), NOT_SENT_MS);
    setTimeout(() => {
      // An open connection that never answers: say so (a lost one is reported on return).
      if (this.pending.get(id) !== record || this.connection.status !== "open") return;
      this.pending.delete(id);
      this.emit("ack", { action: record, applied: false, reason: "timeout" });
    }, PENDING_TIMEOUT_MS);
    return id;
  }

  markNotSent(actions) {
    const fresh = actions.filter((action) => !action.notSent);
    for (const action of fresh) action.notSent = true;
    if (fresh.length) this.emit("not_sent", { actions: fresh });
  }

  /** The pending turn, vote or withdrawal, if any (drawn on its button). */
  pendingOf(...kinds) {
    for (const action of this.pending.values()) if (kinds.includes(action.kind)) return action;
    return null;
  }

  play(source, position, pile, card) {
    return this.act({ kind: "play", source, position, pile, card });
  }

  place(source, column, card) {
    return this.act({ kind: "place", source, column, card });
  }

  turn() {
    return this.act({ kind: "turn" });
  }

  vote() {
    const area = this.myArea;
    return this.act({ kind: area && area.voted ? "withdraw" : "vote" });
  }

  /** An emote for the table (one of the server's list; not a game action). */
  react(emote) {
    if (this.watching || this.seat === null) return false;
    return this.connection.send({ type: "react", emote });
  }

  /** Live presence: show this seat's aim to the others from now on, or no longer. */
  shareAim(on) {
    if (this.watching || this.seat === null) return false;
    return this.connection.send({ type: "share_aim", share: Boolean(on) });
  }

  /** This seat's aim (`{source, position, pile}`; null: cleared); never an action. */
  aim(target) {
    if (this.watching || this.seat === null) return false;
    const message = { type: "aim" };
    if (target) {
      message.source = target.source;
      if (target.source === "row") message.position = target.position;
      if (target.pile !== null && target.pile !== undefined) message.pile = target.pile;
    }
    return this.connection.send(message);
  }

  /** Clear the actions no answer can come for any more (a new connection, a new round):
   * the fresh snapshot shows where every card is; the screen tells the player. */
  dropPending(reason = "dropped") {
    const dropped = [...this.pending.values()];
    this.pending.clear();
    if (dropped.length) this.emit("dropped", { actions: dropped, reason });
  }

  // --- between rounds and host commands -------------------------------------------

  ready() {
    this.connection.send({ type: "ready" });
  }

  /** Host, on the score sheet: the next round now (refused `too_few_ready` before half
   * of the people are ready). */
  nextRound() {
    this.connection.send({ type: "next_round" });
  }

  get isHost() {
    return !this.watching && this.seat !== null && this.table?.host === this.seat;
  }

  addBot(strategy, level) {
    this.connection.send({ type: "add_bot", strategy, level });
  }

  removeSeat(seat) {
    this.connection.send({ type: "remove_seat", seat });
  }

  setRules(settings) {
    this.connection.send({ type: "set_rules", ...settings });
  }

  start() {
    this.connection.send({ type: "start" });
  }

  leave() {
    this.connection.send({ type: "leave" });
    storage.forgetToken(this.code);
    this.token = null;
  }

  /** The name of a seat (from the table message). */
  nameOf(seat) {
    const entry = this.table?.seats?.[seat];
    if (!entry) return `#${seat + 1}`;
    // The server names bots in English ("Smart bot 3"): say it in the page's language.
    const bot = entry.bot && entry.name.match(/^\w+ bot (\d+)$/);
    const strategy = entry.bot ? entry.bot.split(":")[0] : "";
    if (bot && has(`bot.${strategy}`)) return t("bot.name", { strategy: t(`bot.${strategy}`), n: bot[1] });
    return entry.name;
  }
}
