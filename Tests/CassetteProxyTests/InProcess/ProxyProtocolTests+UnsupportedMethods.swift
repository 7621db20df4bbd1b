import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

extension ProxyProtocolTests {
    /// A method the store cannot key (WebDAV's, `TRACE`, `CONNECT`) gets a 501 that lists the
    /// ones it can, and the connection goes on serving the methods it knows.
    @Test func anUnsupportedMethodGets501AndTheConnectionGoesOn() async throws {
        try await recordFixtures()
        try await withInProcessReplayer(store: store) { replayer async throws in
            let connection = try await replayer.connect()
            for method in ["PROPFIND", "TRACE", "MKCOL"] {
                try await connection.send("\(method) /api/first HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
                let answer = try #require(try await connection.receiveResponses(1).first)
                #expect(answer.status == 501, "\(method)")
                let body = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
                #expect(body["error"] as? String == "method_not_supported")
                let message = try #require(body["message"] as? String)
                #expect(message.contains(method) && message.contains("GET, POST, PUT, PATCH, DELETE, HEAD and OPTIONS"), "\(message)")
            }
            try await connection.send(RawConnection.get("/api/first"))
            #expect(try await connection.receiveResponses(1).first?.bodyText == #"{"n":1}"#)
        }
    }
}
