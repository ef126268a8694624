// The table screen: join (or watch: invite.js), the waiting room where the host sets the
// rules and adds bots (waitingroom.js), then the board with its countdown, the Stop banner,
// the score sheet and the match result.  It listens to the TableSession and draws what changed.

import { aidToggle } from "./aid.js";
import { AimMarks, AimSender, aimToggle } from "./aims.js";
import { BANNER_MS, Board } from "./board.js";
import { Controls, keyList } from "./controls.js";
import { announce, h, setChildren, toast, typing } from "./dom.js";
import { has, t } from "./i18n.js";
import { InvitePrompt } from "./invite.js";
import { KEYS } from "./keys.js";
import { RaceNotes, lostRaceText, speedNote } from "./races.js";
import { Reactions } from "./reactions.js";
import { rulesSummary } from "./rules.js";
import { TableSession } from "./session.js";
import { sheetPanel } from "./sheet.js";
import * as sound from "./sound.js";
import { storage } from "./storage.js";
import { WaitingRoom, shareInvite } from "./waitingroom.js";

export class TableScreen {
  constructor(root, code, { watch = false, onNet = () => {} } = {}) {
    this.root = root;
    this.code = code;
    this.onNet = onNet;
    this.session = new TableSession(code, { watch, name: storage.name() });
    this.board = new Board(this.session);
    this.aims = new AimMarks(this.session, this.board);
    this.controls = new Controls(this.session, this.board, {}, new AimSender(this.session));
    this.reactions = new Reactions(this.session);
    this.races = new RaceNotes(this.session);
    this.board.onRender = (root) => {
      this.reactions.decorate(root);
      this.aims.draw(root);
    };
    this.lastTick = null; // the countdown second last heard ("round:second")
    this.phase = null;
    // The screen's shell is built once: drawing again fills the bar and the stage but never
    // takes them out of the page (that would drop the focus, e.g. from the name field).
    this.bar = h("div", { class: "table-bar" });
    this.stage = h("div", { class: "stage" });
    this.shell = h("div", { class: "table-screen" }, this.bar, this.stage);
    this.prompt = new InvitePrompt(this.session, code, { onJoin: () => this.renderStage() });
    this.room = new WaitingRoom(this.session, code);
    this.countdown = null;
    this.countdownTimer = null;
    this.goShownUntil = 0;
    this.wasReconnecting = false;
    this.stoppedAt = 0;
    this.sheetTimer = null;
    this.unsubscribe = this.session.on((kind, detail) => this.changed(kind, detail));
    this.keydown = (event) => this.key(event);
    this.keyup = (event) => {
      if (event.key === " " && !typing(event) && this.board.root.isConnected) event.preventDefault();
    };
    document.addEventListener("keydown", this.keydown);
    document.addEventListener("keyup", this.keyup);
    this.render();
  }

  close() {
    this.unsubscribe();
    this.session.close();
    this.races.close();
    this.aims.close();
    this.board.close();
    this.controls.aimer.clear();
    clearInterval(this.countdownTimer);
    clearTimeout(this.sheetTimer);
    document.removeEventListener("keydown", this.keydown);
    document.removeEventListener("keyup", this.keyup);
    this.onNet(null);
  }

  // --- what the session says ------------------------------------------------------

