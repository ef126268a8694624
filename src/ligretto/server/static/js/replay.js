// The replay viewer (#/replay/TOKEN): a finished round as a spectator saw it, from
// GET /api/replays/{token} (the round's share token; the server replays the stored actions
// through the engine).  The profile's secret goes with every request, so a table that
// shows its replays to its players only knows one.  The board is the live spectator view's own (board.js), the round
// model the client's one (mirror.js, through replaytrack.js), races shown with the live
// game's note (races.js).  A timeline: play/pause, speed, scrubbing, step by step, each
// move's time; a link to download the replay file.

import { BANNER_MS, Board } from "./board.js";
import { h, setChildren, typing } from "./dom.js";
import { plural, t } from "./i18n.js";
import { applyEvents } from "./mirror.js";
import { profiles } from "./profile.js";
import { RaceNotes } from "./races.js";
import { ReplayTrack } from "./replaytrack.js";
import { TableSession } from "./session.js";
import { formatScore } from "./sheet.js";

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
const FAR_S = 3; // a pause longer than this in the round plays as this long

/** What the board and the race note read of a table, for a round that is over. */
class ReplaySession {
  constructor(replay) {
    this.watching = true;
    this.seat = null;
    this.view = null;
    this.round = replay.round;
    this.pending = new Map();
    this.table = {
      code: null, // a replay does not name its table's invite code
      phase: "replay",
      rules: replay.rules,
      seats: replay.players.map((p) => ({ ...p, connected: true, stand_in: false, ready: false })),
      sheet: null,
    };
  }

  get myArea() {
    return null;
  }

  isPending() {
    return null;
  }

  pendingOf() {
    return null;
  }

  nameOf(seat) {
    return TableSession.prototype.nameOf.call(this, seat);
  }
}

export function replayPath(token) {
  return `/api/replays/${encodeURIComponent(token)}`;
}

/** The request's headers: the profile's secret, when this browser keeps one. */
function credentials() {
  const secret = profiles.secret();
  return secret ? { Authorization: `Bearer ${secret}` } : {};
}

export class ReplayScreen {
  constructor(root, token) {
    this.root = root;
    this.token = token;
    this.where = null; // {match, round} of the answer
    this.track = null;
    this.session = null;
    this.problem = null;
    this.playing = false;
    this.speed = 1;
    this.timer = null;
    this.clock = null; // {at: performance.now(), t: round seconds} while playing
    this.bannerTimer = null; // at the end: until the Stop banner leaves the seats to be seen
    this.bannerGone = false;
    this.keydown = (event) => this.key(event);
    document.addEventListener("keydown", this.keydown);
    this.render();
    this.load();
  }

  async load() {
    try {
      const response = await fetch(replayPath(this.token), { headers: credentials() });
      const body = await response.json();
      if (!response.ok) {
        const known = ["round_not_over", "no_round", "no_store", "not_a_player"];
        this.problem = known.includes(body.error) ? body.error : "failed";
      } else {
        this.start(body);
      }
    } catch {
      this.problem = "failed";
    }
    this.render();
  }

  /** Begin at the deal with the answer `replay` (also used by the benchmark and tests). */
  start(replay) {
    this.where = { match: replay.match, round: replay.round };
    clearTimeout(this.bannerTimer);
    this.bannerTimer = null;
    this.bannerGone = false;
    this.track = new ReplayTrack(replay);
    this.session = new ReplaySession(replay);
    this.session.view = this.track.view;
    this.board = new Board(this.session);
    this.races = new RaceNotes(this.session);
    this.controls = this.buildControls();
    this.shell = null;
    window.ligrettoReplay = this; // for programs: tests and the benchmark (docs/clients.md)
  }

  close() {
    this.pause();
    clearTimeout(this.bannerTimer);
    this.races?.close();
    document.removeEventListener("keydown", this.keydown);
    if (window.ligrettoReplay === this) delete window.ligrettoReplay;
  }

  // --- moving through the round --------------------------------------------------------

  /** Show the round after `index` steps (drawn once, not animated). */
  goTo(index) {
    this.session.view = this.track.goTo(index);
    this.show();
  }

