// The table page: one state object (state.js) is made here and handed to
// each part that reads or changes it: the painter (paint.js with render.js,
// one frame per change), the controller (controller.js, with the game it
// sends through, game.js), the demo, the input (events.js) and the position
// dialog. The engine on this device (engine/) starts once the board is
// painted.
import { attachBoardTools } from "./boardtools.js";
import { installSprite } from "./cardart.js";
import { createController } from "./controller.js";
import { createDemo } from "./demo.js";
import { attachDeviceOnlySwitch, start, startWhenIdle } from "./engine/client.js";
import { attachEvents } from "./events.js";
import { initLangSwitch } from "./langswitch.js";
import { createPainter } from "./paint.js";
import { initSettings } from "./settings.js";
import { createTable } from "./state.js";

const table = createTable();
const paint = createPainter(table);
const ctl = createController(table, paint);
const demo = createDemo(table, ctl, paint);

installSprite();
initLangSwitch();
initSettings();
attachEvents(table, ctl, demo, paint);
attachBoardTools(table, ctl, demo);
attachDeviceOnlySwitch(document.getElementById("device-only"));
if (!navigator.onLine) start();
ctl.load();
startWhenIdle();
