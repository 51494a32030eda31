// The deal-number box of numbered variants: opens a deal by number and says
// whether it is solvable before it is opened (from the deals catalogue).
import { api } from "./api.js";
import { t, variant } from "./i18n.js";

// A deal number as typed: plain digits go as a number, anything else as the
// text itself, for the server to say what is wrong with it.
export function dealValue(text) {
  const typed = String(text ?? "").trim();
  return /^[0-9]{1,15}$/.test(typed) ? Number(typed) : typed;
}

export function attachDealBox(host, h) {
  host.addEventListener("submit", (e) => {
    e.preventDefault();
    // sent as typed: the server's answer names the range when it is wrong
    h.open(dealValue(new FormData(e.target).get("deal")));
  });

  // checked a moment after typing stops
  let dealCheck = 0;
  host.addEventListener("input", (e) => {
    if (e.target.name !== "deal") return;
    const text = e.target.value.trim();
    const n = /^[0-9]+$/.test(text) ? Number(text) : 0;
    const out = host.querySelector(".deal-check");
    const ticket = ++dealCheck;
    out.classList.remove("bad");
    if (n < 1 || n > variant.catalogueSize) {
      out.textContent = "";
      return;
    }
    setTimeout(async () => {
      if (ticket !== dealCheck) return;
      const res = await h.request(api.deals(variant.id, n, 1));
      if (ticket !== dealCheck || res?.status !== 200 || !res.body.deals?.length) return;
      const d = res.body.deals[0];
      out.textContent = t(d.unsolvable ? "deal.unsolvable" : "deal.solvable", { n: d.deal });
      out.classList.toggle("bad", d.unsolvable);
    }, 250);
  });
}
