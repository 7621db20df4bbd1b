import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("URL normalization")
struct URLNormalizerTests {
    private static func normalized(_ target: String, rules: MatchingRules = .default) -> String {
        URLNormalizer.normalize(target: target, rules: rules).pathAndQuery
    }

    @Test(
        "scheme and host are lower-cased, default ports and user info dropped",
        arguments: [
            ("HTTPS://API.Example.COM/a", "https://api.example.com"),
            ("http://example.com:80/a", "http://example.com"),
            ("https://example.com:443/a", "https://example.com"),
            ("https://example.com:0443/a", "https://example.com"),
            ("http://example.com:443/a", "http://example.com:443"),
            ("https://example.com:80/a", "https://example.com:80"),
            ("https://example.com:8443/a", "https://example.com:8443"),
            ("http://example.com:/a", "http://example.com"),
            ("http://user:secret@Example.com/a", "http://example.com"),
            ("http://[::1]:8080/a", "http://[::1]:8080"),
            ("http://[::1]:80/a", "http://[::1]"),
            ("https://example.com", "https://example.com"),
            ("https://example.com?q=1", "https://example.com"),
        ])
    func origin(url: String, expected: String) {
        #expect(URLNormalizer.normalize(target: url).origin == expected)
    }

    @Test func originFormTargetsHaveNoOrigin() {
        #expect(URLNormalizer.normalize(target: "/a?b=1").origin == nil)
        #expect(URLNormalizer.normalize(target: "a:b/c").origin == nil)
    }

    @Test(
        "path: dot-segments removed (RFC 3986 §5.2.4)",
        arguments: [
            ("/a/./b/../c", "/a/c"),
            ("/a/b/c/./../../g", "/a/g"),
            ("/a/b/..", "/a/"),
            ("/a/b/.", "/a/b/"),
            ("/..", "/"),
            ("/../a", "/a"),
            ("/./a", "/a"),
            ("/a/..//b", "//b"),
            ("/a//../b", "/a/b"),
            ("/a/.../b", "/a/.../b"),
            ("/a/.b/..c", "/a/.b/..c"),
            ("/a/%2E%2E/b", "/b"),
            ("/a/%2e/b", "/a/b"),
        ])
    func dotSegments(path: String, expected: String) {
        #expect(Self.normalized(path) == expected)
    }

    @Test(
        "path: percent-encoding normalized",
        arguments: [
            ("/%7Euser/%41%42%2d%5F", "/~user/AB-_"),
            ("/a%2fb", "/a%2Fb"),
            ("/a%3ab", "/a%3Ab"),
            ("/caf%c3%a9", "/caf%C3%A9"),
            ("/a%zzb", "/a%25zzb"),
            ("/a%", "/a%25"),
            ("/a%4", "/a%254"),
            ("/a b", "/a%20b"),
            ("/a{b}|c", "/a%7Bb%7D%7Cc"),
            ("/caf\u{e9}", "/caf%C3%A9"),
            ("/a+b", "/a+b"),
            ("/a:b@c;d=e,f!$&'()*", "/a:b@c;d=e,f!$&'()*"),
        ])
    func pathPercentEncoding(path: String, expected: String) {
        #expect(Self.normalized(path) == expected)
    }

    @Test(
        "path: empty becomes /, fragment dropped, case and slashes kept",
        arguments: [
            ("https://example.com", "/"),
            ("https://example.com?", "/"),
            ("https://example.com#top", "/"),
            ("", "/"),
            ("/a#fragment", "/a"),
            ("/a?q=1#fragment", "/a?q=1"),
            ("/A/b", "/A/b"),
            ("/a/", "/a/"),
            ("/a//b", "/a//b"),
            ("api/users", "/api/users"),
        ])
    func pathShape(target: String, expected: String) {
        #expect(Self.normalized(target) == expected)
    }

    @Test(
        "query: sorted by name, repeated names keep their order, empty parts removed",
        arguments: [
            ("/a?b=2&a=1", "/a?a=1&b=2"),
            ("/a?x=2&a=1&x=1", "/a?a=1&x=2&x=1"),
            ("/a?b=1&B=2&_=3", "/a?B=2&_=3&b=1"),
            ("/a?", "/a"),
            ("/a?&&", "/a"),
            ("/a?&b=1&&a=2&", "/a?a=2&b=1"),
            ("/a?#frag", "/a"),
        ])
    func queryOrder(target: String, expected: String) {
        #expect(Self.normalized(target) == expected)
    }

