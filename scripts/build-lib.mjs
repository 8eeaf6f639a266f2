// Compiles lib/ into build/lib (JavaScript + declarations) when any source changed: the notebooks load it through
// the notebooks/lib symlink. Run by the set-up and by the notebook runner, so executed notebooks never see stale code.
import { buildLib } from "./project.mjs";

console.log(`build: ${buildLib()}`);
