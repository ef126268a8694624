// What the browser keeps between visits: the display name, the language, the bots' level
// of Play now, whether sounds are muted, whether the beginner aid is on, whether the
// person shows their aim to the others (live presence, aims.js), one seat token
// per table (it brings a reload or a dropped connection back to the same seat), and the
// player's profile: its public id and its secret (profile.js; the secret is sent only to
// the server, never shown), and the score keeper's sheets (keepapi.js: each sheet as last
// seen, its entries waiting to sync and an unresolved conflict; the sheets of this browser),
// and the secrets of the tournaments this browser hosts or entered (tournament.js).

const PREFIX = "ligretto.";

/**
 * The name fields' `maxlength`, which counts UTF-16 code units: the server's 64 code points
 * are at most 128 units, so every name the server accepts fits, whatever it is made of
 * (a subdivision flag such as England's is 7 code points and 14 units). The server checks
 * the name (24 characters as a person counts them, docs/protocol.md "Limits") and says
 * what is wrong.
 */
export const NAME_INPUT_MAX = 128;

function read(key) {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null; // storage disabled: the game still works, without coming back
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, value);
  } catch {
    // storage disabled or full: nothing to keep
  }
}

export const storage = {
  name: () => read("name") || "",
  setName: (name) => write("name", name),
  language: () => read("language"),
  setLanguage: (lang) => write("language", lang),
  muted: () => read("muted") === "true",
  setMuted: (muted) => write("muted", muted ? "true" : null),
  token: (code) => read(`seat.${code}`),
  setToken: (code, token) => write(`seat.${code}`, token),
  forgetToken: (code) => write(`seat.${code}`, null),
  playNowLevel: () => read("play_now_level"),
  setPlayNowLevel: (level) => write("play_now_level", level),
  aid: () => read("aid") === "on",
  setAid: (on) => write("aid", on ? "on" : null),
  aimShared: () => read("aim") === "on",
  setAimShared: (on) => write("aim", on ? "on" : null),
  profile: () => readProfile(),
  setProfile: ({ id, secret }) => write("profile", JSON.stringify({ id, secret })),
  forgetProfile: () => write("profile", null),
  keptSheet: (code) => readJson(`keep-${code}`),
  keepSheet: (code, kept) => write(`keep-${code}`, JSON.stringify(kept)),
  keptSheets: () => readJson("keep-sheets") || [],
  setKeptSheets: (list) => write("keep-sheets", JSON.stringify(list)),
  tournamentHost: (id) => read(`tournament-host.${id}`),
  setTournamentHost: (id, secret) => write(`tournament-host.${id}`, secret),
  tournamentEntrant: (id) => readJson(`tournament-entrant.${id}`),
  setTournamentEntrant: (id, entered) => write(`tournament-entrant.${id}`, JSON.stringify(entered)),
};

/** A kept JSON value, or null (none, or unreadable). */
function readJson(key) {
  try {
    return JSON.parse(read(key) || "null");
  } catch {
    return null;
  }
}

/** The kept profile, `{id, secret}`, or null (none, or something unreadable: forgotten). */
function readProfile() {
  try {
    const kept = JSON.parse(read("profile") || "null");
    if (kept && typeof kept.id === "string" && typeof kept.secret === "string" && kept.id && kept.secret) {
      return { id: kept.id, secret: kept.secret };
    }
  } catch {
    // not JSON: treated as no profile
  }
  return null;
}
