import SQLiteStore

/// A row-by-row mapping's to-ones written with its inserts, instead of by stage 2.
///
/// Core Data sets a policy-made instance's to-ones in stage 2, from its source's. Done set-based
/// that is one `UPDATE` over every row the policy made: the table written a second time. But
/// when the to-one's target mapping ran earlier and kept its source keys, the value is known as
/// soon as the source is: its own foreign key (inside the target's keys, else nil). So while the
/// policy behaves as policies usually do — each instance of the destination entity it inserts is
/// associated with the source being visited before anything else happens to it — those to-ones
/// go into the `INSERT`, and stage 2 leaves them alone.
///
/// Anything else ends it: another insert of the entity first, a relationship written by hand, an
/// association that is not the pending one, an instance never associated. The pending instance's
/// to-ones go back to nil, and stage 2 runs its `UPDATE` as before, which writes the same values
/// over the instances already folded. The result is the same either way.
final class FoldedToOnes {
    /// One to-one: the destination relationship, the source relationship it comes from, and the
    /// target mapping's keys.
    struct Fold {
        let relationship: String
        let sourceRelationship: String
        let targetMapping: Int
        let target: AssociationTable.Identity
    }

    let mapping: Int
    let entity: String
    let entityNumber: Int
    let folds: [Fold]
    /// False once anything broke the pattern: stage 2 must then set these to-ones itself.
    private(set) var intact = true
    /// The instance inserted with folded to-ones and not yet associated, with its source.
    private var pending: (source: ObjectID, destination: ObjectID)?
    /// Whether an instance was inserted with folded to-ones and is waiting for its association.
    var hasPending: Bool { pending != nil }
    /// Instances inserted with folded to-ones and then associated.
    private(set) var confirmed = 0

    init(mapping: Int, entity: String, entityNumber: Int, folds: [Fold]) {
        (self.mapping, self.entity, self.entityNumber, self.folds) = (mapping, entity, entityNumber, folds)
    }

    /// Whether an instance of `entity` inserted now gets the folded to-ones
    /// (``setToOnes(of:from:writer:)``): only while stage 1 is `visiting` a source instance.
    /// Ends folding if an instance is pending.
    func foldsInsert(of entity: String, visiting: Bool, writer: ObjectWriter) throws -> Bool {
        guard intact, entity == self.entity else { return false }
        guard pending == nil, visiting else { try stop(writer); return false }
        return true
    }

    /// Sets `pending`'s folded to-ones from `toOne`, the to-ones of the source instance stage 1
    /// is visiting: what stage 2's UPDATE would write. Set one by one into the row, with no
    /// dictionary per instance: one showed in a policy's insert under `perf record -g`
    /// (`chrysalis-bench --scenario custom-policy`, BookStore 3 → 4).
    func setToOnes(of pending: inout PendingInsert, from toOne: [String: ObjectID], writer: ObjectWriter) throws {
        for index in folds.indices {
            guard let key = toOne[folds[index].sourceRelationship],
                let destination = folds[index].target.destination(ofKey: key.primaryKey)
            else { continue }
            try writer.setToOne(folds[index].relationship, to: destination, in: &pending)
        }
    }

    /// Records that `destination` (an instance of `entity`, with the folded to-ones) was inserted for `source`.
    func inserted(_ destination: ObjectID, for source: ObjectID) { pending = (source, destination) }

    /// An association (any mapping's, for as long as the pass runs): confirms the pending
    /// instance if it is this one. Ends folding if it could change what stage 2 would write:
    /// another pair of this mapping, a pair for an instance of the folded entity, or a new pair
    /// of a target mapping.
    func associated(source: ObjectID?, destination: ObjectID, mapping: Int, writer: ObjectWriter) throws {
        if let pending, mapping == self.mapping, pending.source == source, pending.destination == destination {
            self.pending = nil
            confirmed += 1
            return
        }
        if mapping == self.mapping || destination.entityNumber == entityNumber
            || folds.contains(where: { $0.targetMapping == mapping })
        {
            try stop(writer)
        }
    }

    /// The end of the mapping's stage 1: an instance still pending was never associated.
    func finish(_ writer: ObjectWriter) throws {
        if pending != nil { try stop(writer) }
    }

    /// Ends folding: the pending instance, never associated, gets its to-ones back to nil.
    func stop(_ writer: ObjectWriter) throws {
        if let pending {
            for fold in folds { try writer.relate(pending.destination, fold.relationship, to: []) }
            self.pending = nil
        }
        intact = false
    }

    /// The relationships stage 2 need not set for a mapping with `associations` pairs.
    func done(associations: Int) -> Set<String> {
        intact && pending == nil && confirmed == associations ? Set(folds.map(\.relationship)) : []
    }
}
