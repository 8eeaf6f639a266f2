// `npm start` as a reader uses it (issue 29): the real scripts/start.mjs serves the reader's copy of the notebooks on a
// free loopback port; through the Jupyter REST API and a kernel's websocket — what the browser does — a notebook is
// opened (trusted), its cells run in the tslab kernel, and it is saved with the outputs, a checkpoint and a new
// notebook beside it. Afterwards `git status --porcelain` is what it was before (empty on a clean checkout) and the
// tracked notebooks are byte for byte the same; the outputs live in the workspace copy.
import { spawn, spawnSync, type ChildProcess } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JupyterClient, freePort, type ExecuteResult } from "./support/jupyter-server";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec } from "./support/processes";

// Inside workspace/ on purpose: the .gitignore rule that hides a reader's workspace is what this test relies on.
const WORKSPACE = path.join(ROOT, "workspace", `test-server-${process.pid}`);
const NOTEBOOK = "00-overview.ipynb";
const TOKEN = `test-${process.pid}`;

const gitStatus = () => spawnSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" }).stdout;
const trackedHashes = () =>
  Object.fromEntries(
    fs
      .readdirSync(NOTEBOOKS_DIR)
      .filter((f) => f.endsWith(".ipynb"))
      .map((f) => [f, createHash("sha256").update(fs.readFileSync(path.join(NOTEBOOKS_DIR, f))).digest("hex")]),
  );
const codeCells = (nb: any) => nb.cells.filter((c: any) => c.cell_type === "code");
const sourceOf = (c: any) => (Array.isArray(c.source) ? c.source.join("") : c.source);

let server: ChildProcess | null = null;
let serverLog = "";
let exitedWith: string | null = null;
let client: JupyterClient;
let statusBefore = "";
let hashesBefore: Record<string, string> = {};

beforeAll(async () => {
  await ensureKernelSpec();
  statusBefore = gitStatus();
  hashesBefore = trackedHashes();
  fs.rmSync(WORKSPACE, { recursive: true, force: true });
  const port = await freePort();
  client = new JupyterClient(port, TOKEN);
  server = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs"), "--no-browser", `--port=${port}`, "--port-retries=0", `--NotebookApp.token=${TOKEN}`], {
    cwd: ROOT,
    env: { ...process.env, LECTURE_WORKSPACE: WORKSPACE, LECTURE_RESULT_CACHE: "off" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (d: Buffer) => (serverLog += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (serverLog += d.toString()));
  server.on("exit", (code, signal) => (exitedWith = `code ${code}, signal ${signal}\n${serverLog}`));
  await client.waitUntilUp(60, () => exitedWith);
}, 90_000);

afterAll(async () => {
  if (server && exitedWith === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    server.kill("SIGTERM"); // start.mjs forwards it to Jupyter, which shuts its kernels down
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (exitedWith === null) server.kill("SIGKILL");
  }
  fs.rmSync(WORKSPACE, { recursive: true, force: true });
  try {
    fs.rmdirSync(path.dirname(WORKSPACE)); // workspace/ itself only when the test made it (it is empty then)
  } catch {
    // a reader's workspace is there: leave it
  }
}, 30_000);

describe("npm start serves the reader's workspace", () => {
  it("lists the student edition: the notebooks, the lib link, no instructor cell in 08", async () => {
    const listing = await client.api("GET", "/api/contents/");
    expect(listing.status).toBe(200);
    const names: string[] = listing.json.content.map((e: any) => e.name).sort();
    const sources = fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb"));
    for (const s of sources) expect(names).toContain(s);
    expect(names).toContain("lib");
    const homework = await client.api("GET", "/api/contents/08-exercises.ipynb");
    const tags = homework.json.content.cells.flatMap((c: any) => c.metadata?.tags ?? []);
    expect(tags).not.toContain("instructor");
  });

  it("opens a notebook trusted, runs it in the kernel, saves it: outputs kept, still trusted, the sources untouched", async () => {
    const opened = await client.api("GET", `/api/contents/${NOTEBOOK}`);
    expect(opened.status).toBe(200);
    const nb = opened.json.content;
    for (const cell of codeCells(nb)) expect(cell.metadata.trusted, "every code cell opens trusted").toBe(true);

    // What the browser does on open: a session, which starts the notebook's kernel (tslab).
    const session = await client.api("POST", "/api/sessions", { path: NOTEBOOK, name: NOTEBOOK, type: "notebook", kernel: { name: "tslab" } });
    expect(session.status).toBe(201);
    const channels = await client.channels(session.json.kernel.id, session.json.id);
    const ran: ExecuteResult[] = [];
    try {
      for (const cell of codeCells(nb).slice(0, 2)) {
        const result = await channels.execute(sourceOf(cell), 90_000);
        ran.push(result);
        cell.outputs = result.outputs;
        cell.execution_count = result.executionCount;
        cell.metadata.trusted = true; // outputs made in the reader's own session are trusted, as in the browser
      }
    } finally {
      channels.close();
    }
    expect(ran.map((r) => r.status), JSON.stringify(ran.map((r) => r.outputs)).slice(0, 2000)).toEqual(["ok", "ok"]);
    const mimeTypes = ran[1].outputs.flatMap((o: any) => Object.keys(o.data ?? {}));
    expect(mimeTypes, "the demo cell shows its table and chart").toContain("text/html");

    // Save (what autosave and Ctrl-S do), a checkpoint, and a new notebook of the reader's own.
    expect((await client.api("PUT", `/api/contents/${NOTEBOOK}`, { type: "notebook", format: "json", content: nb })).status).toBe(200);
    expect((await client.api("POST", `/api/contents/${NOTEBOOK}/checkpoints`)).status).toBe(201);
    expect((await client.api("POST", "/api/contents/", { type: "notebook" })).status).toBe(201);
    expect((await client.api("DELETE", `/api/sessions/${session.json.id}`)).status).toBe(204);

    const reopened = (await client.api("GET", `/api/contents/${NOTEBOOK}`)).json.content;
    const [importCell, demoCell] = codeCells(reopened);
    expect(demoCell.outputs.length).toBeGreaterThan(0);
    expect(importCell.metadata.trusted && demoCell.metadata.trusted, "saved with its outputs, it reopens trusted").toBe(true);

    const onDisk = JSON.parse(fs.readFileSync(path.join(WORKSPACE, "student", NOTEBOOK), "utf8"));
    expect(codeCells(onDisk)[1].outputs.length).toBeGreaterThan(0);
    expect(trackedHashes()).toEqual(hashesBefore);
    expect(gitStatus()).toBe(statusBefore);
  }, 180_000);
});
