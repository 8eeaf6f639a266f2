// nbgrader's cell checksum, computed the way nbgrader computes it (nbgrader/utils.py: compute_checksum, with its
// is_grade / is_solution / is_locked; written at release by its ComputeChecksums preprocessor and compared at
// autograde by OverwriteCells). Our own code, following those steps:
//   MD5 over the UTF-8 bytes of, in this order: the cell's source (the lines joined), its cell_type, then Python's
//   str() of is_grade, is_solution and is_locked ("True" / "False"), the nbgrader grade_id, and — for a grade cell
//   only — Python's str(float(points)) ("2.0", "0.5").
// nbgrader's is_locked: a solution cell is never locked, a grade cell always is, otherwise the `locked` flag.
// test/exercises-checksum.test.ts proves it against test/support/nbgrader_checksum.py and a hand-computed literal.
import { createHash } from "node:crypto";

const sourceOf = (cell) => (Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? ""));
const nbgraderMeta = (cell) => (cell?.metadata?.nbgrader && typeof cell.metadata.nbgrader === "object" ? cell.metadata.nbgrader : null);

/** Python's str() of a metadata value as nbgrader reads it with .get(key, False): True / False for booleans. */
function pythonStr(value) {
  if (value === undefined || value === false) return "False";
  if (value === true) return "True";
  return String(value);
}

/** Python's repr of a float (what str(float(x)) prints): shortest round-trip digits, "2.0" for whole numbers,
 * exponent form below 1e-4 and from 1e16 ("1e-05", "1e+16"). */
export function pythonFloatString(x) {
  const n = Number(x);
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = Math.abs(n).toExponential().split("e");
  const exponent = Number(exponentText);
  const digits = mantissa.replace(".", "");
  const sign = n < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === "" ? "0" : fraction}`;
}

export const isGradeCell = (cell) => Boolean(nbgraderMeta(cell)?.grade);
export const isSolutionCell = (cell) => Boolean(nbgraderMeta(cell)?.solution);
/** nbgrader's is_locked: never a solution cell, always a grade cell, else the `locked` flag. */
export function isLockedCell(cell) {
  const m = nbgraderMeta(cell);
  if (!m) return false;
  if (m.solution) return false;
  if (m.grade) return true;
  return Boolean(m.locked);
}

/** The checksum nbgrader's compute_checksum gives this cell (hex MD5). Throws for a cell without a grade_id. */
export function nbgraderChecksum(cell) {
  const m = nbgraderMeta(cell);
  if (!m || typeof m.grade_id !== "string") throw new Error(`nbgrader checksum: a cell without nbgrader grade_id`);
  const hash = createHash("md5");
  hash.update(Buffer.from(sourceOf(cell), "utf8"));
  hash.update(Buffer.from(String(cell.cell_type), "utf8"));
  hash.update(pythonStr(m.grade ?? false));
  hash.update(pythonStr(m.solution ?? false));
  hash.update(pythonStr(m.solution ? false : m.grade ? true : (m.locked ?? false))); // is_locked, its raw value
  hash.update(Buffer.from(m.grade_id, "utf8"));
  if (m.grade) hash.update(pythonFloatString(m.points));
  return hash.digest("hex");
}

/** Whether nbgrader's ComputeChecksums gives this cell a checksum: grade, solution or locked cells. */
export const carriesChecksum = (cell) => isGradeCell(cell) || isSolutionCell(cell) || isLockedCell(cell);

/** Writes checksum and cell_type into the nbgrader metadata of every cell that carries one (in place), as
 * nbgrader's generate_assignment does after it has removed the hidden tests. */
export function writeChecksums(nb) {
  for (const cell of nb.cells) {
    if (!carriesChecksum(cell)) continue;
    cell.metadata.nbgrader = { ...cell.metadata.nbgrader, checksum: nbgraderChecksum(cell), cell_type: cell.cell_type };
  }
  return nb;
}
