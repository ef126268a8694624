// Small DOM helpers: build elements, show toasts, announce to screen readers.

/**
 * Build an element: h("button", {class: "x", onclick: fn, "aria-label": "..."}, child, ...).
 * Attributes starting with "on" become listeners; `dataset` takes an object; false/null
 * attributes are left out; children may be strings, nodes, arrays or null.
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      for (const [name, data] of Object.entries(value)) {
        if (data !== null && data !== undefined) element.dataset[name] = String(data);
      }
    } else if (key === "class") {
      element.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "style" && typeof value === "object") {
      Object.assign(element.style, value);
    } else if (key in element && typeof value !== "string") {
      element[key] = value;
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** How many characters of a name stay in view whatever its width: the end that tells
 *  "Smart bot 1" from "Smart bot 11" (a cut name reads "Smart b…t 11"). */
const NAME_TAIL = 4;

/**
 * A name that is cut in its middle, never at its end: the head shrinks with "…", the tail
 * (the last NAME_TAIL characters) always shows (app.css: .name-head, .name-tail, inside an
 * element that is a flex box).  Both are text only; together their text is the whole name.
 * The opponents' chips and the score sheet use it, each with the whole name for screen
 * readers elsewhere (the parts are for the eye).
 */
export function cutInMiddle(name) {
  const letters = Array.from(name);
  if (letters.length <= NAME_TAIL + 2) return [h("span", { class: "name-part name-tail" }, name)];
  return [
    h("span", { class: "name-part name-head" }, letters.slice(0, -NAME_TAIL).join("")),
    h("span", { class: "name-part name-tail" }, letters.slice(-NAME_TAIL).join("")),
  ];
}

/** Replace an element's children (null, false and arrays allowed, as in h()). */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * Make `nodes` the children of `parent`, touching only the places that differ: a child
 * that stays is never taken out of the page, so it keeps its scroll position and focus.
 */
export function setChildren(parent, nodes) {
  const keep = new Set(nodes);
  for (const child of [...parent.childNodes]) if (!keep.has(child)) child.remove();
  nodes.forEach((node, i) => {
    const current = parent.childNodes[i];
    if (current !== node) parent.insertBefore(node, current || null);
  });
}

const SVG = "http://www.w3.org/2000/svg";

/** An inline SVG that uses a symbol of the page's sprite (see index.html). */
export function icon(id, className = "icon") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#${id}`);
  svg.append(use);
  return svg;
}

/** A short message at the bottom of the screen (also read out by screen readers). */
export function toast(text, kind = "info", ms = 2600) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = h("div", { class: `toast toast-${kind}` }, text);
  box.append(item);
  setTimeout(() => item.remove(), ms);
}

/** Read a sentence out to screen readers at once. */
export function announce(text) {
  const region = document.getElementById("announce");
  if (!region) return;
  region.textContent = "";
  // A new text node in a fresh task makes screen readers notice a repeated sentence too.
  setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** True while the user is typing in a form field (keyboard shortcuts stay off then). */
export function typing(event) {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !["checkbox", "radio", "button", "submit", "range"].includes(target.type);
  }
  return false;
}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
