#!/usr/bin/env bash
# Builds the DocC documentation of the public products (WellPlateNetworking with the core types it
# re-exports, CassetteTesting and CassetteControl) with warnings as errors, so a broken link or a doc comment DocC
# cannot read fails here. Output: .build/docs/<Module>.doccarchive (open with `docc preview` or
# serve statically; `--transform-for-static-hosting` is on).
#   scripts/docs.sh              every catalog
#   scripts/docs.sh CassetteTesting
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(WellPlateCore WellPlateNetworking CassetteTesting CassetteControl)
[[ $# -ge 1 ]] && modules=("$@")

# The symbol graphs of every target, public symbols only (builds the package first if needed).
# Extension blocks too, so a member a module adds to another module's type (such as
# `Notification.Name.userUnauthorized`) gets a page that the catalogs can link to.
swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"

out=.build/docs
mkdir -p "$out"
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [[ -d $catalog ]] || { echo "error: no catalog at $catalog" >&2; exit 1; }
    # Only this module's graphs (its own and its extensions of other modules'), so DocC sees one module.
    module_graphs="$(mktemp -d)"
    trap 'rm -rf "$module_graphs"' EXIT
    cp "$graphs/$module.symbols.json" "$module_graphs/"
    for extension in "$graphs/$module@"*.symbols.json; do
        [[ -e $extension ]] && cp "$extension" "$module_graphs/"
    done
    docc convert "$catalog" --additional-symbol-graph-dir "$module_graphs" --fallback-display-name "$module" \
        --fallback-bundle-identifier "com.wellplate.$module" --warnings-as-errors --transform-for-static-hosting \
        --output-path "$out/$module.doccarchive" >"$out/$module.log" 2>&1 || { cat "$out/$module.log" >&2; exit 1; }
    if grep -q "warning:" "$out/$module.log"; then cat "$out/$module.log" >&2; exit 1; fi
    rm -rf "$module_graphs"
    echo "docs: $module -> $out/$module.doccarchive"
done
