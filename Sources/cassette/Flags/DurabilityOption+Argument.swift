import ArgumentParser
import CassetteProxy
import CassetteTools
import WellPlateCore
import WellPlateNetworking

extension DurabilityOption: ExpressibleByArgument {}
