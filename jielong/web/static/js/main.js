// The table page: the controller (controller.js) acts on the state
// (state.js), input arrives through events.js, and paint.js with render.js
// draws one frame per change. The engine on this device (engine/) starts
// once the board is painted.
import { attachBoardTools } from "./boardtools.js";
import { installSprite } from "./cardart.js";
import { load } from "./controller.js";
import { attachDeviceOnlySwitch, start, startWhenIdle } from "./engine/client.js";
import { attachEvents } from "./events.js";
import { initLangSwitch } from "./langswitch.js";
import { initSettings } from "./settings.js";

installSprite();
initLangSwitch();
initSettings();
attachEvents();
attachBoardTools();
attachDeviceOnlySwitch(document.getElementById("device-only"));
if (!navigator.onLine) start();
load();
startWhenIdle();
