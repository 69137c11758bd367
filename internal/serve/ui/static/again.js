// Run again and Edit and run again, from a finished job or a stored result. Run again posts the
// same spec as a new job; Edit and run again opens the New job page with it (#/new?from=job/ID or
// #/new?from=result/ID, which the router reads with specFrom and hands to the form).

import { getJSON, postJSON } from "./api.js";
import { el } from "./dom.js";

// specFrom is what a job or a stored result ran with, {kind, spec}: the job's spec as it was
// posted, or the result's as cairn results show --spec prints it (passwords stay ${VAR}).
export async function specFrom(from) {
  const at = from.indexOf("/");
  const what = at < 0 ? from : from.slice(0, at);
  const id = at < 0 ? "" : from.slice(at + 1);
  if (what === "job" && id) {
    const j = await getJSON("/api/v1/jobs/" + encodeURIComponent(id));
    return { kind: j.kind, spec: j.spec };
  }
  if (what === "result" && id) {
    const r = await getJSON("/api/v1/results/" + encodeURIComponent(id) + "/spec");
    return { kind: r.kind, spec: r.spec };
  }
  throw new Error("from=" + from + ": name a job (from=job/ID) or a result (from=result/ID)");
}

// againButtons are the two buttons for from ("job/ID" or "result/ID"); problem is where a refusal
// is told. A cleanup is only edited, never run again in one click: the form names what it would
// drop and asks first.
export function againButtons(from, kind, problem) {
  const edit = el("button", { type: "button", id: "edit-again" }, "Edit and run again");
  edit.addEventListener("click", () => { location.hash = "#/new?from=" + from; });
  if (kind === "cleanup") { return [edit]; }
  const run = el("button", { type: "button", id: "run-again" }, "Run again");
  run.addEventListener("click", async () => {
    run.disabled = true;
    try {
      const s = await specFrom(from);
      const job = await postJSON("/api/v1/jobs", { kind: s.kind, spec: s.spec });
      location.hash = "#/jobs/" + encodeURIComponent(job.id);
    } catch (e) {
      problem.textContent = e.message;
      run.disabled = false;
    }
  });
  return [run, edit];
}
