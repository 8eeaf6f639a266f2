// The notebook runner's own output stays blocking while its kernels run. Node (the tslab kernel) makes a pipe
// non-blocking the first time it touches it, and the flag belongs to the open file description: a kernel that shared
// the runner's stdout / stderr made the runner's writes fail with BlockingIOError whenever the reader was slow — on a
// busy CI machine the runner's traceback was cut off before its last line (scripts/run_notebooks.py,
// kernel_output_handles). The kernel now gets its own description of the same pipe.
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { PYTHON, ROOT, ensureKernelSpec, runProcess } from "./support/processes";

beforeAll(async () => {
  await ensureKernelSpec();
}, 60_000);

describe("the notebook runner's output", () => {
  it(
    "stays blocking after a kernel wrote to its stdout and stderr (both pipes)",
    async () => {
      const r = await runProcess(PYTHON, [path.join(ROOT, "test", "fixtures", "runner-stdio-probe.py")]);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain("runner stdout blocking: True; stderr blocking: True");
    },
    120_000,
  );
});
