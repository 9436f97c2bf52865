(function () {
  "use strict";
  var raw = document.getElementById("wr-data");
  var data = JSON.parse(raw ? raw.textContent : "{}");
  var byLabel = new Map();
  (data.footnotes || []).forEach(function (f) { byLabel.set(String(f.label), f); });
  var panel = document.getElementById("panel");
  var body = document.getElementById("panel-body");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function link(url) {
    var a = el("a", null, url);
    if (/^https?:\/\//i.test(String(url))) {
      a.href = String(url); a.rel = "noopener noreferrer nofollow"; a.target = "_blank";
    }
    return a;
  }
  function row(dl, name, value) {
    if (value === undefined || value === null || value === "") { return; }
    dl.appendChild(el("dt", null, name));
    var dd = el("dd");
    if (value instanceof Node) { dd.appendChild(value); } else { dd.textContent = String(value); }
    dl.appendChild(dd);
  }
  function badge(state, text) { return el("span", "badge " + String(state).replace(/[^a-z-]/g, ""), text); }
  var sealWords = { "sealed": "sealed at fetch", "changed": "changed since sealed",
    "unsealed": "not sealed", "no-snapshot": "no snapshot" };

  function show(label) {
    var f = byLabel.get(String(label));
    body.textContent = "";
    if (!f) {
      body.appendChild(el("h3", null, "[" + label + "]"));
      body.appendChild(el("p", "muted", "No Sources entry with this label in report.md (a report not yet finished?)."));
      open(); return;
    }
    body.appendChild(el("h3", null, "[" + f.label + "] " + (f.title || "untitled source")));
    var dl = el("dl");
    row(dl, "URL", f.url ? link(f.url) : "none");
    row(dl, "Source type", f.source_type);
    row(dl, "Retrieved", f.retrieved);
    row(dl, "Published", f.published);
    var seal = el("span");
    seal.appendChild(badge(f.seal.state, sealWords[f.seal.state] || f.seal.state));
    seal.appendChild(document.createTextNode(" " + f.seal.detail));
    row(dl, "Seal", seal);
    if (f.snapshot) { row(dl, "Snapshot", f.snapshot.file + (f.snapshot.truncated ? " (page cut at fetch)" : "")); }
    body.appendChild(dl);
    if (f.excerpt) { body.appendChild(el("blockquote", "excerpt", f.excerpt)); }
    (f.claims || []).forEach(function (c) {
      var p = el("div", "claim");
      p.appendChild(el("div", null, "Claim (report.md line " + c.line + "): " + c.text));
      if (c.figures === "missing") { p.appendChild(badge("error", "figures not in the excerpts: " + c.missing.join(", "))); }
      if (c.verdict) {
        p.appendChild(badge(c.verdict.replace(/ /g, "-"), "claim-checker: " + c.verdict));
        if (c.reason) { p.appendChild(document.createTextNode(" " + c.reason)); }
      }
      body.appendChild(p);
    });
    var mark = null;
    if (f.page) {
      var note = f.match === "found" ? "The excerpt in the stored page text" :
        "The excerpt was not found in the stored page text; its beginning:";
      body.appendChild(el("p", "muted", note + " (characters " + f.page.start + " to " + f.page.end +
        " of " + f.page.total + ")"));
      var pre = el("pre", "page");
      pre.id = "page-text";
      if (f.page.start > 0) { pre.appendChild(document.createTextNode("\u2026 ")); }
      f.page.segments.forEach(function (s) {
        if (s[1]) { var m = el("mark", "excerpt-hit", s[0]); pre.appendChild(m); mark = mark || m; }
        else { pre.appendChild(document.createTextNode(s[0])); }
      });
      if (f.page.end < f.page.total) { pre.appendChild(document.createTextNode(" \u2026")); }
      body.appendChild(pre);
    } else {
      body.appendChild(el("p", "muted", f.match === "no-snapshot" ? "No stored page text for this URL." :
        "The stored page text cannot be read."));
    }
    open();
    if (mark) { mark.scrollIntoView({ block: "center" }); }
  }
  function open() {
    panel.hidden = false;
    document.body.classList.add("panel-open");
  }
  function close() {
    panel.hidden = true;
    document.body.classList.remove("panel-open");
    document.querySelectorAll("a.active").forEach(function (a) { a.classList.remove("active"); });
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-fn]") : null;
    if (t && t.tagName === "A") {
      ev.preventDefault();
      document.querySelectorAll("a.active").forEach(function (a) { a.classList.remove("active"); });
      t.classList.add("active");
      show(t.getAttribute("data-fn"));
      return;
    }
    var g = ev.target.closest ? ev.target.closest("a.goto") : null;
    if (g) {
      var target = document.getElementById(g.getAttribute("href").slice(1));
      if (target) {
        document.querySelectorAll(".targeted").forEach(function (e) { e.classList.remove("targeted"); });
        target.classList.add("targeted");
      }
    }
  });
  document.getElementById("panel-close").addEventListener("click", close);
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { close(); } });
})();