  changed(kind, detail) {
    switch (kind) {
      case "net":
        this.netChanged();
        break;
      case "welcome":
        if (detail.renumbered) break; // not a (re)connection: nothing to announce
        if (this.wasReconnecting) toast(t(detail.seat === null ? "net.back.watching" : "net.back.seat"), "ok");
        this.wasReconnecting = false;
        break;
      case "table":
        this.tableChanged();
        break;
      case "snapshot":
        this.aims.forget();
        this.renderStage();
        break;
      case "go":
        this.goShownUntil = Date.now() + 700;
        sound.play("go");
        announce(t("countdown.go"));
        this.renderBar();
        this.renderStage();
        break;
      case "events": {
        const rects = this.board.measure(detail.effects);
        this.board.render();
        this.board.animate(detail.effects, rects);
        const mine = !this.session.watching && this.session.seat !== null;
        for (const effect of detail.effects) {
          if (effect.kind === "played" && mine && effect.player === this.session.seat) sound.play("play");
          if (effect.kind === "stopped") {
            sound.play("stop");
            // The banner stays alone on the screen a moment before the score sheet covers it.
            this.stoppedAt = Date.now();
            announce(this.board.root.querySelector(".banner")?.textContent || "");
          }
        }
        break;
      }
      case "ack":
        this.acknowledged(detail);
        break;
      case "reaction":
        this.reactions.received(detail);
        break;
      case "aimed":
        this.aims.received(detail);
        break;
      case "race":
        this.races.received(detail);
        break;
      case "speed": {
        const text = speedNote(this.session, detail);
        toast(text, "warn", 10000);
        announce(text);
        break;
      }
      case "not_sent":
        this.board.render();
        announce(t("pending.not_sent.announce"));
        break;
      case "dropped":
        this.dropped(detail);
        break;
      case "round_over":
        this.aims.forget();
        break; // the table message that follows draws the score sheet
      case "state":
        this.render();
        break;
      case "error":
        this.errorShown(detail);
        break;
      default:
        break;
    }
  }

  netChanged() {
    const connection = this.session.connection;
    if (connection.status === "reconnecting" || connection.status === "lost") this.wasReconnecting = true;
    this.onNet(connection);
  }

  tableChanged() {
    const table = this.session.table;
    if (table.phase !== this.phase) {
      this.phase = table.phase;
      this.render();
      return;
    }
    if (table.phase === "lobby") this.updateWaitingRoom();
    else this.renderStage();
    this.renderBar();
  }

  acknowledged({ action, applied, reason, message, by, byMs }) {
    if (applied) return; // the events that follow draw the move
    if (reason !== "dropped") {
      sound.play("refused");
      sound.buzz();
    }
    // Who was faster: the seat whose card now lies on the pile (the server says, `by`),
    // and by how many ms of compensated time (`byMs`, when known).
    const faster = Number.isInteger(by)
      ? { name: this.session.nameOf(by), mine: by === this.session.seat && !this.session.watching, ms: byMs }
      : null;
    if (action.kind === "play" || action.kind === "place") {
      const element = this.board.ownSlot(action.source, action.position ?? 0);
      const lifted = element ? element.getBoundingClientRect() : null;
      const text = refusalText(reason, message, faster);
      this.board.refused(action, text, lifted, { lost: action.kind === "play" && LOST_RACE.includes(reason) });
      announce(text);
    } else {
      this.board.render(); // its button may have shown it as not sent
      toast(refusalText(reason, message), "warn", 1500);
    }
  }

  /** Actions no answer will come for: never lost silently.  After a reconnection the board
   * is the fresh snapshot's, so the words say it is up to date. */
  dropped({ actions, reason }) {
    const text = reason === "dropped" ? t("pending.dropped") : refusalText(reason);
    for (const action of actions) {
      if (action.kind === "play" || action.kind === "place") this.board.refused(action, text, null);
    }
    this.board.render();
    toast(text, "warn", 4000);
    announce(text);
  }

  errorShown(message) {
    if (message.id !== undefined) return; // an act: shown with its card
    // An aim refused (its card moved, the round ended as it travelled) is not worth a word:
    // only an aim can be refused not_playing without an id (an act has one).
    const quiet = ["bad_token", "started", "full", "profile_seated", "no_table", "own_stage", "replaced", "removed", "no_rematch", "bad_aim", "not_sharing", "not_playing"];
    if (quiet.includes(message.code)) {
      if (message.code === "removed") toast(t("error.removed"), "warn", 4000);
      if (message.code === "no_rematch") toast(t("error.no_rematch"), "info", 4000);
      return;
    }
    toast(has(`error.${message.code}`) ? t(`error.${message.code}`) : message.message, "warn", 3500);
  }

