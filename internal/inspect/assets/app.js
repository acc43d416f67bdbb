// a2a inspect: the page. Plain JavaScript, no framework: it talks to the
// inspector's own API (same origin, session token in a header) and never
// to the agent directly.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const state = {
  card: null,          // the public card (v1.0 ProtoJSON)
  document: "",        // the card as served
  showDocument: false,
  conversation: { taskId: "", contextId: "", waiting: "" }, // waiting: the interrupted state the next message answers
  tasks: new Map(),    // taskId -> {el, artifacts: Map(artifactId -> {el, parts})}
  wireCount: 0,
};

// ---- helpers --------------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function setStatus(text, isError) {
  const s = $("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!isError);
}

async function api(path, body) {
  const resp = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: Object.assign({ "X-A2A-Inspect-Token": token }, body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try { data = await resp.json(); } catch (e) { data = { error: { message: resp.status + " " + resp.statusText } }; }
  return data;
}

function pretty(v) {
  try { return JSON.stringify(typeof v === "string" ? JSON.parse(v) : v, null, 2); } catch (e) { return String(v); }
}

function shortState(s) {
  return (s || "").replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-") || "unknown";
}

function via() {
  return { interface: Number($("iface").value || 0), version: $("version").value };
}

function errorBox(err) {
  const box = el("div", { class: "error-box" });
  box.append(el("strong", { text: err.code ? err.code + ": " : "Error: " }), err.message || "");
  for (const v of err.violations || []) box.append(el("div", { class: "violation", text: v.field + ": " + v.description }));
  for (const [k, v] of Object.entries(err.metadata || {})) box.append(el("div", { class: "meta", text: k + ": " + v }));
  return box;
}

// call makes one unary A2A call through the inspector.
async function call(operation, request, extensions) {
  return api("/api/call", Object.assign(via(), { operation, request, extensions: extensions || [] }));
}

// stream makes one streaming call; onLine gets each NDJSON object.
async function stream(operation, request, extensions, onLine) {
  const resp = await fetch("/api/call", {
    method: "POST",
    headers: { "X-A2A-Inspect-Token": token, "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign(via(), { operation, request, extensions: extensions || [] })),
  });
  if (!resp.ok || !resp.body) {
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: { message: resp.status + " " + resp.statusText } }; }
    onLine(data);
    return;
  }
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line));
    }
  }
}

// ---- tabs -----------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === "tab-" + name);
}

// ---- card -----------------------------------------------------------------

async function openCard(url) {
  setStatus("Fetching the card of " + url + " …");
  const data = await api("/api/card", { url });
  if (data.error) {
    setStatus("Card: " + data.error.message, true);
    return;
  }
  state.card = JSON.parse(typeof data.card === "string" ? data.card : JSON.stringify(data.card));
  state.document = data.document || "";
  history.replaceState(null, "", "?token=" + encodeURIComponent(token) + "#" + encodeURIComponent(url));
  renderCard(data);
  renderInterfaces();
  renderSkillForms();
  renderAuthSchemes();
  setStatus("Card of " + (state.card.name || url) + " loaded.");
}

function renderCard(data) {
  $("card-empty").hidden = true;
  $("card-view").hidden = false;
  $("card-summary").replaceChildren(cardSummary(state.card));
  renderChecks($("checks"), data.checks || []);
  $("sig-count").textContent = data.signatures ? `The card carries ${data.signatures} signature(s); give a key to verify them.` : "The card is not signed.";
  $("sig-verdict").textContent = "";
  renderCardJSON();
}

function renderCardJSON() {
  $("card-json").textContent = state.showDocument ? pretty(state.document) : pretty(state.card);
  $("card-toggle-doc").textContent = state.showDocument ? "as A2A v1.0" : "as served";
}

function renderChecks(ul, checks) {
  ul.replaceChildren();
  if (!checks.length) {
    ul.append(el("li", { class: "ok", id: ul.id === "checks" ? "checks-ok" : null, text: "All checks pass: required members, interfaces, versions, security schemes and requirements, skills and their media types." }));
    return;
  }
  for (const c of checks) ul.append(el("li", { class: c.level }, el("strong", { text: c.level + " " }), el("code", { text: c.path }), " " + c.message));
}

