import ChrysalisCLI

/// `MHWUserToUserPolicy`: overrides nothing, so it does what Core Data's default policy does. A
/// mapping model that names a class needs it registered all the same, or `plan` refuses it.
public struct UserToUserPolicy: EntityMigrationPolicy {
    public init() {}
}