  /** One step forward, drawn as the live game draws it (the cards fly, a race's note). */
  stepForward() {
    // Where the moving cards are before they move: the same effects, from a copy.
    const next = this.track.steps[this.track.index];
    const rects = next?.events ? this.board.measure(applyEvents(structuredClone(this.track.view), next.events.events)) : new Map();
    const done = this.track.forward();
    if (!done) return false;
    this.session.view = this.track.view;
    this.show();
    this.board.animate(done.effects, rects);
    if (done.race) this.races.received(done.race);
    return true;
  }

  stepBack() {
    this.pause();
    this.goTo(this.track.index - 1);
  }

  play() {
    if (this.track.index >= this.track.length) this.goTo(0);
    this.playing = true;
    this.clock = { at: performance.now(), t: this.track.time };
    this.schedule();
    this.showControls();
  }

  pause() {
    clearTimeout(this.timer);
    this.timer = null;
    this.playing = false;
    this.clock = null;
    if (this.controls) this.showControls();
  }

  setSpeed(speed) {
    if (this.playing) this.clock = { at: performance.now(), t: this.now() };
    this.speed = speed;
    if (this.playing) this.schedule();
  }

  /** The round's time the playback has reached. */
  now() {
    if (!this.clock) return this.track.time;
    return this.clock.t + ((performance.now() - this.clock.at) / 1000) * this.speed;
  }

  /** Wait until the next step's time (a long pause of the round shortened), then take it. */
  schedule() {
    clearTimeout(this.timer);
    if (!this.playing) return;
    if (this.track.index >= this.track.length) {
      this.pause();
      return;
    }
    const next = this.track.times[this.track.index];
    const now = this.now();
    if (next - now > FAR_S) this.clock = { at: performance.now(), t: next - FAR_S };
    const wait = Math.max(0, ((Math.min(next - now, FAR_S)) / this.speed) * 1000);
    this.timer = setTimeout(() => {
      this.stepForward();
      this.schedule();
    }, wait);
  }

  key(event) {
    if (!this.track || typing(event) || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target?.type === "range") return; // the slider moves with its own arrows
    if (event.key === "ArrowRight") {
      this.pause();
      this.stepForward();
    } else if (event.key === "ArrowLeft") {
      this.stepBack();
    } else if (event.key === "k" || (event.key === " " && event.target?.tagName !== "BUTTON")) {
      if (this.playing) this.pause();
      else this.play();
    } else {
      return;
    }
    event.preventDefault();
  }

  // --- drawing -----------------------------------------------------------------------

  render() {
    if (!this.track) {
      const text = this.problem ? t(`replay.error.${this.problem}`) : t("replay.loading");
      this.root.replaceChildren(h("section", { class: "panel notice replay-notice" },
        h("p", { role: this.problem ? "alert" : "status" }, text),
        h("a", { class: "button", href: "#/" }, t("nav.lobby")),
      ));
      return;
    }
    this.controls = this.buildControls();
    this.shell = null;
    this.show();
  }

  show() {
    const { match, round } = this.where;
    if (!this.shell || !this.shell.isConnected) {
      this.bar = h("div", { class: "table-bar" },
        h("div", { class: "bar-info" },
          h("h1", { class: "table-title" }, t("replay.title", { match, round })),
        ),
        h("div", { class: "bar-tools" },
          h("a", {
            class: "button", id: "replay-download", href: `${replayPath(this.token)}/file`, download: "",
            onclick: (event) => this.download(event),
          }, t("replay.download")),
        ),
      );
      this.stage = h("div", { class: "stage" });
      this.shell = h("div", { class: "table-screen in-round replay-screen" }, this.bar, this.stage);
      this.root.replaceChildren(this.shell);
    }
    const over = this.track.index === this.track.length;
    this.session.table.sheet = over ? { totals: this.track.replay.end.scores } : null;
    this.endBanner(over);
    this.board.render();
    this.board.root.dataset.step = String(this.track.index);
    setChildren(this.stage, [this.board.root, this.controls.element, over ? this.scores() : null, this.races.live].filter(Boolean));
    this.showControls();
  }

