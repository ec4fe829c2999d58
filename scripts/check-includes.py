#!/usr/bin/env python3
"""Checks every project #include against the layering of docs/architecture.md.

Usage: scripts/check-includes.py [source root]. Prints each include that crosses a layer the wrong way
(file, line, the folder it may not include) and exits 1 if there is any; CTest runs it as
IncludeDirections.
"""
import pathlib
import re
import sys

# Folder -> the project folders its files may include (its own is always allowed). The most specific
# folder wins: hw/mem/dram is its own row, not part of hw/mem's. An entry ending in / allows every folder
# below it.
ALLOWED = {
    "util": [],
    "step_ops": ["util"],
    "traces": ["util"],
    "hw/mem/dram": ["util"],
    "hw/mem/step_node": ["util"],
    "hw/config": ["hw/mem/dram", "util"],
    "hw/arch": ["hw/config", "util"],
    "hw/sim": ["util"],
    "hw/mem": ["hw/mem/dram", "hw/mem/step_node", "hw/sim", "hw/arch", "hw/config", "step_ops", "util"],
    "hw/fabric": ["hw/sim", "hw/arch", "hw/config", "step_ops", "util"],
    "hw/units": ["hw/fabric", "hw/mem", "hw/sim", "hw/arch", "hw/config", "step_ops", "util"],
    "hw/pnr": ["hw/arch", "hw/config", "step_ops", "util"],
    "hw": ["hw/", "step_ops", "util"],
    "models": ["hw/mem/step_node", "step_ops", "util"],
    "testbenches/units": ["hw/", "traces", "step_ops", "util"],
    "testbenches": ["testbenches/units", "models", "hw/", "traces", "step_ops", "util"],
    "system": ["testbenches/", "models", "hw/", "traces", "step_ops", "util"],
    "tools": ["system", "testbenches/", "models", "hw/", "traces", "step_ops", "util"],
    "python": ["system", "testbenches/", "models", "hw/", "traces", "step_ops", "util"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def owner(path):
    """The most specific folder of ALLOWED that holds `path` (a path relative to the root)."""
    best = None
    for folder in ALLOWED:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def allowed(folder, target):
    """True if a file of `folder` may include `target` (a path relative to the root)."""
    if owner(target) == folder:
        return True
    for a in ALLOWED[folder]:
        if a.endswith("/"):
            if target.startswith(a):
                return True
        elif owner(target) == a:
            return True
    return False


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    bad = []
    checked = 0
    for f in sorted(root.rglob("*")):
        if f.suffix not in (".h", ".cpp") or not f.is_file():
            continue
        rel = f.relative_to(root).as_posix()
        folder = owner(rel)
        if folder is None:  # tests, build trees: free to include anything
            continue
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or not (root / m.group(1)).exists():
                continue  # system and generated headers
            checked += 1
            if not allowed(folder, m.group(1)):
                bad.append(f"{rel}:{n}: includes {m.group(1)}, but {folder}/ may include only "
                           f"{', '.join(ALLOWED[folder]) or 'itself'}")
    for b in bad:
        print(b)
    print(f"include directions: {checked} includes checked, {len(bad)} against the layering")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
