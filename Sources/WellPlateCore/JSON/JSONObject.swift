/// The members of a JSON object in document order, with unique keys.
///
/// Keys are compared by their UTF-8 bytes (Unicode code points), as JSON and JavaScript compare
/// them: `"é"` written precomposed and as `e` + U+0301 are two keys, although `String ==` calls them
/// equal. Lookups are linear: response objects are small, and keeping one array (rather than an
/// array plus a dictionary) makes parsing cheaper. Equality ignores member order.
public struct JSONObject: Sendable {
    /// One member: a key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// The members in document order; change them through the subscript or `removeValue(forKey:)`.
    public private(set) var members: [Element]

    /// An empty object.
    public init() {
        members = []
    }

    /// The members in the given order. A repeated key keeps its first position and its last value,
    /// as `JSON.parse` in JavaScript does.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in members {
            self[key] = value
        }
    }

    /// Takes members already known to have unique keys (the parser checks as it goes).
    init(uniqueMembers: [Element]) {
        members = uniqueMembers
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The position of the member named `key` (compared byte for byte), or `nil` when there is none.
    public func index(forKey key: String) -> Int? {
        members.firstIndex { Self.isSameKey($0.key, key) }
    }

    /// Byte-for-byte key equality. `String ==` goes first because it is the fast way to a "no";
    /// its "yes" also covers canonically equivalent keys, which the byte check then tells apart.
    @inline(__always)
    static func isSameKey(_ lhs: String, _ rhs: String) -> Bool {
        lhs == rhs && lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Reading returns the member's value; assigning replaces it in place or appends a new member;
    /// assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            index(forKey: key).map { members[$0].value }
        }
        set {
            let existing = index(forKey: key)
            switch (existing, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// Removes the member named `key` and returns its value, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        return members.remove(at: index).value
    }

    /// The members ordered by key, comparing keys by their UTF-8 bytes (Unicode code point order),
    /// which does not depend on locale or normalization.
    public var sortedMembers: [Element] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}

extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    public var startIndex: Int { members.startIndex }
    /// The position past the last member.
    public var endIndex: Int { members.endIndex }
    /// The member at `position`, in document order.
    public subscript(position: Int) -> Element { members[position] }
}

// Hashing a key's String is normalization-insensitive, so keys equal byte for byte hash alike.
extension JSONObject: Hashable {
    /// Whether both objects have the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the members independently of their order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==: a commutative sum of the members' own hashes.
        var sum = 0
        for (key, value) in members {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            sum &+= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(sum)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a dictionary literal; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
