#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the parsers that read user files
# (JSON documents, wellplate.json, registry.json, cassette.json, fixtures, stored request keys)
# and of the request-key builder the proxy feeds raw requests. Not run by CI or `swift test`.
#
#   scripts/fuzz.sh                 every target for 60 s each
#   scripts/fuzz.sh json 300        one target (json, config, request) for 300 s
#
# The library is compiled straight with swiftc (-sanitize=fuzzer,address), outside the package's
# build, so the test build never carries the instrumentation. Crashes land in .build/fuzz/crashes/;
# each one found gets a regression test in Tests/ before it is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(json config request)
[[ $# -ge 1 ]] && targets=("$1")
seconds=${2:-60}
out=.build/fuzz
mkdir -p "$out/crashes"

swift package resolve >/dev/null
checkouts=.build/checkouts
common=(-parse-as-library -O -g)

# Dependencies: plain static libraries (no fuzzer instrumentation: their coverage is not the goal).
build_dependency() { # name sources...
    local name=$1; shift
    [[ -f "$out/lib$name.a" ]] && return
    swiftc "${common[@]}" -swift-version 5 -package-name "$name" -module-name "$name" -emit-library -static -emit-module \
        -emit-module-path "$out/$name.swiftmodule" -o "$out/lib$name.a" "$@"
}
build_dependency Logging $(find "$checkouts/swift-log/Sources/Logging" -name '*.swift')
build_dependency HTTPTypes $(find "$checkouts/swift-http-types/Sources/HTTPTypes" -name '*.swift')
# swift-crypto, whose SHA-256 and HMAC the core uses, is BoringSSL's C and assembly underneath: SwiftPM
# builds it, and its objects are archived once.
swift build -c release --target Crypto >/dev/null
release=$(swift build -c release --show-bin-path)
if [[ ! -f $out/libCrypto.a ]]; then
    # Crypto and the targets it links: BoringSSL and its shims, and XKCP's SHA-3 where the version has it.
    for target in Crypto CryptoBoringWrapper CCryptoBoringSSL CCryptoBoringSSLShims CXKCP CXKCPShims; do
        if [[ -d $release/$target.build ]]; then find "$release/$target.build" -name '*.o' -print0; fi
    done | xargs -0 ar rcs "$out/libCrypto.a"
fi

# The core and the library, instrumented. -enable-testing lets the targets reach internal entry
# points; one -package-name for all of them, as SwiftPM gives the targets of one package, lets them
# reach each other's `package` declarations.
package_name=wellplatenetworking
build_module() { # name sources...
    local name=$1; shift
    local archive="$out/lib$name.a"
    if [[ ! -f $archive ]] || [[ -n $(find "Sources/$name" -newer "$archive" -name '*.swift' | head -1) ]]; then
        swiftc "${common[@]}" -swift-version 6 -sanitize=fuzzer,address -enable-testing -package-name "$package_name" \
            -module-name "$name" -emit-library -static -emit-module -emit-module-path "$out/$name.swiftmodule" \
            -I "$out" -I "$release/Modules" -I Sources/CCurl -I Sources/CSQLite -o "$archive" "$@"
    fi
}
build_module WellPlateCore $(find Sources/WellPlateCore -name '*.swift')
build_module WellPlateNetworking $(find Sources/WellPlateNetworking -name '*.swift')

link=(-package-name "$package_name" -I "$out" -I "$release/Modules" -I Sources/CCurl -I Sources/CSQLite -L "$out"
      -lWellPlateNetworking -lWellPlateCore -lCrypto -lHTTPTypes -lLogging -lcurl -lsqlite3 -lstdc++)

for target in "${targets[@]}"; do
    extra=()
    case $target in
        json) source=Fuzz/Targets/JSONFuzz.swift ;;
        config)
            source=Fuzz/Targets/ConfigFuzz.swift
            # cassette.json's reader lives in the tools target; it needs only these files besides.
            extra=(-D FUZZ_PROXY_CONFIG Sources/CassetteTools/Config/*.swift Sources/CassetteTools/Support/CLIError.swift) ;;
        request) source=Fuzz/Targets/RequestFuzz.swift ;;
        *) echo "unknown target $target (json, config, request)" >&2; exit 2 ;;
    esac
    # ld.gold warns once per ASan helper symbol ("Cannot export local symbol"); nothing else is hidden.
    swiftc "${common[@]}" -swift-version 6 -sanitize=fuzzer,address -module-name "Fuzz_$target" "$source" \
        $(printf '%s\n' "${extra[@]}" | sort -u) "${link[@]}" -o "$out/fuzz-$target" 2>&1 | { grep -v "Cannot export local symbol" || true; }
    [[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1

    # Seeds: the JSON documents the repository holds as examples and test data (README and docs
    # code blocks, raw string literals in the tests).
    corpus="$out/corpus-$target"
    mkdir -p "$corpus"
    python3 - "$corpus" <<'SEEDS'
import hashlib, pathlib, re, sys
corpus = pathlib.Path(sys.argv[1])
documents = []
for path in [pathlib.Path("README.md"), *pathlib.Path("docs").glob("*.md")]:
    documents += re.findall(r"```(?:json)?\n([\[{].*?)```", path.read_text(), re.S)
for path in pathlib.Path("Tests").rglob("*.swift"):
    documents += re.findall(r'#"([\[{].*?)"#', path.read_text())
    documents += re.findall(r'"""\n\s*([\[{].*?)"""', path.read_text(), re.S)
for document in documents:
    data = document.encode()
    (corpus / ("seed-" + hashlib.sha1(data).hexdigest()[:12])).write_bytes(data)
SEEDS
    if [[ $target == request ]]; then
        printf '\x10GET /api/users?b=2&a=1&_=3 HTTP/1.1\r\nHost: x\r\n\r\n' >"$corpus/seed-get"
        printf '\x00POST /api/nutrition/analyze HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{"food":"apple","grams":150}' >"$corpus/seed-post"
        printf '\x02PUT /a%%2Fb?x=%%41 HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nb=2&a=1&request_id=9' >"$corpus/seed-form"
    fi

    echo "== fuzz-$target: ${seconds}s"
    # The Swift runtime's own backtracer would read the crashed process's memory under ASan's eyes.
    SWIFT_BACKTRACE=enable=no "$out/fuzz-$target" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/crashes/$target-" -print_final_stats=1 2>&1 | tee "$out/fuzz-$target.log" \
        | grep -aE "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::(number_of_executed_units|average_exec_per_sec)|Fatal error|ERROR: |Test unit written" || true
done
