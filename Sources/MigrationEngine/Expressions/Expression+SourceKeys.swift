/// The keys of the source object an expression reads: what a mapping carries of a property the
/// destination no longer has, so that a plan never calls it dropped (WooCommerce 9 → 10 copies
/// `$source.status` into `statusKey`).
extension Expression {
    /// Every key this expression reads of the source object (`$source.status`, `status`,
    /// `SELF.status`: the first key of each key path on it), through every sub-expression; `*`
    /// when it hands the object itself to something (a `FUNCTION` on `$source`), which may read
    /// any key.
    var sourceKeys: Set<String> {
        switch self {
        case .constant, .evaluatedObject: return []
        case .variable(let name): return name == "source" ? ["*"] : []
        case .keyPath(let base, let path):
            switch base {
            case .variable("source"), .evaluatedObject: return path.first.map { [$0] } ?? ["*"]
            default: return base.sourceKeys
            }
        case .arithmetic(_, let lhs, let rhs): return lhs.sourceKeys.union(rhs.sourceKeys)
        case .negate(let operand): return operand.sourceKeys
        case .function(let receiver, _, let arguments):
            return arguments.reduce(receiver.sourceKeys) { $0.union($1.sourceKeys) }
        case .builtin(_, let arguments), .aggregate(let arguments):
            return arguments.reduce([]) { $0.union($1.sourceKeys) }
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return predicate.sourceKeys.union(whenTrue.sourceKeys).union(whenFalse.sourceKeys)
        }
    }
}

extension Predicate {
    /// Every key of the source object the predicate reads (see ``Expression/sourceKeys``).
    var sourceKeys: Set<String> {
        switch self {
        case .truePredicate, .falsePredicate: return []
        case .comparison(let lhs, _, let rhs, _): return lhs.sourceKeys.union(rhs.sourceKeys)
        case .and(let parts), .or(let parts): return parts.reduce([]) { $0.union($1.sourceKeys) }
        case .not(let inner): return inner.sourceKeys
        }
    }
}
