// whatifbench results explorer, part 1 of 4: data, helpers, state. Renders the JSON block
// #whatif-data with DOM text nodes only: model and dataset text never becomes markup. State
// lives in the URL fragment. page.py joins explorer-0…4 inside one strict function scope:
// 0 the DOM helper h (shared with the annotation app), 1 data and state, 2 tables, overview
// and figures, 3 item browser and pair view, 4 model vs model, runs and the shell that renders
// the current view.
  const DATA = JSON.parse(document.getElementById("whatif-data").textContent);
  const S = DATA.strings;
  const str = (i) => (i === undefined || i === null || i < 0 ? null : S[i]);
  const at = (column, j) => (column ? column[j] : null);  // columns empty throughout are null
  const FIRST = ["original", "basic"];
  const ROLE_ORDER = ["original", "basic", "counterfactual", "c2e", "e2c", "cue", "exp"];
  const PAGE = 100;
  const VIEWS = [["overview", "Overview"], ["figures", "Figures"], ["items", "Items"],
    ["compare", "Model vs model"], ["runs", "Runs"]];

  // Numbers as the terminal, report.md and the CSVs show them (report.table.fixed): toFixed
  // rounds the exact value, halves away from zero; never "-0.0".
  function fmt(v, d) {
    if (v === null || v === undefined) return "–";
    const s = Number(v).toFixed(d);
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  }
  function signed(v, d) {
    const s = Math.abs(v).toFixed(d);
    return (v < 0 && Number(s) !== 0 ? "-" : "+") + s;
  }
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
  // "-": neither right nor wrong (free text graded by a score, or not judged).
  const graded = (run, k) => run.at[k] >= 0 && run.s.correct[run.at[k]] !== "-";

  function outcome(ds, u, run) {
    const present = u.items.filter((k) => graded(run, k));
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

