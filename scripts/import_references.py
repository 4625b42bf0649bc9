#!/usr/bin/env python3
"""Copies the shared reference set into regression/ (run once by a developer).

Reads ../shared/reference/energies.yaml (NWChem 7.0.2 / Psi4 1.3.2 reference
energies) and writes, for every case, a cyclocc input in regression/cases/ and
an entry in regression/references.yaml with the reference values and their
provenance. The tests read only what this script wrote into the repository.
"""
import json
import os
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "..", "shared", "reference", "energies.yaml")
ref = yaml.safe_load(open(src))

# property name in the results file <- key in energies.yaml
QUANTITIES = [
    ("scf", "scf_total_energy"),
    ("mp2", "mp2_total_energy"),
    ("ccsd", "ccsd_total_energy"),
    ("ccsd_t", "ccsd_prt_pr_total_energy"),
    ("ccsdt", "ccsdt_total_energy"),
]


def pick(values):
    """Psi4 where it exists (its SCF matches libint2 to 1e-12), else NWChem."""
    if "psi4" in values:
        return values["psi4"], "psi4"
    return values["nwchem"], "nwchem"


def write_input(path, case, method, basis):
    lines = [f"title: {json.dumps(case['description'])}", "molecule:", "  units: bohr",
             f"  charge: {case['charge']}", f"  multiplicity: {case['multiplicity']}", "  geometry: |"]
    for atom in case["geometry"]["atoms"]:
        lines.append("    " + atom)
    lines.append(f"basis: {basis}")
    lines.append(f"puream: {'true' if case['basis_type'] == 'spherical' else 'false'}")
    lines += ["scf:", f"  reference: {case['reference']}"]
    lines += ["cc:", f"  method: {method}"]
    if case["frozen_core"]:
        lines.append(f"  frozen_core: {case['frozen_core']}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


runs = []
for case in ref["cases"]:
    cid = case["id"]
    basis = case["basis"].lower()
    if "basis_explicit_gbs" in case:
        gbs = os.path.join(top, "regression", "cases", f"{cid}.g94")
        with open(gbs, "w") as f:
            f.write("! " + case["basis_note"].replace("\n", " ") + "\n")
            for element, text in case["basis_explicit_gbs"].items():
                f.write(text if text.endswith("\n") else text + "\n")
        basis = f"{cid}.g94"
    energies = case["energies"]
    for method, keys in (("ccsd(t)", ["scf", "mp2", "ccsd", "ccsd_t"]), ("ccsdt", ["ccsdt"])):
        present = [k for k in keys if k in energies]
        if not present:
            continue
        name = cid if method == "ccsd(t)" else f"{cid}_ccsdt"
        write_input(os.path.join(top, "regression", "cases", f"{name}.yaml"), case, method, basis)
        quantities = {"nuclear_repulsion_energy": {"value": case["nuclear_repulsion"], "source": "psi4"}}
        for key, prop in QUANTITIES:
            if key in present:
                value, source = pick(energies[key])
                quantities[prop] = {"value": value, "source": source}
        runs.append({
            "id": name,
            "input": f"cases/{name}.yaml",
            "description": case["description"],
            "reference": case["reference"],
            "frozen_core": case["frozen_core"],
            "ranks": [1, 2],
            "tolerance": 1.0e-8,
            "quantities": quantities,
            "provenance": {
                "origin": "shared reference set energies.yaml, generated " + str(ref["generated"]),
                "nwchem": ref["programs"]["nwchem"]["version"] + " (" + ref["programs"]["nwchem"]["package"] + ")",
                "psi4": ref["programs"]["psi4"]["version"] + " (" + ref["programs"]["psi4"]["package"] + ")",
                "thresholds": case.get("thresholds", {}),
                "all_values": {k: v for k, v in energies.items() if k in keys},
                "notes": case.get("notes", ""),
                "uhf_s2": case.get("uhf_s2", {}),
            },
        })

header = """# Reference energies for the regression runner (regression/README.md).
# Copied by scripts/import_references.py from the shared reference set:
#   NWChem 7.0.2 (TCE) and Psi4 1.3.2, both from Debian, bohr geometries, c1 symmetry.
# Each run names a cyclocc input and the results-file properties to compare,
# each with its reference value and the program it came from.
"""
with open(os.path.join(top, "regression", "references.yaml"), "w") as f:
    f.write(header)
    class NoAliases(yaml.SafeDumper):
        def ignore_aliases(self, data):
            return True
    yaml.dump({"runs": runs}, f, Dumper=NoAliases, sort_keys=False, width=100)
print(f"wrote {len(runs)} runs")
