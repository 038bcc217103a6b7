import Foundation

/// An `NSKeyedArchiver` property list, walked by hand: Linux has no Apple model classes to
/// unarchive into, and a hostile archive must give an error, never run code.
///
/// The archive is a flat `$objects` array; objects refer to each other by UID (an index).
public struct KeyedArchive {
    /// What is wrong with an archive, said in terms of its objects and keys.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public var description: String
    }

    fileprivate let objects: [Any]
    fileprivate let top: [String: Any]
    fileprivate let budget: ReferenceBudget

    /// How many times, per object, an archive's references may be followed. Readers follow
    /// each a few times; a hostile archive reuses one container (say, a dictionary of 10,000
    /// properties shared by 10,000 entities) so that a few hundred kilobytes unfold into 10^8
    /// objects. Counting every reference followed stops that, whatever the shape.
    public static let referencesPerObject = 16

    /// Parses a binary or XML plist that `NSKeyedArchiver` wrote.
    ///
    /// - Parameter data: The plist's bytes.
    /// - Throws: A `KeyedArchive.Failure` when the data is not a property list, or not a keyed
    ///   archive.
    public init(data: Data) throws {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) else {
            throw Failure(description: "not a property list")
        }
        guard let dictionary = plist as? [String: Any], let objects = dictionary["$objects"] as? [Any],
            let top = dictionary["$top"] as? [String: Any]
        else {
            throw Failure(description: "not a keyed archive (no $objects or $top)")
        }
        self.objects = objects
        self.top = top
        budget = ReferenceBudget(remaining: 10_000 + Self.referencesPerObject * objects.count)
    }

    /// The object archived under `key` at the top (`root` for most archives).
    ///
    /// - Parameter key: The key under `$top`.
    /// - Returns: The object the key refers to.
    /// - Throws: A `KeyedArchive.Failure` when there is no object under `key`, or the reference is
    ///   damaged.
    public func topObject(_ key: String = "root") throws -> ArchivedObject {
        guard let value = top[key], let object = try reference(value) else {
            throw Failure(description: "no \(key) object at the top of the archive")
        }
        return object
    }

    /// The object a UID points to; `nil` for `$null`.
    fileprivate func reference(_ value: Any) throws -> ArchivedObject? {
        guard let index = Self.uid(value) else {
            throw Failure(description: "expected an object reference, found \(type(of: value))")
        }
        guard index < objects.count else {
            throw Failure(description: "reference \(index) points past the \(objects.count) objects")
        }
        budget.remaining -= 1
        guard budget.remaining >= 0 else {
            throw Failure(
                description:
                    """
                    the archive's \(objects.count) objects are referred to over and over (objects shared where \
                    each must be its own)
                    """
            )
        }
        if index == 0 || (objects[index] as? String) == "$null" { return nil }
        return ArchivedObject(archive: self, index: index)
    }

    /// The index inside a plist UID. Foundation on Linux exposes UIDs only as a private class
    /// whose number is reachable through reflection; this is the one place that does it.
    static func uid(_ value: Any) -> Int? {
        guard String(describing: type(of: value)).contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let number = child.value as? UInt32 { return Int(number) }
            if let number = child.value as? UInt64 { return Int(clamping: number) }
        }
        return nil
    }
}

/// What is left of a ``KeyedArchive``'s references budget; a class so every copy of the archive
/// and of its objects draws on one count. Archives are read on one thread.
private final class ReferenceBudget {
    var remaining: Int
    init(remaining: Int) { self.remaining = remaining }
}

/// One object of a ``KeyedArchive``: a dictionary of keys, a string, a number or a collection.
public struct ArchivedObject {
    fileprivate let archive: KeyedArchive
    /// The object's position in `$objects`, which identifies it.
    public let index: Int

    private var raw: Any { archive.objects[index] }
    private var fields: [String: Any] { raw as? [String: Any] ?? [:] }

    /// The class name recorded for the object (`NSEntityDescription`), if it has one.
    public var className: String? {
        guard let reference = fields["$class"], let info = try? archive.reference(reference) else { return nil }
        return info.fields["$classname"] as? String
    }

    /// The whole class chain (`NSDerivedAttributeDescription`, `NSAttributeDescription`, …).
    public var classNames: [String] {
        guard let reference = fields["$class"], let info = try? archive.reference(reference) else { return [] }
        return info.fields["$classes"] as? [String] ?? []
    }

    /// The object itself as a string, if it is one (a plain string or an archived
    /// `NSMutableString`, which keeps its text under `NS.string`).
    public var stringValue: String? { raw as? String ?? fields["NS.string"] as? String }

    /// The object itself as a plain value (string, number, boolean, data).
    public var plainValue: Any? { raw is [String: Any] ? nil : raw }

    /// The object under `key`, following the reference; `nil` when absent or `$null`.
    ///
    /// - Parameter key: The key in this object.
    /// - Returns: The object referred to, or `nil` when the key is absent or refers to `$null`.
    /// - Throws: A `KeyedArchive.Failure` when the value is not a reference to an object of the
    ///   archive, or the archive's reference budget is spent.
    public func object(_ key: String) throws -> ArchivedObject? {
        guard let value = fields[key] else { return nil }
        return try archive.reference(value)
    }

    /// A string stored by reference under `key`.
    ///
    /// - Parameter key: The key in this object.
    /// - Returns: The string, or `nil` when the key is absent or refers to `$null`.
    /// - Throws: A `KeyedArchive.Failure` when the object referred to is not a string, or the
    ///   reference is damaged.
    public func string(_ key: String) throws -> String? {
        guard let object = try object(key) else { return nil }
        guard let string = object.stringValue else {
            throw KeyedArchive.Failure(description: "\(key) of object \(index) is not a string")
        }
        return string
    }

    /// An integer stored inline under `key`.
    ///
    /// - Parameter key: The key in this object.
    /// - Returns: The integer, or `nil` when the key is absent or holds no number.
    public func integer(_ key: String) -> Int? {
        switch fields[key] {
        case let number as Int: return number
        case let number as NSNumber: return number.intValue
        default: return nil
        }
    }

    /// A boolean stored inline under `key`.
    ///
    /// - Parameter key: The key in this object.
    /// - Returns: The boolean, or `nil` when the key is absent or holds no boolean or number.
    public func bool(_ key: String) -> Bool? {
        switch fields[key] {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.boolValue
        default: return nil
        }
    }

    /// The members of an `NSArray`/`NSSet` (`NS.objects`); `$null` members are skipped.
    public var members: [ArchivedObject] {
        get throws {
            guard let references = fields["NS.objects"] as? [Any] else { return [] }
            return try references.compactMap { try archive.reference($0) }
        }
    }

    /// The pairs of an `NSDictionary` (`NS.keys` with `NS.objects`), in archive order.
    public var pairs: [(key: ArchivedObject, value: ArchivedObject)] {
        get throws {
            guard let keys = fields["NS.keys"] as? [Any], let values = fields["NS.objects"] as? [Any] else { return [] }
            guard keys.count == values.count else {
                throw KeyedArchive.Failure(
                    description: "dictionary \(index) has \(keys.count) keys but \(values.count) values")
            }
            return try zip(keys, values).compactMap { key, value in
                guard let key = try archive.reference(key), let value = try archive.reference(value) else { return nil }
                return (key, value)
            }
        }
    }
}
