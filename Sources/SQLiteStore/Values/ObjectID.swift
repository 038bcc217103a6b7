import Foundation
internal import GRDB
import ObjectModel

/// An object's identity in a store: its concrete entity's number and its `Z_PK`.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// `Z_ENT`.
    public var entityNumber: Int
    /// `Z_PK`, unique within the entity's hierarchy.
    public var primaryKey: Int64

    /// An object ID.
    ///
    /// - Parameters:
    ///   - entityNumber: The object's concrete entity's number, its `Z_ENT`.
    ///   - primaryKey: Its `Z_PK`.
    public init(entityNumber: Int, primaryKey: Int64) {
        self.entityNumber = entityNumber
        self.primaryKey = primaryKey
    }

    /// `x-coredata`-like text: `<entity number>/p<pk>`.
    public var description: String { "\(entityNumber)/p\(primaryKey)" }
}