function cardSummary(card) {
  const box = el("div", { class: "card-block" });
  box.append(el("h2", { class: "card-name", text: card.name || "(no name)" }), el("div", { class: "desc", text: card.description || "" }));
  const facts = [["version", card.version], ["provider", card.provider ? card.provider.organization + " " + (card.provider.url || "") : ""], ["documentation", card.documentationUrl]];
  const caps = card.capabilities || {};
  facts.push(["capabilities", ["streaming", "pushNotifications", "extendedAgentCard"].filter((k) => caps[k]).join(", ") || "none"]);
  facts.push(["input modes", (card.defaultInputModes || []).join(", ")], ["output modes", (card.defaultOutputModes || []).join(", ")]);
  const dl = el("table", { class: "facts" });
  for (const [k, v] of facts) if (v) dl.append(el("tr", {}, el("th", { text: k }), el("td", { text: v })));
  box.append(dl);
  box.append(el("h3", { text: "Interfaces" }));
  const t = el("table", { id: "interfaces" }, el("tr", {}, el("th", { text: "binding" }), el("th", { text: "version" }), el("th", { text: "URL" }), el("th", { text: "tenant" })));
  for (const i of card.supportedInterfaces || []) t.append(el("tr", {}, el("td", { text: i.protocolBinding }), el("td", { text: i.protocolVersion }), el("td", { text: i.url }), el("td", { text: i.tenant || "" })));
  box.append(t);
  const schemes = Object.entries(card.securitySchemes || {});
  if (schemes.length) {
    box.append(el("h3", { text: "Security" }));
    for (const [name, s] of schemes) box.append(el("div", {}, el("code", { text: name }), " " + describeScheme(s)));
    for (const r of card.securityRequirements || []) box.append(el("div", { class: "desc", text: "requires " + Object.keys(r.schemes || {}).join(" and ") }));
  }
  const exts = caps.extensions || [];
  if (exts.length) {
    box.append(el("h3", { text: "Extensions" }));
    for (const e of exts) box.append(el("div", {}, el("code", { text: e.uri }), e.required ? " (required)" : ""));
  }
  box.append(el("h3", { text: "Skills" }));
  for (const s of card.skills || []) {
    box.append(el("div", { class: "skill" },
      el("strong", { text: s.name || s.id }), " ", el("code", { text: s.id }),
      el("div", { class: "desc", text: s.description || "" }),
      el("div", { class: "meta", text: "in: " + (s.inputModes || card.defaultInputModes || []).join(", ") + " · out: " + (s.outputModes || card.defaultOutputModes || []).join(", ") + (s.tags ? " · tags: " + s.tags.join(", ") : "") })));
  }
  return box;
}

function describeScheme(s) {
  if (s.httpAuthSecurityScheme) return "HTTP " + s.httpAuthSecurityScheme.scheme + (s.httpAuthSecurityScheme.bearerFormat ? " (" + s.httpAuthSecurityScheme.bearerFormat + ")" : "");
  if (s.apiKeySecurityScheme) return "API key in " + s.apiKeySecurityScheme.location + " " + s.apiKeySecurityScheme.name;
  if (s.oauth2SecurityScheme) return "OAuth 2.0";
  if (s.openIdConnectSecurityScheme) return "OpenID Connect " + s.openIdConnectSecurityScheme.openIdConnectUrl;
  if (s.mtlsSecurityScheme) return "mutual TLS";
  return "(no kind)";
}

function renderInterfaces() {
  const sel = $("iface");
  sel.replaceChildren();
  (state.card.supportedInterfaces || []).forEach((i, n) => sel.append(el("option", { value: n, text: `${i.protocolBinding} ${i.protocolVersion} ${i.url}` })));
}

async function verifySignature() {
  const data = await api("/api/verify", { keys: $("sig-keys").value, jwksUrl: $("sig-jwks").value });
  const out = $("sig-verdict");
  out.replaceChildren();
  if (data.error) { out.append(errorBox(data.error)); return; }
  out.append(el("div", { id: "sig-result", class: "verdict-" + data.verdict.replace(/ /g, "-"), text: "Verdict: " + data.verdict + (data.problem ? " — " + data.problem : "") }));
  for (const r of data.results || []) out.append(el("div", { class: "meta", text: `signature ${r.Index ?? r.index}: ${r.Alg ?? r.alg} kid ${JSON.stringify(r.Kid ?? r.kid)} ${(r.Verified ?? r.verified) ? "verified" : "not verified: " + (r.Problem ?? r.problem)}` }));
}

async function getExtendedCard() {
  const out = $("extended-view");
  out.replaceChildren(el("div", { class: "hint", text: "Calling GetExtendedAgentCard …" }));
  const data = await call("GetExtendedAgentCard", {});
  out.replaceChildren();
  if (data.error) { out.append(errorBox(data.error)); return; }
  const card = data.response;
  const checks = await api("/api/checks", { card });
  const ul = el("ul", { id: "extended-checks" });
  renderChecks(ul, checks.checks || []);
  out.append(cardSummary(card), el("h3", { text: "Spec checks (extended card)" }), ul, el("pre", { class: "json", id: "extended-json", text: pretty(card) }));
}

