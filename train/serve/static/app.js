// The page's entry: the Play / Replay tabs, the error line, then each part's own set-up.

import { showError } from "./api.js";
import { initPlay } from "./play.js";
import { initReplay } from "./replay.js";

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const on = tab.dataset.tab === name;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(tab.getAttribute("aria-controls")).hidden = !on;
  }
}

function initTabs() {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  for (const tab of tabs) {
    tab.addEventListener("click", () => showTab(tab.dataset.tab));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      const next = tabs[(tabs.indexOf(tab) + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      showTab(next.dataset.tab);
      next.focus();
    });
  }
  const params = new URLSearchParams(window.location.search);
  showTab(params.get("tab") === "replay" && !params.get("game") ? "replay" : "play");
}

document.getElementById("error-close").addEventListener("click", () => showError(null));
initTabs();
initReplay();
initPlay();
