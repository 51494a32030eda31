// The visible language switch: a cookie the server reads for pages and API.
export function initLangSwitch() {
  for (const link of document.querySelectorAll(".langs a[data-lang]")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();
      document.cookie = `lang=${link.dataset.lang}; path=/; max-age=${365 * 86400}; samesite=lax`;
      const url = new URL(location.href);
      url.searchParams.delete("lang");
      location.replace(url);
    });
  }
}
