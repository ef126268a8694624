// The player's profile (docs/clients.md, "Profiles"): no password, a random secret the
// server hands out once and this browser keeps (storage.js), sent only to the server, in
// the `Authorization` header of the profile API (docs/protocol.md) and in every `hello`.
// Others see only the display name.  This module is the one client-side model of it:
// what the server last said of the profile, and every call that changes it.

import { ApiError, apiCall } from "./apicall.js";
import { BACK_SYMBOLS } from "./cards.js";
import { storage } from "./storage.js";

/** What a refused profile call says: the server's error code (or "offline"), its HTTP status. */
export class ProfileError extends ApiError {
  /** Whether the profile no longer exists for the server (deleted, or an unknown secret). */
  get gone() {
    return this.code === PROFILE_GONE || this.status === 401;
  }
}

/** The error code (of a `hello`, or 401 of the profile API) of a secret the server does not
 * know: the profile was deleted, or never made on this server (docs/protocol.md). */
export const PROFILE_GONE = "bad_profile";

/** A one-time code as typed or pasted: the bare code, or a claim link (".../#/claim/CODE"). */
export function claimCodeFrom(text) {
  const value = String(text || "").trim();
  const link = value.match(/#\/claim\/([A-Za-z0-9_-]+)/);
  if (link) return link[1];
  return /^[A-Za-z0-9_-]{4,64}$/.test(value) ? value : "";
}

/** The link that moves the profile to another device with a one-time code. */
export function claimLink(code) {
  return `${location.origin}/#/claim/${encodeURIComponent(code)}`;
}

/** Seconds as a countdown, "4:05" (never below 0:00). */
export function countdown(seconds) {
  const left = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** A back symbol for a new profile: any of the game's four, the player changes it later. */
export function anySymbol(random = Math.random) {
  return BACK_SYMBOLS[Math.floor(random() * BACK_SYMBOLS.length) % BACK_SYMBOLS.length];
}

const call = (method, path, options) => apiCall(method, path, options, ProfileError);

let current = null; // {id, name, symbol}: what the server last said of the kept profile
let loading = null; // the running `ensure`, so two screens never make two profiles
const listeners = new Set();

function remember(answer) {
  current = { id: answer.id, name: answer.name, symbol: answer.symbol };
  for (const listener of listeners) listener(current);
  return current;
}

function secret() {
  return storage.profile()?.secret ?? null;
}

/** Keep a profile the server answered with its secret (created or claimed). */
function keep(answer) {
  storage.setProfile({ id: answer.id, secret: answer.secret });
  return remember(answer);
}

/** Forget the kept profile (after it was deleted, or the server no longer knows it). */
export function forgetProfile() {
  storage.forgetProfile();
  current = null;
  for (const listener of listeners) listener(null);
}

export const profiles = {
  /** The profile as the server last described it (null: none, or not loaded yet). */
  current: () => current,
  /** The secret for `hello` (null: no profile kept). */
  secret,
  /** The kept profile's public id (null: none). */
  id: () => storage.profile()?.id ?? null,
  /** Call `listener(profile or null)` whenever it changes; returns the way to stop. */
  on(listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },

  /**
   * The kept profile, checked with the server, or a new one made with the name the
   * browser keeps (`fallbackName` when it keeps none) and any back symbol; a profile the
   * server no longer knows is forgotten and replaced.  Null when the server cannot be
   * reached (the game still works, without a profile).
   */
  ensure(fallbackName) {
    if (!loading) loading = load(fallbackName).finally(() => (loading = null));
    return loading;
  },

  /**
   * What a `hello` under `name` waits for before it goes: the profile being made, or
   * renamed to `name`; null when there is nothing to wait for.
   */
  ready(name, fallbackName) {
    if (loading) return loading.then(() => this.useName(name, fallbackName));
    if (name && secret() && current && current.name !== name) return this.useName(name, fallbackName);
    return null;
  },

  /** `PATCH /api/profiles/me` with `{name?, symbol?}`; the name becomes the one typed in. */
  async update(changes) {
    const answer = await authorised("PATCH", "/api/profiles/me", changes);
    if (changes.name !== undefined) storage.setName(answer.name);
    return remember(answer);
  },

  /**
   * Play under `name`: the profile is renamed when it is called otherwise.  A refused
   * name changes nothing here (the table refuses it too, and says why).  `fallbackName`
   * names a new profile should the server say this one is gone and the browser keeps no name.
   */
  async useName(name, fallbackName) {
    if (!name || !secret() || !current || current.name === name) return;
    try {
      await this.update({ name });
    } catch (error) {
      // Gone (deleted on another device): a new profile, under this name.  Any other
      // refusal: the table's own check of the name follows and explains it.
      if (error.gone) await this.ensure(fallbackName);
    }
  },

  /** `POST /api/profiles/me/link`: `{code, expires_s}`, a one-time code for another device. */
  link: () => authorised("POST", "/api/profiles/me/link"),

  /** `POST /api/profiles/claim`: this browser takes the profile of a one-time code. */
  async claim(code) {
    const answer = await call("POST", "/api/profiles/claim", { body: { code } });
    storage.setName(answer.name);
    return keep(answer);
  },

  /** `DELETE /api/profiles/me`, then the browser forgets it. */
  async remove() {
    await authorised("DELETE", "/api/profiles/me");
    forgetProfile();
  },

  /** Forget the profile and make a new one (the server said it is gone). */
  async renew(fallbackName) {
    forgetProfile();
    return this.ensure(fallbackName);
  },
};

/** A call with the kept secret; a profile the server says is gone is forgotten. */
async function authorised(method, path, body) {
  const kept = secret();
  if (!kept) throw new ProfileError("no_profile");
  try {
    return await call(method, path, { body, secret: kept });
  } catch (error) {
    if (error.gone) forgetProfile();
    throw error;
  }
}

async function load(fallbackName) {
  const kept = storage.profile();
  if (kept) {
    if (current && current.id === kept.id) return current;
    try {
      const answer = remember(await call("GET", "/api/profiles/me", { secret: kept.secret }));
      // A name chosen here follows the profile (renamed on another device, say).
      if (storage.name()) storage.setName(answer.name);
      return answer;
    } catch (error) {
      if (!error.gone) return null; // offline: keep it for later
      forgetProfile();
    }
  }
  return create(storage.name() || fallbackName, fallbackName);
}

async function create(name, fallbackName) {
  const symbol = anySymbol();
  try {
    return keep(await call("POST", "/api/profiles", { body: { name, symbol } }));
  } catch (error) {
    // A kept name the server no longer accepts: the profile starts with the default one.
    if (error.code !== "bad_name" || name === fallbackName) return null;
  }
  try {
    return keep(await call("POST", "/api/profiles", { body: { name: fallbackName, symbol } }));
  } catch {
    return null;
  }
}
