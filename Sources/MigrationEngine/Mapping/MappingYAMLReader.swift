import Foundation
import ObjectModel
import Yams

/// Reads Chrysalis's readable mapping format, `Name.mapping.yaml`:
///
/// ```yaml
/// source: BookStore 3          # version names in the model bundle
/// destination: BookStore 4
/// entityMappings:              # in execution order
///   - name: PublicationToPublication
///     source: Publication
///     destination: Publication
///     policy: PublicationToPublicationMigrationPolicy
///     filter: price > 0
///     userInfo: {modelVersion: "2"}
///     attributes:
///       title: $source.title   # Core Data's expression syntax; leave a property out to infer it
///       label: '"entry"'       # a string constant: its quotes inside YAML's ("entry" alone is the key path entry)
///       note: TERNARY($source.note == nil, "none", $source.note)
///     relationships:
///       category: FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CategoryToCategory", $source.category)
/// ```
public enum MappingYAMLReader {
    /// Reads the mapping file at `url`.
    ///
    /// - Parameter url: The `Name.mapping.yaml` file; its name without `.mapping.yaml` names the
    ///   mapping.
    /// - Returns: The mapping model.
    /// - Throws: A `MappingError` when the file cannot be read as UTF-8 text, or, with the line,
    ///   when it is not a mapping file.
    public static func read(at url: URL) throws -> MappingModel {
        let data = try InputFile.read(
            url, what: "a mapping file", fix: "give the path of a Name.mapping.yaml file or a folder of them")
        guard let text = String(data: data, encoding: .utf8) else {
            throw MappingError(file: url.path, problem: "is not UTF-8 text", fix: "save the mapping file as UTF-8")
        }
        var name = url.deletingPathExtension().lastPathComponent
        if name.hasSuffix(".mapping") { name = String(name.dropLast(".mapping".count)) }
        return try read(text, name: name, file: url.path)
    }

    /// The deepest nesting of lists and mappings a mapping file may have (real ones nest four or
    /// five levels). Yams builds nodes recursively: 50,000 nested `? ` keys overflowed the stack.
    static let maximumNesting = 64

