import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore

extension CLIError {
    /// A proxy failure in the command line's words: a store failure gets the flag that fixes it,
    /// flags that cannot work together exit with status 2.
    init(_ error: ProxyError) {
        switch error.kind {
        case .store(let store): self.init(store)
        case .usage: self = .usage(error.message)
        case .failure: self.init(error.message)
        }
    }
}
