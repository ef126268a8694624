// The profile page (#/profile): the display name (rename), the back symbol, "Use on another
// device" (a one-time code with its countdown and its claim link), taking a profile with a
// code from another device, and deleting the profile.  And the claim screen
// (#/claim/CODE): this browser takes the profile of a one-time code.

import { BACK_SYMBOLS } from "./cards.js";
import { fill, h, icon, toast } from "./dom.js";
import { has, t } from "./i18n.js";
import { claimCodeFrom, claimLink, countdown, profiles } from "./profile.js";
import { NAME_INPUT_MAX } from "./storage.js";

/** The words of a refused profile call, in the page's language. */
export function profileErrorText(error) {
  const code = error?.code || "generic";
  if (code === "offline") return t("net.offline");
  if (has(`error.${code}`)) return t(`error.${code}`);
  return error?.message && error.message !== code ? error.message : t("error.generic");
}

export class ProfilePage {
  constructor(root) {
    this.root = root;
    this.closed = false;
    this.deleted = false;
    this.link = null; // the one-time code shown: {code, deadline (performance.now ms)}
    this.timer = null;
    this.qr = null; // the one-time code's QR code: {code, url (an object URL of its SVG)}
    // Drawn again when a profile comes or goes, not when it changes (the focus stays put).
    this.shown = profiles.current()?.id ?? null;
    this.stop = profiles.on((profile) => {
      if ((profile?.id ?? null) === this.shown) return;
      this.shown = profile?.id ?? null;
      this.render();
    });
    this.render();
    if (!profiles.current()) profiles.ensure(t("lobby.play_now.default_name"));
  }

  close() {
    this.closed = true;
    this.stop();
    clearInterval(this.timer);
    if (this.qr) URL.revokeObjectURL(this.qr.url);
  }

  render() {
    if (this.closed) return;
    const profile = profiles.current();
    const page = h("div", { class: "profile-page" });
    if (!profile) page.append(this.noProfile());
    else page.append(this.identity(profile), this.devicePanel());
    page.append(this.claimPanel());
    if (profile) page.append(this.deletePanel());
    this.root.replaceChildren(page);
    this.renderLink();
  }

  /** No profile here: just deleted, or the server could not be reached. */
  noProfile() {
    return h("section", { class: "panel", id: "no-profile", "aria-labelledby": "profile-title" },
      h("h1", { id: "profile-title" }, t("profile.title")),
      h("p", { role: "status" }, this.deleted ? t("profile.deleted") : t("profile.none")),
      h("button", {
        type: "button",
        class: "primary",
        id: "profile-create",
        onclick: async () => {
          this.deleted = false;
          const made = await profiles.ensure(t("lobby.play_now.default_name"));
          if (!made) toast(t("net.offline"), "warn");
        },
      }, t("profile.create")),
    );
  }

  /** The name and the back symbol: all that others may see of a profile is the name. */
  identity(profile) {
    const input = h("input", {
      id: "profile-name",
      type: "text",
      maxlength: NAME_INPUT_MAX,
      autocomplete: "nickname",
      value: profile.name,
      required: true,
    });
    const form = h("form", {
      class: "profile-name-form",
      onsubmit: async (event) => {
        event.preventDefault();
        const name = input.value.trim();
        if (!name || name === profiles.current()?.name) return;
        try {
          await profiles.update({ name });
          toast(t("profile.renamed", { name }), "ok");
        } catch (error) {
          toast(profileErrorText(error), "warn");
          input.focus();
        }
      },
    },
    h("label", { for: input.id }, t("profile.name")),
    h("div", { class: "inline" }, input, h("button", { type: "submit", class: "primary", id: "profile-rename" }, t("profile.rename"))),
    h("small", { class: "help" }, t("profile.name.help")));

    const symbols = h("fieldset", { class: "symbol-choices", id: "profile-symbol" },
      h("legend", {}, t("profile.symbol")),
      BACK_SYMBOLS.map((symbol) => h("label", { class: "symbol-choice", for: `profile-symbol-${symbol}` },
        h("input", {
          type: "radio",
          name: "profile-symbol",
          id: `profile-symbol-${symbol}`,
          value: symbol,
          checked: symbol === profile.symbol,
          onchange: () => this.chooseSymbol(symbol),
        }),
        h("span", { class: "symbol-mark", "aria-hidden": "true" }, icon(`back-${symbol}`, "symbol-icon")),
        h("span", {}, t(`symbol.${symbol}`)),
      )),
    );
    return h("section", { class: "panel profile-identity", "aria-labelledby": "profile-title" },
      h("h1", { id: "profile-title" }, t("profile.title")),
      h("p", {}, t("profile.intro")),
      form,
      symbols,
      h("p", {}, h("a", { href: "#/history", id: "profile-history" }, t("history.title"))),
    );
  }

