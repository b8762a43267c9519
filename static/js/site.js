// Small progressive enhancements; every page works without them.
(function () {
  "use strict";
  // "/" focuses the search box (unless typing in a field already).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = (document.activeElement && document.activeElement.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    var box = document.getElementById("q");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  });
  // "Copy" buttons copy the citation and pinned URL: the cite box's text, or (a diff item's
  // "Cite", shown only where this script runs) its citation and the page's URL to its anchor.
  var citeItems = document.querySelectorAll("button.cite-item");
  for (var i = 0; i < citeItems.length; i++) citeItems[i].hidden = false;
  function citation(button) {
    var holder = button.closest("[data-cite]");
    if (button.hasAttribute("data-anchor") && holder) {
      var here = location.origin + location.pathname + location.search;
      var cite = holder.getAttribute("data-cite").replace("{n}", button.getAttribute("data-n"));
      return cite + " " + here + "#" + button.getAttribute("data-anchor");
    }
    var field = document.querySelector(button.getAttribute("data-copy"));
    return field ? field.value : null;
  }
  function fallback(button, text) {  // no clipboard API: select the text for Ctrl+C
    var field = document.querySelector(button.getAttribute("data-copy"));
    if (!field) { window.prompt(button.textContent, text); return; }
    field.focus(); field.select();
    try { document.execCommand("copy"); } catch (e) { /* the text stays selected */ }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy");
    if (!button) return;
    var text = citation(button);
    if (text === null) return;
    var done = function () {
      var label = button.textContent;
      var labels = button.closest("[data-done]");
      button.textContent = (labels && labels.getAttribute("data-done")) || "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(button, text); });
    } else {
      fallback(button, text);
    }
  });
})();
// Card-name suggestions: an ARIA combobox over /api/v1/cards/autocomplete (the form works
// without it). Picking a suggestion opens the card's page in the page's language.
(function () {
  "use strict";
  var input = document.querySelector("input[data-autocomplete]");
  if (!input || !window.fetch) return;
  var list = document.getElementById(input.getAttribute("aria-controls"));
  var cardUrl = input.getAttribute("data-card-url");
  var timer = null, active = -1, serial = 0;

  function options() { return list.querySelectorAll("[role=option]"); }
  function close() {
    list.hidden = true; list.textContent = ""; active = -1;
    input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant");
  }
  function highlight(i) {
    var opts = options();
    if (!opts.length) return;
    active = (i + opts.length) % opts.length;
    opts.forEach(function (o, k) { o.setAttribute("aria-selected", k === active ? "true" : "false"); });
    input.setAttribute("aria-activedescendant", opts[active].id);
  }
  function open(option) { window.location.href = option.getAttribute("data-url"); }
  function show(names) {
    list.textContent = "";
    names.forEach(function (n, k) {
      var li = document.createElement("li");
      li.id = "card-option-" + k;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.setAttribute("data-url", cardUrl.replace("__slug__", n.card));
      li.setAttribute("lang", n.lang);
      li.textContent = n.name === n.name_en ? n.name : n.name + " — " + n.name_en;
      li.addEventListener("mousedown", function (e) { e.preventDefault(); open(li); });
      list.appendChild(li);
    });
    list.hidden = !names.length;
    input.setAttribute("aria-expanded", names.length ? "true" : "false");
    active = -1;
  }
  input.addEventListener("input", function () {
    clearTimeout(timer);
    var q = input.value.trim();
    if (q.length < 2) { close(); return; }
    timer = setTimeout(function () {
      var mine = ++serial;
      fetch(input.getAttribute("data-autocomplete") + "?q=" + encodeURIComponent(q))
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (names) { if (mine === serial) show(names); })
        .catch(function () { /* suggestions are optional */ });
    }, 120);
  });
  input.addEventListener("keydown", function (e) {
    if (list.hidden) return;
    if (e.key === "ArrowDown") { e.preventDefault(); highlight(active + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); highlight(active - 1); }
    else if (e.key === "Escape") { close(); }
    else if (e.key === "Enter" && active >= 0) { e.preventDefault(); open(options()[active]); }
  });
  input.addEventListener("blur", function () { setTimeout(close, 150); });
})();
// The glossary's filter box filters as one types (the form still works without JS: the server
// filters on submit). A name matches whatever its accents and case; empty letters hide.
(function () {
  "use strict";
  var box = document.getElementById("glossary-q");
  if (!box) return;
  var fold = function (s) {
    return s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  };
  var entries = Array.prototype.map.call(document.querySelectorAll("dl.glossary > dt"), function (dt) {
    return { dt: dt, dd: dt.nextElementSibling, name: fold(dt.textContent) };
  });
  var sections = document.querySelectorAll("section[aria-labelledby^='letter-']");
  var status = document.getElementById("glossary-count");
  box.addEventListener("input", function () {
    var q = fold(box.value.trim());
    var shown = 0;
    entries.forEach(function (e) {
      var hit = !q || e.name.indexOf(q) !== -1;
      e.dt.hidden = !hit;
      if (e.dd) e.dd.hidden = !hit;
      if (hit) shown += 1;
    });
    Array.prototype.forEach.call(sections, function (s) {
      s.hidden = !s.querySelector("dt:not([hidden])");
    });
    if (status) status.textContent = status.getAttribute(shown === 1 ? "data-one" : "data-many").replace("#", shown);
  });
})();

// A link to a folded item (a move block, folded noise) opens the <details> around it, on any
// page: browsers do not all open a closed <details> for its target.
(function () {
  "use strict";
  function openTarget() {
    var id = location.hash.slice(1);
    var el = id && document.getElementById(decodeURIComponent(id));
    var opened = false;
    for (var d = el && el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      if (!d.open) { d.open = true; opened = true; }
    }
    if (opened) el.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", openTarget);
  else openTarget();
})();
