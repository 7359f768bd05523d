// whatifbench human baseline app. Reads its settings from the JSON block #whatif-config, asks
// the server (with the access token) for the annotator's next item, renders it with DOM text
// nodes only, and posts each answer; the server keeps the plan, the answers and the position.
// Back (the button, or the left arrow key) shows the previous answered item with the answer
// given, to change it (the server keeps the newest); confirming returns to the next new item.
// human/page.py joins it after the explorer's DOM helper (h) inside one strict function scope.
  const CFG = JSON.parse(document.getElementById("whatif-config").textContent);
  const app = document.getElementById("app");
  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  // -- talking to the server ------------------------------------------------------------------
  let state = null;      // the server's answer: progress and the item to answer
  let chosen = null;     // the selected reply (choice and yes/no items)
  let shownAt = 0;       // when the current item appeared (performance.now())
  let pending = null;    // an answer not yet acknowledged (sent again after a reconnect)
  let timer = null;

  async function call(path, body) {
    const init = {method: body ? "POST" : "GET", cache: "no-store",
      headers: {"X-Whatif-Token": CFG.token}};
    if (body) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json();
    return {ok: response.ok, data};
  }

  async function load(position) {
    let path = "/api/state?annotator=" + encodeURIComponent(CFG.annotator);
    if (Number.isInteger(position)) path += "&position=" + position;
    try {
      const got = await call(path);
      if (!got.ok) return Number.isInteger(position) ? message(got.data.error) : fail(got.data.error);
      show(got.data);
    } catch (err) {
      offline(() => load(position));
    }
  }

  function back() {
    if (pending || !state || state.previous === null || state.previous === undefined) return;
    load(state.previous);
  }

  async function send(answer) {
    if (pending) return;
    pending = answer;
    message("");
    try {
      const got = await call("/api/answer", answer);
      pending = null;
      if (!got.ok) return message(got.data.error || "The answer was not accepted.");
      show(got.data);
    } catch (err) {
      offline(() => { const again = pending; pending = null; send(again); });
    }
  }

  function offline(retry) {
    const text = "The server is not answering; every answer you gave so far is saved. Retrying…";
    if (document.getElementById("message")) message(text);
    else app.replaceChildren(h("p", {class: "banner", id: "message"}, text));
    setTimeout(retry, 1500);
  }

  function fail(text) { app.replaceChildren(h("p", {class: "banner"}, text)); }
  function message(text) {
    const el = document.getElementById("message");
    if (el) el.textContent = text;
  }

  // -- the item ---------------------------------------------------------------------------------
  function show(next) {
    state = next;
    chosen = null;
    shownAt = performance.now();
    render();
    const given = state.revising && state.given;
    if (given && !given.unsure) prefill(state.item, given);
  }

  function prefill(item, given) {
    if (item.form === "choice" || item.form === "yes-no") return pick(given.reply);
    if (item.form === "explain") {
      app.querySelectorAll("textarea.part").forEach((t, i) => { t.value = given.parts[i] || ""; });
      return;
    }
    const field = app.querySelector(".answers input, .answers textarea");
    if (field) field.value = given.reply;
  }

  function submit(extra) {
    if (!state || !state.item) return;
    const seconds = Math.round(performance.now() - shownAt) / 1000;
    send(Object.assign({annotator: CFG.annotator, position: state.position, seconds,
      revise: Boolean(state.revising)}, extra));
  }
  const unsure = () => submit({unsure: true, reply: ""});

  function confirm() {
    const item = state && state.item;
    if (!item) return;
    if (item.form === "choice" || item.form === "yes-no") {
      if (chosen === null) return message("Choose an answer first (or press U for unsure).");
      return submit({reply: chosen});
    }
    if (item.form === "explain") {
      return submit({parts: [...app.querySelectorAll("textarea.part")].map((t) => t.value)});
    }
    const field = app.querySelector(".answers input, .answers textarea");
    if (!field.value.trim()) return message("Type an answer first (or press Unsure).");
    submit({reply: field.value});
  }

  function pick(value) {
    chosen = value;
    for (const b of app.querySelectorAll("button.option")) {
      b.classList.toggle("on", b.dataset.value === value);
      b.setAttribute("aria-pressed", String(b.dataset.value === value));
    }
    message("");
  }

  function choices(item) {
    if (item.form === "yes-no") return [["yes", "Y", "yes"], ["no", "N", "no"]];
    return item.options.map(([letter, label]) => [letter, letter, label]);
  }

  function answerForm(item) {
    if (item.form === "choice" || item.form === "yes-no") {
      return h("div", {class: "answers", role: "group", "aria-label": "answers"},
        choices(item).map(([value, key, label], i) => h("button", {class: "option",
          "data-value": value, "aria-pressed": "false", onclick: () => pick(value),
          ondblclick: () => { pick(value); confirm(); }},
        h("kbd", null, item.form === "yes-no" ? key : `${i + 1} / ${key}`), label)));
    }
    if (item.form === "explain") {
      return h("div", {class: "answers"}, item.parts.map((label, i) => h("label", null,
        `${i + 1}. ${label}`, h("textarea", {class: "part", "data-part": i}))));
    }
    if (item.form === "number") {
      return h("div", {class: "answers"}, h("label", null, "Your answer (a number)",
        h("input", {type: "text", inputmode: "decimal", autocomplete: "off", id: "answer"})));
    }
    return h("div", {class: "answers"}, h("label", null, "Your answer",
      h("textarea", {id: "answer"})));
  }

  function keysHelp(item) {
    if (item.form === "choice") {
      return `Keys: 1–${item.options.length} or ${LETTERS[0]}–${LETTERS[item.options.length - 1]} ` +
        "choose, Enter confirms, U unsure.";
    }
    if (item.form === "yes-no") return "Keys: Y or N chooses, Enter confirms, U unsure.";
    if (item.form === "number") return "Keys: type the number, Enter confirms, ? unsure.";
    return "Keys: Tab moves between fields, Ctrl+Enter confirms.";
  }

  function progressBar() {
    const done = state.answered;
    const total = Math.max(state.total, 1);
    return h("div", {class: "progress"},
      h("span", {id: "progress", "data-answered": done, "data-position": state.position,
        "data-revising": state.revising ? "1" : "0"},
      state.revising ? `Changing answer ${state.position + 1} of ${state.total}` :
        state.item ? `Item ${done + 1} of ${state.total}` : `${done} of ${state.total} answered`),
      h("div", {class: "track", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": total,
        "aria-valuenow": done}, h("div", {class: "fill", style: null})),
      h("span", {id: "timer", class: "muted"}, ""));
  }

  function render() {
    clearInterval(timer);
    document.getElementById("who").textContent =
      `${CFG.dataset} · annotator ${CFG.annotator}`;
    const bar = progressBar();
    bar.querySelector(".fill").style.width = `${(100 * state.answered) / Math.max(state.total, 1)}%`;
    const item = state.item;
    const canBack = state.previous !== null && state.previous !== undefined;
    const backButton = () => h("button", {id: "back", onclick: back, disabled: !canBack,
      title: "Show the previous item to change its answer"}, "← Back");
    if (!item) {
      app.replaceChildren(bar, h("p", {class: "done", id: "done"}, "All done, thank you! " +
        `${state.answered} answers are saved. You can close this page.`),
      h("div", {class: "actions"}, backButton()));
      return;
    }
    const given = state.revising && state.given;
    const note = given ? h("p", {class: "banner", id: "revising"}, "You answered this item " +
      (given.unsure ? "as unsure" : "before") + "; change the answer and confirm, or go on " +
      "without changing it.") : null;
    const images = h("div", {class: "images"}, item.images.map((src, i) =>
      h("img", {src, alt: `image ${i + 1} of the question`})));
    app.replaceChildren(bar, ...(note ? [note] : []),
      h("div", {class: "item", "data-position": state.position},
      images, h("div", {class: "question text", id: "question"}, item.text),
      answerForm(item),
      h("div", {class: "actions"},
        backButton(),
        h("button", {class: "primary", id: "confirm", onclick: confirm}, "Confirm (Enter)"),
        h("button", {id: "unsure", onclick: unsure}, "Unsure"),
        ...(state.revising ? [h("button", {id: "resume", onclick: () => load()},
          "Go on without changing")] : []),
        h("span", {class: "keys"}, keysHelp(item) + " ← goes back.")),
      h("div", {class: "message", id: "message", role: "alert"})));
    const first = app.querySelector(".answers input, .answers textarea");
    if (first) first.focus();
    const clock = document.getElementById("timer");
    timer = setInterval(() => {
      clock.textContent = `${Math.floor((performance.now() - shownAt) / 1000)} s on this item`;
    }, 1000);
  }

  document.addEventListener("keydown", (e) => {
    if (!state || e.altKey || e.metaKey) return;
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if (e.key === "ArrowLeft" && !typing && !e.ctrlKey && !e.shiftKey) {
      e.preventDefault();
      return back();
    }
    const item = state.item;
    if (!item) return;
    if (e.key === "Enter" && (!typing || e.target.tagName === "INPUT" || e.ctrlKey)) {
      e.preventDefault();
      return confirm();
    }
    if (item.form === "number" && e.key === "?") { e.preventDefault(); return unsure(); }
    if (typing || e.ctrlKey) return;
    const key = e.key.toUpperCase();
    if (item.form === "choice") {
      const n = item.options.length;
      const byDigit = /^[1-9]$/.test(e.key) ? Number(e.key) - 1 : -1;
      const byLetter = LETTERS.indexOf(key);
      const k = byDigit >= 0 ? byDigit : (key.length === 1 ? byLetter : -1);
      if (k >= 0 && k < n) { e.preventDefault(); return pick(item.options[k][0]); }
    }
    if (item.form === "yes-no" && (key === "Y" || key === "N")) {
      e.preventDefault();
      return pick(key === "Y" ? "yes" : "no");
    }
    if (key === "U" || e.key === "?") { e.preventDefault(); unsure(); }
  });

  // -- start ------------------------------------------------------------------------------------
  if (CFG.annotator) {
    load();
  } else {
    const input = h("input", {type: "text", id: "name", autocomplete: "off",
      placeholder: "e.g. a01", pattern: "[A-Za-z0-9][A-Za-z0-9_.@\\-]{0,63}", required: true});
    app.replaceChildren(h("form", {class: "name", onsubmit: (e) => {
      e.preventDefault();
      const query = new URLSearchParams(location.search);
      query.set("annotator", input.value.trim());
      location.search = query.toString();
    }}, h("label", null, "Your annotator name (a pseudonym is best)", input),
    h("button", {type: "submit"}, "Start")));
    input.focus();
  }
  document.body.setAttribute("data-ready", "1");
