#!/usr/bin/env python3
"""Copies basis sets from Debian psi4-data into this folder (see README.md).

Usage: share/basis/import_psi4.py [PSI4_BASIS_DIR]   (default /usr/share/psi4/basis)

For each set in SETS: reads NAME.gbs, records its first line (spherical or
cartesian) in index.yaml, strips that line and any effective-core-potential
blocks, records the elements whose ECP was stripped, drops the orbital basis
of those elements too (cyclocc cannot use it without the ECP; psi4-data's
def2-tzvpp Rb block is also malformed), and writes NAME.g94.
The build and the tests never run this script; it documents how the files
were made and can regenerate them.
"""
import os
import re
import sys

SETS = [
    "sto-3g", "3-21g",
    "6-31g", "6-31gs", "6-31gss", "6-31g_d_", "6-31g_d_p_",
    "6-31pg", "6-31pgs", "6-31pgss", "6-31ppg", "6-31ppgs", "6-31ppgss",
    "6-311g", "6-311gs", "6-311gss", "6-311g_d_", "6-311g_d_p_",
    "6-311pgs", "6-311pgss", "6-311ppgs", "6-311ppgss", "6-311ppg_2d_2p_",
    "cc-pvdz", "cc-pvtz", "cc-pvqz",
    "aug-cc-pvdz", "aug-cc-pvtz", "aug-cc-pvqz",
    "cc-pcvdz", "cc-pcvtz", "cc-pwcvdz", "cc-pwcvtz",
    "def2-svp", "def2-tzvp", "def2-tzvpp", "def2-svpd", "def2-tzvpd",
]

ECP_HEADER = re.compile(r"^\s*([A-Za-z]{1,3})-ECP\s+\d+\s+\d+\s*$")
ELEMENT_LINE = re.compile(r"^\s*([A-Za-z]{1,3})\s+0\s*$")


def split_ecp(lines, name):
    """Returns (orbital-basis lines, [elements whose ECP block was removed])."""
    first = None
    for i, line in enumerate(lines):
        if ECP_HEADER.match(line):
            # the block starts at the element line just before the ECP header
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if not ELEMENT_LINE.match(lines[j]):
                sys.exit(f"{name}: ECP header at line {i + 2} not preceded by an element line")
            first = j
            break
    if first is None:
        return lines, []
    kept, removed = lines[:first], lines[first:]
    elements = []
    for i, line in enumerate(removed):
        m = ECP_HEADER.match(line)
        if m:
            elements.append(m.group(1).capitalize())
        elif ELEMENT_LINE.match(line):
            nxt = removed[i + 1] if i + 1 < len(removed) else ""
            if not ECP_HEADER.match(nxt):
                sys.exit(f"{name}: orbital basis block after the ECP section: {line.strip()}")
    if any("****" in l for l in removed):
        sys.exit(f"{name}: '****' after the first ECP block; ECP section is not at the end")
    # drop the trailing comment block that introduced the ECP section
    while kept and (not kept[-1].strip() or kept[-1].lstrip().startswith("!")):
        kept.pop()
    kept.append("")
    return kept, elements


def drop_elements(lines, elements):
    """Removes the orbital-basis blocks ("SYM 0" ... "****") of `elements`."""
    wanted = {e.lower() for e in elements}
    out, skipping = [], False
    for line in lines:
        m = ELEMENT_LINE.match(line)
        if m and not line.lstrip().startswith("!"):
            skipping = m.group(1).lower() in wanted
        if not skipping:
            out.append(line)
        elif line.strip().startswith("****"):
            skipping = False
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/psi4/basis"
    here = os.path.dirname(os.path.abspath(__file__))
    conventions, ecps = {}, {}
    for name in SETS:
        with open(os.path.join(src, name + ".gbs"), encoding="latin-1") as f:
            lines = f.read().splitlines()
        header = lines[0].strip().lower()
        if header not in ("spherical", "cartesian"):
            sys.exit(f"{name}.gbs: first line is {lines[0]!r}, expected spherical or cartesian")
        body, elements = split_ecp(lines[1:], name)
        body = drop_elements(body, elements)
        conventions[name] = header
        if elements:
            ecps[name] = elements
        with open(os.path.join(here, name + ".g94"), "w", encoding="utf-8") as f:
            f.write(f"! {name}: copied from Debian psi4-data 1.3.2 ({name}.gbs) by import_psi4.py;\n")
            f.write(f"! header line '{header}' moved to index.yaml")
            f.write("; elements with an ECP removed\n" if elements else "\n")
            f.write("\n".join(body).rstrip("\n") + "\n")
    with open(os.path.join(here, "index.yaml"), "w") as f:
        f.write("# The shipped basis-set library (README.md). Written by import_psi4.py.\n")
        f.write("# conventions: the header line of each psi4-data file, i.e. the default\n")
        f.write("#   pure (spherical) or cartesian choice for shells with l >= 2.\n")
        f.write("# ecp_elements: elements whose effective core potential was stripped;\n")
        f.write("#   asking for them with this set is an input error.\n")
        f.write("conventions:\n")
        for name in SETS:
            f.write(f"  {name}: {conventions[name]}\n")
        f.write("ecp_elements:\n")
        for name, elements in ecps.items():
            f.write(f"  {name}: [{', '.join(elements)}]\n")


if __name__ == "__main__":
    main()
