import Foundation

/// A multipart upload as browsers and URLSession send it: a preamble, a text part and a file part,
/// delimited by `boundary`.
package enum MultipartUpload {
    package static func make(
        boundary: String, caption: String = "Lunch", file: Data = Data(repeating: 7, count: 600), filename: String = "meal.jpg"
    ) -> (contentType: String, body: Data) {
        var body = Data()
        body += Data("preamble ignored\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n\(caption)\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(filename)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body += file
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }
}
