// `npm run release -- --out DIR`: writes the student edition of the course's notebooks into DIR, the folder an
// instructor hands out: the same notebooks with the reference answers and rubrics (cells tagged `instructor`) and
// the hidden tests left out, no outputs, the answer cells as the course wrote them (placeholders, solution regions
// stubbed), and nbgrader's checksum in every grade, solution and locked cell (scripts/editions.mjs). The course's
// notebooks stay the instructor copy. Nothing is executed.
//   node scripts/release.mjs --out DIR [notebooks/NN-name.ipynb …]
import * as fs from "node:fs";
import * as path from "node:path";
import { isRegionError, studentEdition } from "./editions.mjs";
import { parseOptions } from "./options.mjs";
import { listNotebooks } from "./project.mjs";

const USAGE = "npm run release -- --out DIR [notebooks/NN-name.ipynb …]";
const { values, positional } = parseOptions(process.argv.slice(2), { usage: USAGE, options: { out: { value: true } } });
if (!values.out) {
  console.error(`release: --out DIR is required (the folder to hand out)\nusage: ${USAGE}`);
  process.exit(2);
}
const outDir = path.resolve(String(values.out));
const notebooks = positional.length > 0 ? positional.map((p) => path.resolve(p)) : listNotebooks();
for (const nb of notebooks) {
  if (!fs.existsSync(nb) || !nb.endsWith(".ipynb")) {
    console.error(`release: not a notebook: ${nb}\nusage: ${USAGE}`);
    process.exit(2);
  }
}

fs.mkdirSync(outDir, { recursive: true });
let removed = 0;
for (const file of notebooks) {
  const nb = JSON.parse(fs.readFileSync(file, "utf8"));
  let student;
  try {
    student = studentEdition(nb, path.basename(file, ".ipynb"));
  } catch (e) {
    if (!isRegionError(e)) throw e;
    console.error(`release: ${path.basename(file)} ${e.message}`);
    process.exit(1);
  }
  removed += nb.cells.length - student.cells.length;
  fs.writeFileSync(path.join(outDir, path.basename(file)), JSON.stringify(student, null, 1) + "\n");
  console.log(`release: ${path.basename(file)}${nb.cells.length !== student.cells.length ? `（去掉 ${nb.cells.length - student.cells.length} 个参考答案 / 评分标准单元格）` : ""}`);
}
fs.writeFileSync(
  path.join(outDir, "README.md"),
  `# 第 11 讲 · 学生版笔记本

这些是课程笔记本的学生版：参考答案和评分标准已经去掉，答案单元格是空的（占位的 \`NaN\`）。

- 放进课程项目的 \`notebooks/\` 文件夹（替换同名文件），用 \`npm start\` 打开；笔记本从 \`./lib/index\` 导入库，所以要和 \`lib\` 链接放在一起。
- 练习在 \`08-exercises.ipynb\`：在每个「你的答案」单元格里填答案，运行它下面的检查单元格；最后一个单元格汇总进度。
- 交作业时交 \`08-exercises.ipynb\` 本身（保存后的文件）。
`,
);
console.log(`release: ${notebooks.length} notebook(s) written to ${outDir} (${removed} instructor cell(s) left out)`);
