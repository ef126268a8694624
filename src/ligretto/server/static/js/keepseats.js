// Who is who on a score keeper's sheet (#/keep/CODE): each player with their back and
// whether a profile is linked to their seat.  A visitor with a profile says "This is me"
// on an open seat (their own profile, with its secret: docs/protocol.md "Seats and
// profiles") and "Not me" on their own; the sheet's creator may free another's seat
// until the match is over.  The server decides; the page shows the sheet it answers.

import { backBadge } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * The seats: `me` is this browser's profile id (null: none), `busy` the seat whose call
 * is on its way (its button disabled), `onLink(seat)` and `onUnlink(seat)` the calls.
 */
export function seatsView(sheet, players, { me, busy = null, onLink, onUnlink }) {
  const profiles = sheet.players.map((player) => player.profile ?? null);
  const seated = me !== null && profiles.includes(me);
  const creator = me !== null && sheet.creator === me && !sheet.over;
  const button = (id, seat, text, label, onclick) =>
    h("button", { type: "button", class: "small", id, "aria-label": label, disabled: busy !== null, onclick: () => onclick(seat) }, text);
  const actionOf = (profile, seat, name) => {
    if (me === null) return null;
    if (profile === me) return button(`keep-unlink-${seat}`, seat, t("keep.seats.unlink"), t("keep.seats.unlink_label", { name }), onUnlink);
    if (profile === null) return seated ? null : button(`keep-claim-${seat}`, seat, t("keep.seats.claim"), t("keep.seats.claim_label", { name }), onLink);
    return creator ? button(`keep-unlink-${seat}`, seat, t("keep.seats.free"), t("keep.seats.free_label", { name }), onUnlink) : null;
  };
  return h("section", { class: "panel keep-seats", id: "keep-seats", "aria-labelledby": "keep-seats-title" },
    h("h2", { id: "keep-seats-title" }, t("keep.seats.title")),
    me !== null && !seated ? h("p", { class: "help" }, t("keep.seats.help")) : null,
    h("ul", { class: "keep-roster" }, players.map((player, seat) => {
      const profile = profiles[seat];
      const state = profile === null ? "open" : profile === me ? "mine" : "linked";
      return h("li", { dataset: { seat, state } },
        backBadge(player.back), " ",
        h("span", { class: "sheet-name" }, player.name), " ",
        h("span", { class: ["keep-seat-state", state] }, profile === null ? t("keep.seats.open") : t(`keep.seats.${state}`)),
        actionOf(profile, seat, player.name),
      );
    })),
  );
}
