// Part of the whatifbench results explorer; page.py joins the parts in order inside one
// function scope (see explorer-1-data.js for the overall picture).
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
    out.push(...pairedStats(ds, ds.runs.indexOf(a), ds.runs.indexOf(b)));
    const differ = ds.units.filter((u) => u.items.some((k) =>
      a.at[k] >= 0 && b.at[k] >= 0 && right(a, k) !== right(b, k)));
    out.push(h("p", null, h("b", {id: "disagree-count"}, String(differ.length)),
      ` ${ds.firstRole ? "pairs" : "units"} where A and B disagree on at least one question.`));
    out.push(unitList(ds, differ.slice(0, Math.max(PAGE, Number(state.shown) || PAGE))));
    return out;
  }

  // The recorded paired comparison of runs ia and ib (results.json "comparisons"), A − B.
  function pairedStats(ds, ia, ib) {
    const found = (ds.d.comparisons || []).find((c) => !c.gain &&
      ((c.a === ia && c.b === ib) || (c.a === ib && c.b === ia)));
    if (ia === ib || !found) return [];
    const flip = found.a !== ia;  // recorded as B vs A: negate
    const diff = (c) => (flip ? -c.difference : c.difference);
    const ci = (c) => (flip ? [-c.ci95[1], -c.ci95[0]] : c.ci95);
    const p = (v) => (v < 0.001 ? "<0.001" : v.toFixed(3));
    const row = (name, c) => h("tr", null, h("td", null, name), h("td", {class: "num"}, c.n_items),
      h("td", {class: "num"}, fmt(flip ? c.accuracy_b : c.accuracy_a, 1)),
      h("td", {class: "num"}, fmt(flip ? c.accuracy_a : c.accuracy_b, 1)),
      h("td", {class: "num" + (c.p_holm < 0.05 ? " sig" + (diff(c) > 0 ? " up" : "") : "")},
        signed(diff(c), 1)),
      h("td", {class: "num"}, `${signed(ci(c)[0], 1)} to ${signed(ci(c)[1], 1)}`),
      h("td", {class: "num"}, p(c.mcnemar_p)), h("td", {class: "num"}, p(c.p_holm)));
    return [h("div", {class: "table"}, h("table", {class: "results stats", id: "paired-stats"},
      h("caption", null, "Paired comparison: A − B"),
      h("thead", null, h("tr", null, ["slice", "items", "A %", "B %", "A − B", "95% interval",
        "p", "p (Holm)"].map((c) => h("th", null, c)))),
      h("tbody", null, row("all", found),
        (found.by_slice || []).map((sl) => row(`${sl.key}: ${sl.value}`, sl))))),
    h("p", {class: "note"}, "A − B in points on the items both runs scored, Newcombe's 95% paired " +
      "interval; p = exact McNemar test (a sign-flip test over pairs); Holm-adjusted over every " +
      "comparison of this dataset (the slices over every slice comparison).")];
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
