// Part of the whatifbench results explorer; page.py joins the parts in order inside one
// function scope (see explorer-1-data.js for the overall picture).
  // -- tables ----------------------------------------------------------------------------------
  function cellNode(c, nInCell) {
    if (typeof c === "string") return h("td", {class: /^[-+–\d.]/.test(c) ? "num" : null}, c);
    const tips = [];
    const kids = [fmt(c.v, c.d)];
    if (c.ci && c.v !== null) {
      // ± half the width when the interval is centred on the value (as the tables'
      // Cell.centred), else how far it reaches above and below, stacked: intervals at 0 and
      // 100 % are not symmetric
      const below = c.v - c.ci[0], above = c.ci[1] - c.v;
      const centred = Math.abs(below - above) <= Math.max(0.1 * (below + above) / 2,
                                                         Math.pow(10, -c.d));
      kids.push(" ", centred ? h("span", {class: "pm"}, "±" + fmt((c.ci[1] - c.ci[0]) / 2, c.d))
        : h("span", {class: "pm asym"}, h("sup", null, "+" + fmt(above, c.d)),
          h("sub", null, "−" + fmt(below, c.d))));
      tips.push(`95% interval ${fmt(c.ci[0], c.d)} – ${fmt(c.ci[1], c.d)}`);
    }
    if (c.dv !== undefined) {
      const sig = c.p !== undefined && c.p < 0.05;
      kids.push(" ", h("span", {class: "delta" + (sig ? " sig" + (c.dv > 0 ? " up" : "") : "")},
        "(" + signed(c.dv, c.d) + (sig ? "*" : "") + ")"));
      tips.push(`Δ = counterfactual − original = ${signed(c.dv, 2)}`);
      if (c.dci) tips.push(`Δ 95% interval ${signed(c.dci[0], c.d)} – ${signed(c.dci[1], c.d)}`);
      if (c.p !== undefined) tips.push(`McNemar p = ${c.p}`);
    }
    if (c.n !== undefined) {
      tips.push(`n = ${c.n}`);
      if (nInCell) kids.push(" ", h("span", {class: "n"}, "n=" + c.n));
    }
    return h("td", {class: "num", title: tips.join("; ") || null}, kids);
  }

  const GLOSSARY = [
    ["pair acc", "pair accuracy: % of pairs whose two questions (original and counterfactual) " +
      "are both answered right"],
    ["acc+", "% of pairs whose basic and counterfactual questions are both answered right"],
    ["orig", "accuracy on the original questions (%)"],
    ["cf (Δ)", "accuracy on the counterfactual questions (%), and in brackets its change Δ = " +
      "counterfactual − original"],
    ["unparsed", "% of replies in which no answer could be found"]];
  const glossary = (c) => (GLOSSARY.find(([term]) => String(c).startsWith(term)) || [])[1];

  function tableNode(t) {
    const head = [];
    if (t.groups.length && t.groups.some(([label]) => label)) {
      head.push(h("tr", null, t.groups.map(([label, n]) => h("th", {colspan: n}, label))));
    }
    head.push(h("tr", null, t.columns.map((c) => h("th", {title: glossary(c)}, c))));
    const inCells = new Set(t.n_in_cells);
    const firstRef = t.rows.length - (t.ref || 0);  // reference rows (chance, blind) come last
    const body = t.rows.map((row, r) => h("tr", {class: r >= firstRef ? "ref" : null},
      row.map((c, i) => i === 0 ? h("td", null, c) : cellNode(c, inCells.has(i)))));
    return h("div", null, h("div", {class: "table scroll"},
      h("table", {class: "results"}, h("caption", null, t.title), h("thead", null, head),
        h("tbody", null, body))),
      t.notes.map((n) => h("p", {class: "note"}, n)));
  }

  // -- overview -------------------------------------------------------------------------------
  function datasetHead(ds) {
    const d = ds.d;
    const embedded = Object.keys(d.thumbs).length;
    // the union of what the runs answered; when runs asked different items (a budgeted run,
    // --limit), say what each asked rather than let the union pass for every run's count
    const asked = ds.runs.map((r) => r.r.counts ? r.r.counts.items : ds.n);
    const each = asked.some((k) => k !== ds.n)
      ? ` (over the runs together; each asked: ${ds.runs.map((r, k) =>
        `${r.label} ${asked[k]}`).join(", ")} items)` : "";
    const kids = [h("h2", null, `${d.name} (${d.suite})`),
      h("p", {class: "muted"}, `${ds.units.length} ${ds.firstRole ? "pairs" : "units"}, ` +
        `${ds.n} items${each}, ${ds.runs.length} run(s). Data: ` +
        `${d.found || d.path || "unknown"}`)];
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
      "p < 0.05; ± is half the 95% interval when it is centred on the value, else its ends " +
      "are shown (hover a number for the interval and n).")];
    for (const ds of datasets) {
      out.push(...datasetHead(ds));
      const rank = ds.d.ranking;
      out.push(h("div", {class: "table"}, h("table", {class: "ranking"},
        h("caption", null, `Ranking by ${rank.metric}`),
        h("thead", null, h("tr", null, ["#", "model", "value", "95% interval"].map(
          (c) => h("th", null, c)))),
        h("tbody", null, rank.rows.map((r, i) => h("tr", null, h("td", null,
          r.human ? "human" : i + 1),
          h("td", null, r.label), h("td", {class: "num"}, fmt(r.value, 1)),
          h("td", {class: "num"}, r.ci ? `${fmt(r.ci[0], 1)} – ${fmt(r.ci[1], 1)}` : "–"))),
        (ds.d.reference || []).map((r) => h("tr", {class: "ref"}, h("td", null, ""),
          h("td", null, r.label), h("td", {class: "num"}, fmt(r.value, 1)),
          h("td", {class: "num"}, "–")))))));
      const eyes = ds.runs.some((run) => run.r.eyes.n > 0);
      const unjudged = ds.runs.some((run) => run.r.counts.not_judged > 0);
      const cols = ["model", "items", "wrong", ...(unjudged ? ["not judged"] : []),
        "parse failures", "errors", "flagged"];
      if (eyes) cols.push("believes its eyes");
      out.push(h("div", {class: "table"}, h("table", {class: "counts"},
        h("caption", null, "Answers per run"),
        h("thead", null, h("tr", null, cols.map((c) => h("th", null, c)))),
        h("tbody", null, ds.runs.map((run) => {
          const c = run.r.counts;
          const e = run.r.eyes;
          return h("tr", null, h("td", null, run.label),
            [c.items, c.wrong].map((v) => h("td", {class: "num"}, v)),
            unjudged ? h("td", {class: "num", title: "free-text answers no judge scored: " +
              "neither right nor wrong, left out of every accuracy"}, c.not_judged ?? 0) : null,
            [c.unparsed, c.errors, c.flagged].map((v) =>
              h("td", {class: "num" + (v > 0 ? " bad" : "")}, v)),
            eyes ? h("td", {class: "num", title: `${e.k} of ${e.n} counterfactual errors`},
              e.n ? `${fmt(e.share, 1)}% (${e.k}/${e.n})` : "–") : null);
        })))));
      if (unjudged) {
        out.push(h("p", {class: "note"}, "Not judged = free-text answers (MuCR's Exp) that no " +
          "judge scored: not counted as wrong and left out of every accuracy; the note under " +
          "the table below says how to judge them."));
      }
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

