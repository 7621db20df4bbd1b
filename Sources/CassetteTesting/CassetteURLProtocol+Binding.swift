import Foundation
import Synchronization
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How a protocol instance finds its test's cassette without anything shared between tests.
//
// URLSession creates protocol instances itself, from the classes in the session configuration's
// `protocolClasses`; the instance sees its request and task, never the session or its
// configuration (FoundationNetworking does not even pass `httpAdditionalHeaders` to a custom
// protocol). So the class is the one per-session thing an instance can read: every open cassette
// gets a class of its own, `CassetteURLProtocolSlot<Tag>` with a distinct `Tag`, and the table
// below maps that class to the cassette's binding. Two tests running in parallel hold different
// classes, so a request can only ever reach the cassette of the session that sent it. A class
// goes back to the pool once its test's session is invalidated and its last task has finished
// (`SlotRelease`), so the number of classes stays near the number of tests running at once.

/// Gives each slot its own type: `SlotTag<SlotTag<…<SlotZero>>>`, nested once per slot number.
enum SlotZero {}
enum SlotTag<Previous> {}

/// A `CassetteURLProtocol` class of its own per open cassette; see above.
final class CassetteURLProtocolSlot<Tag>: CassetteURLProtocol {}

extension CassetteURLProtocol {
    private struct Bindings {
        var byClass: [ObjectIdentifier: CassetteBinding] = [:]
        var slotOfClass: [ObjectIdentifier: Int] = [:]
        var freeSlots: [Int] = []
        var slotCount = 0
    }

    private static let bindings = Mutex(Bindings())

    /// A protocol class that answers from `binding` until `unbind` is called with it.
    static func bind(_ binding: CassetteBinding) -> CassetteURLProtocol.Type {
        bindings.withLock { state in
            let slot =
                state.freeSlots.popLast()
                ?? {
                    state.slotCount += 1
                    return state.slotCount - 1
                }()
            let protocolClass = slotClass(slot, SlotZero.self)
            state.byClass[ObjectIdentifier(protocolClass)] = binding
            state.slotOfClass[ObjectIdentifier(protocolClass)] = slot
            return protocolClass
        }
    }

    static func unbind(_ protocolClass: CassetteURLProtocol.Type) {
        bindings.withLock { state in
            let id = ObjectIdentifier(protocolClass)
            state.byClass[id] = nil
            if let slot = state.slotOfClass.removeValue(forKey: id) { state.freeSlots.append(slot) }
        }
    }

    /// Protocol classes bound to a cassette at the moment.
    static var boundCount: Int {
        bindings.withLock { $0.byClass.count }
    }

    static func binding(for protocolClass: AnyClass) -> CassetteBinding? {
        bindings.withLock { $0.byClass[ObjectIdentifier(protocolClass)] }
    }

    private static func slotClass<Tag>(_ remaining: Int, _ tag: Tag.Type) -> CassetteURLProtocol.Type {
        remaining == 0 ? CassetteURLProtocolSlot<Tag>.self : slotClass(remaining - 1, SlotTag<Tag>.self)
    }
}
