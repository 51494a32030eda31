// Home and rules pages: the language switch, and a link back to the game this
// browser left unfinished.
import { initLangSwitch } from "./langswitch.js";
import { initSettings } from "./settings.js";

initLangSwitch();
initSettings();
for (const link of document.querySelectorAll("a[data-resume]")) {
  let id = null;
  try {
    id = localStorage.getItem(`jielong.game.${link.dataset.resume}`);
  } catch {
    id = null;
  }
  if (id) {
    link.href = `/play/${link.dataset.resume}?game=${encodeURIComponent(id)}`;
    link.hidden = false;
  }
}
