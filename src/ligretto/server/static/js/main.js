// Start-up and routing: #/ (lobby), #/t/CODE (play at a table), #/w/CODE (watch one),
// #/rules (the rule book), #/learn (the tutorial), #/replay/CODE/MATCH/ROUND (a round's replay).  An invite link may also be /?t=CODE.
// The header holds the language picker and the connection badge.  Start-up loads the
// texts and the rule options before the first screen.

import { h } from "./dom.js";
import { LANGUAGES, language, onLanguage, setLanguage, startLanguage, t } from "./i18n.js";
import { LobbyScreen } from "./lobby.js";
import { loadRuleOptions } from "./rules.js";
import { ReplayScreen } from "./replay.js";
import { RulesPage } from "./rulespage.js";
import { TableScreen } from "./tableview.js";
import { TutorialScreen } from "./tutorial.js";

const app = document.getElementById("app");
let screen = null;
let connection = null;

function route() {
  const hash = location.hash || "#/";
  const replay = hash.match(/^#\/replay\/([A-Za-z0-9_-]+)\/(\d+)\/(\d+)/);
  if (replay) return { name: "replay", code: replay[1], match: Number(replay[2]), round: Number(replay[3]) };
  const table = hash.match(/^#\/([tw])\/([A-Za-z0-9_-]+)/);
  if (table) return { name: table[1] === "t" ? "table" : "watch", code: table[2] };
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
  } else if (where.name === "replay") {
    screen = new ReplayScreen(app, where.code, where.match, where.round);
  } else if (where.name === "rules") {
    screen = new RulesPage(app);
  } else {
    screen = new LobbyScreen(app);
  }
  renderHeader();
}

function renderHeader() {
  document.getElementById("nav-lobby").textContent = t("nav.lobby");
  document.getElementById("nav-rules").textContent = t("nav.rules");
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
  onLanguage(() => {
    renderHeader();
    if (screen) screen.render();
  });
  window.addEventListener("hashchange", open);
  open();
  document.body.dataset.ready = "true";
}

boot();