  /** At the end the Stop banner shows a moment, as at the live table, then leaves: the
   *  seats it covered (on a phone, several) and the scores below stay readable.  Back
   *  before the end, it shows again the next time the end is reached. */
  endBanner(over) {
    if (!over) {
      clearTimeout(this.bannerTimer);
      this.bannerTimer = null;
      this.bannerGone = false;
    } else if (!this.bannerTimer && !this.bannerGone) {
      this.bannerTimer = setTimeout(() => {
        this.bannerGone = true;
        this.show();
      }, BANNER_MS);
    }
    this.shell.classList.toggle("banner-gone", this.bannerGone);
  }

  /** The file with the profile's secret (a plain link cannot send it): fetched, then saved. */
  async download(event) {
    const headers = credentials();
    if (!headers.Authorization) return; // the link itself serves whoever may have it
    event.preventDefault();
    const response = await fetch(event.currentTarget.href, { headers });
    if (!response.ok) return;
    const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "")?.[1] || "ligretto-replay.json";
    const url = URL.createObjectURL(await response.blob());
    const save = h("a", { href: url, download: name });
    document.body.append(save);
    save.click();
    save.remove();
    URL.revokeObjectURL(url);
  }

  buildControls() {
    const n = this.track.length;
    const playButton = h("button", { class: "primary", id: "replay-play", type: "button", onclick: () => (this.playing ? this.pause() : this.play()) });
    const back = h("button", { id: "replay-back", type: "button", "aria-label": t("replay.back"), title: t("replay.back"), onclick: () => this.stepBack() }, "⏮");
    const forward = h("button", { id: "replay-forward", type: "button", "aria-label": t("replay.forward"), title: t("replay.forward"),
      onclick: () => {
        this.pause();
        this.stepForward();
      } }, "⏭");
    const speed = h("select", { id: "replay-speed", onchange: () => this.setSpeed(Number(speed.value)) },
      SPEEDS.map((value) => h("option", { value: String(value), selected: value === this.speed }, `${value}×`)));
    const slider = h("input", { type: "range", id: "replay-timeline", min: "0", max: String(n), step: "1", value: String(this.track.index), "aria-label": t("replay.timeline") });
    slider.addEventListener("input", () => {
      const index = Number(slider.value); // before pausing draws the slider again
      this.pause();
      this.goTo(index);
    });
    const where = h("p", { class: "replay-where", id: "replay-where", "aria-live": "polite" });
    const element = h("section", { class: "replay-controls panel", "aria-label": t("replay.controls") },
      h("div", { class: "replay-buttons" },
        back, playButton, forward,
        h("label", { for: "replay-speed", class: "replay-speed" }, t("replay.speed"), " ", speed),
      ),
      slider,
      where,
    );
    return { element, playButton, slider, where, speed };
  }

  showControls() {
    const { playButton, slider, where } = this.controls;
    const track = this.track;
    playButton.textContent = t(this.playing ? "replay.pause" : "replay.play");
    playButton.setAttribute("aria-pressed", String(this.playing));
    slider.value = String(track.index);
    const text = this.stepText();
    slider.setAttribute("aria-valuetext", text);
    where.textContent = text;
  }

  /** "Move 12 of 240 · 8.4 s · Alice" (or the deal). */
  stepText() {
    const track = this.track;
    const step = track.stepAt(track.index);
    const total = t("replay.total", { s: track.duration.toFixed(1) });
    if (!step) return `${plural("replay.deal", track.length, { n: track.length })} · ${total}`;
    const at = Number.isFinite(step.t) ? t("replay.at", { s: step.t.toFixed(3) }) : t("replay.at.unknown");
    return `${t("replay.move", { k: track.index, n: track.length })} · ${at} · ${this.session.nameOf(step.seat)}`;
  }

  /** The round's end: each seat's score. */
  scores() {
    const end = this.track.replay.end;
    return h("section", { class: "panel replay-scores", id: "replay-scores", "aria-labelledby": "replay-scores-title" },
      h("h2", { id: "replay-scores-title" }, t("replay.scores")),
      h("ul", {}, end.scores.map((score, seat) =>
        h("li", { dataset: { seat } }, h("span", {}, this.session.nameOf(seat)), " ", h("strong", { class: "num" }, formatScore(score))))),
    );
  }
}
