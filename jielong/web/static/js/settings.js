// Display choices kept in this browser: colour scheme (the system's, light or
// dark), a four-colour deck and larger cards. They are classes and attributes
// on <html> that the style sheet and the table's layout read.
const KEY = "jielong.settings";
const DEFAULTS = { theme: "system", fourColour: false, large: false };

export function readSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

function apply(s) {
  const root = document.documentElement;
  if (s.theme === "light" || s.theme === "dark") root.dataset.theme = s.theme;
  else delete root.dataset.theme;
  root.classList.toggle("four-colour", Boolean(s.fourColour));
  root.classList.toggle("large-cards", Boolean(s.large));
}

function save(s) {
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    // storage may be unavailable (private mode): the choice lasts for this page
  }
  apply(s);
  // the table redraws with the new card size
  document.dispatchEvent(new CustomEvent("jielong:settings"));
}

export function largeCards() {
  return document.documentElement.classList.contains("large-cards");
}

export function initSettings() {
  const s = readSettings();
  apply(s);
  const button = document.getElementById("settings-button");
  const dialog = document.getElementById("settings");
  if (!button || !dialog) return;
  const form = dialog.querySelector("form");
  form.elements.theme.value = s.theme;
  form.elements.fourColour.checked = s.fourColour;
  form.elements.large.checked = s.large;
  const open = (shown) => {
    dialog.hidden = !shown;
    button.setAttribute("aria-expanded", String(shown));
    if (shown) form.querySelector("input:checked, input")?.focus();
  };
  button.addEventListener("click", () => open(dialog.hidden));
  dialog.querySelector("[data-close]").addEventListener("click", () => {
    open(false);
    button.focus();
  });
  dialog.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.stopPropagation();
    open(false);
    button.focus();
  });
  form.addEventListener("change", () => {
    save({ theme: form.elements.theme.value, fourColour: form.elements.fourColour.checked, large: form.elements.large.checked });
  });
  form.addEventListener("submit", (e) => e.preventDefault());
}