    /// Reads mapping YAML `text`; `file` names it in errors.
    ///
    /// - Parameters:
    ///   - text: The YAML.
    ///   - name: The mapping's name.
    ///   - file: The path errors name.
    /// - Returns: The mapping model.
    /// - Throws: A `MappingError` with the line, when the YAML is malformed, nested too deeply, or
    ///   not a mapping file.
    public static func read(_ text: String, name: String, file: String) throws -> MappingModel {
        if let line = lineNestedTooDeeply(text) {
            throw MappingError(
                file: file, line: line, problem: "lists and mappings are nested more than \(maximumNesting) deep",
                fix: "a mapping file nests entityMappings, attributes and userInfo only a few levels")
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw MappingError(file: file, problem: "is empty", fix: "write source, destination and entityMappings")
            }
            root = node
        } catch let error as MappingError {
            throw error
        } catch let error as YamlError {
            throw MappingError(
                file: file, problem: "is not valid YAML: \(Self.describe(error))", fix: "fix the YAML syntax")
        }
        let reader = NodeReader(file: file)
        try reader.refuseDuplicateKeys(root)
        guard root.mapping != nil else {
            throw reader.fail(root, "the top level must be a mapping with source, destination and entityMappings")
        }
        let known = ["source", "destination", "entityMappings"]
        try reader.refuseUnknownKeys(root, known: known)
        let sequence = try reader.required(root, "entityMappings")
        guard let items = sequence.sequence else { throw reader.fail(sequence, "entityMappings must be a list") }
        return MappingModel(
            name: name, sourceVersion: try reader.string(try reader.required(root, "source")),
            destinationVersion: try reader.string(try reader.required(root, "destination")),
            entityMappings: try items.map { try reader.entityMapping($0) }, file: file)
    }

    /// The line where nesting first goes past ``maximumNesting`` (see ``YAMLNesting``: measured
    /// without recursion, so any depth is safe to measure); `nil` when it never does.
    private static func lineNestedTooDeeply(_ text: String) -> Int? {
        YAMLNesting.lineNestedDeeperThan(maximumNesting, in: text)
    }

    private static func describe(_ error: YamlError) -> String {
        String(describing: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
}

/// Turns YAML nodes into mapping values, with the line of any node that is wrong.
private struct NodeReader {
    let file: String

    func fail(_ node: Node, _ problem: String, place: String? = nil, fix: String? = nil) -> MappingError {
        MappingError(file: file, line: node.mark.map { $0.line }, place: place, problem: problem, fix: fix)
    }

    func required(_ node: Node, _ key: String, place: String? = nil) throws -> Node {
        guard let value = node[key] else { throw fail(node, "\(key) is missing", place: place, fix: "add \(key): …") }
        return value
    }

    func string(_ node: Node, place: String? = nil) throws -> String {
        guard let scalar = node.scalar else { throw fail(node, "expected text here", place: place) }
        return scalar.string
    }

    func optionalString(_ node: Node?, place: String) throws -> String? {
        guard let node, node.null == nil else { return nil }
        return try string(node, place: place)
    }

    /// A key given twice in `node`'s mapping: YAML readers keep one of them silently (Yams the
    /// first), so the other's value would be lost without a word. Checked in each mapping the
    /// reader reads, never by walking the whole tree: aliases make it a graph whose walk
    /// doubles at every level (the fuzzer's alias chains took minutes).
    func refuseDuplicateKeys(_ node: Node, place: String? = nil) throws {
        var seen: [String: Int] = [:]
        for (key, _) in node.mapping ?? [:] {
            let name = key.string ?? "\(key)"
            if let first = seen[name] {
                throw fail(
                    key, "the key \"\(name)\" is given twice (first on line \(first))", place: place,
                    fix: "keep one \(name): and remove the other")
            }
            seen[name] = key.mark?.line ?? 0
        }
    }

    func refuseUnknownKeys(_ node: Node, known: [String], place: String? = nil) throws {
        for (key, _) in node.mapping ?? [:] {
            let name = key.string ?? ""
            guard known.contains(name) else {
                throw fail(
                    key, "unknown key \"\(name)\"", place: place, fix: "use one of: \(known.joined(separator: ", "))")
            }
        }
    }

    func entityMapping(_ node: Node) throws -> EntityMapping {
        guard node.mapping != nil else {
            throw fail(node, "each entity mapping must be a mapping (name, source, destination, …)")
        }
        let place =
            node["name"]?.string
            ?? EntityMapping.conventionalName(source: node["source"]?.string, destination: node["destination"]?.string)
        try refuseDuplicateKeys(node, place: place)
        try refuseUnknownKeys(
            node,
            known: [
                "name", "kind", "source", "destination", "filter", "policy", "userInfo", "attributes", "relationships",
            ], place: place)
        let kind = try optionalString(node["kind"], place: place).map { text -> EntityMapping.Kind in
            guard let kind = EntityMapping.Kind(rawValue: text) else {
                throw fail(
                    node["kind"]!, "unknown kind \"\(text)\"", place: place,
                    fix: "use one of: \(EntityMapping.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
        let filter = try optionalString(node["filter"], place: place).map { text -> Predicate in
            do { return try ExpressionParser.predicate(text) } catch {
                throw fail(node["filter"]!, "filter: \(error)", place: place, fix: "correct the predicate")
            }
        }
        let userInfo = try self.userInfo(node["userInfo"], place: place)
        return EntityMapping(
            name: try optionalString(node["name"], place: place), kind: kind,
            source: try optionalString(node["source"], place: place),
            destination: try optionalString(node["destination"], place: place),
            filter: filter, policyName: try optionalString(node["policy"], place: place), userInfo: userInfo,
            attributeMappings: try properties(node["attributes"], place: place),
            relationshipMappings: try properties(node["relationships"], place: place))
    }

    /// An entity mapping's `userInfo`: text values by key, as Core Data keeps them.
    func userInfo(_ node: Node?, place: String) throws -> [String: String] {
        var userInfo: [String: String] = [:]
        guard let info = node, info.null == nil else { return userInfo }
        guard let pairs = info.mapping else {
            throw fail(info, "userInfo must be key: value pairs", place: place, fix: "write userInfo: {key: \"value\"}")
        }
        try refuseDuplicateKeys(info, place: place)
        for (key, value) in pairs {
            guard let text = value.scalar?.string else {
                throw fail(
                    value,
                    """
                    userInfo's \(key.string ?? "key") must be text, found a YAML \
                    \(value.mapping != nil ? "mapping" : "list")
                    """,
                    place: place,
                    fix: "Core Data's userInfo values are strings: write \(key.string ?? "key"): \"…\"")
            }
            userInfo[key.string ?? ""] = text
        }
        return userInfo
    }

    func properties(_ node: Node?, place: String) throws -> [PropertyMapping] {
        guard let node, node.null == nil else { return [] }
        guard let mapping = node.mapping else { throw fail(node, "expected property: expression pairs", place: place) }
        try refuseDuplicateKeys(node, place: place)
        return try mapping.map { key, value in
            guard let name = key.scalar?.string else {
                throw fail(
                    key, "a property name must be text", place: place, fix: "write the destination property's name")
            }
            return try property(name, value, place: "\(place).\(name)")
        }
    }

    /// One `name: expression` pair. A value that is not text (`price: {a: 1}`, `tags: [a, b]`)
    /// is refused rather than taken for "inferred"; so is text YAML quoted that reads as a bare
    /// key path (`label: "entry"`), the quotes being YAML's, not the expression's.
    private func property(_ name: String, _ value: Node, place: String) throws -> PropertyMapping {
        // `title:`, `title: ~` and `title: ""` read as "no expression", which a reader may take
        // for "no value" and Chrysalis would run as Core Data's default ($source.title).
        let empty = value.null != nil || (value.scalar?.string.isEmpty ?? false)
        guard !empty else {
            throw fail(
                value, "\(name) has no value expression", place: place,
                fix:
                    """
                    leave \(name) out to map it as Core Data does by default ($source.\(name) where the source has \
                    it), or write \(name): nil for no value
                    """
            )
        }
        guard let scalar = value.scalar else {
            throw fail(
                value, "expected a value expression, found a YAML \(value.mapping != nil ? "mapping" : "list")",
                place: place,
                fix: "write the expression as text, in quotes when it starts with { or [ (\(name): '{1, 2}')")
        }
        let text = scalar.string
        let quoted = scalar.style == .singleQuoted || scalar.style == .doubleQuoted
        let expression: Expression
        do {
            expression = try ExpressionParser.expression(text)
        } catch {
            throw fail(
                value, "\(error)", place: place,
                fix: quoted
                    ? "correct the value expression; for the text \(text), write \(name): \(Self.yamlConstant(text))"
                    : "correct the value expression")
        }
        if quoted, case .keyPath(.evaluatedObject, let path) = expression {
            let keyPath = path.joined(separator: ".")
            throw fail(
                value,
                """
                \(Self.quote(text, scalar.style)) is the key path \(keyPath), not text: YAML removes its quotes \
                before the expression is read
                """,
                place: place,
                fix:
                    """
                    for the text, write a string constant inside YAML's quotes: \(name): \
                    \(Self.yamlConstant(text)); for the source's key, \(name): $source.\(keyPath)
                    """
            )
        }
        return PropertyMapping(name: name, expression: expression, text: text)
    }

    /// `text` as it was written in YAML.
    private static func quote(_ text: String, _ style: Node.Scalar.Style) -> String {
        style == .singleQuoted ? "'\(text)'" : "\"\(text)\""
    }

    /// The YAML for the string constant `text`: the expression's quotes inside YAML's single quotes.
    static func yamlConstant(_ text: String) -> String {
        "'" + Expression.literal(.string(text)).replacingOccurrences(of: "'", with: "''") + "'"
    }
}
