// Partner Admin: small progressive enhancements. Loaded as a file (the
// Content-Security-Policy forbids inline script); every page works without it.
(function () {
  "use strict";

  // The browser's time zone, sent once: a cookie the server reads at each
  // request to show times in the person's zone (views.ZoneCookie). Set
  // again only when the browser's zone changes.
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var had = document.cookie.match(/(?:^|; )tz=([^;]*)/);
    if (zone && /^[A-Za-z0-9_+\/-]+$/.test(zone) && (!had || had[1] !== zone)) {
      document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax" + (location.protocol === "https:" ? "; Secure" : "");
    }
  } catch (e) { /* no Intl: times stay in UTC, as the page says */ }

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

  // htmx swaps only 2xx answers unless told otherwise. A part answered
  // 400, 409 or 422 (a search not understood, a conflict, a refused field)
  // carries the words the person must read, in the part it replaces, as
  // the same form sent without htmx shows them: swap it.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var s = ev.detail.xhr.status;
    if (s === 400 || s === 409 || s === 422) {
      ev.detail.shouldSwap = true;
      ev.detail.isError = false;
    }
  });

  // A part htmx asked for and did not get (not allowed, not found, a fault
  // of the app or of the network): the page keeps what it shows and says,
  // above it, what went wrong, in the error page's own words. A refresh
  // that fails does not blank the table it refreshes. The next answer the
  // same element gets clears the message.
  var failedElt = null;
  function showProblem(elt, text) {
    var box = document.getElementById("request-problem");
    if (!box) return;
    failedElt = elt;
    box.textContent = text;
    box.hidden = false;
  }
  function problemText(xhr) {
    try {
      var page = new DOMParser().parseFromString(xhr.responseText || "", "text/html").querySelector("[data-testid=error-page]");
      var h = page && page.querySelector("h1"), p = page && page.querySelector("p");
      if (h && p) return h.textContent.trim() + ": " + p.textContent.trim();
    } catch (e) { /* not HTML: the words below */ }
    return "The request failed (" + xhr.status + "). What this page shows may be out of date; reload it to try again.";
  }
  document.addEventListener("htmx:responseError", function (ev) {
    showProblem(ev.detail.elt, problemText(ev.detail.xhr));
  });
  document.addEventListener("htmx:sendError", function (ev) {
    showProblem(ev.detail.elt, "Partner Admin could not be reached. What this page shows may be out of date; it tries again by itself, or reload it.");
  });
  // Cleared as the answer arrives, before it is swapped in: an element
  // replaced by its answer (outerHTML) no longer reaches the document with
  // its later events. A refused answer sets the message again just after.
  document.addEventListener("htmx:beforeOnLoad", function (ev) {
    var box = document.getElementById("request-problem");
    if (box && !box.hidden && ev.detail.elt === failedElt) {
      box.hidden = true;
      box.textContent = "";
      failedElt = null;
    }
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
    navigator.clipboard.writeText(el.value || el.getAttribute("data-full") || el.textContent.trim()).then(function () {
      btn.textContent = "Copied";
    }, function () { selectText(el); });
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
    // A form with errors: the focus goes to its summary (GOV.UK pattern).
    var summary = document.querySelector("[data-error-summary]");
    if (summary) summary.focus();
  });
  // A table wider than the screen scrolls in its own box (app.css); the
  // box takes the focus, so that the keyboard can scroll it too.
  function scrollableTables(root) {
    root.querySelectorAll("main table").forEach(function (t) {
      if (t.scrollWidth > t.clientWidth + 1) {
        if (!t.hasAttribute("tabindex")) t.setAttribute("tabindex", "0");
      } else if (t.getAttribute("tabindex") === "0") {
        t.removeAttribute("tabindex");
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { scrollableTables(document); });
  window.addEventListener("resize", function () { scrollableTables(document); });
  // A table swapped in gets its focus at once, not after htmx's settle
  // delay (a card page's panels arrive after the page).
  document.addEventListener("htmx:afterSwap", function () { scrollableTables(document); });
  // Content htmx swapped in: copy buttons shown, tables checked.
  document.addEventListener("htmx:afterSettle", function (ev) {
    ev.target.querySelectorAll("[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
    scrollableTables(document);
  });

  // Countdowns: <time data-countdown="2026-11-22T12:00:00Z">at 12:00
  // UTC</time> reads "in 9 min 41 s" while the page is open.
  function tick() {
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var left = Math.round((Date.parse(el.getAttribute("data-countdown")) - Date.now()) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = "now (expired)"; return; }
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = "in " + (m > 0 ? m + " min " : "") + s + " s";
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

  // The main navigation's menus (<details data-nav-menu>): Escape closes
  // the open one and gives the focus back to its name; the focus or a
  // click going elsewhere closes it, so that an open list never covers
  // what the keyboard or the pointer moved on to.
  function closeNavMenus(except) {
    document.querySelectorAll("details[data-nav-menu][open]").forEach(function (d) {
      if (d !== except) d.open = false;
    });
  }
  function navMenuOf(el) {
    return el instanceof Element ? el.closest("details[data-nav-menu]") : null;
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    var menu = navMenuOf(ev.target);
    if (menu && menu.open) {
      ev.preventDefault();
      menu.open = false;
      menu.querySelector("summary").focus();
      return;
    }
    closeNavMenus(null);
  });
  document.addEventListener("focusin", function (ev) { closeNavMenus(navMenuOf(ev.target)); });
  document.addEventListener("click", function (ev) { closeNavMenus(navMenuOf(ev.target)); });
})();
