"use strict";
// whatifbench results explorer. Renders the JSON block #whatif-data with DOM text nodes only:
// model and dataset text never becomes markup. State lives in the URL fragment.
(function () {
  const DATA = JSON.parse(document.getElementById("whatif-data").textContent);
  const S = DATA.strings;
  const str = (i) => (i === undefined || i === null || i < 0 ? null : S[i]);
  const at = (column, j) => (column ? column[j] : null);  // columns empty throughout are null
  const FIRST = ["original", "basic"];
  const ROLE_ORDER = ["original", "basic", "counterfactual", "c2e", "e2c", "cue", "exp"];
  const PAGE = 100;
  const VIEWS = [["overview", "Overview"], ["figures", "Figures"], ["items", "Items"],
    ["compare", "Model vs model"], ["runs", "Runs"]];

  // -- DOM helpers --------------------------------------------------------------------------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") el.className = v;
        else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (const kid of kids.flat(3)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  const fmt = (v, d) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));
  function signed(v, d) {
    const x = Math.round(v * 10 ** d) / 10 ** d;
    return (x < 0 ? "-" : "+") + Math.abs(x).toFixed(d);
  }
  const pct = (k, n) => (n ? (100 * k / n).toFixed(1) : "–");
  const text = (value, cls) => h("div", {class: cls || "text"}, value === null ? "—" : value);

  // -- data preparation ---------------------------------------------------------------------
  const roleRank = (r) => { const k = ROLE_ORDER.indexOf(r); return k < 0 ? 99 : k; };
  function prepareDataset(d, di) {
    const it = d.items;
    const n = it.id.length;
    const units = [];
    const byKey = new Map();
    for (let k = 0; k < n; k++) {
      const key = str(it.pair[k]) ?? str(it.id[k]);
      let u = byKey.get(key);
      if (!u) { u = {key, items: [], index: units.length}; byKey.set(key, u); units.push(u); }
      u.items.push(k);
    }
    const role = (k) => str(it.role[k]);
    for (const u of units) {
      u.items.sort((a, b) => roleRank(role(a)) - roleRank(role(b)));
      u.first = u.items.find((k) => FIRST.includes(role(k)));
      u.cf = u.items.find((k) => role(k) === "counterfactual");
      u.paired = u.first !== undefined && u.cf !== undefined;
      const facets = new Set();
      for (const k of u.items) for (const f of it.facets[k]) facets.add(str(f));
      u.facets = facets;
    }
    const firstRole = units.find((u) => u.paired) ? role(units.find((u) => u.paired).first) : null;
    const runs = d.runs.map((ri) => prepareRun(DATA.runs[ri], ri, n));
    const unitOfItem = new Int32Array(n);
    for (const u of units) for (const k of u.items) unitOfItem[k] = u.index;
    const ds = {d, di, it, units, byKey, runs, role, firstRole, n, unitOfItem,
      facets: [...new Set(units.flatMap((u) => [...u.facets]))].sort()};
    ds.oc = runs.map((run) => units.map((u) => outcome(ds, u, run)));
    ds.flags = runs.map((run) => units.map((u) => unitFlags(ds, u, run)));
    return ds;
  }

  function prepareRun(r, index, n) {
    const at = new Int32Array(n).fill(-1);
    r.samples.item.forEach((k, j) => { at[k] = j; });
    return {r, index, at, s: r.samples, label: r.label};
  }

  const right = (run, k) => run.at[k] >= 0 && run.s.correct[run.at[k]] === "1";

  function outcome(ds, u, run) {
    const present = u.items.filter((k) => run.at[k] >= 0);
    if (!present.length) return null;
    if (u.paired && run.at[u.first] >= 0 && run.at[u.cf] >= 0) {
      return (right(run, u.first) ? "R" : "W") + (right(run, u.cf) ? "R" : "W");
    }
    const good = present.filter((k) => right(run, k)).length;
    return good === present.length ? "all" : good === 0 ? "none" : "some";
  }

  function unitFlags(ds, u, run) {
    const f = {repeat: false, unparsed: false, error: false};
    for (const k of u.items) {
      const j = run.at[k];
      if (j < 0) continue;
      if (run.s.unparsed[j] === "1") f.unparsed = true;
      if (str(at(run.s.error, j)) !== null) f.error = true;
    }
    if (u.paired && run.at[u.cf] >= 0 && !right(run, u.cf)) {
      const said = str(run.s.prediction[run.at[u.cf]]);
      const seen = str(ds.it.target[u.first]);
      f.repeat = said !== null && said === seen && seen !== str(ds.it.target[u.cf]);
    }
    return f;
  }

  function outcomeName(ds, code) {
    const a = ds.firstRole || "original";
    return {RR: "both right", RW: `${a} right, counterfactual wrong`,
      WR: `${a} wrong, counterfactual right`, WW: "both wrong", all: "all right",
      some: "some right, some wrong", none: "all wrong"}[code] || code;
  }
  const datasets = DATA.datasets.map(prepareDataset);
  const badgeText = {RR: "✓✓", RW: "✓✗", WR: "✗✓", WW: "✗✗", all: "✓", some: "±", none: "✗"};

  // -- state in the URL fragment ------------------------------------------------------------
  const DEFAULTS = {view: "overview", ds: "0", model: "any", facet: "", outcome: "", flag: "",
    q: "", unit: "", a: "0", b: "1", shown: String(PAGE)};
  const state = {...DEFAULTS};
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    Object.assign(state, DEFAULTS);
    for (const key of Object.keys(state)) if (p.has(key)) state[key] = p.get(key);
    if (!VIEWS.some(([v]) => v === state.view)) state.view = "overview";
    if (!datasets[Number(state.ds)]) state.ds = "0";
  }
  function writeHash() {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(state)) if (v !== "") p.set(k, v);
    history.replaceState(null, "", "#" + p.toString());
  }
  function go(changes) { Object.assign(state, changes); writeHash(); render(); }
  window.addEventListener("hashchange", () => { readHash(); render(); });

  // -- tables ----------------------------------------------------------------------------------
  function cellNode(c, nInCell) {
    if (typeof c === "string") return h("td", {class: /^[-+–\d.]/.test(c) ? "num" : null}, c);
    const tips = [];
    const kids = [fmt(c.v, c.d)];
    if (c.ci && c.v !== null) {
      kids.push(h("span", {class: "pm"}, " ±" + ((c.ci[1] - c.ci[0]) / 2).toFixed(c.d)));
      tips.push(`95% interval ${fmt(c.ci[0], c.d)} – ${fmt(c.ci[1], c.d)}`);
    }
    if (c.dv !== undefined) {
      const sig = c.p !== undefined && c.p < 0.05;
      kids.push(h("span", {class: "delta" + (sig ? " sig" + (c.dv > 0 ? " up" : "") : "")},
        " (" + signed(c.dv, c.d) + (sig ? "*" : "") + ")"));
      tips.push(`Δ = counterfactual − original = ${signed(c.dv, 2)}`);
      if (c.dci) tips.push(`Δ 95% interval ${signed(c.dci[0], c.d)} – ${signed(c.dci[1], c.d)}`);
      if (c.p !== undefined) tips.push(`McNemar p = ${c.p}`);
    }
    if (c.n !== undefined) {
      tips.push(`n = ${c.n}`);
      if (nInCell) kids.push(h("span", {class: "n"}, " n=" + c.n));
    }
    return h("td", {class: "num", title: tips.join("; ") || null}, kids);
  }

  function tableNode(t) {
    const head = [];
    if (t.groups.length && t.groups.some(([label]) => label)) {
      head.push(h("tr", null, t.groups.map(([label, n]) => h("th", {colspan: n}, label))));
    }
    head.push(h("tr", null, t.columns.map((c) => h("th", null, c))));
    const inCells = new Set(t.n_in_cells);
    const body = t.rows.map((row) => h("tr", null, row.map((c, i) =>
      i === 0 ? h("td", null, c) : cellNode(c, inCells.has(i)))));
    return h("div", {class: "table"},
      h("table", {class: "results"}, h("caption", null, t.title), h("thead", null, head),
        h("tbody", null, body)),
      t.notes.map((n) => h("p", {class: "note"}, n)));
  }

  // -- overview -------------------------------------------------------------------------------
  function datasetHead(ds) {
    const d = ds.d;
    const embedded = Object.keys(d.thumbs).length;
    const kids = [h("h2", null, `${d.name} (${d.suite})`),
      h("p", {class: "muted"}, `${ds.units.length} ${ds.firstRole ? "pairs" : "units"}, ` +
        `${ds.n} items, ${ds.runs.length} run(s). Data: ${d.found || d.path || "unknown"}`)];
    if (d.problem) kids.push(h("p", {class: "banner"}, d.problem));
    else if (DATA.images === "embed" && d.images.length > embedded) {
      kids.push(h("p", {class: "note"}, `${embedded} of ${d.images.length} images are ` +
        "embedded (the most telling pairs first). To see every image at full size, run: " +
        "whatif view RUN_DIR"));
    }
    return kids;
  }

  function overview() {
    const out = [h("p", {class: "note"}, "Accuracies in %. Δ = counterfactual − original " +
      "(negative: the counterfactual question was answered worse); * marks an exact McNemar " +
      "p < 0.05; ± is half the 95% interval (hover a number for the interval and n).")];
    for (const ds of datasets) {
      out.push(...datasetHead(ds));
      const rank = ds.d.ranking;
      out.push(h("table", {class: "ranking"}, h("caption", null, `Ranking by ${rank.metric}`),
        h("thead", null, h("tr", null, ["#", "model", "value", "95% interval"].map(
          (c) => h("th", null, c)))),
        h("tbody", null, rank.rows.map((r, i) => h("tr", null, h("td", null, i + 1),
          h("td", null, r.label), h("td", {class: "num"}, fmt(r.value, 1)),
          h("td", {class: "num"}, r.ci ? `${fmt(r.ci[0], 1)} – ${fmt(r.ci[1], 1)}` : "–"))))));
      const eyes = ds.runs.some((run) => run.r.eyes.n > 0);
      const cols = ["model", "items", "wrong", "parse failures", "errors", "flagged"];
      if (eyes) cols.push("believes its eyes");
      out.push(h("table", {class: "counts"}, h("caption", null, "Answers per run"),
        h("thead", null, h("tr", null, cols.map((c) => h("th", null, c)))),
        h("tbody", null, ds.runs.map((run) => {
          const c = run.r.counts;
          const e = run.r.eyes;
          return h("tr", null, h("td", null, run.label),
            [c.items, c.wrong, c.unparsed, c.errors, c.flagged].map((v, i) =>
              h("td", {class: "num" + (i >= 2 && v > 0 ? " bad" : "")}, v)),
            eyes ? h("td", {class: "num", title: `${e.k} of ${e.n} counterfactual errors`},
              e.n ? `${fmt(e.share, 1)}% (${e.k}/${e.n})` : "–") : null);
        }))));
      if (eyes) {
        out.push(h("p", {class: "note"}, "Believes its eyes = counterfactual errors that " +
          `repeat the ${ds.firstRole || "original"} question's answer, over pairs where that ` +
          "answer was possible and not forced (more than two options, or a free-form answer)."));
      }
      for (const t of ds.d.tables || []) out.push(tableNode(t));
    }
    return out;
  }

  function figures() {
    const out = [];
    for (const ds of datasets) {
      out.push(h("h2", null, `${ds.d.name} (${ds.d.suite})`));
      if (!(ds.d.figures || []).length) out.push(h("p", {class: "muted"}, "No figures for this suite."));
      for (const f of ds.d.figures || []) {
        out.push(h("div", {class: "figure"}, h("img", {src: f.src, alt: f.title}),
          h("p", {class: "note"}, `${f.title} — whiskers: 95% intervals. ` +
            "whatif report … --figures DIR writes it as PDF and PNG.")));
      }
    }
    return out;
  }

  // -- item browser ---------------------------------------------------------------------------
  const searchCache = new Map();
  function unitText(ds, u, runIdx) {
    const key = ds.di + "/" + u.index + "/" + runIdx;
    let t = searchCache.get(key);
    if (t === undefined) {
      const parts = [u.key];
      for (const k of u.items) {
        parts.push(str(ds.it.id[k]), str(ds.it.question[k]), str(ds.it.target[k]));
        for (const c of ds.it.choices[k]) parts.push(str(c));
        const run = ds.runs[runIdx];
        if (run && run.at[k] >= 0) {
          parts.push(str(at(run.s.response, run.at[k])), str(run.s.prediction[run.at[k]]));
        }
      }
      t = parts.filter((x) => x !== null).join("\n").toLowerCase();
      searchCache.set(key, t);
    }
    return t;
  }

  function runChoices(ds) {
    return state.model === "any" || !ds.runs[Number(state.model)] ?
      ds.runs.map((_, i) => i) : [Number(state.model)];
  }

  function unitMatches(ds, u, runs, q, outcomeCode) {
    if (state.facet && !u.facets.has(state.facet)) return false;
    if (q && !runs.some((ri) => unitText(ds, u, ri).includes(q)) &&
        !unitText(ds, u, -1).includes(q)) return false;
    return runs.some((ri) => {
      if (outcomeCode && ds.oc[ri][u.index] !== outcomeCode) return false;
      if (state.flag && !ds.flags[ri][u.index][state.flag]) return false;
      return true;
    });
  }

  function filtered(ds) {
    const runs = runChoices(ds);
    const q = state.q.trim().toLowerCase();
    return ds.units.filter((u) => unitMatches(ds, u, runs, q, state.outcome));
  }

  function select(id, label, value, options, onchange) {
    return h("label", null, label, h("select", {id, onchange: (e) => onchange(e.target.value)},
      options.map(([v, t]) => h("option", {value: v, selected: v === value}, t))));
  }

  function itemsView() {
    const ds = datasets[Number(state.ds)];
    if (state.unit && ds.byKey.has(state.unit)) return pairView(ds, ds.byKey.get(state.unit));
    const runs = runChoices(ds);
    const q = state.q.trim().toLowerCase();
    const order = ["RR", "RW", "WR", "WW", "all", "some", "none"];
    const present = new Set(ds.oc.flat());
    const codes = order.filter((c) => present.has(c) ||
      (ds.firstRole && ["RR", "RW", "WR", "WW"].includes(c)));
    const count = (code) => ds.units.filter((u) => unitMatches(ds, u, runs, q, code)).length;
    const search = h("input", {type: "search", id: "q", value: state.q,
      placeholder: "question, answer, response, id"});
    search.addEventListener("change", () => go({q: search.value, shown: String(PAGE)}));
    const controls = h("div", {class: "controls"},
      select("f-ds", "dataset", state.ds, datasets.map((x, i) => [String(i), x.d.name]),
        (v) => go({ds: v, model: "any", facet: "", outcome: "", unit: "", shown: String(PAGE)})),
      select("f-model", "model", state.model, [["any", "any model"],
        ...ds.runs.map((r, i) => [String(i), r.label])], (v) => go({model: v, shown: String(PAGE)})),
      select("f-facet", "group / category", state.facet, [["", "all"],
        ...ds.facets.map((f) => [f, f])], (v) => go({facet: v, shown: String(PAGE)})),
      select("f-outcome", "outcome", state.outcome, [["", "any outcome"],
        ...codes.map((c) => [c, `${outcomeName(ds, c)} (${count(c)})`])],
      (v) => go({outcome: v, shown: String(PAGE)})),
      select("f-flag", "only", state.flag, [["", "all pairs"],
        ["repeat", "counterfactual repeated the original answer"], ["unparsed", "parse failures"],
        ["error", "backend errors"]], (v) => go({flag: v, shown: String(PAGE)})),
      h("label", null, "search", search));
    const found = filtered(ds);
    const shown = Math.max(PAGE, Number(state.shown) || PAGE);
    const noun = ds.firstRole ? "pairs" : "units";
    const out = [controls, h("p", null, h("b", {id: "match-count"}, String(found.length)),
      ` of ${ds.units.length} ${noun} match`, state.model === "any" ? " (for any model)" : "",
      ". Click a row to open it; in a pair, ", h("kbd", null, "j"), "/", h("kbd", null, "k"),
      " or the arrow keys step through the list, ", h("kbd", null, "Esc"), " comes back.")];
    out.push(unitList(ds, found.slice(0, shown)));
    if (found.length > shown) {
      out.push(h("button", {class: "more", onclick: () => go({shown: String(shown + PAGE)})},
        `Show ${Math.min(PAGE, found.length - shown)} more`));
    }
    return out;
  }

  function unitList(ds, units) {
    const head = ["pair", "group", "question", ...ds.runs.map((r) => r.label)];
    return h("table", {class: "list", id: "unit-list"},
      h("thead", null, h("tr", null, head.map((c) => h("th", null, c)))),
      h("tbody", null, units.map((u) => {
        const k0 = u.first ?? u.items[0];
        return h("tr", {class: "unit", "data-unit": u.key, onclick: () => go({unit: u.key})},
          h("td", null, u.key), h("td", null, str(ds.it.group[k0]) ?? ""),
          h("td", {class: "q"}, str(ds.it.question[k0]) ?? ""),
          ds.runs.map((run, ri) => {
            const code = ds.oc[ri][u.index];
            const f = ds.flags[ri][u.index];
            return h("td", null, code === null ? "–" : h("span", {class: "badge " + code,
              title: outcomeName(ds, code)}, badgeText[code]),
            f.error ? h("span", {class: "badge err", title: "backend error"}, "E") : null,
            f.unparsed ? h("span", {class: "badge", title: "parse failure"}, "?") : null,
            f.repeat ? h("span", {class: "badge", title: "repeated the original answer"}, "=")
              : null);
          }));
      })));
  }

  function imageNode(ds, i, caption) {
    const rel = ds.d.images[i];
    let src = null;
    if (DATA.images === "serve" && ds.d.found) {
      src = "image/" + ds.di + "/" + rel.split("/").map(encodeURIComponent).join("/");
    } else src = ds.d.thumbs[String(i)] || null;
    if (!src) {
      return h("div", {class: "noimg"}, `${caption}: ${rel}. `, ds.d.problem ||
        ("This image is not embedded in this file (only the most telling pairs' images " +
          "are). Run whatif view RUN_DIR to see every image at full size."));
    }
    return h("figure", null, h("img", {src, alt: rel}), h("figcaption", null, `${caption}: ${rel}`));
  }

  function scoresNode(ds, k, run, j) {
    const scores = run.s.scores && run.s.scores[j];
    if (!scores) return null;
    const choices = ds.it.choices[k].map(str);
    const top = Math.max(...scores);
    const probs = scores.map((x) => Math.exp(x - top));
    const total = probs.reduce((a, b) => a + b, 0);
    const picked = str(run.s.prediction[j]);
    return h("div", {class: "scores", title: "rank scores (log-probability) per candidate; " +
      "bar = share after softmax"}, scores.map((x, i) => {
      const name = choices[i] ?? String.fromCharCode(65 + i);
      const bar = h("div", {class: "bar" + (name === picked ? " chosen" : "")});
      bar.style.width = (100 * probs[i] / total).toFixed(1) + "%";
      return [h("span", null, name), h("div", null, bar), h("span", {class: "num"}, x.toFixed(3))];
    }));
  }

  function pretty(value) {
    if (value === null || value === undefined) return null;
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  const unitOf = (ds, k) => ds.unitOfItem[k];

  function answerNode(ds, k, run) {
    const j = run.at[k];
    if (j < 0) return h("td", {class: "muted"}, "not evaluated");
    const s = run.s;
    const ok = s.correct[j] === "1";
    const parses = Object.entries(s.parses).map(([name, col]) =>
      `${name}: ${str(col[j]) ?? "(none)"}`);
    const kids = [h("div", null, h("span", {class: ok ? "ok" : "bad"}, ok ? "right" : "wrong"),
      " · answer: ", h("b", {class: "prediction"}, str(s.prediction[j]) ?? "(none)"),
      s.unparsed[j] === "1" ? " · parse failure" : null,
      str(at(s.flag, j)) ? ` · flag: ${str(at(s.flag, j))}` : null)];
    if (str(at(s.error, j)) !== null) {
      kids.push(h("div", {class: "bad"}, "error: ", str(at(s.error, j))));
    }
    const u = ds.units[unitOf(ds, k)];
    if (k === u.cf && ds.flags[ds.runs.indexOf(run)][u.index].repeat) {
      kids.push(h("div", {class: "repeat"}, `repeats the ${ds.firstRole} question's answer`));
    }
    if (str(at(s.response, j)) !== null) {
      kids.push(text(str(at(s.response, j)), "text response"));
    }
    if (parses.length > 1) kids.push(h("div", {class: "muted"}, "parsers — " + parses.join("; ")));
    kids.push(scoresNode(ds, k, run, j));
    if (s.score && s.score[j] !== null) kids.push(h("div", null, `judged score: ${s.score[j]}`));
    if (at(s.judgement, j)) {
      kids.push(h("details", null, h("summary", null, "judge"), text(pretty(at(s.judgement, j)))));
    }
    if (at(s.trace, j)) {
      kids.push(h("details", {open: true}, h("summary", null, "program trace"),
        text(pretty(at(s.trace, j)))));
    }
    kids.push(h("details", null, h("summary", null, "prompt"), text(str(s.prompt[j]))));
    if (str(at(s.input, j)) !== null) {
      kids.push(h("details", null, h("summary", null, "model input as sent"),
        text(str(at(s.input, j)))));
    }
    return h("td", {class: "answer"}, kids);
  }

  function pairView(ds, u) {
    const list = filtered(ds);
    const pos = list.indexOf(u);
    const step = (delta) => {
      const next = list[pos + delta];
      if (next) go({unit: next.key});
    };
    keyHandler = (e) => {
      if (e.target.closest && e.target.closest("input,select,textarea")) return;
      if (e.key === "j" || e.key === "ArrowRight") step(1);
      else if (e.key === "k" || e.key === "ArrowLeft") step(-1);
      else if (e.key === "Escape") go({unit: ""});
    };
    const it = ds.it;
    const seen = new Set();
    const pictures = [];
    for (const k of u.items) {
      for (const i of it.images[k]) {
        if (!seen.has(i)) { seen.add(i); pictures.push(imageNode(ds, i, "image")); }
      }
      const iv = it.intervened[k];
      if (iv >= 0 && !seen.has(iv)) {
        seen.add(iv);
        pictures.push(imageNode(ds, iv, "intervened scene (what the counterfactual describes)"));
      }
    }
    const roles = u.items.map((k) => ds.role(k) ?? "item");
    const head = h("div", {class: "pairhead"},
      h("button", {onclick: () => go({unit: ""})}, "← list"),
      h("button", {id: "prev", disabled: pos <= 0, onclick: () => step(-1)}, "previous"),
      h("button", {id: "next", disabled: pos < 0 || pos >= list.length - 1,
        onclick: () => step(1)}, "next"),
      h("b", null, `${ds.firstRole ? "pair" : "unit"} ${u.key}`),
      h("span", {class: "muted"}, pos >= 0 ? `${pos + 1} of ${list.length} in the list` :
        "not in the filtered list"));
    const questionRow = h("tr", null, h("th", null, "question"), u.items.map((k) => h("td", null,
      text(str(it.question[k]), "text question"),
      it.choices[k].length ? h("ol", {class: "options", type: "A"}, it.choices[k].map((c) =>
        h("li", {class: c === it.target[k] ? "target" : null}, str(c)))) : null,
      h("div", null, "target: ", h("b", {class: "target"}, str(it.target[k]) ?? "")),
      h("div", {class: "muted"}, `${str(it.id[k])} · ${str(it.group[k]) ?? ""}`),
      it.provenance[k] ? h("details", null, h("summary", null, "provenance"),
        text(pretty(it.provenance[k]))) : null)));
    const modelRows = ds.runs.map((run) => h("tr", {class: "model"}, h("th", null, run.label),
      u.items.map((k) => answerNode(ds, k, run))));
    return [head, h("div", {class: "images"}, pictures),
      h("table", {class: "pair", id: "pair-view"},
        h("thead", null, h("tr", null, h("th", null, ""), roles.map((r) =>
          h("th", null, r)))),
        h("tbody", null, questionRow, modelRows))];
  }

  // -- model vs model -------------------------------------------------------------------------
  function compareView() {
    const ds = datasets[Number(state.ds)];
    const out = [h("div", {class: "controls"},
      select("c-ds", "dataset", state.ds, datasets.map((x, i) => [String(i), x.d.name]),
        (v) => go({ds: v, a: "0", b: "1"})))];
    if (ds.runs.length < 2) {
      out.push(h("p", {class: "muted"}, "This dataset has one run; compare needs two."));
      return out;
    }
    const a = ds.runs[Number(state.a)] || ds.runs[0];
    const b = ds.runs[Number(state.b)] || ds.runs[1];
    const opts = ds.runs.map((r, i) => [String(i), r.label]);
    out[0].append(select("c-a", "model A", String(ds.runs.indexOf(a)), opts, (v) => go({a: v})),
      select("c-b", "model B", String(ds.runs.indexOf(b)), opts, (v) => go({b: v})));
    const roles = [...new Set(ds.units.flatMap((u) => u.items.map((k) => ds.role(k) ?? "item")))]
      .sort((x, y) => roleRank(x) - roleRank(y));
    for (const role of roles) {
      const c = {RR: 0, RW: 0, WR: 0, WW: 0};
      for (let k = 0; k < ds.n; k++) {
        if ((ds.role(k) ?? "item") !== role || a.at[k] < 0 || b.at[k] < 0) continue;
        c[(right(a, k) ? "R" : "W") + (right(b, k) ? "R" : "W")]++;
      }
      const cell = (code) => h("td", {class: "num", "data-role": role, "data-cell": code}, c[code]);
      out.push(h("table", {class: "twobytwo", "data-role": role},
        h("caption", null, `${role} questions`),
        h("thead", null, h("tr", null, h("th", null, ""), h("th", null, `B right (${b.label})`),
          h("th", null, "B wrong"))),
        h("tbody", null,
          h("tr", null, h("th", null, `A right (${a.label})`), cell("RR"), cell("RW")),
          h("tr", null, h("th", null, "A wrong"), cell("WR"), cell("WW")))));
    }
    const differ = ds.units.filter((u) => u.items.some((k) =>
      a.at[k] >= 0 && b.at[k] >= 0 && right(a, k) !== right(b, k)));
    out.push(h("p", null, h("b", {id: "disagree-count"}, String(differ.length)),
      ` ${ds.firstRole ? "pairs" : "units"} where A and B disagree on at least one question.`));
    out.push(unitList(ds, differ.slice(0, Math.max(PAGE, Number(state.shown) || PAGE))));
    return out;
  }

  // -- runs -----------------------------------------------------------------------------------
  function specNode(value) {
    if (value === null || typeof value !== "object") return String(value);
    if (!Object.keys(value).length) return "—";
    if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) {
      return value.join(", ");
    }
    return h("dl", {class: "spec"}, Object.entries(value).map(([k, v]) =>
      [h("dt", null, k), h("dd", null, specNode(v))]));
  }

  function runsView() {
    const out = [];
    for (const ds of datasets) {
      out.push(h("h2", null, `${ds.d.name} (${ds.d.suite})`));
      for (const run of ds.runs) {
        const r = run.r;
        const e = r.execution;
        out.push(h("h3", null, run.label), h("dl", {class: "spec"},
          h("dt", null, "model"), h("dd", null, r.name === r.model ? r.model :
            `${r.name} (${r.model})`),
          h("dt", null, "run folder"), h("dd", null, r.folder || "written by this run"),
          h("dt", null, "execution"), h("dd", null, e ? specNode(e) :
            "not recorded (a run folder written before execution.json existed)"),
          h("dt", null, "spec"), h("dd", null, specNode(r.spec))));
      }
    }
    return out;
  }

  // -- shell ----------------------------------------------------------------------------------
  let keyHandler = null;
  document.addEventListener("keydown", (e) => { if (keyHandler) keyHandler(e); });
  const app = document.getElementById("app");
  const tabs = document.getElementById("tabs");

  function render() {
    keyHandler = null;
    tabs.replaceChildren(...VIEWS.map(([v, label]) => h("button", {
      class: v === state.view ? "on" : null, "data-view": v,
      onclick: () => go({view: v, unit: v === "items" ? state.unit : ""})}, label)));
    const view = {overview, figures, items: itemsView, compare: compareView, runs: runsView};
    app.replaceChildren(...[view[state.view]()].flat(3).filter((x) => x));
    if (state.view === "items" && state.unit) window.scrollTo(0, 0);
  }

  readHash();
  render();
  document.body.setAttribute("data-ready", String(Math.round(performance.now())));
})();