  async chooseSymbol(symbol) {
    try {
      await profiles.update({ symbol });
      toast(t("profile.symbol.saved", { symbol: t(`symbol.${symbol}`) }), "ok");
    } catch (error) {
      toast(profileErrorText(error), "warn");
      this.render();
    }
  }

  // --- another device ---------------------------------------------------------------

  devicePanel() {
    this.linkBox = h("div", { class: "link-box", id: "link-box" });
    return h("section", { class: "panel", "aria-labelledby": "device-title" },
      h("h2", { id: "device-title" }, t("profile.device")),
      h("p", {}, t("profile.device.help")),
      h("button", { type: "button", id: "link-button", onclick: () => this.makeLink() }, t("profile.device.button")),
      this.linkBox,
    );
  }

  async makeLink() {
    try {
      const answer = await profiles.link();
      this.link = { code: answer.code, deadline: performance.now() + answer.expires_s * 1000 };
    } catch (error) {
      toast(profileErrorText(error), "warn");
      return;
    }
    this.renderLink();
  }

  /** The code, big, with its countdown (once a second) and its claim link. */
  renderLink() {
    clearInterval(this.timer);
    if (!this.linkBox || !this.link) return;
    const { code } = this.link;
    const expiry = h("p", { id: "link-expiry", class: "link-expiry" });
    const url = claimLink(code);
    fill(this.linkBox,
      h("p", { class: "link-code", id: "link-code", "aria-label": t("profile.device.code", { code: code.split("").join(" ") }) }, code),
      expiry,
      h("p", { class: "link-url" }, h("a", { id: "link-url", href: url }, url)),
      h("button", { type: "button", class: "ghost small", onclick: () => this.copy(url) }, t("profile.device.copy")),
      this.qrFigure(code),
    );
    const tick = () => {
      const left = (this.link.deadline - performance.now()) / 1000;
      if (left <= 0) {
        clearInterval(this.timer);
        this.linkBox.classList.add("expired");
        this.linkBox.querySelector(".link-qr")?.remove(); // nothing left to scan
        expiry.textContent = t("profile.device.expired");
        return;
      }
      expiry.textContent = t("profile.device.expires", { time: countdown(left) });
    };
    this.linkBox.classList.remove("expired");
    tick();
    this.timer = setInterval(tick, 1000);
  }

