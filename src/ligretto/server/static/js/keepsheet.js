// The score keeper's sheet (#/keep/CODE): the score sheet, live on every phone at the
// table (keepapi.js's LiveSheet), near the top of the page; who is who, each player linking their own profile
// (keepseats.js); the share link with its QR code; entering the next round
// (keepentry.js), correcting any round, undo, the change history; a conflict to
// resolve; the entries waiting to sync; at the end the winners, the summary and the CSV.

import { h, setChildren, toast } from "./dom.js";
import { language, plural, t } from "./i18n.js";
import { LiveSheet, installApp, roundOf, seatProfile, sheetLink, sheetPath, undoable } from "./keepapi.js";
import { entryForm } from "./keepentry.js";
import { seatsView } from "./keepseats.js";
import { sheetErrorText } from "./keepstart.js";
import { changesView, conflictView, endingOf, playersOf, resultView, sheetView, summaryText, waitingView } from "./keepviews.js";
import { profiles } from "./profile.js";
import { rulesSummary } from "./rules.js";
import { NAME_INPUT_MAX, storage } from "./storage.js";

export class KeepSheetScreen {
  constructor(root, code) {
    this.root = root;
    this.code = code;
    this.editing = null; // the round being entered or corrected: {n, correcting, base, element}
    this.page = h("div", { class: "keep-page", id: "keep-page" });
    // Parts that live changes never draw again: a field being typed in keeps its focus, the
    // QR code is fetched once, the change history stays open.
    this.nameField = this.byField();
    this.shareSection = this.share();
    this.changesOpen = false;
    this.seating = null; // the seat whose link or unlink is on its way
    this.root.replaceChildren(this.page);
    this.live = new LiveSheet(code, { onChange: () => this.render() });
    this.offProfile = profiles.on(() => this.render()); // a profile made after the page opened
    this.render();
    installApp();
  }

  close() {
    this.live.close();
    this.offProfile();
  }

  /** Who this phone is in the change history. */
  by() {
    return storage.name() || profiles.current()?.name || t("keep.by.someone");
  }

  render() {
    const live = this.live;
    if (this.shownLanguage !== language()) {
      // The kept parts carry texts: made again in the new language.
      this.shownLanguage = language();
      this.nameField = this.byField();
      this.shareSection = this.share();
      const editing = this.editing;
      if (editing) editing.element = this.form(editing.n, editing.correcting, editing.base, editing.element.entry());
    }
    if (live.missing) {
      this.page.replaceChildren(h("section", { class: "panel", role: "alert" },
        h("h1", {}, t("keep.missing")), h("a", { class: "button", href: "#/keep" }, t("keep.new"))));
      return;
    }
    const sheet = live.sheet;
    if (!sheet) {
      this.page.replaceChildren(h("p", { class: "muted", role: "status" }, t("keep.loading")));
      return;
    }
    const players = playersOf(sheet);
    this.page.dataset.rounds = String(sheet.rounds.length);
    this.page.dataset.version = String(sheet.version ?? "");
    this.page.dataset.waiting = String(live.queue.length);
    this.page.dataset.over = String(Boolean(sheet.over));
    // The scores come early (above the fold on a 360x640 phone): a compact head with the
    // status, the round's buttons, then the sheet; what is seldom needed goes below it.
    const parts = [
      this.head(sheet),
      live.conflict ? conflictView(live.conflict, players, {
        onTheirs: () => live.resolve("theirs"), onMine: () => live.resolve("mine"),
      }) : null,
      live.refusal ? this.refusal(live.refusal) : null,
      this.editing ? this.editing.element : null,
      sheet.over ? resultView(sheet, players, { link: sheetLink(this.code), onCopy: () => this.copySummary(sheet, players), onShare: () => this.shareSummary(sheet, players) }) : null,
      this.editing ? null : this.actions(sheet),
      waitingView(live.queue, players),
      sheetView(sheet, players),
      seatsView(sheet, players, {
        me: profiles.secret() ? profiles.id() : null, busy: this.seating,
        onLink: (seat) => this.seat(seat, true), onUnlink: (seat) => this.seat(seat, false),
      }),
      this.roundsList(sheet, players),
      changesView(sheet.changes, players, { open: this.changesOpen, onToggle: (open) => (this.changesOpen = open) }),
      this.editing ? null : this.nameField,
      this.shareSection,
    ].filter(Boolean);
    setChildren(this.page, parts);
  }

  /** The title, the rules in a few words and whether this phone is live. */
  head(sheet) {
    return h("section", { class: "panel keep-head", "aria-labelledby": "keep-sheet-h1" },
      h("h1", { id: "keep-sheet-h1" }, t("keep.sheet.h1")),
      h("p", { class: "muted keep-rules" }, rulesSummary(sheet.rules)),
      this.status(),
    );
  }

  status() {
    const live = this.live;
    const waiting = live.queue.length;
    const text = waiting
      ? plural("keep.status.waiting", waiting, { n: waiting })
      : live.connected ? t("keep.status.live") : t("keep.status.offline");
    return h("p", { class: ["keep-status", live.connected ? "live" : "offline"], id: "keep-status", role: "status" }, text);
  }

  /** This phone's name in the change history (the browser's name). */
  byField() {
    const name = h("input", { type: "text", id: "keep-by", maxlength: NAME_INPUT_MAX, value: storage.name(), autocomplete: "nickname",
      onchange: () => storage.setName(name.value.trim()) });
    return h("div", { class: "panel field keep-by" }, h("label", { for: name.id }, t("keep.by")), name);
  }

