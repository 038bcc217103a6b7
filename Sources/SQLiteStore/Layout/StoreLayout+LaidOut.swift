import ObjectModel
import Synchronization

extension StoreLayout {
    /// The layouts laid out last, by what they were laid out from: the same model, numbering and
    /// tables give the same layout, so it is copied rather than worked out again (a value: no
    /// caller sees another's). Keys compare whole models, never names or hashes alone, so two
    /// models alike in their version hashes but not in their defaults are two layouts.
    final class LaidOut: Sendable {
        /// What a layout is laid out from.
        struct Key: Hashable, Sendable {
            var model: ManagedObjectModel
            var numbering: EntityNumbering?
            var storeTables: [String: [String]]?
        }

        /// The process's layouts.
        static let shared = LaidOut()

        /// At most this many are kept; past it the oldest goes. A check of a whole history asks
        /// for each version's a few times in a row, then moves on.
        static let limit = 24

        private let kept = Mutex<(layouts: [Key: StoreLayout], order: [Key])>(([:], []))

        /// The layout laid out from `key`, if it is kept.
        func layout(for key: Key) -> StoreLayout? {
            kept.withLock { $0.layouts[key] }
        }

        /// Keeps `layout`, laid out from `key`.
        func keep(_ layout: StoreLayout, for key: Key) {
            kept.withLock { kept in
                guard kept.layouts.updateValue(layout, forKey: key) == nil else { return }
                kept.order.append(key)
                if kept.order.count > Self.limit { kept.layouts[kept.order.removeFirst()] = nil }
            }
        }
    }
}