  /**
   * The claim link as a QR code for the other device's camera.  The server draws it
   * (`POST /api/profiles/claim/qr.svg`, the code in the body: no address carries it);
   * without it the link and the code are there all the same.
   */
  qrFigure(code) {
    const figure = h("figure", { class: "invite-qr link-qr", hidden: true });
    const show = async () => {
      if (!this.qr || this.qr.code !== code) {
        if (this.qr) URL.revokeObjectURL(this.qr.url);
        this.qr = null;
        const response = await fetch("/api/profiles/claim/qr.svg", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ code }),
        });
        if (!response.ok) return;
        this.qr = { code, url: URL.createObjectURL(await response.blob()) };
      }
      if (this.closed || !figure.isConnected) return;
      fill(figure,
        h("img", { id: "link-qr", src: this.qr.url, alt: t("profile.device.qr.alt"), width: 200, height: 200 }),
        h("figcaption", { class: "help" }, t("profile.device.qr.caption")));
      figure.hidden = false;
    };
    show().catch(() => {}); // offline: the link and the code are enough
    return figure;
  }

  async copy(url) {
    try {
      await navigator.clipboard.writeText(url);
      toast(t("profile.device.copied"), "ok");
    } catch {
      toast(url, "info", 6000);
    }
  }

  /** A code made on another device: this browser then uses that profile. */
  claimPanel() {
    const input = h("input", { id: "claim-code", type: "text", autocomplete: "one-time-code", spellcheck: false, autocapitalize: "off" });
    return h("section", { class: "panel", "aria-labelledby": "claim-title" },
      h("h2", { id: "claim-title" }, t("profile.claim")),
      h("form", {
        onsubmit: (event) => {
          event.preventDefault();
          const code = claimCodeFrom(input.value);
          if (!code) {
            toast(t("profile.claim.bad"), "warn");
            input.focus();
            return;
          }
          location.hash = `#/claim/${code}`;
        },
      },
      h("label", { for: input.id }, t("profile.claim.label")),
      h("div", { class: "inline" }, input, h("button", { type: "submit", id: "claim-button" }, t("profile.claim.button"))),
      h("small", { class: "help" }, t("profile.claim.help"))),
    );
  }

  // --- deleting ---------------------------------------------------------------------

  deletePanel() {
    return h("section", { class: "panel danger-zone", "aria-labelledby": "delete-title" },
      h("h2", { id: "delete-title" }, t("profile.delete")),
      h("p", {}, t("profile.delete.help")),
      h("button", { type: "button", class: "danger", id: "delete-button", onclick: () => this.confirmDelete() }, t("profile.delete.button")),
    );
  }

  confirmDelete() {
    const dialog = h("dialog", { class: "help-dialog", id: "delete-dialog", "aria-labelledby": "delete-dialog-title", "aria-describedby": "delete-dialog-text" },
      h("h2", { id: "delete-dialog-title" }, t("profile.delete.confirm")),
      h("p", { id: "delete-dialog-text" }, t("profile.delete.help")),
      h("form", { method: "dialog", class: "inline" },
        h("button", { value: "cancel", class: "primary", id: "delete-cancel", autofocus: true }, t("profile.delete.cancel")),
        h("button", { value: "delete", class: "danger", id: "delete-confirm" }, t("profile.delete.really")),
      ),
    );
    dialog.addEventListener("close", async () => {
      dialog.remove();
      if (dialog.returnValue === "delete") await this.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  }

  async remove() {
    try {
      await profiles.remove();
    } catch (error) {
      toast(profileErrorText(error), "warn");
      return;
    }
    this.deleted = true;
    this.link = null;
    toast(t("profile.deleted"), "ok");
    this.render();
  }
}

/** #/claim/CODE: this browser takes the profile of a one-time code made on another device. */
export class ClaimScreen {
  constructor(root, code) {
    this.root = root;
    this.code = code;
    this.closed = false;
    this.result = null; // {error}: the claim was refused (a claimed profile opens the profile page)
    this.render();
    this.claim();
  }

  close() {
    this.closed = true;
  }

  async claim() {
    try {
      const profile = await profiles.claim(this.code);
      if (this.closed) return;
      // On to the profile page, in place of the claim's address: a reload is no second claim.
      toast(t("claim.done", { name: profile.name }), "ok", 5000);
      location.replace("#/profile");
    } catch (error) {
      this.result = { error };
      this.render();
    }
  }

  render() {
    if (this.closed) return;
    const result = this.result;
    let body;
    if (!result) body = h("p", { class: "muted", role: "status" }, t("claim.working"));
    else {
      body = h("div", { role: "alert", id: "claim-error", dataset: { code: result.error.code } },
        h("p", {}, profileErrorText(result.error)),
        h("p", { class: "inline" },
          h("a", { class: "button primary", href: "#/profile" }, t("claim.profile")),
          h("a", { class: "button", href: "#/" }, t("claim.lobby"))));
    }
    this.root.replaceChildren(h("section", { class: "panel claim-screen", "aria-labelledby": "claim-screen-title" },
      h("h1", { id: "claim-screen-title" }, t("claim.title")), body));
  }
}
