#!/usr/bin/env bash
# Regenerates the key table of docs/config.md from the schema (the test HwSchema.DocsHoldTheGeneratedTable
# fails until it matches). Usage: scripts/update-config-doc.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/steprdu"
table="$("$bin" list --keys)"
python3 - "$table" <<'PY'
import sys
table = sys.argv[1].rstrip('\n') + '\n'
path = 'docs/config.md'
doc = open(path).read()
begin, end = '<!-- BEGIN schemaMarkdown() -->\n', '<!-- END schemaMarkdown() -->'
i, j = doc.index(begin) + len(begin), doc.index(end)
open(path, 'w').write(doc[:i] + table + doc[j:])
PY
