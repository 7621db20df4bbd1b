import CassetteKernel
import CassetteServing
import WellPlateCore

/// WebSocket as a protocol module: every listener serving a cassette offers its conversations
/// through the kernel's protocol switches, replayed, recorded or relayed as the serving policy
/// decides (`WebSocketService`).
package struct WebSocketModule: ServingProtocol {
    package init() {}

    package func offer(on listener: ServingListener) -> (switch: ProtocolSwitches.Switch, service: any ConversationServing)? {
        let service = WebSocketService(listener)
        return (service.protocolSwitch, service)
    }
}
