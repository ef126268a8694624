// The rules page: the rule book in the current language, as the server renders it
// (GET /api/rules/{lang}: HTML from src/ligretto/rulebook/<lang>.md).

import { h } from "./dom.js";
import { language, t } from "./i18n.js";

export class RulesPage {
  constructor(root) {
    this.root = root;
    this.render();
  }

  async render() {
    const lang = language();
    const article = h("article", { class: "panel rulebook", id: "rulebook", lang, "aria-busy": "true" },
      h("p", { class: "muted" }, t("rules.loading")));
    const learn = h("p", { class: "rules-learn" }, h("a", { class: "button", href: "#/learn", id: "rules-learn" }, t("tutorial.rules")));
    this.root.replaceChildren(h("div", { class: "rules-page" }, learn, article));
    try {
      const response = await fetch(`/api/rules/${lang}`);
      if (!response.ok) throw new Error(String(response.status));
      const html = await response.text();
      if (lang !== language()) return; // switched meanwhile: the newer render wins
      // Our own server renders our own rule book, with raw HTML disabled.
      article.innerHTML = html;
    } catch {
      article.replaceChildren(h("p", { role: "alert" }, t("rules.unavailable")));
    }
    article.removeAttribute("aria-busy");
  }

  close() {}
}
