// The table page: the controller (controller.js) acts on the state
// (state.js), input arrives through events.js, and paint.js with render.js
// draws one frame per change.
import { attachBoardTools } from "./boardtools.js";
import { installSprite } from "./cardart.js";
import { load } from "./controller.js";
import { attachEvents } from "./events.js";
import { initLangSwitch } from "./langswitch.js";
import { initSettings } from "./settings.js";

installSprite();
initLangSwitch();
initSettings();
attachEvents();
attachBoardTools();
load();