    @Test(
        "query: plus is a space, escapes normalized, name without = gets an empty value",
        arguments: [
            ("/a?q=a+b", "/a?q=a%20b"),
            ("/a?q=a%20b", "/a?q=a%20b"),
            ("/a?q=a%2bb", "/a?q=a%2Bb"),
            ("/a?q+x=1", "/a?q%20x=1"),
            ("/a?k=%7e%41", "/a?k=~A"),
            ("/a?k=%2f", "/a?k=%2F"),
            ("/a?k=a=b", "/a?k=a=b"),
            ("/a?k=%3D", "/a?k=%3D"),
            ("/a?flag", "/a?flag="),
            ("/a?flag=", "/a?flag="),
            ("/a?filter[name]=x", "/a?filter%5Bname%5D=x"),
            ("/a?q=%zz", "/a?q=%25zz"),
            ("/a?q=/path?x", "/a?q=/path?x"),
        ])
    func queryEncoding(target: String, expected: String) {
        #expect(Self.normalized(target) == expected)
    }

    @Test(
        "equivalent targets normalize alike",
        arguments: [
            ("/a?", "/a"),
            ("/a?flag", "/a?flag="),
            ("/a?q=a+b", "/a?q=a%20b"),
            ("/%7Ea", "/~a"),
            ("/a%2f", "/a%2F"),
            ("/a/./b/../c", "/a/c"),
            ("/a?b=1&a=2", "/a?a=2&b=1"),
            ("/a#x", "/a"),
            ("https://Example.com:443/a", "https://example.com/a"),
        ])
    func equivalent(first: String, second: String) {
        #expect(Self.normalized(first) == Self.normalized(second))
    }

    @Test(
        "different targets stay different",
        arguments: [
            ("/a", "/a/"),
            ("/A", "/a"),
            ("/a?q=a%2Bb", "/a?q=a+b"),
            ("/a%2Fb", "/a/b"),
            ("/a?x=1&x=2", "/a?x=2&x=1"),
            ("/a?q=1", "/a?Q=1"),
            ("/a?q=1", "/a?q=2"),
            ("/a//b", "/a/b"),
            ("/a?k=%3D", "/a?k=="),
        ])
    func different(first: String, second: String) {
        #expect(Self.normalized(first) != Self.normalized(second))
    }

    @Test(
        "ignored parameters are left out, by decoded name, ignoring case",
        arguments: [
            ("/a?_=123&q=1", "/a?q=1"),
            ("/a?q=1&cb=9&t=5", "/a?q=1"),
            ("/a?Timestamp=1&q=1", "/a?q=1"),
            ("/a?%63%62=1&q=1", "/a?q=1"),
            ("/a?NONCE&q=1", "/a?q=1"),
            ("/a?cbx=1&xcb=2", "/a?cbx=1&xcb=2"),
            ("/a?_=1&cb=2", "/a"),
        ])
    func ignoredParameters(target: String, expected: String) {
        let rules = MatchingRules(ignoredQueryParameters: ["_", "CB", "t", "timestamp", "nonce"])
        #expect(Self.normalized(target, rules: rules) == expected)
    }

    @Test func ignoredParameterNamesMayContainEscapedCharacters() {
        let rules = MatchingRules(ignoredQueryParameters: ["cache buster"])
        #expect(Self.normalized("/a?cache+buster=1&q=2", rules: rules) == "/a?q=2")
        #expect(Self.normalized("/a?cache%20buster=1&q=2", rules: rules) == "/a?q=2")
    }

    @Test func queryParametersAreKeptAsParts() {
        let target = URLNormalizer.normalize(target: "/a?b=2&a&c=x+y")
        #expect(
            target.query == [
                .init(name: "a", value: ""), .init(name: "b", value: "2"), .init(name: "c", value: "x%20y"),
            ])
        #expect(target.path == "/a")
    }

    @Test func foundationURLsNormalizeLikeTheirText() throws {
        let url = try #require(URL(string: "https://API.example.com:443/v1/./foods/../meals?b=2&a=1#top"))
        let target = URLNormalizer.normalize(url)
        #expect(target.pathAndQuery == "/v1/meals?a=1&b=2")
        #expect(target.origin == "https://api.example.com")
    }

    @Test func normalizingTwiceChangesNothing() {
        for target in ["/a/./b/%2e%2E/c%2f?z=1&a=%7e&a=b+c&flag", "https://X.com:8080/%41?q=%zz"] {
            let once = URLNormalizer.normalize(target: target)
            let twice = URLNormalizer.normalize(target: (once.origin ?? "") + once.pathAndQuery)
            #expect(twice == once)
        }
    }
}
