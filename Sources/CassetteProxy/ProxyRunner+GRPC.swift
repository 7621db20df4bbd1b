import CassetteServing
import Foundation
import WellPlateCore

extension ProxyRunner {
    /// gRPC's options with their schema: the `--protoset` files read (and kept in the store when
    /// it is writable, so replay, `show`, `dump` and the UI need nothing else), with the
    /// descriptors the store already holds. (The upstream's reflection is asked by `GRPCModule`
    /// when it records a call of a method these do not describe.)
    func loadedGRPCOptions(store: CassetteStore) async throws(ProxyError) -> GRPCOptions {
        var options = settings.grpc
        var schema = ProtoSchema()
        for path in options.protosets {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .usage("--protoset \(path): no such file; give a FileDescriptorSet as `protoc --include_imports --descriptor_set_out=FILE` writes it")
            }
            let files: [(name: String, descriptor: Data)]
            do {
                files = try ProtoSchema.files(ofDescriptorSet: data)
                for file in files { try schema.add(fileDescriptor: file.descriptor) }
            } catch {
                throw .usage("--protoset \(path) is not a FileDescriptorSet (\(error)); write one with `protoc --include_imports --descriptor_set_out=FILE`")
            }
            if policy.records {
                do {
                    try await store.storeProtoFiles(files, source: "protoset " + URL(fileURLWithPath: path).lastPathComponent)
                } catch {
                    throw .store(error, cassette: cassette)
                }
            }
        }
        do {
            schema.merge(try await store.protoSchema())
        } catch {
            throw .store(error, cassette: cassette)
        }
        options.schema = schema
        return options
    }
}
