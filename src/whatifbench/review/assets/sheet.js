"use strict";
// Review sheet: edits are kept in this browser (localStorage) until the CSV is downloaded.
const sheet = document.getElementById("sheet");
const columns = JSON.parse(sheet.dataset.columns);
const status = document.getElementById("status");
const storageKey = "whatif-review:" + document.body.dataset.sheetId;
const rows = () => [...sheet.querySelectorAll("article.row")];
function cell(row, name) {
  if (name === "key") return row.dataset.key;
  const el = row.querySelector('[data-col="' + name + '"]');
  if (!el) return "";
  return ("value" in el) ? el.value : el.textContent;
}
function sheetCsv() {
  const lines = [csvLine(columns)];
  for (const row of rows()) lines.push(csvLine(columns.map(c => cell(row, c))));
  return lines.join("\n") + "\n";
}
function grow(area) {
  area.style.height = "auto";
  area.style.height = (area.scrollHeight + 2) + "px";
}
function say(text) { status.textContent = text; }
function state() {
  return rows().map(row => {
    const values = {};
    for (const el of row.querySelectorAll("textarea,select")) values[el.dataset.col] = el.value;
    return {key: row.dataset.key, values};
  });
}
let timer = null;
function save() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    try {
      localStorage.setItem(storageKey, JSON.stringify({saved: Date.now(), rows: state()}));
      say("Edits kept in this browser at " + new Date().toLocaleTimeString() +
          "; download the CSV to keep them for good.");
    } catch (e) {
      say("This browser does not let the page keep edits; download the CSV before closing it.");
    }
  }, 250);
}
function addRow() {
  const row = document.getElementById("new-row").content.firstElementChild.cloneNode(true);
  sheet.appendChild(row);
  return row;
}
function restore() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(storageKey) || "null"); } catch (e) { saved = null; }
  if (!saved || !Array.isArray(saved.rows)) return;
  const existing = rows();
  saved.rows.forEach((entry, k) => {
    const row = k < existing.length ? existing[k] : addRow();
    if (k < existing.length && row.dataset.key !== entry.key) return;
    for (const [name, value] of Object.entries(entry.values || {})) {
      const el = row.querySelector('[data-col="' + name + '"]');
      if (el && typeof value === "string") el.value = value;
    }
  });
  say("Restored the edits kept in this browser from " + new Date(saved.saved).toLocaleString() +
      ". They stay here until you download the CSV.");
  document.getElementById("discard").hidden = false;
}
document.getElementById("download").addEventListener("click", () => {
  const blob = new Blob([sheetCsv()], {type: "text/csv"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = document.body.dataset.csvName;
  link.click();
  clearTimeout(timer);
  try { localStorage.removeItem(storageKey); } catch (e) { /* nothing kept */ }
  say("Downloaded " + document.body.dataset.csvName + "; the copy kept in this browser is cleared.");
});
document.getElementById("add").addEventListener("click", () => { addRow(); save(); });
document.getElementById("discard").addEventListener("click", () => {
  try { localStorage.removeItem(storageKey); } catch (e) { /* nothing kept */ }
  location.reload();
});
sheet.addEventListener("input", (e) => { if (e.target.tagName === "TEXTAREA") grow(e.target); save(); });
sheet.addEventListener("change", save);
restore();
for (const area of sheet.querySelectorAll("textarea")) grow(area);
document.body.setAttribute("data-ready", "1");
