#!/usr/bin/env bash
# Regenerates the tables that docs/config.md (hardware keys) and docs/stats.md (cycle-backend stats) hold
# between markers; the tests HwSchema.DocsHoldTheGeneratedTable and Stats.DocsHoldTheGeneratedTable fail
# until they match the code. Usage: scripts/update-doc-tables.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/steprdu"
replace() { # file marker-function table
    python3 - "$1" "$2" "$3" <<'PY'
import sys
path, fn, table = sys.argv[1], sys.argv[2], sys.argv[3].rstrip('\n') + '\n'
doc = open(path).read()
begin, end = f'<!-- BEGIN {fn}() -->\n', f'<!-- END {fn}() -->'
i, j = doc.index(begin) + len(begin), doc.index(end)
open(path, 'w').write(doc[:i] + table + doc[j:])
PY
}
replace docs/config.md schemaMarkdown "$("$bin" list --keys)"
replace docs/stats.md statsMarkdown "$("$bin" list --stats)"
