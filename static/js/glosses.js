// French glosses on English rule text (/fr/ only; kb/glosses.py writes them). One click hides
// or shows them; the choice is kept in localStorage. Without JavaScript the glosses stay shown
// and the switch stays hidden. Loaded in <head> so that a stored "off" applies before paint.
(function () {
  "use strict";
  var KEY = "kb-glosses";
  var root = document.documentElement;
  function read() { try { return window.localStorage.getItem(KEY); } catch (e) { return null; } }
  function write(value) { try { window.localStorage.setItem(KEY, value); } catch (e) { /* private mode */ } }
  if (read() === "off") root.classList.add("glosses-off");
  function wire() {
    var buttons = document.querySelectorAll("button.gloss-toggle");
    var show = function () {
      var off = root.classList.contains("glosses-off");
      buttons.forEach(function (b) { b.textContent = b.getAttribute(off ? "data-off" : "data-on"); });
    };
    buttons.forEach(function (b) {
      b.hidden = false;
      b.addEventListener("click", function () {
        write(root.classList.toggle("glosses-off") ? "off" : "on");
        show();
      });
    });
    show();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
