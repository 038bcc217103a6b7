import Dispatch
import Synchronization

extension Array where Element: Sendable {
    /// `transform` of each element, as many at once as there are processors, in the elements'
    /// order: work over many fixtures spread over the cores, its assertions left to the test's
    /// thread afterwards (XCTest's assertions are not made from other threads).
    public func concurrentMap<T: Sendable>(_ transform: @Sendable (Element) throws -> T) -> [Result<T, Error>] {
        let slots = Mutex([Result<T, Error>?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let result = Result { try transform(self[index]) }
            slots.withLock { $0[index] = result }
        }
        return slots.withLock { $0.map { $0! } }
    }
}
