/// A named subset of a model's entities (`<configuration>`), which lets one model spread over
/// several stores.
public struct Configuration: Hashable, Sendable {
    /// The configuration's name (`Default` is implicit and never written).
    public var name: String
    /// The entities this configuration places in its store.
    public var entityNames: [String]
    /// XML attributes Chrysalis does not interpret (`usedWithCloudKit`, …), kept verbatim.
    public var otherXMLAttributes: [String: String]

    /// A configuration holding `entityNames`.
    ///
    /// - Parameters:
    ///   - name: The configuration's name.
    ///   - entityNames: The entities it places in its store.
    ///   - otherXMLAttributes: XML attributes Chrysalis does not interpret, kept verbatim.
    public init(name: String, entityNames: [String], otherXMLAttributes: [String: String] = [:]) {
        self.name = name
        self.entityNames = entityNames
        self.otherXMLAttributes = otherXMLAttributes
    }
}
