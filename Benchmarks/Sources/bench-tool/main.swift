import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

// bench-tool: the in-process half of Benchmarks/run.sh. Every command prints one JSON object.
//   make-store DB COUNT MIX      generate a store (MIX: mixed = 200 B / 2 KB / 50 KB JSON, small = 200-1000 B,
//                                distinct = small with every body different)
//   scale DB                     open time, memory and lookup time of one store (run in a fresh process)
//   inprocess DB                 ReplayAPIClient requests/s and key normalization/s, with baselines
//   make-api-store DB COUNT      a recorded API of 100 endpoints, for codegen and openapi (Benchmarks/codegen.sh)
//   schema MEGABYTES             JSON parsing and schema inference of one large response, with a baseline
//   audit DB                     `cassette audit` of the whole store: time and peak memory
//   startup CASSETTE DB          start-up times;  count DB: rows;  report DIR DURATION ROUNDS: BENCHMARKS.md
//   record-report DIR DURATION   section 2 (record overhead) alone, as Markdown
//   tools-report DIR             sections 7 and 8 (audit, codegen and openapi) alone, as Markdown
//   make-graphql-store DB COUNT  GraphQL and REST cassettes of the same answers (Benchmarks/graphql.sh)
//   graphql-keying DB            keys/s of GraphQL bodies and of same-sized JSON bodies
//   body-keying MIB KEYS [learned]  seconds per key of one large body (Benchmarks/body-keying.sh)

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "make-store" where arguments.count == 4:
        try await StoreGenerator.make(path: arguments[1], count: Int(arguments[2])!, mix: arguments[3])
    case "make-api-store" where arguments.count == 3:
        try await APIStoreGenerator.make(path: arguments[1], count: Int(arguments[2])!)
    case "scale" where arguments.count == 2:
        try await ScaleBench.run(path: arguments[1])
    case "inprocess" where arguments.count == 2:
        try await InProcessBench.run(path: arguments[1])
    case "make-graphql-store" where arguments.count == 3:
        try await GraphQLBench.make(path: arguments[1], count: Int(arguments[2])!)
    case "graphql-keying" where arguments.count == 2:
        try await GraphQLBench.keying(path: arguments[1])
    case "body-keying" where (3...4).contains(arguments.count):
        BodyKeyingBench.run(mebibytes: Int(arguments[1])!, keys: Int(arguments[2])!, learned: arguments.count == 4 && arguments[3] == "learned")
    case "schema" where arguments.count == 2:
        try SchemaBench.run(megabytes: Int(arguments[1])!)
    case "audit" where arguments.count == 2:
        try await AuditBench.run(path: arguments[1])
    case "startup" where arguments.count == 3:
        try StartupBench.run(cassette: arguments[1], store: arguments[2])
    case "open-only" where arguments.count == 2:
        let store = try await CassetteStore.open(path: arguments[1], access: .readOnly)
        _ = try await CassetteSession.open(store: store, options: .init(cassette: StoreGenerator.cassette))
    case "open-breakdown" where arguments.count == 2:
        try await MemoryProbe.openBreakdown(path: arguments[1])
    case "memory-probe" where arguments.count == 2:
        try await MemoryProbe.run(path: arguments[1])
    case "count" where arguments.count == 2:
        let store = try await CassetteStore.open(path: arguments[1], access: .readOnly)
        Measure.printJSON(["interactions": try await store.count(cassette: nil)])
    case "record-report" where arguments.count == 3:
        print(try RecordReport.section(directory: arguments[1], duration: arguments[2]), terminator: "")
    case "tools-report" where arguments.count == 2:
        print(try ToolsReport.auditSection(directory: arguments[1]) + ToolsReport.codegenSection(directory: arguments[1]), terminator: "")
    case "report" where arguments.count == 4:
        try Report.run(directory: arguments[1], duration: arguments[2], rounds: arguments[3])
    default:
        FileHandle.standardError.write(Data("usage: bench-tool make-store DB COUNT MIX | scale DB | inprocess DB | schema MB\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("bench-tool: \(error)\n".utf8))
    exit(1)
}
