// Card faces drawn as SVG: one sprite of suit shapes and court figures, then
// a few elements per card, so they stay sharp at any size. Sizes are in the
// face's own units: 100 wide, 140 high.
const SUIT_PATHS = {
  H: "M50 92C22 68 4 52 4 31 4 15 16 4 30 4c9 0 16 5 20 13 4-8 11-13 20-13 14 0 26 11 26 27 0 21-18 37-46 61z",
  D: "M50 2 90 50 50 98 10 50z",
  S: "M50 3C64 24 95 40 95 62c0 14-11 22-23 22-8 0-14-4-18-9 1 9 5 16 13 21H33c8-5 12-12 13-21-4 5-10 9-18 9-12 0-23-8-23-22C5 40 36 24 50 3z",
  C: "M50 6a21 21 0 0 1 16 35 21 21 0 1 1 -10 38c1 8 5 13 12 17H32c7-4 11-9 12-17a21 21 0 1 1 -10-38A21 21 0 0 1 50 6z",
};

// Court figures, 60 x 70: a bust in the suit's colour, face and gold drawn
// in fixed tones; the king has a crown and beard, the queen a tiara and long
// hair, the jack a feathered cap.
const BUST = '<path d="M4 70C4 52 15 44 30 44s26 8 26 26z" class="robe"/><path d="M23 45l7 11 7-11z" class="gold"/>';
const FACE = '<circle cx="30" cy="31" r="10" class="skin"/>';
const COURTS = {
  K:
    BUST +
    FACE +
    '<path d="M20 31q10 18 20 0q-10 6-20 0z" class="robe"/>' +
    '<path d="M19 23V9l5.5 6L30 7l5.5 8L41 9v14z" class="gold"/>',
  Q:
    '<path d="M17 44q2-8 2-14q0-15 11-15t11 15q0 6 2 14q-7-4-8-14q-5-6-10 0q-1 10-8 14z" class="robe"/>' +
    BUST +
    FACE +
    '<path d="M21 21q9-9 18 0z" class="gold"/><circle cx="30" cy="13" r="2.6" class="gold"/>',
  J:
    BUST +
    FACE +
    '<path d="M18 26q0-13 12-13q12 0 13 11l8-2-5 6H18z" class="robe"/>' +
    '<path d="M40 15q8-9 16-8q-6 3-11 10z" class="gold"/>',
};

export function installSprite() {
  if (document.getElementById("suit-sprite")) return;
  const suits = Object.entries(SUIT_PATHS).map(
    ([s, d]) => `<symbol id="suit-${s}" viewBox="0 0 100 100"><path d="${d}"/></symbol>`,
  );
  const courts = Object.entries(COURTS).map(([r, art]) => `<symbol id="court-${r}" viewBox="0 0 60 70">${art}</symbol>`);
  const holder = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  holder.id = "suit-sprite";
  holder.setAttribute("aria-hidden", "true");
  holder.setAttribute("width", "0");
  holder.setAttribute("height", "0");
  holder.classList.add("sprite");
  holder.innerHTML = suits.join("") + courts.join("");
  document.body.prepend(holder);
}

const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

export function rankText(code) {
  return RANK_TEXT[code[0]] || code[0];
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}

// The corner rank's size in face units for a card `cw` px wide: about 45% of
// a phone's narrow card, a quarter of a desktop's, never under 14 px.
export function indexSize(cw, large = false) {
  const px = Math.max(14, Math.min(cw * 0.45, 14 + cw * 0.12)) * (large ? 1.15 : 1);
  return Math.min(52, Math.round((px / cw) * 100));
}

// How far down the face the corner index reaches (J's hook included).
export function indexBand(index) {
  return Math.ceil(5 + index);
}

const cache = new Map();

// `clear`: how far down (face units) an opened fan shows, kept free of the pip
export function faceSVG(code, index = 34, clear = 60) {
  const key = `${code}${index}:${clear}`;
  let svg = cache.get(key);
  if (!svg) {
    svg = drawFace(code, index, clear);
    cache.set(key, svg);
  }
  return svg;
}

function drawFace(code, index, clear) {
  const rank = rankText(code);
  const suit = code[1];
  const base = Math.round(4 + index * 0.74);
  const pip = Math.round(index * 0.8);
  const wide = rank === "10" ? ` textLength="${Math.round(index * 1.02)}" lengthAdjust="spacingAndGlyphs"` : "";
  // below the strip a fanned card shows, so nothing peeks under the index
  const top = indexBand(index) + 6;
  let centre;
  const low = Math.max(clear, top);
  if ("JQK".includes(code[0])) {
    const h = 136 - low;
    const w = Math.min(80, h * 0.86);
    const x = (100 - w) / 2;
    centre =
      `<rect x="${x}" y="${low}" width="${w}" height="${h}" rx="5" class="court-bg"/>` +
      `<use href="#court-${code[0]}" x="${x + 2}" y="${low + 2}" width="${w - 4}" height="${h - 2}"/>`;
  } else {
    const size = Math.round(Math.min(66, (136 - low) * 0.85));
    // low enough not to peek out of an opened fan either
    const y = Math.max(low, Math.round(top + (136 - top - size) / 2));
    centre = `<use href="#suit-${suit}" x="${50 - size / 2}" y="${y}" width="${size}" height="${size}"/>`;
  }
  return (
    `<svg viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    `<text x="5" y="${base}" class="rank" font-size="${index}"${wide}>${rank}</text>` +
    `<use href="#suit-${suit}" x="${95 - pip}" y="${base - pip}" width="${pip}" height="${pip}" class="index-suit"/>` +
    centre +
    `</svg>`
  );
}

export function suitSVG(suit) {
  return `<svg viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;
}