// ---- parts and messages ---------------------------------------------------

function renderPart(p) {
  if (p.text !== undefined) return el("div", { class: "part text", text: p.text });
  if (p.data !== undefined) return el("pre", { class: "part data json", text: pretty(p.data) });
  if (p.url !== undefined) return el("div", { class: "part file" }, "file: ", el("a", { href: p.url, target: "_blank", rel: "noreferrer", text: p.filename || p.url }), p.mediaType ? " (" + p.mediaType + ")" : "");
  if (p.raw !== undefined) {
    const bytes = Uint8Array.from(atob(p.raw), (c) => c.charCodeAt(0));
    const href = URL.createObjectURL(new Blob([bytes], { type: p.mediaType || "application/octet-stream" }));
    return el("div", { class: "part file" }, "file: ", el("a", { href, download: p.filename || "file", text: (p.filename || "file") + " (" + bytes.length + " bytes" + (p.mediaType ? ", " + p.mediaType : "") + ")" }));
  }
  return el("pre", { class: "part json", text: pretty(p) });
}

function messageEl(m, cls) {
  const role = m.role === "ROLE_USER" ? "user" : "agent";
  const box = el("div", { class: "msg " + (cls || role) });
  box.append(...(m.parts || []).map(renderPart));
  const meta = [role];
  if (m.metadata && Object.keys(m.metadata).length) meta.push("metadata " + JSON.stringify(m.metadata));
  if (m.extensions && m.extensions.length) meta.push("extensions " + m.extensions.join(", "));
  box.append(el("div", { class: "meta", text: meta.join(" · ") }));
  return box;
}

// taskView returns the transcript block of a task, creating it.
function taskView(taskId, contextId, container) {
  let t = state.tasks.get(taskId);
  if (t && t.el.isConnected) return t;
  const stateEl = el("span", { class: "state", text: "…" });
  const box = el("div", { class: "task", "data-task": taskId },
    el("div", { class: "meta" }, "task ", el("code", { text: taskId }), " · context ", el("code", { text: contextId || "" }), " · ", stateEl));
  const messages = el("div", { class: "task-messages" });
  const artifacts = el("div", { class: "artifacts" });
  box.append(messages, artifacts);
  (container || $("transcript")).append(box);
  t = { el: box, stateEl, messages, artifacts, artifactMap: new Map() };
  state.tasks.set(taskId, t);
  return t;
}

function setTaskState(t, status) {
  const s = shortState(status.state);
  t.stateEl.textContent = s;
  t.stateEl.className = "state " + s;
  if (status.message) t.messages.append(messageEl(status.message));
}

// applyArtifact puts an artifact update in place: a new artifact, chunks
// appended (append), or a replacement; lastChunk marks it complete.
function applyArtifact(t, artifact, append, lastChunk) {
  const id = artifact.artifactId || "";
  let a = t.artifactMap.get(id);
  if (!a) {
    const nameEl = el("div", { class: "artifact-name meta", text: "artifact " + (artifact.name || id) });
    a = { el: el("div", { class: "artifact", "data-artifact": id }, nameEl), body: el("div", { class: "artifact-body" }), parts: [] };
    a.el.append(a.body);
    t.artifacts.append(a.el);
    t.artifactMap.set(id, a);
  }
  if (append) {
    for (const p of artifact.parts || []) {
      const last = a.parts[a.parts.length - 1];
      if (last && last.text !== undefined && p.text !== undefined) last.text += p.text;
      else a.parts.push(Object.assign({}, p));
    }
  } else {
    a.parts = (artifact.parts || []).map((p) => Object.assign({}, p));
  }
  a.el.classList.toggle("complete", !!lastChunk);
  a.body.replaceChildren(...a.parts.map(renderPart));
}

function applyTask(task, container) {
  const t = taskView(task.id, task.contextId, container);
  setTaskState(t, task.status || {});
  for (const a of task.artifacts || []) applyArtifact(t, a, false, true);
  return t;
}

