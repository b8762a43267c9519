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
  // "Copy" buttons copy the citation and pinned URL.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy");
    if (!button) return;
    var field = document.querySelector(button.getAttribute("data-copy"));
    if (!field) return;
    var text = field.value;
    var done = function () {
      var label = button.textContent;
      button.textContent = button.getAttribute("data-done") || "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { field.select(); });
    } else {
      field.focus(); field.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selected */ }
    }
  });
})();
