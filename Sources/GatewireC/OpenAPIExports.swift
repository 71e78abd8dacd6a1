import CGatewireABI
import GatewireOpenAPI
import Glibc

@_cdecl("gw_config_from_openapi")
public func gw_config_from_openapi(_ documentPath: UnsafePointer<CChar>?, _ server: Int32,
                                   _ outConfig: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                   _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outConfig?.pointee = nil
    outReport?.pointee = nil
    guard let documentPath, let outConfig else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_config_from_openapi: document_path or out_config is NULL")
    }
    guard server >= -1 else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_config_from_openapi: server is \(server) (an index from 0, or -1 for the first)")
    }
    do {
        let result = try OpenAPIImporter.importDocument(atPath: String(cString: documentPath), server: server < 0 ? nil : Int(server))
        outConfig.pointee = strdup(result.config)
        outReport?.pointee = strdup(result.report.jsonLines)
        return GW_OK
    } catch {
        return LastError.fail(GW_ERROR_CONFIG, error.description)
    }
}
