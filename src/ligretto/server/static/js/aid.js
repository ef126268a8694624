// The beginner aid (off by default, remembered per browser): your own cards that fit a
// center pile right now get the class `fits`, an outline and a small tick (board.js, with
// mirror.js's targetPile: the one "where does this card go" rule of the client).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { storage } from "./storage.js";

export function aidOn() {
  return storage.aid();
}

/** The aid's checkbox with its explanation; `onChange(on)` after it was switched. */
export function aidToggle(idPrefix, onChange = () => {}) {
  const id = `${idPrefix}-aid`;
  const input = h("input", {
    id,
    type: "checkbox",
    class: "aid-toggle",
    checked: aidOn(),
    "aria-describedby": `${id}-help`,
    onchange: () => {
      storage.setAid(input.checked);
      onChange(input.checked);
    },
  });
  return h("div", { class: "field field-check aid-field" },
    input,
    h("label", { for: id }, t("aid.label")),
    h("small", { class: "help", id: `${id}-help` }, t("aid.help")),
  );
}