  // --- keyboard -------------------------------------------------------------------

  key(event) {
    if (!this.root.contains(this.stage) || document.querySelector("dialog[open]")) return;
    if (event.key === KEYS.help && !typing(event)) {
      this.showHelp();
      event.preventDefault();
      return;
    }
    if (event.key === KEYS.ready && !typing(event)) {
      const ready = this.stage.querySelector("#ready-button");
      if (ready && !(event.target instanceof HTMLButtonElement)) {
        ready.click();
        event.preventDefault();
      }
      return;
    }
    if (!this.session.view || this.phase === "lobby") return;
    if (this.controls.keydown(event)) event.preventDefault();
  }

  showHelp() {
    const dialog = h("dialog", { class: "help-dialog", "aria-labelledby": "help-title" },
      h("h2", { id: "help-title" }, t("keys.title")),
      keyList(Boolean(this.session.table?.rules?.expert)),
      h("p", { class: "muted" }, t("keys.mouse")),
      aidToggle("help", () => this.board.render()),
      this.session.watching ? null : aimToggle("help", (on) => this.session.shareAim(on)),
      h("form", { method: "dialog" }, h("button", { class: "primary", autofocus: true }, t("dialog.close"))),
    );
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  // --- drawing --------------------------------------------------------------------

  render() {
    this.reactions.renderBar(); // its words, in the page's language
    setChildren(this.root, [this.shell]);
    this.renderBar();
    this.renderStage();
  }

  renderBar() {
    const session = this.session;
    const table = session.table;
    const parts = [h("h1", { class: "table-title" }, t("table.title", { code: this.code }))];
    if (table?.tournament) {
      // A tournament's stage table: the way back to its standings and tables.
      const { id, name, stage } = table.tournament;
      parts.push(h("a", { class: "bar-tournament", id: "tournament-back", href: `#/tournament/${encodeURIComponent(id)}` },
        t("table.tournament", { name, stage })));
    }
    if (table) {
      parts.push(h("span", { class: "muted bar-rules" }, rulesSummary(table.rules)));
      if (table.round) parts.push(h("span", { class: "pill", id: "round-number" }, t("table.round", { n: table.round })));
      parts.push(h("span", { class: "pill bar-phase" }, t(`phase.${table.phase}`)));
    }
    if (session.watching) parts.push(h("span", { class: "pill watch" }, t("table.watching")));
    const tools = h("div", { class: "bar-tools" },
      h("button", { type: "button", class: "ghost", id: "copy-invite", onclick: () => shareInvite(this.code) }, t("invite.share")),
      sound.muteButton(),
      h("button", { type: "button", class: "ghost keys-button", "aria-keyshortcuts": "?", onclick: () => this.showHelp() }, t("keys.button")),
      !session.watching && session.seat !== null
        ? h("button", { type: "button", class: "ghost", id: "leave-button", onclick: () => this.leave() }, t("table.leave"))
        : null,
    );
    this.bar.replaceChildren(h("div", { class: "bar-info" }, parts), tools);
  }

  leave() {
    if (!window.confirm(t("table.leave.confirm"))) return;
    this.session.leave();
    location.hash = "#/";
  }

  renderStage() {
    const session = this.session;
    clearInterval(this.countdownTimer);
    // During a round (and behind its score sheet) the screen is the board, fitted to the
    // viewport: the header and the bar shrink to a line (app.css, "table screen").
    const phase = session.table?.phase;
    const inRound = Boolean(phase && phase !== "lobby" && !session.fatal && !session.blocked);
    this.shell.classList.toggle("in-round", inRound);
    this.shell.dataset.phase = phase || "";
    if (session.fatal) {
      this.stage.replaceChildren(h("section", { class: "panel notice" },
        h("p", { role: "alert" }, t(`error.${session.fatal}`)),
        h("a", { class: "button primary", href: "#/" }, t("nav.lobby")),
      ));
      return;
    }
    if (session.blocked) {
      this.stage.replaceChildren(h("section", { class: "panel notice" },
        h("p", { role: "alert" }, t(`error.${session.blocked}`)),
        h("button", { class: "primary", id: "watch-instead", onclick: () => this.session.watch() }, t("table.watch_instead")),
        h("a", { class: "button", href: "#/" }, t("nav.lobby")),
      ));
      return;
    }
    if (!session.joined && !session.watching && !session.token && !session.name) {
      const prompt = this.prompt.element();
      const shown = prompt.isConnected;
      setChildren(this.stage, [prompt]);
      // Coming into view (first, or again after a refused name): the field takes the focus,
      // unless the person is somewhere else on the page.
      if (!shown && (!document.activeElement || document.activeElement === document.body)) this.prompt.input.focus();
      return;
    }
    const table = session.table;
    if (!table) {
      this.stage.replaceChildren(h("p", { class: "muted connecting" }, t("net.connecting")));
      return;
    }
    if (table.phase === "lobby") {
      this.stage.replaceChildren(this.room.build());
      this.updateWaitingRoom();
      return;
    }
    this.board.render();
    const bannerLeft = this.stoppedAt + BANNER_MS - Date.now();
    let sheet = null;
    if (table.phase === "scoring" || table.phase === "over") {
      if (bannerLeft > 0) {
        clearTimeout(this.sheetTimer);
        this.sheetTimer = setTimeout(() => this.renderStage(), bannerLeft + 10);
      } else {
        sheet = sheetPanel(session, {
          onReady: () => this.session.ready(),
          onRematch: () => this.session.start(),
          onNextRound: () => this.session.nextRound(),
        });
      }
    }
    const seated = !session.watching && session.seat !== null;
    setChildren(this.stage, [this.board.root, seated ? this.reactions.bar : null, this.reactions.live, this.races.live, this.countdownOverlay(), sheet].filter(Boolean));
    if (sheet && !sheet.contains(document.activeElement)) sheet.querySelector("button")?.focus({ preventScroll: true });
  }

  countdownOverlay() {
    const session = this.session;
    const table = session.table;
    const showGo = Date.now() < this.goShownUntil;
    if (table.phase !== "countdown" && !showGo) return null;
    const overlay = h("div", { class: "countdown", id: "countdown", "aria-live": "assertive" });
    const tick = () => {
      if (session.table?.phase === "countdown" && session.table.start_at) {
        const left = session.table.start_at - session.connection.serverNow();
        overlay.textContent = left > 0 ? String(Math.ceil(left)) : t("countdown.go");
        overlay.dataset.left = left.toFixed(2);
        const second = `${session.table.round}:${Math.ceil(left)}`;
        if (left > 0 && second !== this.lastTick) {
          this.lastTick = second;
          sound.play("tick");
        }
      } else if (Date.now() < this.goShownUntil) {
        overlay.textContent = t("countdown.go");
      } else {
        overlay.remove();
        clearInterval(this.countdownTimer);
      }
    };
    tick();
    this.countdownTimer = setInterval(tick, 100);
    return overlay;
  }

  // --- the waiting room (lobby phase): waitingroom.js -------------------------------

  updateWaitingRoom() {
    if (!this.room.update()) this.renderStage(); // not on the page, or the host role moved
  }
}

/** Refusals of a play that lost a race to its pile: the pile flashes, the winner is named. */
const LOST_RACE = ["does_not_fit", "pile_complete"];

/** The words for a refused action; `faster` ({name, mine, ms}) is who got to the pile first. */
export function refusalText(reason, message, faster = null) {
  if (faster && LOST_RACE.includes(reason)) return lostRaceText(faster);
  if (reason === "does_not_fit") return t("refused.beaten");
  if (has(`reason.${reason}`)) return t(`reason.${reason}`);
  if (has(`error.${reason}`)) return t(`error.${reason}`);
  return message || t("error.generic");
}
