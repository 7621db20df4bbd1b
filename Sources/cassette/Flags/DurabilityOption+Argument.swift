import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

extension DurabilityOption: ExpressibleByArgument {}
