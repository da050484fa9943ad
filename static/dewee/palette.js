// The command palette: Ctrl-K (Cmd-K on a Mac) opens it from any page. Typing filters the
// nav's pages and one's saved views of the lists here, and asks the search box's page for
// agents, people, facts and memories (htmx swaps its results in); Enter opens the first page
// listed; Esc closes (the dialog's own).
(function () {
  "use strict";

  function dialog() { return document.getElementById("palette"); }

  function pages() {
    const nav = Array.from(document.querySelectorAll(".main-nav a")).map(function (link) {
      return { text: link.textContent.replace(/\s+\d[\d,+]*\s*$/, "").trim(), href: link.getAttribute("href") };
    });
    // The person's saved views of the lists, named with the page they open.
    const saved = Array.from(document.querySelectorAll("#palette-views a")).map(function (link) {
      return { text: link.textContent.trim() + " (" + link.dataset.page + ")", href: link.getAttribute("href") };
    });
    return nav.concat(saved);
  }

  function listPages(text) {
    const list = document.getElementById("palette-pages");
    const wanted = text.trim().toLowerCase();
    list.replaceChildren();
    pages()
      .filter(function (page) { return !wanted || page.text.toLowerCase().includes(wanted); })
      .forEach(function (page) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = page.href;
        link.textContent = page.text;
        item.append(link);
        list.append(item);
      });
  }

  function open() {
    const palette = dialog();
    if (!palette || palette.open) return;
    const input = document.getElementById("palette-q");
    input.value = "";
    document.getElementById("palette-results").replaceChildren();
    listPages("");
    palette.showModal();
    input.focus();
    // htmx asks for the saved views (#palette-views' hx-trigger); they join the list below.
    document.body.dispatchEvent(new CustomEvent("palette-open"));
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target.id === "palette-views") listPages(document.getElementById("palette-q").value);
  });

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k") {
      if (!dialog()) return;
      event.preventDefault();
      open();
    }
  });

  document.addEventListener("input", function (event) {
    if (event.target.id === "palette-q") listPages(event.target.value);
  });

  document.addEventListener("submit", function (event) {
    if (!event.target.closest("#palette")) return;
    const first = document.querySelector("#palette-pages a");
    if (first && document.getElementById("palette-q").value.trim()) {
      event.preventDefault();
      window.location.assign(first.href);
    }
  });
})();
