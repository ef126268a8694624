// Start-up and routing: #/ (lobby), #/t/CODE (play at a table), #/w/CODE (watch one),
// #/rules (the rule book), #/learn (the tutorial), #/profile (the player's profile),
// #/claim/CODE (take a profile from another device), #/history/ID (a profile's matches
// and statistics; #/history: this browser's own profile), #/leaderboard,
// #/replay/TOKEN (a round's replay, by its share token), #/keep (the score keeper for a
// game on a real table) and #/keep/CODE (a sheet of it), #/tournament (make a tournament)
// and #/tournament/ID (one: standings, stages, tables).  An invite link may also be /?t=CODE.
// The header holds the language picker and the connection badge.  Start-up loads the
// texts and the rule options, and makes or checks the profile (profile.js), before the
// first screen.

import { h } from "./dom.js";
import { HistoryPage } from "./history.js";
import { KeepSheetScreen } from "./keepsheet.js";
import { KeepStartScreen } from "./keepstart.js";
import { LANGUAGES, language, onLanguage, setLanguage, startLanguage, t } from "./i18n.js";
import { LeaderboardPage } from "./leaderboard.js";
import { LobbyScreen } from "./lobby.js";
import { profiles } from "./profile.js";
import { ClaimScreen, ProfilePage } from "./profilepage.js";
import { loadRuleOptions } from "./rules.js";
import { ReplayScreen } from "./replay.js";
import { RulesPage } from "./rulespage.js";
import { TableScreen } from "./tableview.js";
import { TournamentCreateScreen, TournamentScreen } from "./tournament.js";
import { TutorialScreen } from "./tutorial.js";

const PROFILE_WAIT_MS = 3000;
const app = document.getElementById("app");
let screen = null;
let connection = null;

