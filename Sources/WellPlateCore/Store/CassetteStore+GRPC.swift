import Foundation

/// What a gRPC call stores beside its conversation (`GRPCCallHeads`), and the protobuf
/// descriptors of the store (`proto_files`): every tool decodes messages with them, so a store
/// needs nothing else to be shown, dumped, exported or diffed.
extension CassetteStore {
    /// Records the response HEADERS and trailers of call `id` (again: the last write wins).
    package func storeGRPCHeads(_ heads: GRPCCallHeads, conversation id: Int64) throws(CassetteStoreError) {
        try writing { connection in try Self.store(heads, conversation: id, into: connection) }
    }

    static func store(_ heads: GRPCCallHeads, conversation id: Int64, into connection: SQLiteConnection) throws {
        try connection.cachedStatement(
            "INSERT OR REPLACE INTO grpc_calls (conversation_id, response_headers, trailers, end_offset_ms) VALUES (?, ?, ?, ?)"
        )
        .run(id, heads.responseHeaders.map { HeaderLines.encode($0) }, HeaderLines.encode(heads.trailers), heads.endOffsetMilliseconds)
    }

    static func readGRPCHeads(into conversations: inout [Conversation], from connection: SQLiteConnection) throws {
        guard !conversations.isEmpty, try connection.tableNames().contains("grpc_calls") else { return }
        // A store from before schema 10, opened read-only, has no end offsets.
        let endOffset = try connection.columnNames(of: "grpc_calls").contains("end_offset_ms") ? "end_offset_ms" : "NULL"
        let statement = try connection.prepare("SELECT response_headers, trailers, \(endOffset) FROM grpc_calls WHERE conversation_id = ?")
        for index in conversations.indices {
            guard let id = conversations[index].id else { continue }
            statement.reset()
            try statement.bind(id, at: 1)
            conversations[index].grpc = try statement.firstRow { row in
                GRPCCallHeads(
                    responseHeaders: row.isNull(at: 0) ? nil : HeaderLines.decode(row.text(at: 0)), trailers: HeaderLines.decode(row.text(at: 1)),
                    endOffsetMilliseconds: row.isNull(at: 2) ? nil : row.double(at: 2))
            }
        }
    }

    /// Adds `files` (serialized `FileDescriptorProto`s by file name); a file already stored under
    /// the same name is replaced. `source` says where they came from (`protoset shop.protoset`,
    /// `reflection http://...`). Returns how many were stored.
    @discardableResult
    package func storeProtoFiles(_ files: [(name: String, descriptor: Data)], source: String) throws(CassetteStoreError) -> Int {
        guard !files.isEmpty else { return 0 }
        return try writing { connection in
            try connection.transaction {
                let insert = try connection.cachedStatement(
                    "INSERT OR REPLACE INTO proto_files (name, descriptor, source, added_at) VALUES (?, ?, ?, ?)")
                for file in files { try insert.run(file.name, file.descriptor, source, Date().timeIntervalSince1970) }
                return files.count
            }
        }
    }

    /// The stored descriptors by file name; empty for a store without any.
    package func protoFiles() throws(CassetteStoreError) -> [(name: String, descriptor: Data, source: String)] {
        try reading { connection in
            guard try connection.tableNames().contains("proto_files") else { return [] }
            return try connection.prepare("SELECT name, descriptor, source FROM proto_files ORDER BY name").mapRows { row in
                (row.text(at: 0), row.blob(at: 1), row.text(at: 2))
            }
        }
    }

    /// The schema the stored descriptors make; empty when there are none. Files that do not parse
    /// are skipped: a store written by another version must still open.
    package func protoSchema() throws(CassetteStoreError) -> ProtoSchema {
        var schema = ProtoSchema()
        for file in try protoFiles() { try? schema.add(fileDescriptor: file.descriptor) }
        return schema
    }
}

extension ProtoSchema {
    /// The `FileDescriptorProto`s of a serialized `FileDescriptorSet`, by file name, as stored.
    package static func files(ofDescriptorSet data: Data) throws(ProtoWireError) -> [(name: String, descriptor: Data)] {
        var files: [(name: String, descriptor: Data)] = []
        for (number, value) in try ProtoWireReader.fields(of: data) {
            guard number == 1, case .lengthDelimited(let file) = value else { continue }
            files.append((fileName(of: file) ?? "file\(files.count).proto", file))
        }
        return files
    }

    /// A `FileDescriptorProto`'s `name` (field 1).
    package static func fileName(of descriptor: Data) -> String? {
        guard let fields = try? ProtoWireReader.fields(of: descriptor) else { return nil }
        for (number, value) in fields where number == 1 {
            if case .lengthDelimited(let bytes) = value { return String(decoding: bytes, as: UTF8.self) }
        }
        return nil
    }
}
