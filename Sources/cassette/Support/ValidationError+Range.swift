import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

extension ValidationError {
    /// A flag whose value parsed but cannot be used: names the flag, the value and what is accepted.
    static func outOfRange(_ flag: String, _ value: some CustomStringConvertible, _ accepted: String) -> ValidationError {
        ValidationError("\(flag) \(value) is out of range; use \(accepted)")
    }
}
