// Review queue keys: j / k focus the next / previous item; a / r / e press its Accept (or
// Confirm) / Reject / End button; x ticks it for a bulk action; o opens its details; u
// presses the toast's Undo; / goes to the filter; ? opens the list of keys. Keys typed into
// a field, or with a modifier, are left alone. The side panel (shown on wide screens)
// follows the focused dispute.
(function () {
  "use strict";

  const items = () => Array.from(document.querySelectorAll(".review-item"));
  const focused = () => document.activeElement && document.activeElement.closest(".review-item");

  function move(step) {
    const all = items();
    if (!all.length) return;
    const at = all.indexOf(focused());
    const index = at === -1 ? 0 : Math.min(Math.max(at + step, 0), all.length - 1);
    all[index].focus();
    all[index].scrollIntoView({ block: "nearest" });
  }

  function tick() {
    const item = focused();
    const box = item && item.querySelector('input[type="checkbox"][form="bulk-form"]');
    if (box) box.checked = !box.checked;
  }

  function undo() {
    const form = document.querySelector("#toast form[data-undo-seconds]");
    if (!form) return;
    // A key may come before htmx has taken up the toast it just swapped in: take it up now,
    // so that Undo stays on the page instead of posting the form whole.
    if (window.htmx) window.htmx.process(form);
    form.querySelector("button[type=submit]").click();
  }

  function filter() {
    const field = document.querySelector("#review-filters #id_predicate");
    if (field) {
      field.focus();
      field.select();
    }
  }

  function keys() {
    const help = document.getElementById("review-keys");
    if (!help) return;
    help.open = !help.open;
    if (help.open) help.querySelector("summary").focus();
  }

  function open() {
    const item = focused();
    const link = item && item.querySelector("a.panel-link");
    if (link) window.location.assign(link.href);
  }

  // The side panel follows the focus, a moment after it settles (j held down loads once).
  let shown = null;
  let timer = null;
  function follow(item) {
    const panel = document.getElementById("review-panel");
    const link = item && item.querySelector("a.panel-link");
    if (!panel || !link || !window.htmx || panel.offsetParent === null) return;
    if (link.href === shown) return;
    clearTimeout(timer);
    timer = setTimeout(function () {
      shown = link.href;
      window.htmx.ajax("GET", link.href, { target: "#review-panel", swap: "innerHTML" });
    }, 120);
  }
  document.addEventListener("focusin", function (event) {
    const item = event.target.closest && event.target.closest(".review-item");
    if (item) follow(item);
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    // The queue came back whole (a filter, a bulk action): the panel shows what is focused.
    if (event.detail.target && event.detail.target.id === "review-queue") shown = null;
  });

  function press(key) {
    const item = focused();
    const button = item && item.querySelector('button[data-key="' + key + '"]');
    if (button) button.click();
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    const actions = {
      j: () => move(1),
      k: () => move(-1),
      a: () => press("a"),
      r: () => press("r"),
      e: () => press("e"),
      x: tick,
      o: open,
      u: undo,
      "/": filter,
      "?": keys,
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // htmx replaces the whole group: keep the focus on what took its place, so j goes on.
  let swapped = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    swapped = event.detail.target && event.detail.target.id;
  });
  document.addEventListener("htmx:afterSettle", function () {
    const swappedIn = swapped && document.getElementById(swapped);
    // A slot's group comes back whole: focus its first dispute still waiting, or the note.
    const item = swappedIn && (swappedIn.querySelector(".review-item") || swappedIn);
    if (item) item.focus();
    swapped = null;
  });
})();

// Bulk selection: "Select all on this page" ticks every box here instead of reloading the
// page with them ticked (its link does that without JavaScript).
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    const link = event.target.closest("a.select-all");
    if (!link) return;
    event.preventDefault();
    const boxes = Array.from(document.querySelectorAll('input[type="checkbox"][form="bulk-form"]'));
    const all = boxes.every(function (box) { return box.checked; });
    boxes.forEach(function (box) { box.checked = !all; });
  });

  // The undo toast leaves when its window closes; the server refuses a late undo anyway.
  function arm(root) {
    root.querySelectorAll("form[data-undo-seconds]").forEach(function (form) {
      const seconds = parseInt(form.dataset.undoSeconds, 10);
      if (form.dataset.armed || !(seconds > 0)) return;
      form.dataset.armed = "1";
      setTimeout(function () { form.remove(); }, seconds * 1000);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { arm(document); });
  document.addEventListener("htmx:afterSettle", function () { arm(document); });
})();
