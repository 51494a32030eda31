// The "winnable deals only" switch of the Klondike table: the player's choice,
// kept in this browser and sent with each new random deal. The server picks
// the deal and says whether it was dealt as winnable.
const KEY = "jielong.klondike.winnableOnly";

export function attachWinnableSwitch(input) {
  if (!input) return () => false;
  try {
    input.checked = localStorage.getItem(KEY) === "1";
  } catch {
    // storage may be unavailable (private mode): the switch starts off
  }
  input.addEventListener("change", () => {
    try {
      localStorage.setItem(KEY, input.checked ? "1" : "0");
    } catch {
      // kept for this page only
    }
  });
  return () => input.checked;
}

// The body of a new-deal request: only a random deal can be asked for as
// winnable (a chosen number or the daily deal is what it is).
export function newDealBody(body, winnableOnly) {
  const random = !("deal" in body) && !("daily" in body) && !("position" in body);
  return random && winnableOnly ? { ...body, winnable: true } : body;
}
