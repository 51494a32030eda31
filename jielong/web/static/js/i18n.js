// Texts come from the catalogue the page embeds; nothing user-facing is written here.
const boot = JSON.parse(document.getElementById("boot")?.textContent || "{}");
const texts = boot.t || {};

export const lang = boot.lang || "zh-Hant";
export const variant = boot.variant || null;

export function t(key, values = {}) {
  let text = texts[key];
  if (typeof text !== "string") return key;
  for (const [name, value] of Object.entries(values)) text = text.split(`{${name}}`).join(String(value));
  return text;
}

const RANKS = { A: 1, T: 10, J: 11, Q: 12, K: 13 };

export function rankOf(code) {
  const r = code[0];
  return RANKS[r] || Number(r);
}

export function cardName(code) {
  return t("card.name", { rank: t(`rank.${rankOf(code)}`), suit: t(`suit.${code[1]}`) });
}

const SUITS = ["C", "D", "H", "S"];

export function pileName(id) {
  const [kind, index] = id.split(":");
  const n = Number(index) + 1;
  if (kind === "stock") return t("pile.stockName");
  if (kind === "waste") return t("pile.waste");
  if (kind === "cell") return t("pile.cell", { n });
  if (kind === "foundation") {
    if (variant?.foundationsBySuit) return t("pile.foundationSuit", { suit: t(`suit.${SUITS[n - 1]}`) });
    return t("pile.foundation", { n });
  }
  return t(variant?.family === "freecell" ? "pile.column" : "pile.tableau", { n });
}

export function formatTime(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
