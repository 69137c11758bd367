// The UI's router: the hash names the view (#/jobs, #/jobs/ID, #/new, #/new?from=job/ID or
// #/new?from=result/ID, #/results, #/results/ID, #/compare?ids=1,2), so that each view has an
// address to reload or share.

import { jobList, jobView } from "./jobs.js";
import { newJob } from "./form.js";
import { resultList, resultView, compareView } from "./results.js";
import { specFrom } from "./again.js";
import { el } from "./dom.js";
import { docsView } from "./docs.js";

const main = document.getElementById("main");
let current = null;

function navigate(hash) {
  if (location.hash === hash) { route(); } else { location.hash = hash; }
}

async function route() {
  if (current) { current.abort(); }
  const ctl = new AbortController();
  current = ctl;
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, qs] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(qs || "");
  const section = parts[0] || "jobs";
  document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("on", a.dataset.nav === section));
  try {
    if (section === "jobs" && parts[1]) {
      await jobView(main, parts[1], ctl.signal);
    } else if (section === "new") {
      // #/new?from=job/ID or from=result/ID: the form opens with that spec (Edit and run again)
      const preset = query.get("from") ? await specFrom(query.get("from")) : null;
      if (ctl.signal.aborted) { return; }
      await newJob(main, navigate, preset);
    } else if (section === "docs") {
      await docsView(main, parts[1], query);
    } else if (section === "results" && parts[1]) {
      await resultView(main, parts[1], ctl.signal);
    } else if (section === "results") {
      await resultList(main, query, ctl.signal);
    } else if (section === "compare") {
      await compareView(main, query, ctl.signal);
    } else {
      await jobList(main, ctl.signal);
    }
  } catch (e) {
    if (ctl.signal.aborted) { return; }
    main.replaceChildren(el("section", { class: "item" }, el("p", { class: "warn", id: "problem" }, e.message)));
  }
}

window.addEventListener("hashchange", route);
route();