function route() {
  const hash = location.hash || "#/";
  const replay = hash.match(/^#\/replay\/([A-Za-z0-9_-]+)$/);
  if (replay) return { name: "replay", token: replay[1] };
  const table = hash.match(/^#\/([tw])\/([A-Za-z0-9_-]+)/);
  if (table) return { name: table[1] === "t" ? "table" : "watch", code: table[2] };
  const sheet = hash.match(/^#\/keep\/([A-Za-z0-9_-]+)$/);
  if (sheet) return { name: "sheet", code: sheet[1] };
  if (hash.startsWith("#/keep")) return { name: "keep" };
  const claim = hash.match(/^#\/claim\/([A-Za-z0-9_-]+)/);
  if (claim) return { name: "claim", code: claim[1] };
  if (hash.startsWith("#/profile")) return { name: "profile" };
  const profile = hash.match(/^#\/history(?:\/([A-Za-z0-9_-]+))?$/);
  if (profile) return { name: "history", profile: profile[1] || null };
  if (hash.startsWith("#/leaderboard")) return { name: "leaderboard" };
  const tournament = hash.match(/^#\/tournament(?:\/([A-Za-z0-9_-]+))?$/);
  if (tournament) return tournament[1] ? { name: "tournament", id: tournament[1] } : { name: "tournaments" };
  if (hash.startsWith("#/rules")) return { name: "rules" };
  if (hash.startsWith("#/learn")) return { name: "learn" };
  return { name: "lobby" };
}

function open() {
  if (screen) screen.close();
  connection = null;
  renderNet();
  const where = route();
  document.body.dataset.screen = where.name;
  if (where.name === "table" || where.name === "watch") {
    screen = new TableScreen(app, where.code, {
      watch: where.name === "watch",
      onNet: (conn) => {
        connection = conn;
        renderNet();
      },
    });
  } else if (where.name === "learn") {
    screen = new TutorialScreen(app, {
      onNet: (conn) => {
        connection = conn;
        renderNet();
      },
    });
  } else if (where.name === "history") {
    screen = new HistoryPage(app, where.profile);
  } else if (where.name === "leaderboard") {
    screen = new LeaderboardPage(app);
  } else if (where.name === "tournament") {
    screen = new TournamentScreen(app, where.id);
  } else if (where.name === "tournaments") {
    screen = new TournamentCreateScreen(app);
  } else if (where.name === "replay") {
    screen = new ReplayScreen(app, where.token);
  } else if (where.name === "rules") {
    screen = new RulesPage(app);
  } else if (where.name === "profile") {
    screen = new ProfilePage(app);
  } else if (where.name === "keep") {
    screen = new KeepStartScreen(app);
  } else if (where.name === "sheet") {
    screen = new KeepSheetScreen(app, where.code);
  } else if (where.name === "claim") {
    screen = new ClaimScreen(app, where.code);
  } else {
    screen = new LobbyScreen(app);
  }
  renderHeader();
}

function renderHeader() {
  document.getElementById("nav-lobby").textContent = t("nav.lobby");
  document.getElementById("nav-rules").textContent = t("nav.rules");
  document.getElementById("nav-profile").textContent = t("nav.profile");
  document.getElementById("nav-leaderboard").textContent = t("nav.leaderboard");
  document.getElementById("lang-label").textContent = t("nav.language");
  const select = document.getElementById("lang");
  if (!select.options.length) {
    for (const [code, name] of Object.entries(LANGUAGES)) select.append(h("option", { value: code }, name));
    select.addEventListener("change", () => setLanguage(select.value));
  }
  select.value = language();
  const where = route().name;
  document.getElementById("nav-lobby").toggleAttribute("aria-current", where === "lobby");
  document.getElementById("nav-rules").toggleAttribute("aria-current", where === "rules");
  document.getElementById("nav-profile").toggleAttribute("aria-current", where === "profile");
  document.getElementById("nav-leaderboard").toggleAttribute("aria-current", where === "leaderboard");
  document.title = `Ligretto – ${t(`title.${where}`)}`;
  renderNet();
}

/** The connection badge: round-trip time and quality, or connection lost / reconnecting. */
function renderNet() {
  const badge = document.getElementById("net");
  if (!connection) {
    badge.replaceChildren();
    badge.className = "net";
    badge.removeAttribute("data-status");
    return;
  }
  const status = connection.status;
  badge.dataset.status = status;
  if (status === "open" && connection.rtt !== null) {
    const ms = Math.round(connection.rtt * 1000);
    const quality = ms < 120 ? "good" : ms < 350 ? "fair" : "poor";
    badge.className = `net net-${quality}`;
    badge.title = t("net.quality", { quality: t(`net.${quality}`), ms });
    badge.replaceChildren(h("span", { class: "net-dot", "aria-hidden": "true" }), h("span", { class: "net-text" }, t("net.rtt", { ms })));
  } else {
    // Never a round trip while the socket is not open: a stalled one shows "lost", not its last figure.
    const texts = { reconnecting: "net.reconnecting", lost: "net.lost", closed: "net.offline" };
    const text = t(texts[status] || "net.connecting");
    badge.className = `net net-${status}`;
    badge.title = text;
    badge.replaceChildren(h("span", { class: "net-dot", "aria-hidden": "true" }), h("span", { class: "net-text" }, text));
  }
}

async function boot() {
  // An invite link of the form /?t=CODE becomes /#/t/CODE.
  const params = new URLSearchParams(location.search);
  if (params.get("t")) {
    history.replaceState(null, "", `/#/t/${encodeURIComponent(params.get("t"))}`);
  }
  await startLanguage();
  // The rule options and presets come from the server (GET /api/presets), before any form.
  await loadRuleOptions({
    onRetry: () => app.replaceChildren(h("p", { class: "muted", role: "alert" }, t("rules.unavailable"))),
  });
  // The profile, made on the first visit (or checked): every hello carries it.  A claim
  // link on a new device takes the other device's profile instead of making one.
  // A server slow to answer does not hold the first screen longer than PROFILE_WAIT_MS:
  // a hello still waits for the profile being made.
  if (route().name !== "claim") {
    await Promise.race([
      profiles.ensure(t("lobby.play_now.default_name")),
      new Promise((resolve) => setTimeout(resolve, PROFILE_WAIT_MS)),
    ]);
  }
  onLanguage(() => {
    renderHeader();
    if (screen) screen.render();
  });
  window.addEventListener("hashchange", open);
  open();
  document.body.dataset.ready = "true";
}

boot();
