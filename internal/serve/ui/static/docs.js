// The docs, served by cairn from its binary (GET /api/v1/docs): the list, and one doc as text.

import { getJSON, getText } from "./api.js";
import { el } from "./dom.js";

export async function docsView(main, name) {
  if (!name) {
    const list = (await getJSON("/api/v1/docs")).docs;
    main.replaceChildren(el("section", { class: "item" }, el("h2", {}, "Docs"),
      el("ul", { id: "docs" }, list.map((n) => el("li", {}, el("a", { href: "#/docs/" + encodeURIComponent(n) }, n))))));
    return;
  }
  const text = await getText("/api/v1/docs/" + encodeURIComponent(name));
  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("h2", { class: "grow", id: "doc-name" }, name), el("a", { href: "#/docs" }, "all docs")),
    el("pre", { class: "doc", id: "doc" }, text)));
}