// applyEvent shows one StreamResponse (or SendMessageResponse) in place.
function applyEvent(ev, container) {
  if (ev.task) { noteTask(ev.task.id, ev.task.contextId, ev.task.status && ev.task.status.state); return applyTask(ev.task, container); }
  if (ev.message) {
    (container || $("transcript")).append(messageEl(ev.message));
    if (ev.message.contextId) state.conversation.contextId = ev.message.contextId;
    return null;
  }
  if (ev.statusUpdate) {
    const u = ev.statusUpdate;
    const t = taskView(u.taskId, u.contextId, container);
    setTaskState(t, u.status || {});
    noteTask(u.taskId, u.contextId, u.status && u.status.state);
    return t;
  }
  if (ev.artifactUpdate) {
    const u = ev.artifactUpdate;
    const t = taskView(u.taskId, u.contextId, container);
    applyArtifact(t, u.artifact || {}, !!u.append, !!u.lastChunk);
    return t;
  }
  return null;
}

// noteTask follows the conversation: an interrupted task (input or auth
// required) is continued by the next message; any other ends the turn.
function noteTask(taskId, contextId, st) {
  if (!taskId) return;
  state.conversation.contextId = contextId || state.conversation.contextId;
  const s = shortState(st);
  if (s === "input-required" || s === "auth-required") {
    state.conversation.taskId = taskId;
    state.conversation.waiting = s;
  } else if (st) {
    state.conversation.taskId = "";
    state.conversation.waiting = "";
  }
  renderConversationLine();
}

function renderConversationLine() {
  const c = state.conversation;
  const line = $("chat-context-line");
  if (c.taskId) line.textContent = `The next message continues task ${c.taskId} (${c.waiting}) in context ${c.contextId}.`;
  else if (c.contextId) line.textContent = `The next message starts a new task in context ${c.contextId}.`;
  else line.textContent = "The next message starts a new conversation.";
}

// ---- chat -----------------------------------------------------------------

function readFileBase64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

function parseJSONField(id, what) {
  const v = $(id).value.trim();
  if (!v) return undefined;
  try { return JSON.parse(v); } catch (e) { throw new Error(what + " is not JSON: " + e.message); }
}

async function sendChat(ev) {
  ev.preventDefault();
  if (!state.card) { setStatus("Open an agent's card first.", true); return; }
  const parts = [];
  const text = $("chat-text").value;
  if (text.trim()) parts.push({ text });
  let metadata, extensions;
  try {
    const data = parseJSONField("chat-data", "The data part");
    if (data !== undefined) parts.push({ data, mediaType: "application/json" });
    metadata = parseJSONField("chat-metadata", "The metadata");
    if (metadata !== undefined && (typeof metadata !== "object" || Array.isArray(metadata) || metadata === null)) throw new Error("The metadata must be a JSON object.");
  } catch (e) { setStatus(e.message, true); return; }
  for (const f of $("chat-file").files) parts.push({ raw: await readFileBase64(f), filename: f.name, mediaType: f.type || "application/octet-stream" });
  if (!parts.length) { setStatus("Type a message, or add a part.", true); return; }
  extensions = $("chat-extensions").value.split(",").map((s) => s.trim()).filter(Boolean);
  const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts };
  if (state.conversation.taskId) message.taskId = state.conversation.taskId;
  if (state.conversation.contextId) message.contextId = state.conversation.contextId;
  if (metadata) message.metadata = metadata;
  if (extensions.length) message.extensions = extensions;
  $("transcript").append(messageEl(message, "user"));
  $("chat-text").value = "";
  $("chat-file").value = "";
  const request = { message };
  if ($("chat-async").checked) request.configuration = { returnImmediately: true };
  await sendMessage(request, extensions, $("chat-stream").checked, $("transcript"));
}

// sendMessage sends request (SendMessage or SendStreamingMessage) and
// shows the answer in container.
async function sendMessage(request, extensions, streaming, container) {
  setStatus(streaming ? "Streaming …" : "Sending …");
  if (!streaming) {
    const data = await call("SendMessage", request, extensions);
    if (data.error) { container.append(errorBox(data.error)); setStatus("The call failed.", true); return data; }
    applyEvent(data.response, container);
    setStatus("Answered.");
    return data;
  }
  let failed = null;
  await stream("SendStreamingMessage", request, extensions, (line) => {
    if (line.event) applyEvent(line.event, container);
    if (line.error) { failed = line.error; container.append(errorBox(line.error)); }
  });
  setStatus(failed ? "The stream failed." : "Stream ended.", !!failed);
  return { error: failed };
}

// ---- typed skill forms ----------------------------------------------------

const skillExtension = "https://github.com/a2agen/a2agen/blob/main/docs/extensions/skill-schemas-v1.md";
const skillMetadataKey = "a2a-scaffold/skill";

function skillSchemas(card) {
  for (const e of (card.capabilities || {}).extensions || []) {
    if (e.uri === skillExtension && e.params && e.params.skills) return e.params.skills;
  }
  return {};
}

