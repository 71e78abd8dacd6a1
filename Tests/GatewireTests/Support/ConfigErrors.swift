import Gatewire

/// The error a gateway config's JSON text is rejected with, or nil when it loads.
func configError(_ json: String) -> ConfigError? {
    do {
        _ = try GatewayConfig(json: json)
        return nil
    } catch {
        return error
    }
}
