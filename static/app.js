// Partner Admin: small progressive enhancements. Loaded as a file (the
// Content-Security-Policy forbids inline script); every page works without it.
(function () {
  "use strict";

  // A form submits once: a second click while the first request is in flight
  // does nothing. htmx requests are guarded by hx-disabled-elt where used.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || form.hasAttribute("hx-post")) return;
    // A form that opens a new tab (a launch link fetched at each click) may
    // be sent again: the page stays.
    if (form.target === "_blank") return;
    if (form.dataset.submitted === "1") { ev.preventDefault(); return; }
    form.dataset.submitted = "1";
    form.querySelectorAll("button[type=submit]").forEach(function (b) { b.setAttribute("aria-disabled", "true"); });
  });

  // Copy buttons: <button data-copy="#id">. Buttons marked hidden are shown
  // only here, so that without JavaScript no button does nothing (the text
  // stays selectable). Without the clipboard API the text is selected, for
  // the person to copy.
  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("[data-copy]") : null;
    if (!btn) return;
    var el = document.querySelector(btn.getAttribute("data-copy"));
    if (!el) return;
    if (!navigator.clipboard) { selectText(el); return; }
    navigator.clipboard.writeText(el.value || el.textContent.trim()).then(function () {
      btn.textContent = "Copied";
    }, function () { selectText(el); });
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
  });

  // Countdowns: <time data-countdown="2026-11-22T12:00:00Z">.
  function tick() {
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var left = Math.round((Date.parse(el.getAttribute("data-countdown")) - Date.now()) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = "expired"; return; }
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = m + ":" + (s < 10 ? "0" : "") + s;
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);

  // A live part htmx reloads (the start page's, every 10 seconds) arrives
  // with its <details> closed: those with an id that the reader had open
  // (a chart's table of numbers) are opened again.
  var openDetails = {};
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!(d instanceof HTMLDetailsElement) || !d.id) return;
    if (d.open) openDetails[d.id] = true; else delete openDetails[d.id];
  }, true);
  document.addEventListener("htmx:load", function (ev) {
    var root = ev.target;
    if (!(root instanceof Element)) return;
    var found = Array.prototype.slice.call(root.querySelectorAll("details[id]"));
    if (root.matches("details[id]")) found.push(root);
    found.forEach(function (d) { if (openDetails[d.id]) d.open = true; });
  });
})();