function renderSkillForms() {
  const box = $("skill-forms");
  box.replaceChildren();
  const schemas = skillSchemas(state.card);
  let any = false;
  for (const skill of state.card.skills || []) {
    const entry = schemas[skill.id];
    if (!entry || !entry.input) continue;
    any = true;
    box.append(skillForm(skill, entry.input));
  }
  if (!any) box.append(el("div", { class: "hint", text: "The card carries no skill input schema (the skill-schemas extension)." }));
}

// fieldKind is how a property is entered: a select for enums, a number
// input, a checkbox, or JSON text for arrays and objects.
function fieldKind(s) {
  if (Array.isArray(s.enum)) return "enum";
  if (s.type === "integer" || s.type === "number") return "number";
  if (s.type === "boolean") return "boolean";
  if (s.type === "string") return "string";
  return "json";
}

function skillForm(skill, schema) {
  const form = el("form", { class: "skill-form", id: "skill-form-" + skill.id, novalidate: true, autocomplete: "off" });
  form.append(el("h3", { text: (skill.name || skill.id) + " " }), el("div", { class: "hint", text: schema.description || skill.description || "" }));
  const props = schema.properties || {};
  const required = schema.required || [];
  const fields = {};
  for (const [name, s] of Object.entries(props)) {
    const kind = fieldKind(s);
    const id = `skill-${skill.id}-${name}`;
    let input;
    if (kind === "enum") {
      input = el("select", { id, name }, el("option", { value: "", text: "—" }), ...s.enum.map((v) => el("option", { value: JSON.stringify(v), text: String(v) })));
      if (s.default !== undefined) input.value = JSON.stringify(s.default);
    } else if (kind === "boolean") {
      input = el("input", { id, name, type: "checkbox" });
      input.checked = s.default === true;
    } else if (kind === "json") {
      input = el("textarea", { id, name, rows: 2, placeholder: s.type === "array" ? "[…] (JSON)" : "{…} (JSON)" });
      if (s.default !== undefined) input.value = JSON.stringify(s.default);
    } else {
      input = el("input", { id, name, type: "text", inputmode: kind === "number" ? "decimal" : null });
      if (s.default !== undefined) input.value = String(s.default);
    }
    const err = el("div", { class: "field-error", id: id + "-error" });
    fields[name] = { input, kind, schema: s, err };
    form.append(el("label", {}, name + (required.includes(name) ? " *" : "") + " ", el("span", { class: "hint", text: (s.type || "") + (s.description ? " — " + s.description : "") }), input, err));
  }
  const result = el("div", { class: "skill-result", id: "skill-result-" + skill.id });
  const streaming = el("input", { type: "checkbox", checked: true });
  form.append(el("div", { class: "row" }, el("label", {}, streaming, " stream"), el("button", { type: "submit", id: "skill-send-" + skill.id, text: "Send to " + skill.id })), result);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    for (const f of Object.values(fields)) f.err.textContent = "";
    const value = {};
    const problems = [];
    for (const [name, f] of Object.entries(fields)) {
      const raw = f.kind === "boolean" ? f.input.checked : f.input.value.trim();
      if (raw === "" ) continue;
      if (f.kind === "enum") value[name] = JSON.parse(raw);
      else if (f.kind === "boolean") value[name] = raw;
      else if (f.kind === "number") {
        const n = Number(raw);
        if (Number.isNaN(n)) { problems.push({ path: "data." + name, message: `${JSON.stringify(raw)} is not a number` }); continue; }
        value[name] = n;
      } else if (f.kind === "json") {
        try { value[name] = JSON.parse(raw); } catch (e) { problems.push({ path: "data." + name, message: "not JSON: " + e.message }); continue; }
      } else value[name] = raw;
    }
    problems.push(...validate(schema, value, "data"));
    if (problems.length) {
      for (const p of problems) showFieldError(fields, result, p.path, p.message);
      setStatus(`Not sent: ${problems.length} problem(s) in the ${skill.id} form.`, true);
      return;
    }
    result.replaceChildren();
    const message = { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data: value, mediaType: "application/json" }], metadata: { [skillMetadataKey]: skill.id } };
    const data = await sendMessage({ message }, [], streaming.checked, result);
    const err = data && data.error;
    for (const v of (err && err.violations) || []) showFieldError(fields, result, v.field, v.description + " (the agent said)");
  });
  return form;
}

