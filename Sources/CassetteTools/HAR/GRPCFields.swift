import HTTPTypes

/// The gRPC field names HAR import and export look at.
enum GRPCFields {
    static let status = HTTPField.Name("grpc-status")!
    static let message = HTTPField.Name("grpc-message")!
    static let statusDetails = HTTPField.Name("grpc-status-details-bin")!
}
