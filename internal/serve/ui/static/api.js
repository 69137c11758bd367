// The server's API as the UI uses it: every request carries the token when the server asks for
// one, and events are read with fetch rather than EventSource, which cannot send a header.

const tokenKey = "cairn-token";

export class APIError extends Error {
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field || "";
  }
}

let asking = null;

// askToken shows the token dialog once, however many requests were refused at the same time; the
// token is kept when the form is submitted, before the dialog closes, so that no request sent
// meanwhile goes without it. The dialog stays until a token is given: nothing works without one.
function askToken(problem) {
  if (asking) { return asking; }
  asking = new Promise((resolve) => {
    const dialog = document.getElementById("token-dialog");
    const form = document.getElementById("token-form");
    const input = document.getElementById("token-input");
    document.getElementById("token-problem").textContent = problem;
    input.value = "";
    const given = (ev) => {
      ev.preventDefault();
      const t = input.value.trim();
      input.value = "";
      if (!t) { return; }
      sessionStorage.setItem(tokenKey, t);
      form.removeEventListener("submit", given);
      dialog.removeEventListener("cancel", refuse);
      asking = null;
      dialog.close();
      resolve();
    };
    const refuse = (ev) => ev.preventDefault();
    form.addEventListener("submit", given);
    dialog.addEventListener("cancel", refuse);
    dialog.showModal();
  });
  return asking;
}

// request is fetch with the token; a 401 asks for the token and tries again.
export async function request(path, options = {}) {
  for (;;) {
    const headers = new Headers(options.headers || {});
    const token = sessionStorage.getItem(tokenKey);
    if (token) { headers.set("Authorization", "Bearer " + token); }
    const resp = await fetch(path, { ...options, headers, cache: "no-store" });
    if (resp.status !== 401) { return resp; }
    sessionStorage.removeItem(tokenKey);
    await askToken(token ? "The server refused that token." : "");
  }
}

async function failure(resp) {
  let body = null;
  try { body = await resp.json(); } catch (e) { /* not JSON: the status says it */ }
  return new APIError(resp.status, (body && body.error) || resp.status + " " + resp.statusText, body && body.field);
}

export async function getJSON(path) {
  const resp = await request(path);
  if (!resp.ok) { throw await failure(resp); }
  return resp.json();
}

export async function postJSON(path, body) {
  const resp = await request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!resp.ok) { throw await failure(resp); }
  return resp.json();
}

export async function getText(path) {
  const resp = await request(path);
  if (!resp.ok) { throw await failure(resp); }
  return resp.text();
}

// events reads a text/event-stream and calls onEvent(name, data) for each event, data parsed
// from JSON; it resolves when the server ends the stream, rejects when it cannot be read.
export async function events(path, onEvent, signal) {
  const resp = await request(path, { signal, headers: { Accept: "text/event-stream" } });
  if (!resp.ok) { throw await failure(resp); }
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let name = "message";
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) { return; }
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      let line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.endsWith("\r")) { line = line.slice(0, -1); }
      if (line === "") {
        if (data.length) {
          let parsed = data.join("\n");
          try { parsed = JSON.parse(parsed); } catch (e) { /* a plain text event */ }
          onEvent(name, parsed);
        }
        name = "message";
        data = [];
      } else if (line.startsWith(":")) {
        // a comment: the server's keep-alive
      } else {
        const colon = line.indexOf(":");
        const key = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) { val = val.slice(1); }
        if (key === "event") { name = val; } else if (key === "data") { data.push(val); }
      }
    }
  }
}
