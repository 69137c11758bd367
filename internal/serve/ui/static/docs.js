// The docs, served by cairn from its binary (GET /api/v1/docs): the list, and one doc rendered
// by the server from its Markdown (raw HTML in a doc is left out there). Links between docs stay
// in the page (#/docs/NAME?at=ANCHOR); a link into the repository's code, which the binary does
// not hold, is shown as text.

import { getJSON, getText } from "./api.js";
import { el } from "./dom.js";

export async function docsView(main, name, query) {
  if (!name) {
    const list = (await getJSON("/api/v1/docs")).docs;
    main.replaceChildren(el("section", { class: "item" }, el("h2", {}, "Docs"),
      el("ul", { id: "docs" }, list.map((n) => el("li", {}, el("a", { href: "#/docs/" + encodeURIComponent(n) }, n))))));
    return;
  }
  const html = await getText("/api/v1/docs/" + encodeURIComponent(name) + "?format=html");
  const doc = el("div", { class: "doc", id: "doc", "data-doc": name });
  doc.innerHTML = html; // the server's rendering of cairn's own docs, its raw HTML left out
  const at = (frag) => {
    const target = frag && document.getElementById(decodeURIComponent(frag));
    if (target) { target.scrollIntoView(); } else { window.scrollTo(0, 0); }
  };
  doc.querySelectorAll("a[href]").forEach((a) => {
    const href = a.getAttribute("href");
    const m = href.match(/^([\w.-]+\.md)?(?:#(.*))?$/);
    if (/^https?:/.test(href)) {
      a.target = "_blank";
      a.rel = "noopener noreferrer";
    } else if (m && !m[1]) {
      a.addEventListener("click", (ev) => { ev.preventDefault(); at(m[2]); });
    } else if (m) {
      a.setAttribute("href", "#/docs/" + encodeURIComponent(m[1]) + (m[2] ? "?at=" + encodeURIComponent(m[2]) : ""));
    } else {
      a.replaceWith(el("code", { title: "in cairn's repository" }, a.textContent));
    }
  });
  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("span", { class: "grow notes", id: "doc-name" }, name), el("a", { href: "#/docs" }, "all docs")),
    doc));
  at(query && query.get("at"));
}
