#!/usr/bin/python3
"""nbgrader's cell checksum, step by step as nbgrader/utils.py computes it (compute_checksum with is_grade,
is_solution, is_locked), for test/exercises-checksum.test.ts: nbgrader itself is not installed here (no Debian
package, and the Python package registry is not reachable), so this script repeats exactly its steps with hashlib
on the notebook as nbformat reads it, and prints {grade_id: checksum} as JSON for every cell nbgrader's
ComputeChecksums would give one (grade, solution or locked cells).

    /usr/bin/python3 test/support/nbgrader_checksum.py NOTEBOOK.ipynb
"""
import hashlib
import json
import sys

import nbformat


def is_grade(cell):
    if "nbgrader" not in cell.metadata:
        return False
    return cell.metadata["nbgrader"].get("grade", False)


def is_solution(cell):
    if "nbgrader" not in cell.metadata:
        return False
    return cell.metadata["nbgrader"].get("solution", False)


def is_locked(cell):
    if "nbgrader" not in cell.metadata:
        return False
    if is_solution(cell):
        return False
    if is_grade(cell):
        return True
    return cell.metadata["nbgrader"].get("locked", False)


def checksum(cell):
    m = hashlib.md5()
    m.update(cell.source.encode("utf-8"))
    m.update(cell.cell_type.encode("utf-8"))
    m.update(str(is_grade(cell)).encode("utf-8"))
    m.update(str(is_solution(cell)).encode("utf-8"))
    m.update(str(is_locked(cell)).encode("utf-8"))
    m.update(cell.metadata.nbgrader["grade_id"].encode("utf-8"))
    if is_grade(cell):
        m.update(str(float(cell.metadata.nbgrader["points"])).encode("utf-8"))
    return m.hexdigest()


def main():
    nb = nbformat.read(sys.argv[1], as_version=4)
    out = {}
    for cell in nb.cells:
        if is_grade(cell) or is_solution(cell) or is_locked(cell):
            out[cell.metadata.nbgrader["grade_id"]] = checksum(cell)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
