import Crypto
import Foundation

/// Core Data's version hashes, byte for byte (coredata-formats.md §f): what makes a store
/// written on an iPhone recognisable here, and a store written here acceptable to Core Data.
///
/// Every hash is SHA-256 over a little-endian byte string; an entity's hash folds in its
/// superentity's hash and the hashes of all its stored properties, inherited ones included.
public enum VersionHash {
    /// `H(name ‖ u16(optional | transient·2 | readOnly·4) ‖ [modifier])`.
    ///
    /// - Parameter property: The property's shared description.
    /// - Returns: The 32-byte hash.
    public static func propertyHash(_ property: PropertyDescription) -> Data {
        var bytes = HashInput()
        bytes.append(property.name)
        bytes.append(
            UInt16((property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0) | (property.isReadOnly ? 4 : 0)))
        if let modifier = property.versionHashModifier { bytes.append(modifier) }
        return bytes.sha256
    }

    /// The property hash plus the attribute type and the two storage flags; for a derived
    /// attribute, the hash of its derivation expression alone (Core Data's own quirk).
    ///
    /// - Parameter attribute: The attribute.
    /// - Returns: The 32-byte hash.
    public static func attributeHash(_ attribute: AttributeDescription) -> Data {
        var bytes = HashInput()
        if let expression = attribute.derivationExpression {
            bytes.append(expression)
            return bytes.sha256
        }
        bytes.append(propertyHash(attribute.property))
        bytes.append(Int32(attribute.attributeType.rawValue))
        if attribute.allowsExternalBinaryDataStorage { bytes.append(UInt8(1)) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(UInt8(1)) }
        return bytes.sha256
    }

    /// The property hash plus destination, inverse (left out when the relationship is its own
    /// inverse), max and min count, and an ordered flag.
    ///
    /// - Parameters:
    ///   - relationship: The relationship.
    ///   - entity: The entity that declares it, to tell whether it is its own inverse.
    /// - Returns: The 32-byte hash.
    public static func relationshipHash(_ relationship: RelationshipDescription, in entity: EntityDescription) -> Data {
        var bytes = HashInput()
        bytes.append(propertyHash(relationship.property))
        bytes.append(relationship.destinationEntityName)
        let isOwnInverse =
            relationship.inverseName == relationship.name
            && relationship.destinationEntityName == entity.name
        if let inverse = relationship.inverseName, !isOwnInverse { bytes.append(inverse) }
        bytes.append(UInt32(truncatingIfNeeded: relationship.maxCount))
        bytes.append(UInt32(truncatingIfNeeded: relationship.minCount))
        if relationship.isOrdered { bytes.append(UInt16(1)) }
        return bytes.sha256
    }

    /// `H(name ‖ u8(abstract) ‖ [parent hash] ‖ stored property hashes by name ‖ [modifier] ‖
    /// constraints)`: the value a store keeps per entity in `NSStoreModelVersionHashes`.
    ///
    /// - Parameters:
    ///   - entity: The entity.
    ///   - model: The model it is in, for its parent and inherited properties.
    /// - Returns: The 32-byte hash.
    public static func entityHash(_ entity: EntityDescription, in model: ManagedObjectModel) -> Data {
        var bytes = HashInput()
        bytes.append(entity.name)
        bytes.append(UInt8(entity.isAbstract ? 1 : 0))
        if let parent = model.ancestors(of: entity).first { bytes.append(entityHash(parent, in: model)) }
        let attributes = model.allAttributes(of: entity).filter { !$0.isTransient }
            .map { (name: $0.name, hash: attributeHash($0)) }
        // A relationship is hashed as declared, so an inherited self-inverse stays self-inverse.
        let relationships = (model.ancestors(of: entity) + [entity]).flatMap { declarer in
            declarer.relationships.filter { !$0.isTransient }
                .map { (name: $0.name, hash: relationshipHash($0, in: declarer)) }
        }
        for property in (attributes + relationships).sorted(by: { precedesInUTF16($0.name, $1.name) }) {
            bytes.append(property.hash)
        }
        if let modifier = entity.versionHashModifier { bytes.append(modifier) }
        let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
            .sorted(by: precedesInUTF16)
        for constraint in constraints where !constraint.isEmpty { bytes.append(constraint) }
        return bytes.sha256
    }

    /// Every entity's hash by name: the store's `NSStoreModelVersionHashes`.
    ///
    /// - Parameter model: The model.
    /// - Returns: Entity name → 32-byte hash (the first entity of a repeated name).
    public static func entityHashes(of model: ManagedObjectModel) -> [String: Data] {
        Dictionary(model.entities.map { ($0.name, entityHash($0, in: model)) }, uniquingKeysWith: { first, _ in first })
    }

    /// `NSStoreModelVersionHashesDigest`: base64 SHA-512 over each entity's name and hash, by name.
    ///
    /// - Parameter model: The model.
    /// - Returns: The digest, base64.
    public static func versionHashesDigest(of model: ManagedObjectModel) -> String {
        versionHashesDigest(ofHashes: entityHashes(of: model))
    }

    /// The version hashes digest of a model whose entities have `hashes`.
    ///
    /// - Parameter hashes: Entity name → 32-byte version hash.
    /// - Returns: The digest, base64.
    public static func versionHashesDigest(ofHashes hashes: [String: Data]) -> String {
        var bytes = HashInput()
        for (name, hash) in hashes.sorted(by: { precedesInUTF16($0.key, $1.key) }) {
            bytes.append(name)
            bytes.append(hash)
        }
        return Data(SHA512.hash(data: bytes.data)).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey` (and `VersionInfo.plist`'s checksum): base64 SHA-256 over
    /// each entity's hash, by entity name.
    ///
    /// - Parameter model: The model.
    /// - Returns: The checksum, base64.
    public static func versionChecksum(of model: ManagedObjectModel) -> String {
        versionChecksum(ofHashes: entityHashes(of: model))
    }

    /// The version checksum of a model whose entities have `hashes` (``ModelBundle/Version/entityHashes``).
    ///
    /// - Parameter hashes: Entity name → 32-byte version hash.
    /// - Returns: The checksum, base64.
    public static func versionChecksum(ofHashes hashes: [String: Data]) -> String {
        var bytes = HashInput()
        for (_, hash) in hashes.sorted(by: { precedesInUTF16($0.key, $1.key) }) { bytes.append(hash) }
        return bytes.sha256.base64EncodedString()
    }

    /// Core Data sorts names with `-[NSString compare:]`: by UTF-16 code unit, not by Swift's
    /// Unicode scalar order.
    ///
    /// - Parameters:
    ///   - lhs: A name.
    ///   - rhs: Another name.
    /// - Returns: Whether `lhs` sorts before `rhs`.
    public static func precedesInUTF16(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf16.lexicographicallyPrecedes(rhs.utf16)
    }
}

/// The byte string a hash is taken over: UTF-8 strings without terminator, little-endian integers.
private struct HashInput {
    var data = Data()

    mutating func append(_ string: String) { data.append(contentsOf: Array(string.utf8)) }
    mutating func append(_ bytes: Data) { data.append(bytes) }
    mutating func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    var sha256: Data { Data(SHA256.hash(data: data)) }
}