  /** Enter the next round, undo the last change. */
  actions(sheet) {
    const appended = this.live.queue.filter((item) => item.kind === "entry" && item.base === null).map((item) => item.n);
    const next = Math.max(sheet.rounds.length, ...appended) + 1;
    return h("section", { class: "panel keep-actions", "aria-label": t("keep.actions") },
      sheet.over ? null : h("button", { type: "button", class: "primary big", id: "keep-enter", onclick: () => this.edit(next, null) },
        t("keep.enter", { n: next })),
      h("button", { type: "button", id: "keep-undo", disabled: !undoable(sheet), onclick: () => this.live.undo(this.by(), undoable(sheet)?.n) },
        t("keep.undo")),
    );
  }

  /** Link this browser's profile to `seat` (or unlink the seat's): the sheet the server answers. */
  async seat(seat, link) {
    this.seating = seat;
    this.render();
    try {
      this.live.take(await seatProfile(this.code, seat, link, profiles.secret()));
    } catch (error) {
      toast(sheetErrorText(error), "warn", 5000);
    } finally {
      this.seating = null;
      this.render();
    }
    this.root.querySelector(`#keep-seats li[data-seat="${seat}"] button`)?.focus({ preventScroll: true });
  }

  /** The server refused an entry: its words, and the entry back in the form to fix it. */
  refusal(refusal) {
    return h("div", { class: "panel keep-refusal", id: "keep-refusal", role: "alert" },
      h("p", {}, t("keep.refused", { n: refusal.n ?? "" }), " ", sheetErrorText(refusal)),
      refusal.entry && !this.editing
        ? h("button", { type: "button", id: "keep-refusal-fix", onclick: () => {
            this.live.refusal = null;
            this.edit(refusal.n, refusal.base !== null, { entry: refusal.entry, base: refusal.base });
          } }, t("keep.refused.fix"))
        : null,
    );
  }

  /** The form of round `n`: a new one (`base` null) or a correction of the version seen
   * (`again`: a refused entry's counts and base, to fix and send again). */
  edit(n, correcting, again = null) {
    const round = again ?? (correcting ? roundOf(this.live.sheet, n) : null);
    const base = again ? again.base : round ? round.version : null;
    this.editing = { n, correcting, base, element: this.form(n, correcting, base, round?.entry ?? null) };
    this.render();
    this.editing.element.scrollIntoView({ block: "start" });
    this.editing.element.querySelector("button")?.focus({ preventScroll: true });
  }

  form(n, correcting, base, entry) {
    const sheet = this.live.sheet;
    return entryForm({
      players: playersOf(sheet),
      firstOut: sheet.rules.scoring === "first_out",
      entry,
      title: t(correcting ? "keep.correct.title" : "keep.enter", { n }),
      onSave: (saved) => {
        this.editing = null;
        this.live.enter(n, saved, base, this.by());
        this.root.querySelector("#keep-enter, #keep-undo")?.focus({ preventScroll: true });
      },
      onCancel: () => {
        this.editing = null;
        this.render();
      },
    });
  }

  /** Every round with its Correct button. */
  roundsList(sheet, players) {
    if (!sheet.rounds.length) return null;
    return h("section", { class: "panel keep-round-list", "aria-labelledby": "keep-list-title" },
      h("h2", { id: "keep-list-title" }, t("keep.rounds")),
      h("ol", {}, sheet.rounds.map((_, i) => {
        const round = roundOf(sheet, i + 1);
        return h("li", { dataset: { round: i + 1 } },
          h("span", {}, h("strong", {}, t("sheet.round", { n: i + 1 })), " · ", endingOf(round.entry, players)), " ",
          h("button", { type: "button", class: "small", id: `keep-correct-${i + 1}`, onclick: () => this.edit(i + 1, true) },
            t("keep.correct", { n: i + 1 })),
        );
      })),
    );
  }

  /** The share link, Copy / Share, the QR code (the server draws it), the CSV. */
  share() {
    const link = sheetLink(this.code);
    const qr = h("figure", { class: "invite-qr", hidden: true },
      h("img", { id: "keep-qr", src: `${sheetPath(this.code)}/qr.svg`, alt: t("keep.share.qr"), width: 200, height: 200,
        onload: () => (qr.hidden = false), onerror: () => qr.remove() }),
      h("figcaption", { class: "help" }, t("keep.share.qr.caption")));
    return h("section", { class: "panel keep-share", "aria-labelledby": "keep-share-title" },
      h("h2", { id: "keep-share-title" }, t("keep.share")),
      h("p", { class: "link-url" }, h("a", { id: "keep-link", href: link }, link)),
      h("div", { class: "inline" },
        h("button", { type: "button", id: "keep-copy-link", onclick: () => this.copy(link, t("keep.share.copied")) }, t("keep.share.copy")),
        navigator.share ? h("button", { type: "button", id: "keep-share-link", onclick: () => this.shareLink(link) }, t("keep.share.share")) : null,
        h("a", { class: "button", id: "keep-csv", href: `${sheetPath(this.code)}/csv`, download: `ligretto-${this.code}.csv` }, t("keep.csv")),
      ),
      qr,
    );
  }

  async copy(text, done) {
    try {
      await navigator.clipboard.writeText(text);
      toast(done, "ok");
    } catch {
      toast(text, "info", 6000);
    }
  }

  async shareLink(link) {
    try {
      await navigator.share({ title: t("keep.sheet.h1"), url: link });
    } catch {
      // the person closed the share sheet
    }
  }

  copySummary(sheet, players) {
    this.copy(summaryText(sheet, players, sheetLink(this.code)), t("keep.summary.copied"));
  }

  async shareSummary(sheet, players) {
    try {
      await navigator.share({ title: t("match.over"), text: summaryText(sheet, players, sheetLink(this.code)) });
    } catch {
      // closed
    }
  }
}