function showFieldError(fields, result, path, message) {
  const name = String(path).replace(/^data\.?/, "").split(/[.[]/)[0];
  const f = fields[name];
  if (f) f.err.textContent = (f.err.textContent ? f.err.textContent + "; " : "") + message;
  else result.append(el("div", { class: "field-error", text: (path || "data") + ": " + message }));
}

// validate checks value against the schema subset of typed skills (type,
// properties, required, additionalProperties: false, items, enum) and
// returns every problem with its path, as the agent would name it.
function validate(s, v, path) {
  const out = [];
  if (!s || typeof s !== "object") return out;
  const t = s.type;
  const typeOf = (x) => Array.isArray(x) ? "array" : x === null ? "null" : Number.isInteger(x) ? "integer" : typeof x;
  const okType = t === undefined || t === typeOf(v) || (t === "number" && typeof v === "number") ||
    (t === "integer" && typeof v === "number" && Number.isInteger(v));
  if (!okType) {
    out.push({ path, message: t === "integer" && typeof v === "number" ? `${v} is not a whole number` : `want ${t}, got ${typeOf(v)}` });
    return out;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    out.push({ path, message: `want one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}` });
  }
  if (t === "object" || (t === undefined && s.properties && v && typeof v === "object" && !Array.isArray(v))) {
    for (const r of s.required || []) if (!(r in v)) out.push({ path: path + "." + r, message: "required" });
    for (const [k, sub] of Object.entries(v)) {
      const ps = (s.properties || {})[k];
      if (ps) out.push(...validate(ps, sub, path + "." + k));
      else if (s.additionalProperties === false) out.push({ path: path + "." + k, message: "not a property of this object" });
    }
  }
  if (t === "array" && s.items) v.forEach((item, i) => out.push(...validate(s.items, item, `${path}[${i}]`)));
  return out;
}

// ---- tasks ----------------------------------------------------------------

async function listTasks(ev) {
  ev.preventDefault();
  const req = {};
  if ($("tasks-context").value) req.contextId = $("tasks-context").value;
  if ($("tasks-state").value) req.status = $("tasks-state").value;
  if ($("tasks-page-size").value) req.pageSize = Number($("tasks-page-size").value);
  if ($("tasks-page-token").value) req.pageToken = $("tasks-page-token").value;
  if ($("tasks-history").value) req.historyLength = Number($("tasks-history").value);
  if ($("tasks-after").value) req.statusTimestampAfter = new Date($("tasks-after").value).toISOString();
  if ($("tasks-artifacts").checked) req.includeArtifacts = true;
  const data = await call("ListTasks", req);
  const out = $("tasks-result");
  out.replaceChildren();
  if (data.error) { out.append(errorBox(data.error)); return; }
  const r = data.response;
  const table = el("table", { id: "tasks-table" }, el("tr", {}, el("th", { text: "task" }), el("th", { text: "context" }), el("th", { text: "state" }), el("th", { text: "updated" }), el("th", {})));
  for (const t of r.tasks || []) {
    table.append(el("tr", { "data-task": t.id },
      el("td", {}, el("code", { text: t.id })), el("td", {}, el("code", { text: t.contextId })),
      el("td", { class: "state " + shortState(t.status && t.status.state), text: shortState(t.status && t.status.state) }),
      el("td", { text: (t.status && t.status.timestamp) || "" }),
      el("td", {}, el("button", { class: "small", text: "open", onclick: () => { $("task-id").value = t.id; getTask(); } }),
        el("button", { class: "small", text: "push", onclick: () => { $("push-task").value = t.id; showTab("push"); } }))));
  }
  out.append(el("div", { class: "meta", text: `${(r.tasks || []).length} of ${r.totalSize} task(s)` + (r.nextPageToken ? " · next page token " + r.nextPageToken : "") }), table);
  if (r.nextPageToken) out.append(el("button", { class: "small", text: "next page", onclick: () => { $("tasks-page-token").value = r.nextPageToken; $("tasks-list").click(); } }));
}

async function getTask(ev) {
  if (ev) ev.preventDefault();
  const req = { id: $("task-id").value.trim() };
  if ($("task-history").value) req.historyLength = Number($("task-history").value);
  const data = await call("GetTask", req);
  showTaskDetail(data);
}

async function cancelTask() {
  const data = await call("CancelTask", { id: $("task-id").value.trim() });
  showTaskDetail(data);
}

function showTaskDetail(data) {
  const out = $("task-detail");
  out.replaceChildren();
  if (data.error) { out.append(errorBox(data.error)); return; }
  const t = data.response;
  state.tasks.delete(t.id);
  applyTask(t, out);
  for (const m of t.history || []) out.append(messageEl(m));
  out.append(el("pre", { class: "json", text: pretty(t) }));
}

async function resubscribe() {
  const out = $("task-detail");
  out.replaceChildren();
  const id = $("task-id").value.trim();
  state.tasks.delete(id);
  await stream("SubscribeToTask", { id }, [], (line) => {
    if (line.event) applyEvent(line.event, out);
    if (line.error) out.append(errorBox(line.error));
    if (line.done) out.append(el("div", { class: "meta", text: "stream ended" }));
  });
}

// ---- push -----------------------------------------------------------------

async function createPush(ev) {
  ev.preventDefault();
  const data = await api("/api/push", Object.assign(via(), { taskId: $("push-task").value.trim(), configId: $("push-config").value.trim() }));
  const out = $("push-configs");
  out.replaceChildren();
  if (data.error) { out.append(errorBox(data.error)); return; }
  out.append(el("div", { class: "meta", id: "push-created", text: "Created: " + pretty(data.response) }));
  await listPush();
}

async function listPush() {
  const taskId = $("push-task").value.trim();
  const data = await call("ListTaskPushNotificationConfigs", { taskId });
  const out = $("push-configs");
  if (data.error) { out.append(errorBox(data.error)); return; }
  const table = el("table", { id: "push-table" }, el("tr", {}, el("th", { text: "config" }), el("th", { text: "url" }), el("th", {})));
  for (const c of data.response.configs || []) {
    table.append(el("tr", {}, el("td", {}, el("code", { text: c.id })), el("td", { text: c.url }),
      el("td", {}, el("button", { class: "small", text: "delete", onclick: async () => {
        const d = await call("DeleteTaskPushNotificationConfig", { taskId: c.taskId || taskId, id: c.id });
        if (d.error) out.append(errorBox(d.error)); else listPush();
      } }))));
  }
  out.querySelector("#push-table")?.remove();
  out.append(table);
}

function showDelivery(d) {
  const ev = d.event ? (typeof d.event === "string" ? JSON.parse(d.event) : d.event) : null;
  let what = "";
  if (ev) {
    if (ev.task) what = "task " + shortState(ev.task.status && ev.task.status.state);
    else if (ev.statusUpdate) what = "status " + shortState(ev.statusUpdate.status && ev.statusUpdate.status.state);
    else if (ev.artifactUpdate) what = "artifact " + ((ev.artifactUpdate.artifact || {}).name || (ev.artifactUpdate.artifact || {}).artifactId || "");
    else if (ev.message) what = "message";
  }
  const li = el("li", { class: d.refused ? "refused" : "verified" },
    el("span", { class: "meta", text: new Date(d.time).toLocaleTimeString() + " " }),
    d.refused ? "refused " + d.path + ": " + d.refused : `task ${d.taskId} · ${what} · token verified ✓`,
    ev ? el("details", {}, el("summary", { text: "event" }), el("pre", { class: "json", text: pretty(ev) })) : null);
  $("deliveries").prepend(li);
}

// ---- wire -----------------------------------------------------------------

function copy(text) {
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).catch(() => {});
  setStatus("Copied: " + text.slice(0, 120) + (text.length > 120 ? " …" : ""));
}

