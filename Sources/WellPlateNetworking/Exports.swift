// Apps import one module: the core's public types (the transport protocols, the store, keys,
// redaction, JSON) are part of this library's API.
@_exported import WellPlateCore
