// Review queue keys: j / k focus the next / previous item, a / r press its Accept / Reject
// button. Keys typed into a field, or with a modifier, are left alone.
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

  function press(key) {
    const item = focused();
    const button = item && item.querySelector('button[data-key="' + key + '"]');
    if (button) button.click();
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    const actions = { j: () => move(1), k: () => move(-1), a: () => press("a"), r: () => press("r") };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // htmx replaces the whole item: keep the focus on what took its place, so j goes on.
  let swapped = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    swapped = event.detail.target && event.detail.target.id;
  });
  document.addEventListener("htmx:afterSettle", function () {
    const item = swapped && document.getElementById(swapped);
    if (item) item.focus();
    swapped = null;
  });
})();
