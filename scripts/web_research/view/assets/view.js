(function () {
  "use strict";
  var raw = document.getElementById("wr-data");
  var data = JSON.parse(raw ? raw.textContent : "{}");
  var words = data.words || {};
  var marks = data.marks || {};
  var byLabel = new Map();
  (data.footnotes || []).forEach(function (f) { byLabel.set(String(f.label), f); });
  var panel = document.getElementById("panel");
  var title = document.getElementById("panel-title");
  var body = document.getElementById("panel-body");
  var peek = document.getElementById("peek");
  var opener = null;
  var canHover = window.matchMedia && window.matchMedia("(hover: hover)").matches;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function link(url, href) {
    var a = el("a", null, url);
    if (/^https?:\/\//i.test(String(href || url))) {
      a.href = String(href || url); a.rel = "noopener noreferrer nofollow"; a.target = "_blank";
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
  function cls(state) { return String(state).replace(/[^a-z-]/g, ""); }
  function badge(state, text) { return el("span", "badge " + cls(state), text); }
  function stateLine(state) {
    var p = el("p", "state-line st-" + cls(state));
    p.appendChild(el("span", "mark", marks[state] || ""));
    p.appendChild(document.createTextNode(" " + (words[state] || state)));
    return p;
  }
  function why(list) {
    var box = el("div", "why");
    var ul = el("ul");
    list.forEach(function (w) { ul.appendChild(el("li", null, w)); });
    box.appendChild(ul);
    return box;
  }
  // The excerpt as quoted; when it is not in the page, its words that the closest passage
  // writes differently are struck through.
  function excerpt(f) {
    var q = el("blockquote", "excerpt");
    if (f.closest) {
      f.closest.part.forEach(function (pair, i) {
        if (i) { q.appendChild(document.createTextNode(" ")); }
        q.appendChild(pair[1] ? el("del", "diff", pair[0]) : document.createTextNode(pair[0]));
      });
    } else {
      q.textContent = f.excerpt;
    }
    return q;
  }
  // The latest recheck of the live page: its state and date, and for a changed excerpt the
  // closest live passage with the words that now differ marked.
  function recheck(r) {
    var box = el("div", "recheck");
    var head = el("p", "state-line");
    head.appendChild(el("span", "badge live-" + cls(r.state), r.mark + " live page " + r.state));
    head.appendChild(document.createTextNode(" rechecked " + r.date));
    box.appendChild(head);
    if (r.note) { box.appendChild(el("div", "muted", r.note)); }
    if (r.closest) {
      var now = new Set();
      (r.differences || []).forEach(function (d) { String(d[1] || "").split(/\s+/).forEach(function (w) { if (w) { now.add(w); } }); });
      var q = el("blockquote", "live-passage");
      String(r.closest).split(/(\s+)/).forEach(function (w) {
        q.appendChild(now.has(w) ? el("mark", "diff", w) : document.createTextNode(w));
      });
      box.appendChild(el("div", "muted", "Closest passage in the live page:"));
      box.appendChild(q);
    }
    (r.differences || []).forEach(function (d) {
      box.appendChild(el("div", "muted", (d[0] ? "was \u201c" + d[0] + "\u201d" : "added") +
        (d[1] ? ", now \u201c" + d[1] + "\u201d" : ", now dropped")));
    });
    return box;
  }
  var sealWords = { "sealed": "sealed at fetch", "changed": "changed since sealed",
    "unsealed": "not sealed", "no-snapshot": "no stored page" };

  function show(label) {
    var f = byLabel.get(String(label));
    body.textContent = "";
    if (!f) {
      title.textContent = "[" + label + "]";
      body.appendChild(el("p", "muted", "No Sources entry with this label in report.md: run " +
        "web-research finish on the run folder to number the references and write the Sources."));
      open(); return;
    }
    title.textContent = "[" + f.label + "] " + (f.title || "untitled source");
    body.appendChild(stateLine(f.state));
    if (f.excerpt) { body.appendChild(excerpt(f)); }
    var mark = null;
    var pre = null;
    if (f.page) {
      var note = f.match === "found" ? "The excerpt in the stored page text" :
        f.closest ? "The excerpt is not in the stored page text; the closest passage, with the words that differ marked" :
        "The excerpt is not in the stored page text, and no passage comes close; its beginning";
      body.appendChild(el("p", "muted", note + " (characters " + f.page.start + " to " + f.page.end +
        " of " + f.page.total + "):"));
      pre = el("pre", "page");
      pre.id = "page-text";
      pre.tabIndex = 0;
      if (f.page.start > 0) { pre.appendChild(document.createTextNode("\u2026 ")); }
      f.page.segments.forEach(function (s) {
        if (s[1]) {
          var m = el("mark", s[1] === "diff" ? "excerpt-hit diff" : "excerpt-hit", s[0]);
          pre.appendChild(m); mark = mark || m;
        } else { pre.appendChild(document.createTextNode(s[0])); }
      });
      if (f.page.end < f.page.total) { pre.appendChild(document.createTextNode(" \u2026")); }
      body.appendChild(pre);
    } else {
      body.appendChild(el("p", "muted", f.match === "no-snapshot" ? "No stored page text for this URL." :
        "The stored page text cannot be read."));
    }
    if (f.why && f.why.length) { body.appendChild(why(f.why)); }
    if (f.recheck) { body.appendChild(recheck(f.recheck)); }
    var dl = el("dl");
    row(dl, "URL", f.url ? link(f.url) : "none");
    if (f.live_url) {
      var live = link("open the live page at this passage", f.live_url);
      live.className = "live-link";
      row(dl, "Live passage", live);
    }
    row(dl, "Site", f.site);
    row(dl, "Source type", f.source_type);
    row(dl, "Retrieved", f.retrieved);
    row(dl, "Published", f.published);
    var seal = el("span");
    seal.appendChild(badge(f.seal.state, sealWords[f.seal.state] || f.seal.state));
    seal.appendChild(document.createTextNode(" " + f.seal.detail));
    row(dl, "Seal", seal);
    if (f.snapshot) { row(dl, "Stored page", f.snapshot.file + (f.snapshot.truncated ? " (page cut at fetch)" : "")); }
    if (f.snapshot) { row(dl, "Archived", f.snapshot.archive); }
    body.appendChild(dl);
    (f.claims || []).forEach(function (c) {
      var p = el("div", "claim-entry");
      var head = el("div");
      head.appendChild(el("span", "badge st-" + cls(c.state), (marks[c.state] || "") + " " + (words[c.state] || c.state)));
      head.appendChild(document.createTextNode(" report.md line " + c.line + ": " + c.text));
      p.appendChild(head);
      if (c.figures === "missing") { p.appendChild(el("div", "muted", "figures not in the excerpts: " + c.missing.join(", "))); }
      if (c.verdict) {
        p.appendChild(el("div", "muted", "claim-checker: " + c.verdict + (c.reason ? " (" + c.reason + ")" : "")));
      }
      (c.why || []).forEach(function (w) { p.appendChild(el("div", "muted", w)); });
      body.appendChild(p);
    });
    open();
    if (mark && pre) {  // scroll the page text only: the panel's title stays in view
      pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - pre.clientHeight / 3);
    }
  }
  function open() {
    hidePeek();
    panel.hidden = false;
    panel.scrollTop = 0;
    document.body.classList.add("panel-open");
    title.focus({ preventScroll: true });
  }
  function close() {
    if (panel.hidden) { return; }
    panel.hidden = true;
    document.body.classList.remove("panel-open");
    document.querySelectorAll("a.active").forEach(function (a) { a.classList.remove("active"); });
    if (opener && document.contains(opener)) { opener.focus(); }
  }

  function showPeek(a) {
    var f = byLabel.get(String(a.getAttribute("data-fn")));
    if (!f) { return; }
    peek.textContent = "";
    peek.appendChild(el("div", "peek-title", "[" + f.label + "] " + (f.title || "untitled source")));
    peek.appendChild(el("div", "muted", (f.site || "") + (f.source_type ? " \u00b7 " + f.source_type : "")));
    peek.appendChild(stateLine(f.state));
    if (f.recheck) {
      peek.appendChild(el("div", "badge live-" + cls(f.recheck.state),
        f.recheck.mark + " live page " + f.recheck.state + ", rechecked " + f.recheck.date));
    }
    if (f.why && f.why.length) { peek.appendChild(why(f.why.slice(0, 2))); }
    if (f.excerpt) { peek.appendChild(excerpt(f)); }
    peek.appendChild(el("div", "muted", "Click or press Enter for the stored page."));
    peek.hidden = false;
    var r = a.getBoundingClientRect();
    var width = peek.offsetWidth;
    var left = Math.min(Math.max(8, r.left + window.scrollX - 16), window.scrollX + document.documentElement.clientWidth - width - 8);
    peek.style.left = Math.max(8, left) + "px";
    peek.style.top = (r.bottom + window.scrollY + 6) + "px";
  }
  function hidePeek() { peek.hidden = true; }

  function refOf(target) {
    return target && target.closest ? target.closest("sup.fn-ref a[data-fn]") : null;
  }
  if (canHover) {
    document.addEventListener("mouseover", function (ev) { var a = refOf(ev.target); if (a) { showPeek(a); } });
    document.addEventListener("mouseout", function (ev) { if (refOf(ev.target)) { hidePeek(); } });
  }
  document.addEventListener("focusin", function (ev) {
    var a = refOf(ev.target);
    if (a && panel.hidden) { showPeek(a); } else { hidePeek(); }
  });
  window.addEventListener("scroll", hidePeek, { passive: true });
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target.closest("a[data-fn]") : null;
    if (t) {
      ev.preventDefault();
      document.querySelectorAll("a.active").forEach(function (a) { a.classList.remove("active"); });
      t.classList.add("active");
      opener = t;
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
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { hidePeek(); close(); }
  });
})();
