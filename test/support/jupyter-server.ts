// Drives a running Notebook 6 server the way the browser does: the REST API (contents, sessions) and a kernel's
// websocket channels (execute_request in, iopub outputs back). Node 18/20 have no WebSocket client and the project
// has no websocket package, so a minimal client (RFC 6455: text frames, client masking, no extensions) is here —
// enough for Jupyter's JSON messages. (Not a test file: vitest only collects *.test.ts.)
import { randomBytes, randomUUID } from "crypto";
import * as http from "http";
import * as net from "net";
import type { Duplex } from "stream";

/** A free loopback port (the OS picks one; Jupyter binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export class JupyterClient {
  constructor(readonly port: number, readonly token: string) {}

  url(pathname: string): string {
    return `http://127.0.0.1:${this.port}${pathname}${pathname.includes("?") ? "&" : "?"}token=${this.token}`;
  }

  async api<T = any>(method: string, pathname: string, body?: unknown): Promise<{ status: number; json: T }> {
    const r = await fetch(this.url(pathname), {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, json: (text ? JSON.parse(text) : null) as T };
  }

  /** Resolves once /api/status answers, or rejects after `seconds`. */
  async waitUntilUp(seconds: number, exited: () => string | null): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const why = exited();
      if (why !== null) throw new Error(`the server exited before answering: ${why}`);
      try {
        if ((await this.api("GET", "/api/status")).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`no answer on port ${this.port} after ${seconds} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  channels(kernelId: string, sessionId: string): Promise<KernelChannels> {
    return KernelChannels.open(this.port, `/api/kernels/${kernelId}/channels?session_id=${sessionId}&token=${this.token}`, sessionId);
  }
}

export interface NbOutput {
  output_type: string;
  [key: string]: unknown;
}
export interface ExecuteResult {
  status: string; // execute_reply's: ok | error | abort
  executionCount: number | null;
  outputs: NbOutput[]; // in nbformat's shape, as the browser would save them
}

/** One kernel's websocket: runs code and collects its outputs until the kernel is idle again. */
export class KernelChannels {
  private buffer = Buffer.alloc(0);
  private listeners = new Set<(msg: any) => void>();
  private constructor(private readonly socket: Duplex, private readonly sessionId: string) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
  }

  static open(port: number, pathWithQuery: string, sessionId: string): Promise<KernelChannels> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        path: pathWithQuery,
        headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": randomBytes(16).toString("base64") },
      });
      req.on("upgrade", (_res, socket, head) => {
        const channels = new KernelChannels(socket, sessionId);
        if (head.length > 0) channels.receive(head);
        resolve(channels);
      });
      req.on("response", (res) => reject(new Error(`websocket refused: HTTP ${res.statusCode}`)));
      req.on("error", reject);
      req.end();
    });
  }

  /** Sends execute_request on the shell channel; resolves with the reply status and the outputs in nbformat form. */
  execute(code: string, timeoutMs = 60_000): Promise<ExecuteResult> {
    const msgId = randomUUID();
    const outputs: NbOutput[] = [];
    let reply: { status: string; executionCount: number | null } | null = null;
    let idle = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(onMessage);
        reject(new Error(`no reply within ${timeoutMs} ms to: ${code.slice(0, 80)}`));
      }, timeoutMs);
      const onMessage = (msg: any) => {
        if (msg.parent_header?.msg_id !== msgId) return;
        const type = msg.header?.msg_type;
        const c = msg.content ?? {};
        if (type === "stream") outputs.push({ output_type: "stream", name: c.name, text: c.text });
        else if (type === "display_data") outputs.push({ output_type: "display_data", data: c.data, metadata: c.metadata ?? {} });
        else if (type === "execute_result") outputs.push({ output_type: "execute_result", data: c.data, metadata: c.metadata ?? {}, execution_count: c.execution_count });
        else if (type === "error") outputs.push({ output_type: "error", ename: c.ename, evalue: c.evalue, traceback: c.traceback });
        else if (type === "execute_reply") reply = { status: c.status, executionCount: c.execution_count ?? null };
        else if (type === "status" && c.execution_state === "idle") idle = true;
        if (reply && idle) {
          clearTimeout(timer);
          this.listeners.delete(onMessage);
          resolve({ ...reply, outputs });
        }
      };
      this.listeners.add(onMessage);
      this.send({
        header: { msg_id: msgId, msg_type: "execute_request", username: "test", session: this.sessionId, date: new Date().toISOString(), version: "5.3" },
        parent_header: {},
        metadata: {},
        content: { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true },
        channel: "shell",
        buffers: [],
      });
    });
  }

  close(): void {
    this.socket.write(frame(0x8, Buffer.alloc(0)));
    this.socket.end();
  }

  private send(message: unknown): void {
    this.socket.write(frame(0x1, Buffer.from(JSON.stringify(message))));
  }

  /** Unmasked server frames; a fragmented message is joined; ping is answered. */
  private fragments: Buffer[] = [];
  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const fin = (this.buffer[0] & 0x80) !== 0;
      const opcode = this.buffer[0] & 0x0f;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const payload = this.buffer.subarray(offset, offset + length);
      this.buffer = this.buffer.subarray(offset + length);
      if (opcode === 0x9) this.socket.write(frame(0xa, payload));
      if (opcode !== 0x1 && opcode !== 0x0) continue;
      this.fragments.push(Buffer.from(payload));
      if (!fin) continue;
      const text = Buffer.concat(this.fragments).toString("utf8");
      this.fragments = [];
      const msg = JSON.parse(text);
      for (const listener of [...this.listeners]) listener(msg);
    }
  }
}

/** A client frame: FIN set, masked as RFC 6455 requires of clients. */
function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const n = payload.length;
  const header = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(n, 2);
  } else if (n >= 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  const masked = Buffer.alloc(n);
  for (let i = 0; i < n; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}
