// The score keeper's sheets in the browser (docs/protocol.md "Score keeper"): the HTTP
// calls, the live sheet (Server-Sent Events), and the entries waiting to sync.  Every
// entry and undo goes through one queue kept in the browser (storage.js) with its own
// change `id`, so an entry made offline is sent when the connection is back and a retry
// is applied once; the sheet as last seen is kept too, for a reload without a network.
// Scores are the server's (the engine's scoring): the browser never computes one.

import { ApiError, apiCall } from "./apicall.js";
import { storage } from "./storage.js";

const RETRY_MS = 2000;
const RECENT = 12;

/**
 * Make the app installable and its files available offline (the service worker, sw.js):
 * registered by the score keeper's screens, where a table's phones may lose the network.
 */
export function installApp() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js").catch(() => {}); // not installable here: it works online all the same
}

/** A refused call of the score keeper's API: the server's `error` code and `message`, or
 * `offline`; `body`: the answer (a conflict's both entries). */
export class SheetError extends ApiError {}

/** A deck back as the page draws it ({box, symbol}) and as the API writes it ({colour, symbol}). */
export const backToWire = (back) => ({ colour: back.box, symbol: back.symbol });
export const backFromWire = (back) => ({ box: back.colour, symbol: back.symbol });

/** A fresh change id (idempotent retries). */
export function changeId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("");
}

const call = (method, path, options) => apiCall(method, path, options, SheetError);

/** `POST /api/sheets`: a new sheet (`secret`: the creator's profile, linked to player `me`). */
export function createSheet(body, secret = null) {
  return call("POST", "/api/sheets", { body, secret });
}

export const sheetPath = (code) => `/api/sheets/${encodeURIComponent(code)}`;

/** `PUT` (link) or `DELETE` (unlink) a seat's profile with this browser's profile `secret`: the sheet. */
export function seatProfile(code, seat, link, secret) {
  return call(link ? "PUT" : "DELETE", `${sheetPath(code)}/players/${seat}/profile`, { secret });
}

/** The share link of a sheet, as the QR code encodes it. */
export function sheetLink(code) {
  return `${location.origin}/#/keep/${code}`;
}

/** A round of the sheet's `rounds` as an entry and its version (a round may carry its entry inline). */
export function roundOf(sheet, n) {
  const round = sheet?.rounds?.[n - 1];
  if (!round) return null;
  const entry = round.entry ?? round;
  return {
    entry: { center: entry.center, stack: entry.stack, ending: entry.ending, stopped_by: entry.stopped_by ?? null },
    version: round.version ?? null,
  };
}

/** The change an undo would undo: the latest entry or correction not undone yet (a seat's
 * link is not undone), or null. */
export function undoable(sheet) {
  const changes = sheet?.changes ?? [];
  const undone = new Set(changes.filter((change) => change.kind === "undo").map((change) => change.undoes));
  const scoring = (change) => change.kind === "entry" || change.kind === "correction";
  return [...changes].reverse().find((change) => scoring(change) && !undone.has(change.n)) ?? null;
}

/** Remember a sheet among this browser's (the start screen lists them). */
function remember(sheet) {
  const names = sheet.players.map((player) => player.name);
  const list = storage.keptSheets().filter((kept) => kept.code !== sheet.code);
  list.unshift({ code: sheet.code, names, rounds: sheet.rounds.length, over: Boolean(sheet.over) });
  storage.setKeptSheets(list.slice(0, RECENT));
}

/**
 * One sheet as this browser follows it: `sheet` (the server's, or the kept one until it
 * answers), `queue` (entries and undos waiting to sync), `conflict` (a 409 to resolve:
 * {theirs, yours, version, n}), `refusal` (the last refused entry's message), `connected`
 * (the event stream is open and the browser online).  `onChange()` hears of every change.
 */
export class LiveSheet {
  constructor(code, { onChange = () => {} } = {}) {
    this.code = code;
    this.onChange = onChange;
    const kept = storage.keptSheet(code) || {};
    this.sheet = kept.sheet || null;
    this.queue = kept.queue || [];
    this.conflict = kept.conflict || null;
    this.refusal = null;
    this.missing = false;
    this.live = false;
    this.sending = false;
    this.closed = false;
    this.timer = null;
    this.online = () => {
      this.changed();
      this.flush();
    };
    this.offline = () => this.changed();
    window.addEventListener("online", this.online);
    window.addEventListener("offline", this.offline);
    this.listen();
    this.load();
  }

