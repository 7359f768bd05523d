// Part of the whatifbench results explorer; page.py joins the parts in order inside one
// function scope (see explorer-1-data.js for the overall picture).
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
    return h("div", {class: "table"}, h("table", {class: "list", id: "unit-list"},
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
      }))));
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

  function traceNode(trace) {
    // Program backends: {program, calls: [...], value, failure: {kind, reason}}.
    if (typeof trace !== "object" || Array.isArray(trace)) {
      return h("details", {open: true}, h("summary", null, "program trace"), text(pretty(trace)));
    }
    const calls = Array.isArray(trace.calls) ? trace.calls : [];
    const failure = trace.failure && typeof trace.failure === "object" ? trace.failure : null;
    return h("details", {open: true, class: "trace"},
      h("summary", null, "program trace" + (failure ? ` (failed: ${failure.kind})` : "")),
      trace.program ? text(String(trace.program), "text program") : null,
      h("div", {class: "muted"}, `tool calls: ${calls.length}`),
      calls.slice(0, 50).map((c) => text(JSON.stringify(c), "text call")),
      calls.length > 50 ? h("div", {class: "muted"}, `… ${calls.length - 50} more`) : null,
      h("div", null, "value: ", h("b", null, JSON.stringify(trace.value ?? null))),
      failure ? h("div", {class: "bad"}, `failure: ${failure.kind}: ${failure.reason ?? ""}`)
        : null);
  }

  function answerNode(ds, k, run) {
    const j = run.at[k];
    if (j < 0) return h("td", {class: "muted"}, "not evaluated");
    const s = run.s;
    const ok = s.correct[j] === "1";
    const judgement = at(s.judgement, j);
    const unjudged = judgement && typeof judgement === "object" ? judgement.not_judged : null;
    const verdict = s.correct[j] !== "-" ? h("span", {class: ok ? "ok" : "bad"}, ok ? "right" :
      "wrong") : h("span", {class: "muted"}, unjudged ? "not judged" : "graded by its score");
    const parses = Object.entries(s.parses).map(([name, col]) =>
      `${name}: ${str(col[j]) ?? "(none)"}`);
    const kids = [h("div", null, verdict,
      " · answer: ", h("b", {class: "prediction"}, str(s.prediction[j]) ?? "(none)"),
      s.unparsed[j] === "1" ? " · parse failure" : null,
      str(at(s.flag, j)) ? ` · flag: ${str(at(s.flag, j))}` : null)];
    if (str(at(s.error, j)) !== null) {
      kids.push(h("div", {class: "bad"}, "error: ", str(at(s.error, j))));
    }
    if (unjudged) kids.push(h("div", {class: "note"}, String(unjudged)));
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
    if (at(s.trace, j)) kids.push(traceNode(at(s.trace, j)));
    kids.push(h("details", null, h("summary", null, "prompt"), text(str(s.prompt[j]))));
    if (str(at(s.input, j)) !== null) {
      kids.push(h("details", null, h("summary", null, "model input as sent"),
        text(str(at(s.input, j)))));
    }
    return h("td", {class: "answer"}, kids);
  }

  const ABLATED = {blank: "saw a mid-grey image of the same size instead of the one shown",
    shuffled: "saw the image of another pair instead of the one shown",
    none: "was sent the question without its image"};
  function ablationNote(run) {
    const ablation = run.r.spec && run.r.spec.image_ablation;
    if (!ablation || !ablation.kind) return null;
    return h("div", {class: "muted ablation"}, ABLATED[ablation.kind] || `image: ${ablation.kind}`);
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
    const named = new Map();  // image → what each question calls it (MuCR's Cause, A … D)
    for (const k of u.items) {
      it.images[k].forEach((i, p) => {
        const label = it.labels ? str((it.labels[k] || [])[p]) : null;
        if (label === null) return;
        if (!named.has(i)) named.set(i, []);
        named.get(i).push(u.items.length > 1 ? `${ds.role(k) ?? "item"} ${label}` : label);
      });
    }
    for (const k of u.items) {
      for (const i of it.images[k]) {
        if (!seen.has(i)) {
          seen.add(i);
          pictures.push(imageNode(ds, i, named.has(i) ? `image ${named.get(i).join(" · ")}` :
            "image"));
        }
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
    const modelRows = ds.runs.map((run) => h("tr", {class: "model"},
      h("th", null, run.label, ablationNote(run)), u.items.map((k) => answerNode(ds, k, run))));
    return [head, h("div", {class: "images"}, pictures),
      h("table", {class: "pair", id: "pair-view"},
        h("thead", null, h("tr", null, h("th", null, ""), roles.map((r) =>
          h("th", null, r)))),
        h("tbody", null, questionRow, modelRows))];
  }

