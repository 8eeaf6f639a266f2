// Sends rendered output to the notebook when running inside the tslab kernel, else to stdout as text.

export interface Rendered {
  html: string;
  text: string;
}

type TslabDisplay = { html(s: string): void; markdown(s: string): void; text(s: string): void };
type Tslab = { display: TslabDisplay; newDisplay(): TslabDisplay };

let tslabModule: Tslab | null | undefined;

/** The tslab module when this process is a tslab kernel that is ready to display, else null. */
export function kernel(): Tslab | null {
  if (tslabModule !== undefined) return tslabModule;
  tslabModule = null;
  // Only look for tslab when it is already loaded (we are inside its kernel): never pull it into the CLI or tests.
  const loaded = Object.keys(require.cache).some((k) => /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(k));
  if (loaded) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      tslabModule = require("tslab") as Tslab;
    } catch {
      tslabModule = null;
    }
  }
  return tslabModule;
}

export function displayHtml(rendered: Rendered): void {
  const k = kernel();
  if (k) k.display.html(rendered.html);
  else console.log(rendered.text);
}

/** Markdown in the notebook; elsewhere `text` when given (e.g. plain words for what the markdown draws as HTML
 * badges), else the markdown itself. */
export function displayMarkdown(markdown: string, text?: string): void {
  const k = kernel();
  if (k) k.display.markdown(markdown);
  else console.log(text ?? markdown);
}

/** A status line that rewrites itself in place: in the notebook an updatable display, on a terminal a \r line. */
export function statusLine(): { update(message: string): void; done(message?: string): void } {
  const k = kernel();
  if (k) {
    const d = k.newDisplay();
    return {
      update: (m) => d.text(m),
      done: (m) => d.text(m ?? ""),
    };
  }
  const tty = Boolean(process.stderr.isTTY);
  return {
    update: (m) => {
      if (tty) process.stderr.write(`\r${m}\x1b[K`);
    },
    done: (m) => {
      if (tty) process.stderr.write(`\r${m ?? ""}\x1b[K${m ? "\n" : ""}`);
    },
  };
}
