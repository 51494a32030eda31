import { initLangSwitch } from "./langswitch.js";

initLangSwitch();
