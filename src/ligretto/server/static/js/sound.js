// Short sounds for what happens at the table, made on the spot with the Web Audio API
// (oscillators under gain envelopes: no audio files), and a buzz on refusal where the
// device can vibrate.  Browsers allow sound only after the person has interacted with the
// page, so nothing is made before the first pointerdown or keydown: that gesture creates
// (or resumes) the AudioContext.  Muting (remembered in the browser) silences both.

import { h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { storage } from "./storage.js";

/**
 * Each cue is a few notes: [frequency in Hz, start in s, length in s, wave, peak gain].
 * Every frequency is used by one cue only, so a recording of the notes tells the cues apart.
 */
export const CUES = {
  play: [[880, 0, 0.07, "triangle", 0.22], [1318.5, 0.05, 0.09, "triangle", 0.16]], // a light "tock-tick" up
  refused: [[233.1, 0, 0.11, "sawtooth", 0.14], [174.6, 0.09, 0.16, "sawtooth", 0.12]], // a low "uh-oh" down
  tick: [[659.3, 0, 0.06, "sine", 0.3]], // one countdown second
  go: [[523.3, 0, 0.09, "square", 0.12], [784, 0.08, 0.22, "square", 0.12]], // "Ligretto!"
  stop: [[987.8, 0, 0.11, "square", 0.12], [740, 0.11, 0.11, "square", 0.12], [493.9, 0.22, 0.32, "square", 0.14]], // the round stops
};
const VIBRATION_MS = [70, 50, 70];

let unlocked = false; // the person has interacted with the page
let context = null;

/** Listen for the first gesture (and later ones: a suspended context is resumed). */
function listen() {
  const gesture = () => {
    unlocked = true;
    if (!storage.muted()) audio();
  };
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, gesture, { capture: true, passive: true });
}
listen();

/** The AudioContext, made after the first gesture only; `null` where there is none. */
function audio() {
  if (!unlocked) return null;
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    try {
      context = new Context();
    } catch {
      return null;
    }
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

export function muted() {
  return storage.muted();
}

export function setMuted(value) {
  storage.setMuted(value);
}

/** Play a cue (a key of CUES) unless muted or before the first gesture; whether it sounded. */
export function play(cue) {
  const notes = CUES[cue];
  if (!notes || muted()) return false;
  const ctx = audio();
  if (!ctx) return false;
  const start = ctx.currentTime + 0.01;
  for (const [frequency, at, length, wave, peak] of notes) {
    const oscillator = ctx.createOscillator();
    const gain = ctx.createGain();
    oscillator.type = wave;
    oscillator.frequency.value = frequency;
    const from = start + at;
    gain.gain.setValueAtTime(0.0001, from);
    gain.gain.exponentialRampToValueAtTime(peak, from + 0.012);
    gain.gain.exponentialRampToValueAtTime(0.0001, from + length);
    oscillator.connect(gain).connect(ctx.destination);
    oscillator.start(from);
    oscillator.stop(from + length + 0.02);
  }
  return true;
}

/** A short buzz (a refusal) where the device vibrates; not while muted. */
export function buzz() {
  if (muted() || typeof navigator.vibrate !== "function") return false;
  try {
    return navigator.vibrate(VIBRATION_MS);
  } catch {
    return false;
  }
}

/** A speaker, with sound waves or (muted) crossed out: a symbol of the page, no font needed. */
function speaker(isMuted) {
  return icon(isMuted ? "sym-muted" : "sym-sound", "mute-icon");
}

/** The mute toggle of the table bar (`aria-pressed`: muted). */
export function muteButton() {
  const button = h("button", {
    type: "button",
    class: "ghost mute-button",
    id: "mute-button",
    title: t("sound.mute.help"),
    "aria-pressed": muted() ? "true" : "false",
    onclick: () => {
      setMuted(!muted());
      button.setAttribute("aria-pressed", muted() ? "true" : "false");
      button.querySelector(".mute-icon").replaceWith(speaker(muted()));
    },
  }, speaker(muted()), " ", h("span", { class: "mute-label" }, t("sound.mute")));
  return button;
}
