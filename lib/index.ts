// The public surface: notebooks `import { ... } from "./lib/index"` (a folder import fails under tslab).
export * from "./core/index";
export * from "./hardware/index";
export * from "./dispatch/index";
export * from "./cluster/index";
export * from "./traces/index";
export * from "./selector/index";
export * from "./demos/index";
export * from "./view/index";
export * from "./exercises/index";

import { staleBuildSource } from "./core/data";
const stale = staleBuildSource();
if (stale) console.warn(`warning: ${stale} changed after the notebooks' library was compiled; run \`npm run build\` (or keep \`npm start\` running) and restart the kernel.`);
