// One WebSocket to /ws: JSON messages, reconnection with back-off, and the clock sync
// of docs/protocol.md (ping/pong: round-trip time and the offset to the server's clock).

const BACKOFF_MS = [250, 500, 1000, 2000, 3000, 5000];
const PING_EVERY_MS = 3000;
const SAMPLES = 8;

export function wsUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}

/**
 * `onOpen()` is called on every (re)connection, `onMessage(message)` for every server
 * message, `onStatus()` when the status, RTT or offset changes.
 * status: "connecting" | "open" | "reconnecting" | "closed".
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
    this.socket = null;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.open();
  }

  open() {
    const socket = new WebSocket(wsUrl("/ws"));
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.setStatus("open");
      this.onOpen();
      this.startPings();
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
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
      this.stopPings();
      // 4001: another connection took this seat over (another tab): do not fight for it.
      if (this.stopped || event.code === 4001) {
        this.setStatus("closed");
        return;
      }
      this.setStatus("reconnecting");
      const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      this.retryTimer = setTimeout(() => this.open(), wait);
    });
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

  startPings() {
    this.stopPings();
    // A few quick ones for a good first offset, then one every few seconds.
    let quick = 3;
    const ping = () => {
      this.send({ type: "ping", t: Date.now() / 1000 });
      quick -= 1;
      this.pingTimer = setTimeout(ping, quick > 0 ? 250 : PING_EVERY_MS);
    };
    ping();
  }

  stopPings() {
    clearTimeout(this.pingTimer);
    this.pingTimer = null;
  }

  pong(message) {
    const received = Date.now() / 1000;
    const sent = Number(message.t);
    const rtt = received - sent;
    if (!(rtt >= 0)) return;
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
    this.stopPings();
    if (this.socket) this.socket.close();
    this.status = "closed";
  }
}