function showWire(w) {
  state.wireCount++;
  $("wire-count").textContent = state.wireCount;
  const arrow = { request: "→", response: "←", event: "⇠", error: "✕" }[w.direction] || "";
  let head = `${arrow} #${w.call || "-"} ${w.binding}`;
  if (w.operation) head += " " + w.operation;
  if (w.direction === "request") head += ` ${w.method} ${w.url}`;
  else if (w.status) head += " " + w.status;
  if (w.note) head += " (" + w.note + ")";
  const li = el("li", { class: w.direction + " binding-" + w.binding.replace(/\W/g, ""), "data-call": w.call });
  li.append(el("div", { class: "line", text: head }));
  const headers = Object.entries(w.header || {}).sort(([a], [b]) => a.localeCompare(b)).map(([k, vs]) => vs.map((v) => k + ": " + v).join("\n")).join("\n");
  if (headers) li.append(el("details", {}, el("summary", { text: "headers" }), el("div", { class: "headers", text: headers })));
  if (w.body) li.append(el("pre", { class: "body", text: w.direction === "event" ? w.body : pretty(w.body) }));
  const buttons = el("div", { class: "row" });
  if (w.curl) buttons.append(el("button", { class: "small copy-curl", text: "copy as curl", "data-copy": w.curl, onclick: () => copy(w.curl) }));
  if (w.cli) buttons.append(el("button", { class: "small copy-cli", text: "copy as a2a command", "data-copy": w.cli, onclick: () => copy(w.cli) }));
  if (buttons.childNodes.length) li.append(buttons);
  if (w.direction === "event" && !$("wire-events").checked) li.hidden = true;
  $("wire").append(li);
}

