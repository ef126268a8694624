// One WebSocket to /ws: JSON messages, reconnection with back-off, the clock sync of
// docs/protocol.md (ping/pong: round-trip time and the offset to the server's clock), and
// the heartbeat: a ping every second, and a socket from which nothing (no pong, no other
// message) came for LOST_MS is "lost": closed and opened again, as a dropped one.
// The pings keep running during play: each one after the first of a socket echoes the last
// pong (`echo`, `held`), so the server measures this connection's round trip itself, and
// `serverNow()` is the stamp `t` of every action (fair judging, docs/protocol.md "Races").

const BACKOFF_MS = [250, 500, 1000, 2000, 3000, 5000];
// Tests may set window.LIGRETTO_NET = {pingMs, lostMs, openMs} before the page loads.
const TIMING = { pingMs: 1000, lostMs: 2500, openMs: 5000, ...(globalThis.LIGRETTO_NET || {}) };
const CHECK_MS = 250;
const SAMPLES = 16; // the offset is that of the shortest of the last SAMPLES round trips
const MAX_HELD_S = 30; // a pong kept longer (a sleeping tab) is not echoed: the server caps `held`

export function wsUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}

/**
 * `onOpen()` is called on every (re)connection, `onMessage(message)` for every server
 * message, `onStatus()` when the status, RTT or offset changes.
 * status: "connecting" | "open" | "reconnecting" (the socket closed) | "lost" (it went
 * silent; it stays "lost" until a socket opens again) | "closed".  `rtt` is null whenever
 * the status is not "open": no stale round trip is ever shown.
 */
export class Connection {
  constructor({ onOpen, onMessage, onStatus }) {
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.status = "connecting";
    this.attempt = 0;
    this.rtt = null;
    this.offset = 0; // server time = Date.now() / 1000 + offset
    this.samples = [];
    this.lastPong = null; // {server_t, at: performance.now()}: the last pong of this socket, to echo
    this.socket = null;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.watchTimer = null;
    this.heard = 0; // Date.now() when the socket last said something (or opened)
    this.open();
  }

  open() {
    const socket = new WebSocket(wsUrl("/ws"));
    this.socket = socket;
    this.lastPong = null; // only a pong of this socket's server side counts
    this.heard = Date.now();
    this.watch();
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.heard = Date.now();
      this.setStatus("open");
      this.onOpen();
      this.startPings();
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.heard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "pong") this.pong(message);
      else this.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      // 4001: another connection took this seat over (another tab): do not fight for it.
      if (this.stopped || event.code === 4001) {
        this.stopPings();
        this.rtt = null;
        this.setStatus("closed");
        return;
      }
      this.retry(this.status === "lost" ? "lost" : "reconnecting");
    });
  }

  /** Give up this socket (it closed, or went silent) and open another after a pause. */
  retry(status) {
    const socket = this.socket;
    this.socket = null; // whatever the old socket still does is ignored from now on
    this.stopPings();
    if (socket && socket.readyState < WebSocket.CLOSING) {
      try {
        socket.close(4000, status);
      } catch {
        // nothing to do: it is gone either way
      }
    }
    this.rtt = null;
    this.setStatus(status);
    const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (!this.stopped) this.open();
    }, wait);
  }

  /** The heartbeat's watch: an open socket silent for lostMs, or one that does not open
   * within openMs, is given up. */
  watch() {
    clearInterval(this.watchTimer);
    let checked = Date.now();
    this.watchTimer = setInterval(() => {
      const now = Date.now();
      // A page that was itself asleep (a busy machine, a frozen tab) could not have read
      // what arrived meanwhile: the time it slept is no proof of a silent network.
      const slept = now - checked - CHECK_MS;
      checked = now;
      if (slept > CHECK_MS) this.heard += slept;
      const socket = this.socket;
      if (this.stopped || !socket) return;
      const quiet = now - this.heard;
      if (socket.readyState === WebSocket.OPEN && quiet > TIMING.lostMs) this.retry("lost");
      else if (socket.readyState === WebSocket.CONNECTING && quiet > TIMING.openMs) this.retry(this.status === "open" ? "reconnecting" : this.status);
    }, CHECK_MS);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** The server's clock now, in seconds (as `start_at` is written). */
  serverNow() {
    return Date.now() / 1000 + this.offset;
  }

  /** Whether a pong has given the offset yet (before it, `serverNow()` is only this
   * machine's clock, which no action is stamped with). */
  get synced() {
    return this.samples.length > 0;
  }

  /** A ping: the local clock, and (after the first pong) the echo of the last pong and
   * how long it was kept, from which the server measures the round trip on its clock. */
  pingMessage() {
    const message = { type: "ping", t: Date.now() / 1000 };
    const last = this.lastPong;
    if (last) {
      const held = Math.max(0, (performance.now() - last.at) / 1000);
      if (held <= MAX_HELD_S) Object.assign(message, { echo: last.server_t, held });
    }
    return message;
  }

  startPings() {
    this.stopPings();
    // A few quick ones for a good first offset, then the heartbeat: the server closes a
    // connection that says nothing for a few seconds (docs/protocol.md, Heartbeats).
    let quick = 3;
    const ping = () => {
      this.send(this.pingMessage());
      quick -= 1;
      this.pingTimer = setTimeout(ping, quick > 0 ? 250 : TIMING.pingMs);
    };
    ping();
  }

  stopPings() {
    clearTimeout(this.pingTimer);
    this.pingTimer = null;
  }

  pong(message) {
    if (typeof message.server_t === "number") this.lastPong = { server_t: message.server_t, at: performance.now() };
    const received = Date.now() / 1000;
    const sent = Number(message.t);
    const rtt = received - sent;
    if (!(rtt >= 0) || this.status !== "open") return;
    this.rtt = rtt;
    this.samples.push({ rtt, offset: message.server_t - (sent + received) / 2 });
    if (this.samples.length > SAMPLES) this.samples.shift();
    // The shortest round trip bounds the error best.
    const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offset = best.offset;
    this.onStatus();
  }

  setStatus(status) {
    this.status = status;
    this.onStatus();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.watchTimer);
    this.stopPings();
    if (this.socket) this.socket.close();
    this.status = "closed";
  }
}
