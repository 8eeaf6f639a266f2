// help("02.1"): a demo's parameters as a table — name, default, allowed range, meaning — in Chinese.
import type { Table } from "../core/table";
import { getDemo, listDemos, paramDoc } from "../demos/registry";
import { displayHtml } from "./display";
import { tableHtml, tableText } from "./table";

function shortJson(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** The parameter table of demo `id`. */
export function helpTable(id: string): Table {
  const demo = getDemo(id);
  return {
    id,
    title: `演示 ${demo.id}（${demo.section}）${demo.title} · 参数`,
    columns: [
      { key: "name", label: "参数", format: "text" },
      { key: "default", label: "默认值", format: "text" },
      { key: "range", label: "允许范围", format: "text" },
      { key: "meaning", label: "含义", format: "text" },
    ],
    rows: Object.keys(demo.defaults).map((k) => {
      const doc = paramDoc(demo, k);
      return { name: k, default: shortJson(demo.defaults[k]), range: doc?.range || "—", meaning: doc?.meaning ?? "—" };
    }),
    notes: [`改参数：runDemo("${id}", { 参数名: 值 })；命令行：npm run demo -- ${id} --参数名=值（npm run demo -- ${id} --help 列出同一张表）。没有列出的参数取默认值。`],
  };
}

/** Every demo: id, section, name (the table `npm run demo -- --list` prints). */
export function demoListTable(): Table {
  return {
    title: "本讲的全部演示",
    columns: [
      { key: "id", label: "演示", format: "text" },
      { key: "section", label: "章节", format: "text" },
      { key: "title", label: "内容", format: "text" },
      { key: "parameters", label: "参数个数", format: "int" },
    ],
    rows: listDemos().map((d) => ({ id: d.id, section: d.section, title: d.title, parameters: Object.keys(d.defaults).length })),
    notes: ['看某个演示的参数：help("02.1")，或 npm run demo -- 02.1 --help。'],
  };
}

/** Renders the parameter table of demo `id` (or, without an id, the list of demos). */
export function help(id?: string): void {
  const t = id === undefined ? demoListTable() : helpTable(id);
  displayHtml({ html: tableHtml(t), text: tableText(t) });
}