function connectEvents() {
  const es = new EventSource("/api/events?token=" + encodeURIComponent(token));
  es.onmessage = (m) => {
    const ev = JSON.parse(m.data);
    if (ev.kind === "wire") showWire(ev.wire);
    if (ev.kind === "delivery") showDelivery(ev.delivery);
  };
}

// ---- auth -----------------------------------------------------------------

function renderAuthSchemes() {
  const box = $("auth-schemes");
  box.replaceChildren();
  const schemes = Object.entries(state.card.securitySchemes || {});
  if (!schemes.length) box.append(el("div", { class: "hint", text: "The card declares no security scheme." }));
  for (const [name, s] of schemes) {
    let label = describeScheme(s);
    if (s.httpAuthSecurityScheme && /^basic$/i.test(s.httpAuthSecurityScheme.scheme)) label += ": user:password";
    else if (s.httpAuthSecurityScheme || s.oauth2SecurityScheme || s.openIdConnectSecurityScheme) label += ": token";
    else if (s.apiKeySecurityScheme) label += ": key";
    if (s.oauth2SecurityScheme || s.openIdConnectSecurityScheme) label += " (paste an access token, or leave empty to send the one a2a auth login stored)";
    const input = el("input", { type: s.mtlsSecurityScheme ? "hidden" : "password", id: "auth-scheme-" + name, "data-scheme": name });
    box.append(el("label", {}, el("code", { text: name }), " " + label + " ", s.mtlsSecurityScheme ? el("span", { class: "hint", text: "(give the client certificate below)" }) : input));
  }
}

async function applyAuth(ev) {
  ev.preventDefault();
  const schemes = {};
  for (const i of document.querySelectorAll("#auth-schemes input[data-scheme]")) if (i.value) schemes[i.dataset.scheme] = i.value;
  const headers = [];
  for (const line of $("auth-headers").value.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf(":");
    if (at <= 0) { setStatus(`Header line ${JSON.stringify(line)}: want Name: value`, true); return; }
    headers.push({ name: line.slice(0, at).trim(), value: line.slice(at + 1).trim() });
  }
  const data = await api("/api/auth", { schemes, headers, clientCert: $("auth-cert").value, clientKey: $("auth-key").value });
  const out = $("auth-applied");
  out.replaceChildren();
  if (data.error) { out.append(el("li", {}, errorBox(data.error))); return; }
  for (const a of data.applied || []) out.append(el("li", { text: a }));
  if (!(data.applied || []).length) out.append(el("li", { text: "No credentials: calls go unauthenticated." }));
  setStatus("Credentials applied to every call.");
}

// ---- start ----------------------------------------------------------------

async function start() {
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("connect-form").addEventListener("submit", (ev) => { ev.preventDefault(); openCard($("agent-url").value.trim()); });
  $("card-toggle-doc").addEventListener("click", () => { state.showDocument = !state.showDocument; renderCardJSON(); });
  $("sig-verify").addEventListener("click", verifySignature);
  $("get-extended").addEventListener("click", getExtendedCard);
  $("chat-form").addEventListener("submit", sendChat);
  $("chat-text").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) $("chat-send").click(); });
  $("chat-reset").addEventListener("click", () => { state.conversation = { taskId: "", contextId: "", waiting: "" }; $("transcript").replaceChildren(); renderConversationLine(); });
  $("tasks-form").addEventListener("submit", listTasks);
  $("task-get-form").addEventListener("submit", getTask);
  $("task-cancel").addEventListener("click", cancelTask);
  $("task-subscribe").addEventListener("click", resubscribe);
  $("push-form").addEventListener("submit", createPush);
  $("push-list").addEventListener("click", () => { $("push-configs").replaceChildren(); listPush(); });
  $("wire-clear").addEventListener("click", () => { $("wire").replaceChildren(); state.wireCount = 0; $("wire-count").textContent = "0"; });
  $("wire-events").addEventListener("change", () => { for (const li of document.querySelectorAll("#wire li.event")) li.hidden = !$("wire-events").checked; });
  $("auth-form").addEventListener("submit", applyAuth);
  renderConversationLine();
  connectEvents();
  const session = await api("/api/session");
  $("receiver-url").textContent = session.receiverUrl || "";
  const url = session.agentUrl || decodeURIComponent(location.hash.slice(1));
  if (url) { $("agent-url").value = url; openCard(url); }
  document.body.dataset.ready = "true";
}

start();