  /** Whether the sheet is live: the event stream open and the browser online. */
  get connected() {
    return this.live && navigator.onLine !== false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this.online);
    window.removeEventListener("offline", this.offline);
    if (this.events) this.events.close();
  }

  listen() {
    this.events = new EventSource(`${sheetPath(this.code)}/events`);
    this.events.addEventListener("sheet", (event) => this.take(JSON.parse(event.data)));
    this.events.addEventListener("open", () => {
      this.live = true;
      this.changed();
      this.flush();
    });
    this.events.addEventListener("error", () => {
      this.live = false;
      this.changed();
      // The browser tries again by itself unless it gave up (an answer that was no stream).
      if (this.events.readyState === EventSource.CLOSED && !this.closed && !this.missing) {
        setTimeout(() => !this.closed && this.listen(), RETRY_MS);
      }
    });
  }

  async load() {
    try {
      this.take(await call("GET", sheetPath(this.code)));
      this.flush();
    } catch (error) {
      if (error.status === 404) {
        this.missing = true;
        if (this.events) this.events.close();
        this.changed();
      } else this.retry();
    }
  }

  /** A sheet from the server: kept unless an older one than what is shown (answers and events may cross). */
  take(sheet) {
    if (this.sheet && this.sheet.version > sheet.version) return;
    this.sheet = sheet;
    this.missing = false;
    remember(sheet);
    this.save();
  }

  save() {
    storage.keepSheet(this.code, { sheet: this.sheet, queue: this.queue, conflict: this.conflict });
    this.changed();
  }

  changed() {
    if (!this.closed) this.onChange();
  }

  /** Enter round `n` (the next one, or a correction on the `base` version seen). */
  enter(n, entry, base, by) {
    this.refusal = null;
    this.queue.push({ kind: "entry", n, entry, base, by, id: changeId() });
    this.save();
    this.flush();
  }

  /** Undo change `change` (the latest one not undone, as this phone sees it). */
  undo(by, change) {
    this.refusal = null;
    this.queue.push({ kind: "undo", by, change, id: changeId() });
    this.save();
    this.flush();
  }

  /** A conflict resolved: `theirs` drops this phone's entry, `mine` sends it again on their version. */
  resolve(keep) {
    const conflict = this.conflict;
    if (!conflict) return;
    this.conflict = null;
    if (keep === "mine") {
      this.queue.unshift({ kind: "entry", n: conflict.n, entry: conflict.yours, base: conflict.version, by: conflict.by, id: changeId() });
    }
    this.save();
    this.flush();
  }

  retry() {
    clearTimeout(this.timer);
    if (!this.closed) this.timer = setTimeout(() => (this.sheet ? this.flush() : this.load()), RETRY_MS);
  }

  /** Send what waits, in order, one at a time; stops at a conflict until it is resolved. */
  async flush() {
    if (this.sending || this.closed || this.conflict) return;
    this.sending = true;
    try {
      while (this.queue.length && !this.conflict && !this.closed) {
        const item = this.queue[0];
        try {
          this.take(await this.send(item));
          this.queue.shift();
        } catch (error) {
          if (!this.refused(item, error)) {
            this.retry();
            break;
          }
        }
        this.save();
      }
    } finally {
      this.sending = false;
    }
  }

  send(item) {
    if (item.kind === "undo") {
      return call("POST", `${sheetPath(this.code)}/undo`, { body: { by: item.by, id: item.id, change: item.change } });
    }
    const body = { entry: item.entry, base: item.base, by: item.by, id: item.id };
    return call("PUT", `${sheetPath(this.code)}/rounds/${item.n}`, { body });
  }

  /** A refused item leaves the queue (a conflict to resolve, or the server's message); false: try again later. */
  refused(item, error) {
    if (error.code === "offline" || error.status >= 500 || error.status === 429) return false;
    this.queue.shift();
    if (error.code === "conflict" && error.body) {
      this.conflict = { n: item.n, by: item.by, theirs: error.body.theirs, yours: error.body.yours ?? item.entry, version: error.body.version };
    } else {
      this.refusal = { code: error.code, message: error.message, n: item.n ?? null, entry: item.entry ?? null, base: item.base ?? null };
    }
    return true;
  }
}
