// Card faces drawn as SVG: one sprite of suit shapes, then a few elements per
// card, so they stay sharp at any size.
const SUIT_PATHS = {
  H: "M50 92C22 68 4 52 4 31 4 15 16 4 30 4c9 0 16 5 20 13 4-8 11-13 20-13 14 0 26 11 26 27 0 21-18 37-46 61z",
  D: "M50 2 90 50 50 98 10 50z",
  S: "M50 3C64 24 95 40 95 62c0 14-11 22-23 22-8 0-14-4-18-9 1 9 5 16 13 21H33c8-5 12-12 13-21-4 5-10 9-18 9-12 0-23-8-23-22C5 40 36 24 50 3z",
  C: "M50 6a21 21 0 0 1 16 35 21 21 0 1 1 -10 38c1 8 5 13 12 17H32c7-4 11-9 12-17a21 21 0 1 1 -10-38A21 21 0 0 1 50 6z",
};

export function installSprite() {
  if (document.getElementById("suit-sprite")) return;
  const symbols = Object.entries(SUIT_PATHS)
    .map(([s, d]) => `<symbol id="suit-${s}" viewBox="0 0 100 100"><path d="${d}"/></symbol>`)
    .join("");
  const holder = document.createElement("div");
  holder.innerHTML = `<svg id="suit-sprite" width="0" height="0" style="position:absolute" aria-hidden="true">${symbols}</svg>`;
  document.body.prepend(holder.firstChild);
}

const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

export function rankText(code) {
  return RANK_TEXT[code[0]] || code[0];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}

export function faceSVG(code) {
  const rank = rankText(code);
  const suit = code[1];
  const wide = rank === "10" ? ' textLength="46" lengthAdjust="spacingAndGlyphs"' : "";
  const court = "JQK".includes(code[0]);
  const centre = court
    ? `<rect x="20" y="54" width="60" height="76" rx="6" class="court"/>` +
      `<text x="50" y="112" class="court-rank">${rank}</text>` +
      `<use href="#suit-${suit}" x="60" y="58" width="16" height="16"/>`
    : `<use href="#suit-${suit}" x="22" y="60" width="56" height="56"/>`;
  return (
    `<svg viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    `<text x="7" y="40" class="rank"${wide}>${rank}</text>` +
    `<use href="#suit-${suit}" x="62" y="9" width="31" height="31"/>` +
    centre +
    `</svg>`
  );
}

export function suitSVG(suit) {
  return `<svg viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;
}
